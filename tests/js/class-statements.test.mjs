// What a class member's page sends (static/js/class/statements.js): one fact per answer checked anew, exercise
// checked anew and lesson status reached; statements xAPI accepts; join codes checked.
import assert from "node:assert/strict";
import { test } from "node:test";

import { FIRST, facts, parseCode, statement, TRIES } from "../../static/js/class/statements.js";

const lms = { passing: 0.8, completion: "all-blocks", lesson: { id: "urn:lessonkit:c:l", title: "L" }, blocks: [{ type: "quiz", id: "check", version: "v", questions: 2 }, { type: "exercise", id: "ex", version: "e" }],
  items: [
    { id: "urn:lessonkit:c:l:check:1", block: "check", kind: "question", n: 1, correct: "2", description: "Question 1 (check): A?",
      choices: [{ id: "1", description: "No" }, { id: "2", description: "Yes" }] },
    { id: "urn:lessonkit:c:l:check:2", block: "check", kind: "question", n: 2, correct: "1", description: "Question 2 (check): B?",
      choices: [{ id: "1", description: "Ja" }, { id: "2", description: "Nein" }] },
    { id: "urn:lessonkit:c:l:ex", block: "ex", kind: "exercise", description: "Exercise: f", optional: true },
  ] };
const page = { lms };
const member = { id: "3f2a1b4c-1111-4222-8333-123456789abc", learner: "Ada", account: "a1", home: "http://127.0.0.1:1/" };

test("an answer checked anew is answered, with its first attempt; the same answer again is nothing", () => {
  const one = { "check:v": { 1: { answer: "1", first: "1", tries: 1 } } };
  const [f] = facts(page, {}, one);
  assert.deepEqual([f.verb, f.result.response, f.result.success, f.result.extensions[FIRST], f.result.extensions[TRIES]], ["answered", "1", false, "1", 1]);
  assert.deepEqual(facts(page, one, one), []);
  const two = { "check:v": { 1: { answer: "2", first: "1", tries: 2 } } };
  assert.deepEqual(facts(page, one, two).map((x) => [x.verb, x.result.response, x.result.extensions[FIRST]]), [["answered", "2", "1"]]);
});

test("an exercise checked is attempted or passed; the lesson is passed and completed once all counted is done", () => {
  const all = { "check:v": { 1: { answer: "2", first: "1", tries: 2 }, 2: "1" }, "ex:e": { passed: true, attempts: 1, hints: 0, solution: false } };
  const found = facts(page, {}, all);
  assert.deepEqual(found.map((f) => f.verb), ["answered", "answered", "passed", "passed", "completed"]);
  assert.deepEqual(found[3].result.score, { raw: 2, min: 0, max: 2, scaled: 1 }); // the optional exercise not counted
  const failing = facts(page, {}, { "ex:e": { passed: false, attempts: 2, hints: 0, solution: false } });
  assert.deepEqual(failing.map((f) => [f.verb, f.result.success]), [["attempted", false]]);
});

test("a statement names the class, the lesson and the learner, and holds no empty value", () => {
  const [f] = facts(page, {}, { "check:v": { 1: "2" } });
  const s = statement(f, member, page, new Date("2026-12-04T10:00:00Z"));
  assert.deepEqual(s.actor, { objectType: "Agent", name: "Ada", account: { homePage: "http://127.0.0.1:1/", name: "a1" } });
  assert.equal(s.verb.id, "http://adlnet.gov/expapi/verbs/answered");
  assert.deepEqual(s.context, { registration: member.id, contextActivities: { parent: [{ objectType: "Activity", id: "urn:lessonkit:c:l" }] } });
  assert.deepEqual(s.object.definition.correctResponsesPattern, ["2"]);
  assert.deepEqual(s.object.definition.choices, [{ id: "1", description: { en: "No" } }, { id: "2", description: { en: "Yes" } }]);
  const lesson = facts(page, {}, { "check:v": { 1: "2", 2: "1" } }).find((x) => x.verb === "completed");
  assert.deepEqual(statement(lesson, member, page, new Date()).context, { registration: member.id });
});

test("names, descriptions and options are in the lesson's language", () => {
  const german = { lms: { ...lms, lesson: { ...lms.lesson, lang: "de" } } };
  const [f] = facts(german, {}, { "check:v": { 2: "1" } });
  assert.deepEqual(f.object.definition.name, { de: "Question 2 (check): B?" });
  assert.deepEqual(f.object.definition.choices.map((c) => c.description), [{ de: "Ja" }, { de: "Nein" }]);
});

test("a join code is the class's id, name and a key of the right form, nothing else", () => {
  const code = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");
  const good = { v: 1, id: member.id, name: "Monday", key: "class-ab12cd34-learners:abcdefghijklmnop" };
  assert.deepEqual(parseCode(code(good)), { id: good.id, name: "Monday", key: good.key });
  assert.equal(parseCode(code({ ...good, id: "not-a-uuid" })), null);
  assert.equal(parseCode(code({ ...good, key: "no colon" })), null);
  assert.equal(parseCode(code({ ...good, v: 2 })), null);
  assert.equal(parseCode("%%%"), null);
  assert.equal(parseCode(""), null);
});

test("a join code's name is UTF-8, as lessonkit class new writes it; a pasted join link is read too", () => {
  const code = Buffer.from(JSON.stringify({ v: 1, id: member.id, name: "Gruppe Ä – Montag", key: "class-ab12cd34-learners:abcdefghijklmnop" }), "utf8").toString("base64url");
  assert.equal(parseCode(code).name, "Gruppe Ä – Montag");
  assert.equal(parseCode(`  https://example.org/course/index.html#class=${code}\n`).name, "Gruppe Ä – Montag");
  const latin1 = Buffer.from(JSON.stringify({ v: 1, id: member.id, name: "Ä", key: "class-ab12cd34-learners:abcdefghijklmnop" }), "latin1").toString("base64url");
  assert.equal(parseCode(latin1), null); // not UTF-8: refused, never garbled
});
