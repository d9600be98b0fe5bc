// A lesson's meter and state, and a course's parts in the progress file (static/js/course/progress.js), without a
// page: a store of plain entries stands in for the browser's.
import assert from "node:assert/strict";
import { test } from "node:test";

import { describe, exportProgress, lessonProgress, measure, state, STATE_WORDS } from "../../../static/js/course/progress.js";
import { saved } from "../../../static/js/page/shapes.js";

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
