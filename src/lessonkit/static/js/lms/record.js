// What a lesson reports to an LMS, from what its blocks saved: the rule for score, success, progress and
// completion, and the interactions. Pure functions (no API, no page), so node --test checks the rule itself.
//
// The rule (the manual's lms.md, "What an LMS records"), over the lesson's blocks that keep progress:
//   - an exercise marked optional counts for nothing (neither score nor progress) unless course.yaml's
//     scorm.optional is "counted";
//   - each quiz question counts once: answered → progress; its scored answer (the last one checked, or with
//     scorm.scoring "first-attempt" the first one) the correct option → one point;
//   - each exercise counts once: passed (a Check that passed every check) → progress and one point; checked at
//     least once → attempted;
//   - each "Explain it back" counts once: a draft with text → progress (it is not scored);
//   - a lab is not counted (it keeps the learner's edits; there is nothing to finish).
//   score.raw = points, score.min = 0, score.max = questions + exercises, score.scaled = raw / max (no score at
//   all for a lesson without questions or exercises);
//   success_status = "unknown" until every counted question is answered and every counted exercise checked, then
//   "passed" when score.scaled ≥ the passing score (the LMS's cmi.scaled_passing_score, from the manifest, else
//   course.yaml's scorm.passing), else "failed" (with final scoring a later answer can still turn it);
//   progress_measure = what counts that is done / what counts (1 for a lesson where nothing counts);
//   completion_status: with scorm.completion "all-blocks", "completed" when progress_measure reaches the
//   completion threshold (the LMS's cmi.completion_threshold, from the manifest: 1), else "incomplete"; with
//   "opened", "completed" from the first launch.
// Interactions: two per quiz question answered (type choice; learner_response the option chosen, 1, 2, …): the
// question's id with the final answer, and "<id>:first" with the first answer the learner checked; one per
// exercise checked (type other; "passed" or "not passed", with the failed checks, hints and solution, in the page's
// language), one per explanation drafted (type other; the draft's text; result neutral), each with the id and
// description the build made (lessonkit/lms/report.py).
import { t, tn } from "../course/progress.js";
import { longText } from "./scorm-values.js";

/**
 * A quiz question's saved value as {answer, first, tries}, an older page's bare option value included: the rule of
 * blocks/quiz/answer.js's answerOf (tests/js/scorm-record.test.mjs holds them equal), restated here because this
 * module loads after the page's main bundle, which holds answer.js, and shares no module with it.
 */
export function answerOf(value) {
  if (value === undefined || value === null) return null;
  return typeof value === "string" ? { answer: value, first: value, tries: 1 } : value;
}

/** The name of a block's own entry (`<block>:<version>`) in the lesson, from the lesson's progress blocks. */
export function entryNames(blocks) {
  return new Map(blocks.map((b) => [b.id, `${b.id}:${b.version}`]));
}

/** What an exercise's state says, for the LMS: "passed" / "not passed", with how it got there (the page's words). */
export function exerciseResponse(state) {
  const parts = [state.passed ? t("lms.passed") : t("lms.not_passed")];
  if (state.attempts) parts.push(tn("lms.failed_checks", state.attempts));
  if (state.hints) parts.push(tn("lms.hints", state.hints));
  if (state.solution) parts.push(t("lms.solution_shown"));
  return parts.join(", ");
}

/**
 * The interactions the entries make: [{id, type, description, correct?, response, result}], in the page's order,
 * only for what the learner did (an unanswered question has none).
 */
export function interactions(lms, entries) {
  const names = entryNames(lms.blocks);
  const out = [];
  for (const item of lms.items) {
    const value = entries[names.get(item.block)];
    if (value === undefined || value === null) continue;
    if (item.kind === "question") {
      const given = answerOf(value[String(item.n)]);
      if (!given) continue;
      out.push({ id: item.id, type: "choice", description: item.description, correct: item.correct, response: given.answer,
        result: given.answer === item.correct ? "correct" : "incorrect" });
      out.push({ id: item.first.id, type: "choice", description: item.first.description, correct: item.correct,
        response: given.first, result: given.first === item.correct ? "correct" : "incorrect" });
    } else if (item.kind === "exercise") {
      if (!value.passed && !value.attempts) continue; // hints or the solution alone are no Check
      out.push({ id: item.id, type: "other", description: item.description, correct: t("lms.passed"),
        response: exerciseResponse(value), result: value.passed ? "correct" : "incorrect" });
    } else if (item.kind === "explanation") {
      if (!value.text.trim()) continue;
      out.push({ id: item.id, type: "other", description: item.description, response: longText(value.text), result: "neutral" });
    }
  }
  return out;
}

/** Whether an item counts toward score and completion: an optional exercise only when the course counts them. */
export function counts(item, optional = "ignored") {
  return !item.optional || optional === "counted";
}

/**
 * The lesson's record from its entries: {score: {raw, min, max, scaled} | null, success, progress, completion,
 * answered} (`answered`: every counted question answered and every counted exercise checked). `passing` and
 * `threshold` are numbers (the LMS's, or the course's); `completion`, `scoring` and `optional` are course.yaml's
 * scorm.completion, scorm.scoring and scorm.optional.
 */
export function record(lms, entries, { passing, threshold = 1, completion = lms.completion, scoring = lms.scoring ?? "final",
  optional = lms.optional ?? "ignored" }) {
  const names = entryNames(lms.blocks);
  let points = 0;
  let scored = 0;
  let done = 0;
  let counted = 0;
  let answered = true;
  for (const item of lms.items) {
    if (!counts(item, optional)) continue;
    const value = entries[names.get(item.block)] ?? null;
    counted += 1;
    if (item.kind === "question") {
      scored += 1;
      const given = value ? answerOf(value[String(item.n)]) : null;
      if (!given) answered = false;
      else done += 1;
      if (given && (scoring === "first-attempt" ? given.first : given.answer) === item.correct) points += 1;
    } else if (item.kind === "exercise") {
      scored += 1;
      if (value && value.passed) {
        points += 1;
        done += 1;
      }
      if (!value || (!value.passed && !value.attempts)) answered = false;
    } else if (item.kind === "explanation") {
      if (value && value.text.trim()) done += 1;
    }
  }
  const score = scored ? { raw: points, min: 0, max: scored, scaled: points / scored } : null;
  const success = !score || !answered ? "unknown" : score.scaled >= passing ? "passed" : "failed";
  const progress = counted ? done / counted : 1;
  const complete = completion === "opened" || progress >= threshold;
  return { score, success, progress, completion: complete ? "completed" : "incomplete", answered };
}
