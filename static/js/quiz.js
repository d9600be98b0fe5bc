// Single-choice questions with instant feedback: "Correct" or "Not quite", and why, for every option.
import { load, remove, save, storeKey } from "./store.js";

export function init(root, page) {
  for (const el of root.querySelectorAll("[data-quiz]")) enhance(el, page);
}

function enhance(el, page) {
  const config = JSON.parse(el.querySelector("[data-quiz-config]").textContent);
  const key = storeKey(page.lesson, config.id, config.version);
  const questions = [...el.querySelectorAll("[data-question]")];
  const progress = el.querySelector("[data-progress]");
  const reset = el.querySelector("[data-reset]");
  const answers = load(key) ?? {};

  for (const details of el.querySelectorAll("[data-answer-key]")) details.hidden = true;
  reset.hidden = false;

  function show(q) {
    const n = q.dataset.question;
    const chosen = q.querySelector("input:checked");
    const feedback = q.querySelector("[data-feedback]");
    q.classList.remove("is-correct", "is-wrong");
    feedback.replaceChildren();
    if (!chosen) return;
    const right = chosen.hasAttribute("data-correct");
    q.classList.add(right ? "is-correct" : "is-wrong");
    const verdict = document.createElement("strong");
    verdict.textContent = right ? "Correct. " : "Not quite. ";
    // The explanation is the one in the server-rendered answer key (hidden once scripts run).
    const why = q.querySelector(`[data-answer-key] [data-why="${chosen.value}"]`);
    const span = document.createElement("span");
    span.append(...[...why.cloneNode(true).childNodes]);
    feedback.append(verdict, span);
    answers[n] = chosen.value;
  }

  function count() {
    if (!progress) return;
    const done = questions.filter((q) => q.querySelector("input:checked")).length;
    progress.textContent = `${done} of ${questions.length} questions answered`;
  }

  for (const q of questions) {
    const saved = answers[q.dataset.question];
    const input = saved && q.querySelector(`input[value="${CSS.escape(String(saved))}"]`);
    if (input) input.checked = true;
    show(q);
    q.addEventListener("change", () => {
      show(q);
      count();
      save(key, answers);
    });
  }
  count();

  reset.addEventListener("click", () => {
    for (const input of el.querySelectorAll("input:checked")) input.checked = false;
    for (const k of Object.keys(answers)) delete answers[k];
    for (const q of questions) show(q);
    count();
    remove(key);
    questions[0]?.querySelector("input")?.focus();
  });
}
