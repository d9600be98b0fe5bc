// {quiz} block: single-choice questions with instant feedback: "Correct" or "Not quite", and why, for every option.
// The answers are kept with the page's store (page.store: store.js, with shapes.js's `saved`).
import { num, t, tn } from "../../static/js/page/i18n.js";

/** Saved answers: {question number: option value}, only questions and options this quiz has. */
function answersShape(questions, shapes) {
  return shapes.quiz(new Map(questions.map((q) => [q.dataset.question, new Set([...q.querySelectorAll("input")].map((i) => i.value))])));
}

/** Start one quiz: `island` is its JSON island ({lesson, id, version, questions}), `page` the page's data. */
export function init(el, island, page) {
  const { dropOtherVersions, load, remove, save, saved: shapes, storeKey, watch } = page.store;
  const key = storeKey(page.lesson, island.id, island.version);
  const questions = [...el.querySelectorAll("[data-question]")];
  const progress = el.querySelector("[data-progress]");
  const reset = el.querySelector("[data-reset]");
  const shape = answersShape(questions, shapes);
  const answers = load(key, shape) ?? {};
  dropOtherVersions(page.lesson, island.id, island.version);

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
    verdict.textContent = `${right ? t("quiz.correct") : t("quiz.wrong")} `;
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
    progress.textContent = tn("quiz.answered", questions.length, { answered: num(done) });
  }

  // Saved answers come back checked; a radio the browser restored on reload counts too.
  for (const q of questions) {
    const saved = answers[q.dataset.question];
    const input = saved && q.querySelector(`input[value="${CSS.escape(saved)}"]`);
    if (input) input.checked = true;
    show(q);
    q.addEventListener("change", () => {
      show(q);
      count();
      save(key, answers);
    });
  }
  count();

  /** Show exactly `saved`'s answers (answers in another tab, or none after Reset). */
  function replace(saved) {
    for (const k of Object.keys(answers)) delete answers[k];
    for (const q of questions) {
      const value = saved[q.dataset.question];
      for (const input of q.querySelectorAll("input")) input.checked = input.value === value;
      show(q);
    }
    count();
  }

  // Answers given in another tab show here too, so this tab's next answer does not overwrite them.
  watch(key, shape, (saved) => replace(saved ?? {}));

  reset.addEventListener("click", () => {
    replace({});
    remove(key);
    questions[0]?.querySelector("input")?.focus();
  });
}
