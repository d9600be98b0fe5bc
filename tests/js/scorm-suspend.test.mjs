// cmi.suspend_data's codec (static/js/lms/suspend.js): the two forms, what reads as nothing, and what is left out
// when a lesson's entries do not fit in 64,000 characters.
import assert from "node:assert/strict";
import { test } from "node:test";

import { limits } from "../../static/js/lms/scorm-values.js";
import { decode, encode, encodePlain, fit, fitNow, lessonPart } from "../../static/js/lms/suspend.js";

const payload = (entries, local = []) => ({ format: "lessonkit-scorm", version: 1, lessons: { a: { version: "v1", entries, local } } });
const kindOf = (name) => (name.endsWith(":code") ? "code" : name.startsWith("explain") ? "draft" : "kept");
/** `chars` characters that hardly compress (an xorshift sequence of base-36 digits: about 0.88 encoded each). */
let seed = 2463534242;
function noise(chars) {
  let x = (seed += 7919);
  let s = "";
  for (let i = 0; i < chars; i += 1) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    s += ((x >>> 0) % 36).toString(36);
  }
  return s;
}

test("both forms read back; the compressed one is ASCII and shorter", async () => {
  const p = payload({ "quiz:v": { 1: "2" }, "explain:v": { text: "ü€😀 \"quoted\"", savedAt: 1 } });
  const deflated = await encode(p);
  assert.match(deflated, /^lk1:[A-Za-z0-9+/=]+$/);
  assert.deepEqual(await decode(deflated), p);
  const plain = encodePlain(p);
  assert.match(plain, /^lk0:[A-Za-z0-9+/=]+$/);
  assert.deepEqual(await decode(plain), p);
  const long = payload({ "explain:v": { text: "the same words again ".repeat(500) } });
  assert.ok((await encode(long)).length < encodePlain(long).length / 10);
});

test("anything else reads as nothing, and never throws", async () => {
  for (const text of ["", "hello", "lk1:!!!", "lk1:AAAA", "lk0:bm90IGpzb24=", encodePlain({ format: "other", version: 1, lessons: {} }),
    encodePlain({ format: "lessonkit-scorm", version: 2, lessons: {} }), encodePlain([1]), null, undefined, 5, "lk0:" + "A".repeat(limits.suspendData)]) {
    assert.equal(await decode(text), null, String(text).slice(0, 30));
  }
  assert.deepEqual(lessonPart(null, "a"), { entries: {}, local: new Set() });
  assert.deepEqual(lessonPart({ lessons: { a: { entries: [] } } }, "a"), { entries: {}, local: new Set() });
  assert.deepEqual(lessonPart(payload({ x: 1 }, ["x", 3]), "a"), { entries: { x: 1 }, local: new Set(["x"]) });
});

test("another lesson's part is kept; this lesson's is replaced", async () => {
  const earlier = { format: "lessonkit-scorm", version: 1, lessons: { b: { version: "w", entries: { "quiz:w": { 1: "1" } }, local: [] }, a: { version: "v0", entries: { old: 1 }, local: [] } } };
  const { text, local } = await fit(earlier, "a", "v1", { "quiz:v": { 1: "3" } }, kindOf);
  assert.deepEqual(local, []);
  assert.deepEqual((await decode(text)).lessons, { b: earlier.lessons.b, a: { version: "v1", entries: { "quiz:v": { 1: "3" } }, local: [] } });
});

test("too large: a lab's earlier edit goes first, then code (largest first), then drafts; answers stay", async () => {
  const entries = {
    "quiz:v": { 1: "2", 2: "1" },
    "ex:v": { passed: true, attempts: 1, hints: 0, solution: false },
    "lab:code": { schema: 1, base: "b", code: "x = 1\n", savedAt: null, earlier: { base: "a", code: noise(50000), savedAt: null } },
    "ex:code": { base: "s", code: noise(15000) },
    "other:code": { base: "s", code: noise(9000) },
    "explain:v": { text: noise(4000), savedAt: 1 },
  };
  let r = await fit(null, "a", "v1", entries, kindOf);
  assert.deepEqual(r.local, ["lab:code"]); // only its earlier edit left out: the edit itself is kept
  let kept = (await decode(r.text)).lessons.a;
  assert.deepEqual(kept.entries["lab:code"], { schema: 1, base: "b", code: "x = 1\n", savedAt: null });
  assert.deepEqual(kept.local, ["lab:code"]);
  const bigger = { ...entries, "ex:code": { base: "s", code: noise(70000) } };
  r = await fit(null, "a", "v1", bigger, kindOf);
  assert.deepEqual(r.local, ["ex:code", "lab:code"]);
  kept = (await decode(r.text)).lessons.a.entries;
  assert.deepEqual(Object.keys(kept).sort(), ["ex:v", "explain:v", "lab:code", "other:code", "quiz:v"]);
  const drafts = { "quiz:v": { 1: "2" }, "explain:v": { text: noise(90000) }, "explain2:v": { text: noise(100) } };
  r = await fit(null, "a", "v1", drafts, kindOf);
  assert.deepEqual(r.local, ["explain:v"]);
  assert.deepEqual(Object.keys((await decode(r.text)).lessons.a.entries).sort(), ["explain2:v", "quiz:v"]);
  assert.ok(r.text.length <= limits.suspendData);
  const now = fitNow(null, "a", "v1", bigger, kindOf);
  assert.ok(now.text.startsWith("lk0:") && now.text.length <= limits.suspendData);
  assert.deepEqual((await decode(now.text)).lessons.a.entries["quiz:v"], entries["quiz:v"]);
});

test("when even the answers do not fit (other lessons fill the room), nothing is written", async () => {
  const full = { format: "lessonkit-scorm", version: 1, lessons: { b: { version: "w", entries: { "b:code": { base: "", code: noise(76000) } }, local: [] } } };
  const r = await fit(full, "a", "v1", { "quiz:v": { 1: "1" } }, kindOf);
  assert.ok(r.text === null, "nothing written");
});
