// The rule for what a lesson reports to an LMS (static/js/lms/record.js): score, success, progress, completion and
// interactions, from the lesson's saved entries.
import assert from "node:assert/strict";
import { test } from "node:test";

import { answerOf as quizAnswerOf } from "../../blocks/quiz/answer.js";
import { answerOf, exerciseResponse, interactions, record } from "../../static/js/lms/record.js";

function question(block, n, correct, label, text) {
  const id = `urn:lessonkit:c:l:${block}:${n}`;
  return { id, block, kind: "question", n, correct, description: `${label}: ${text}`,
    first: { id: `${id}:first`, description: `${label}, first attempt: ${text}` } };
}

// A lesson with a quiz of two questions, a one-question quiz, an exercise, an explanation and a lab (not counted).
const lms = {
  passing: 0.8,
  completion: "all-blocks",
  blocks: [
    { type: "quiz", id: "check", version: "c1", questions: 2 },
    { type: "quiz", id: "predict", version: "p1", questions: 1 },
    { type: "lab", id: "lab", version: "l1" },
    { type: "exercise", id: "ex", version: "e1" },
    { type: "explain", id: "say", version: "s1" },
  ],
  items: [
    question("check", 1, "2", "Question 1 (check)", "A?"),
    question("check", 2, "1", "Question 2 (check)", "B?"),
    question("predict", 1, "3", "Question (predict)", "C?"),
    { id: "urn:lessonkit:c:l:ex", block: "ex", kind: "exercise", description: "Exercise: write f" },
    { id: "urn:lessonkit:c:l:say", block: "say", kind: "explanation", description: "Explain it back: why?" },
  ],
};
const rule = { passing: 0.8, threshold: 1 };
const state = (fields) => ({ passed: false, attempts: 0, hints: 0, solution: false, ...fields });

test("nothing done: no points, success unknown, incomplete, progress 0", () => {
  assert.deepEqual(record(lms, {}, rule), { score: { raw: 0, min: 0, max: 4, scaled: 0 }, success: "unknown", progress: 0, completion: "incomplete", answered: false });
  assert.deepEqual(interactions(lms, {}), []);
});

test("everything right: passed, completed; the lab counts for nothing", () => {
  const entries = { "check:c1": { 1: "2", 2: "1" }, "predict:p1": { 1: "3" }, "ex:e1": state({ passed: true, attempts: 2 }), "say:s1": { text: "Because." }, "lab:code": { schema: 1 } };
  assert.deepEqual(record(lms, entries, rule), { score: { raw: 4, min: 0, max: 4, scaled: 1 }, success: "passed", progress: 1, completion: "completed", answered: true });
});

test("success: unknown until everything counted is answered, then passed or failed; a later answer can pass", () => {
  const right = { "check:c1": { 1: "2", 2: "1" }, "predict:p1": { 1: "3" } };
  assert.equal(record(lms, right, rule).success, "unknown"); // 3 of 4 right, but the exercise not checked yet
  const some = { "check:c1": { 1: "1", 2: "1" }, "predict:p1": { 1: "3" } };
  assert.equal(record(lms, some, rule).success, "unknown");
  const all = { ...some, "ex:e1": state({ attempts: 1 }) };
  const r = record(lms, all, rule);
  assert.deepEqual([r.score.raw, r.success, r.progress, r.completion, r.answered], [2, "failed", 3 / 5, "incomplete", true]);
  const better = { ...all, "check:c1": { 1: "2", 2: "1" }, "ex:e1": state({ attempts: 1, passed: true }) };
  assert.equal(record(lms, better, rule).success, "passed"); // 4 of 4
  assert.equal(record(lms, { ...all, "check:c1": { 1: "2", 2: "1" } }, rule).success, "failed"); // 3 of 4 = 0.75
  assert.equal(record(lms, { ...all, "check:c1": { 1: "2", 2: "1" } }, { passing: 0.75 }).success, "passed");
});

test("hints or the solution are no attempt; an empty draft is no progress", () => {
  const entries = { "check:c1": { 1: "2", 2: "1" }, "predict:p1": { 1: "3" }, "ex:e1": state({ hints: 2, solution: true }), "say:s1": { text: "  " } };
  const r = record(lms, entries, rule);
  assert.deepEqual([r.success, r.progress], ["unknown", 3 / 5]);
  assert.deepEqual(interactions(lms, entries).map((i) => i.id), ["urn:lessonkit:c:l:check:1", "urn:lessonkit:c:l:check:1:first",
    "urn:lessonkit:c:l:check:2", "urn:lessonkit:c:l:check:2:first", "urn:lessonkit:c:l:predict:1", "urn:lessonkit:c:l:predict:1:first"]);
});

