// {quiz} block: single-choice questions with feedback for every option: "Correct" or "Not quite", and why. An answer
// counts only when the learner commits it ("Check answer", or Enter on an option): choosing an option, by pointer or
// by arrowing through the group, only selects it, so walking the options never reveals which one is right.
// The answers are kept with the page's store (page.store: store.js, with shapes.js's `saved`), each question's as
// answer.js describes it: the last answer committed beside the first one.
import { answerOf, committed } from "./answer.js";
import { num, t, tn } from "../../static/js/page/i18n.js";

/** Saved answers: {question number: {answer, first, tries}}, only questions and options this quiz has. */
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
  const answers = {};
  const take = (saved) => {
    for (const k of Object.keys(answers)) delete answers[k];
    for (const [n, value] of Object.entries(saved ?? {})) answers[n] = answerOf(value);
  };
  take(load(key, shape));
  dropOtherVersions(page.lesson, island.id, island.version);

  for (const details of el.querySelectorAll("[data-answer-key]")) details.hidden = true;
  for (const button of el.querySelectorAll("[data-check]")) button.hidden = false;
  reset.hidden = false;

  /** The feedback for the committed answer, when it is the option selected; none while another one is selected. */
  function show(q) {
    const n = q.dataset.question;
    const chosen = q.querySelector("input:checked");
    const feedback = q.querySelector("[data-feedback]");
    q.classList.remove("is-correct", "is-wrong");
    feedback.replaceChildren();
    if (!chosen || answers[n]?.answer !== chosen.value) return;
    const right = chosen.hasAttribute("data-correct");
    q.classList.add(right ? "is-correct" : "is-wrong");
    const verdict = document.createElement("strong");
    verdict.textContent = `${right ? t("quiz.correct") : t("quiz.wrong")} `;
    // The explanation is the one in the server-rendered answer key (hidden once scripts run).
    const why = q.querySelector(`[data-answer-key] [data-why="${chosen.value}"]`);
    const span = document.createElement("span");
    span.append(...[...why.cloneNode(true).childNodes]);
    feedback.append(verdict, span);
  }

  function count() {
    if (!progress) return;
    const done = questions.filter((q) => answers[q.dataset.question] !== undefined).length;
    progress.textContent = tn("quiz.answered", questions.length, { answered: num(done) });
  }

  /** The learner commits the selected option of `q` as their answer. */
  function commit(q) {
    const n = q.dataset.question;
    const chosen = q.querySelector("input:checked");
    const feedback = q.querySelector("[data-feedback]");
    if (!chosen) {
      feedback.textContent = t("quiz.choose_first");
      return;
    }
    if (answers[n]?.answer !== chosen.value) {
      answers[n] = committed(answers[n], chosen.value);
      save(key, answers);
    }
    show(q);
    count();
  }

  /**
   * Each question's committed answer selected, with its feedback; a question without one keeps what is selected
   * (the learner's choice made before this ran) unless `clear` (the browser's own restored selection is no answer).
   */
  function select(clear) {
    for (const q of questions) {
      const saved = answers[q.dataset.question]?.answer;
      const input = saved && q.querySelector(`input[value="${CSS.escape(saved)}"]`);
      if (input) input.checked = true;
      else if (clear) for (const radio of q.querySelectorAll("input")) radio.checked = false;
      show(q);
    }
  }

  // After a reload or a step back through history the browser may put back the options that were selected when the
  // page was left, committed or not, and it may do so after this runs (by the page's load): the committed answers are
  // selected again then. On any other visit an option selected now is the learner's own choice, and stays.
  const navigation = performance.getEntriesByType?.("navigation")[0]?.type;
  const restoring = navigation === "reload" || navigation === "back_forward";
  select(restoring);
  if (restoring && document.readyState !== "complete") {
    addEventListener("load", () => setTimeout(() => select(true), 0), { once: true });
  }
  for (const q of questions) {
    q.addEventListener("change", () => show(q));
    q.querySelector("[data-check]").addEventListener("click", () => commit(q));
    q.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || !event.target.matches("input[type=radio]")) return;
      event.preventDefault();
      commit(q);
    });
  }
  // The build wrote the count of none answered in the page's language; with answers saved it is counted here. (The
  // first number formatted makes the page's number format, which is not free: not on the way to the first paint.)
  if (Object.keys(answers).length) count();

  /** Show exactly `saved`'s answers (answers in another tab, or none after Reset). */
  function replace(saved) {
    take(saved);
    for (const q of questions) {
      const value = answers[q.dataset.question]?.answer;
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
