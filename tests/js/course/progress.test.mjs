// A lesson's meter and state, and a course's parts in the progress file (static/js/course/progress.js), without a
// page: a store of plain entries stands in for the browser's.
import assert from "node:assert/strict";
import { test } from "node:test";

import { readFileSync } from "node:fs";

import { answerOf, committed } from "../../../blocks/quiz/answer.js";
import { checkFile, describe, exportProgress, lessonProgress, measure, state, STATE_WORDS } from "../../../static/js/course/progress.js";
import { saved } from "../../../static/js/page/shapes.js";
import { is } from "../../../static/js/page/store.js";

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const LESSON = { slug: "one", title: "One", version: "v1", summary: "", href: "one.html", blocks: [
  { type: "quiz", id: "check", version: "q1", questions: 2 },
  { type: "explain", id: "say", version: "e1" },
  { type: "exercise", id: "task", version: "x1" },
] };
const MANIFEST = { course: { id: "c", title: "C" }, format: 1, lessons: [LESSON, { ...LESSON, slug: "two", title: "Two" }],
  parts: [{ id: "first", title: "First", lessons: ["one"] }, { id: "then", title: "Then", lessons: ["two"] }] };

function storeOf(entries) {
  const kept = new Map(Object.entries(entries));
  return {
    saved,
    storeKey: (slug, id, part) => `lessonkit:v1:${slug}:${id}:${part}`,
    load: (key, shape) => (kept.has(key) && shape(kept.get(key)) ? kept.get(key) : null),
  };
}

test("a lesson's meter measures its questions answered and exercises passed, not its drafts or code", () => {
  const store = storeOf({ "lessonkit:v1:one:check:q1": { 1: "1" }, "lessonkit:v1:one:say:e1": { text: "mine" } });
  const p = lessonProgress(LESSON, store);
  assert.deepEqual(measure(p), { done: 1, total: 3 });
  assert.equal(state(p), "in-progress");
  assert.equal(describe(p, plural), "1 of 2 questions answered · explanation drafted · 0 of 1 exercise passed");
});

test("a lesson is not started, in progress, or done", () => {
  assert.equal(state(lessonProgress(LESSON, storeOf({}))), "not-started");
  const done = storeOf({ "lessonkit:v1:one:check:q1": { 1: "1", 2: "2" },
    "lessonkit:v1:one:task:x1": { passed: true, attempts: 1, hints: 0, solution: false } });
  const p = lessonProgress(LESSON, done);
  assert.deepEqual(measure(p), { done: 3, total: 3 });
  assert.equal(state(p), "done");
  assert.deepEqual(Object.keys(STATE_WORDS).sort(), ["done", "in-progress", "not-started"]);
});

test("the progress file names each lesson's part", async () => {
  const file = await exportProgress(MANIFEST, storeOf({}), new Date("2026-12-01T10:00:00Z"));
  assert.equal(file.lessons.one.part, "First");
  assert.equal(file.lessons.two.part, "Then");
  const flat = await exportProgress({ ...MANIFEST, parts: [] }, storeOf({}), new Date("2026-12-01T10:00:00Z"));
  assert.equal("part" in flat.lessons.one, false);
});

const ANY = { is, saved, MAX_ENTRY_CHARS: 1024 * 1024, storeKey: (slug, id, part) => `lessonkit:v1:${slug}:${id}:${part}` };

test("a quiz keeps each question's final answer beside its first; an older page's bare option still reads", () => {
  const shape = saved.quiz(saved.questions(2));
  assert.equal(shape({ 1: { answer: "2", first: "1", tries: 2 }, 2: "1" }), true);
  assert.equal(shape({ 1: { answer: "2", first: "1", tries: 0 } }), false); // an answer is one try at least
  assert.equal(shape({ 1: { answer: "2", tries: 1 } }), false);
  assert.equal(shape({ 1: { answer: "2", first: "1", tries: 1, at: 3 } }), false);
  const options = saved.quiz(new Map([["1", new Set(["1", "2"])]]));
  assert.equal(options({ 1: { answer: "2", first: "3", tries: 2 } }), false); // an option the question does not have
  assert.deepEqual(answerOf("2"), { answer: "2", first: "2", tries: 1 });
  assert.deepEqual(committed(committed(committed(null, "1"), "1"), "2"), { answer: "2", first: "1", tries: 2 });
});

test("a progress file saved before first attempts were kept (frozen) loads, its answers counted", async () => {
  const text = readFileSync(new URL("./progress-bare-answers.json", import.meta.url), "utf8");
  const checked = await checkFile(text, MANIFEST, ANY, plural);
  assert.equal(checked.ok, true, checked.message);
  assert.deepEqual(checked.plan.lessons, [{ slug: "one", title: "One", progress: "2 of 2 questions answered · explanation drafted · 0 of 1 exercise passed" }]);
  const [, answers] = checked.plan.writes.find(([key]) => key === "lessonkit:v1:one:check:q1");
  assert.deepEqual(answerOf(answers["1"]), { answer: "1", first: "1", tries: 1 });
});