test("completion: the LMS's threshold, or on opening", () => {
  const entries = { "check:c1": { 1: "2" } };
  assert.equal(record(lms, entries, { passing: 0.8, threshold: 0.2 }).completion, "completed");
  assert.equal(record(lms, {}, { passing: 0.8, completion: "opened" }).completion, "completed");
});

test("a lesson without questions or exercises has no score", () => {
  const plain = { ...lms, items: [lms.items[4]] };
  assert.deepEqual(record(plain, {}, rule), { score: null, success: "unknown", progress: 0, completion: "incomplete", answered: true });
  assert.deepEqual(record({ ...lms, items: [] }, {}, rule), { score: null, success: "unknown", progress: 1, completion: "completed", answered: true });
});

test("interactions: the option chosen, the exercise's story, the draft's text", () => {
  const entries = { "check:c1": { 2: "3" }, "ex:e1": state({ attempts: 2, hints: 1, solution: true }), "say:s1": { text: "It keeps\nthe scale." } };
  assert.deepEqual(interactions(lms, entries), [
    { id: "urn:lessonkit:c:l:check:2", type: "choice", description: "Question 2 (check): B?", correct: "1", response: "3", result: "incorrect" },
    { id: "urn:lessonkit:c:l:check:2:first", type: "choice", description: "Question 2 (check), first attempt: B?", correct: "1", response: "3", result: "incorrect" },
    { id: "urn:lessonkit:c:l:ex", type: "other", description: "Exercise: write f", correct: "passed", response: "not passed, 2 failed checks, 1 hint, solution shown", result: "incorrect" },
    { id: "urn:lessonkit:c:l:say", type: "other", description: "Explain it back: why?", response: "It keeps\nthe scale.", result: "neutral" },
  ]);
  assert.equal(exerciseResponse(state({ passed: true })), "passed");
  assert.equal(exerciseResponse(state({ passed: true, attempts: 1 })), "passed, 1 failed check");
});

test("first attempts: the final answer scores, the first one is its own interaction; an older bare value is both", () => {
  const entries = { "check:c1": { 1: { answer: "2", first: "1", tries: 2 }, 2: "1" } };
  const found = interactions(lms, entries);
  assert.deepEqual(found.map((i) => [i.id, i.response, i.result]), [
    ["urn:lessonkit:c:l:check:1", "2", "correct"], ["urn:lessonkit:c:l:check:1:first", "1", "incorrect"],
    ["urn:lessonkit:c:l:check:2", "1", "correct"], ["urn:lessonkit:c:l:check:2:first", "1", "correct"],
  ]);
  assert.equal(found[1].description, "Question 1 (check), first attempt: A?");
  assert.equal(record(lms, entries, rule).score.raw, 2);
});

test("an optional exercise counts for nothing unless the course counts it", () => {
  const withOptional = { ...lms, items: lms.items.map((it) => (it.kind === "exercise" ? { ...it, optional: true } : it)) };
  const entries = { "check:c1": { 1: "2", 2: "1" }, "predict:p1": { 1: "3" }, "say:s1": { text: "Because." } };
  assert.deepEqual(record(withOptional, entries, rule), { score: { raw: 3, min: 0, max: 3, scaled: 1 }, success: "passed", progress: 1, completion: "completed", answered: true });
  const counted = record(withOptional, entries, { ...rule, optional: "counted" });
  assert.deepEqual([counted.score.max, counted.success, counted.progress, counted.completion], [4, "unknown", 4 / 5, "incomplete"]);
  // Passed anyway, the optional exercise is still reported as an interaction.
  const passed = { ...entries, "ex:e1": state({ passed: true }) };
  assert.ok(interactions(withOptional, passed).some((i) => i.id === "urn:lessonkit:c:l:ex" && i.result === "correct"));
});

test("scoring: the final answer, or the first one with first-attempt", () => {
  const entries = { "check:c1": { 1: { answer: "2", first: "1", tries: 2 }, 2: "1" }, "predict:p1": { 1: { answer: "3", first: "2", tries: 2 } },
    "ex:e1": state({ passed: true, attempts: 1 }) };
  const final = record(lms, entries, rule);
  assert.deepEqual([final.score.raw, final.success], [4, "passed"]);
  const first = record(lms, entries, { ...rule, scoring: "first-attempt" });
  assert.deepEqual([first.score.raw, first.score.scaled, first.success], [2, 0.5, "failed"]);
  assert.equal(record({ ...lms, scoring: "first-attempt" }, entries, rule).score.raw, 2); // the page's rule, from the build
});

test("the reporter reads a question's saved value as the quiz's own answer.js does", () => {
  for (const v of [undefined, null, "2", { answer: "2", first: "1", tries: 2 }]) assert.deepEqual(answerOf(v), quizAnswerOf(v));
});
