// The rule for what a lesson reports to an LMS (static/js/lms/record.js): score, success, progress, completion and
// interactions, from the lesson's saved entries.
import assert from "node:assert/strict";
import { test } from "node:test";

import { exerciseResponse, interactions, record } from "../../static/js/lms/record.js";

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
    { id: "urn:lessonkit:c:l:check:1", block: "check", kind: "question", n: 1, correct: "2", description: "Question 1 (check): A?" },
    { id: "urn:lessonkit:c:l:check:2", block: "check", kind: "question", n: 2, correct: "1", description: "Question 2 (check): B?" },
    { id: "urn:lessonkit:c:l:predict:1", block: "predict", kind: "question", n: 1, correct: "3", description: "Question (predict): C?" },
    { id: "urn:lessonkit:c:l:ex", block: "ex", kind: "exercise", description: "Exercise: write f" },
    { id: "urn:lessonkit:c:l:say", block: "say", kind: "explanation", description: "Explain it back: why?" },
  ],
};
const rule = { passing: 0.8, threshold: 1 };
const state = (fields) => ({ passed: false, attempts: 0, hints: 0, solution: false, ...fields });

test("nothing done: no points, success unknown, incomplete, progress 0", () => {
  assert.deepEqual(record(lms, {}, rule), { score: { raw: 0, min: 0, max: 4, scaled: 0 }, success: "unknown", progress: 0, completion: "incomplete" });
  assert.deepEqual(interactions(lms, {}), []);
});

test("everything right: passed, completed; the lab counts for nothing", () => {
  const entries = { "check:c1": { 1: "2", 2: "1" }, "predict:p1": { 1: "3" }, "ex:e1": state({ passed: true, attempts: 2 }), "say:s1": { text: "Because." }, "lab:code": { schema: 1 } };
  assert.deepEqual(record(lms, entries, rule), { score: { raw: 4, min: 0, max: 4, scaled: 1 }, success: "passed", progress: 1, completion: "completed" });
});

test("below the passing score: unknown until everything is attempted, then failed; a later answer can pass", () => {
  const some = { "check:c1": { 1: "1", 2: "1" }, "predict:p1": { 1: "3" } };
  assert.equal(record(lms, some, rule).success, "unknown"); // the exercise not checked yet
  const all = { ...some, "ex:e1": state({ attempts: 1 }) };
  const r = record(lms, all, rule);
  assert.deepEqual([r.score.raw, r.success, r.progress, r.completion], [2, "failed", 3 / 5, "incomplete"]);
  const better = { ...all, "check:c1": { 1: "2", 2: "1" }, "ex:e1": state({ attempts: 1, passed: true }) };
  assert.equal(record(lms, better, rule).success, "passed"); // 4 of 4
  assert.equal(record(lms, { ...all, "check:c1": { 1: "2", 2: "1" } }, rule).success, "failed"); // 3 of 4 = 0.75
  assert.equal(record(lms, { ...all, "check:c1": { 1: "2", 2: "1" } }, { passing: 0.75 }).success, "passed");
});

test("hints or the solution are no attempt; an empty draft is no progress", () => {
  const entries = { "check:c1": { 1: "2", 2: "1" }, "predict:p1": { 1: "3" }, "ex:e1": state({ hints: 2, solution: true }), "say:s1": { text: "  " } };
  const r = record(lms, entries, rule);
  assert.deepEqual([r.success, r.progress], ["unknown", 3 / 5]);
  assert.deepEqual(interactions(lms, entries).map((i) => i.id), ["urn:lessonkit:c:l:check:1", "urn:lessonkit:c:l:check:2", "urn:lessonkit:c:l:predict:1"]);
});

test("completion: the LMS's threshold, or on opening", () => {
  const entries = { "check:c1": { 1: "2" } };
  assert.equal(record(lms, entries, { passing: 0.8, threshold: 0.2 }).completion, "completed");
  assert.equal(record(lms, {}, { passing: 0.8, completion: "opened" }).completion, "completed");
});

test("a lesson without questions or exercises has no score", () => {
  const plain = { ...lms, items: [lms.items[4]] };
  assert.deepEqual(record(plain, {}, rule), { score: null, success: "unknown", progress: 0, completion: "incomplete" });
  assert.deepEqual(record({ ...lms, items: [] }, {}, rule), { score: null, success: "unknown", progress: 1, completion: "completed" });
});

test("interactions: the option chosen, the exercise's story, the draft's text", () => {
  const entries = { "check:c1": { 2: "3" }, "ex:e1": state({ attempts: 2, hints: 1, solution: true }), "say:s1": { text: "It keeps\nthe scale." } };
  assert.deepEqual(interactions(lms, entries), [
    { id: "urn:lessonkit:c:l:check:2", type: "choice", description: "Question 2 (check): B?", correct: "1", response: "3", result: "incorrect" },
    { id: "urn:lessonkit:c:l:ex", type: "other", description: "Exercise: write f", correct: "passed", response: "not passed, 2 failed checks, 1 hint, solution shown", result: "incorrect" },
    { id: "urn:lessonkit:c:l:say", type: "other", description: "Explain it back: why?", response: "It keeps\nthe scale.", result: "neutral" },
  ]);
  assert.equal(exerciseResponse(state({ passed: true })), "passed");
  assert.equal(exerciseResponse(state({ passed: true, attempts: 1 })), "passed, 1 failed check");
});
