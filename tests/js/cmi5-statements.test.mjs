// What a lesson page launched by an LMS with cmi5 reads and sends (static/js/lms/cmi5-launch.js and
// cmi5-statements.js): the launch's parameters, LMS.LaunchData, the context of each kind of statement, and which
// verdict is due when, by the cmi5 spec's ordering rules and the SCORM package's gradebook rule.
import assert from "node:assert/strict";
import { test } from "node:test";

import { httpURL, launchOf } from "../../static/js/lms/cmi5-launch.js";
import { CATEGORY, MASTERY, MOVEON, allowed, clock, contextFor, defined, launchData, newFacts, verdicts, workOf } from "../../static/js/lms/cmi5-statements.js";
import { FIRST } from "../../static/js/class/statements.js";

const REG = "3f2a1b4c-1111-4222-8333-123456789abc";
const actor = { objectType: "Agent", name: "Ada", account: { homePage: "https://lms.example.org", name: "learner-7" } };
const query = (over = {}) => new URLSearchParams({ endpoint: "https://lms.example.org/xapi", fetch: "https://lms.example.org/token?k=1",
  actor: JSON.stringify(actor), registration: REG, activityId: "https://lms.example.org/au/42", ...over }).toString();
const launch = launchOf(`?${query()}`);
const template = { contextActivities: { grouping: [{ objectType: "Activity", id: "urn:lessonkit:c:l" }] },
  extensions: { "https://w3id.org/xapi/cmi5/context/extensions/sessionid": "s-1" } };
const data = { contextTemplate: template, launchMode: "Normal", masteryScore: 0.5 };
const lms = { passing: 0.8, completion: "all-blocks", scoring: "final", lesson: { id: "urn:lessonkit:c:l", title: "L" },
  blocks: [{ type: "quiz", id: "check", version: "v", questions: 2 }],
  items: [
    { id: "urn:lessonkit:c:l:check:1", block: "check", kind: "question", n: 1, correct: "2", description: "Question 1 (check): A?",
      choices: [{ id: "1", description: "No" }, { id: "2", description: "Yes" }] },
    { id: "urn:lessonkit:c:l:check:2", block: "check", kind: "question", n: 2, correct: "1", description: "Question 2 (check): B?" },
  ] };
const page = { lms };
const verbs = (list) => list.map((v) => v.verb);

test("a launch is the five parameters, each what cmi5 says; anything less is no launch", () => {
  assert.deepEqual(launch, { endpoint: "https://lms.example.org/xapi/", fetch: "https://lms.example.org/token?k=1", actor,
    registration: REG, activityId: "https://lms.example.org/au/42" });
  assert.equal(launchOf(""), null);
  assert.equal(launchOf(`?${query({ fetch: "" })}`), null);
  assert.equal(launchOf(`?${query({ endpoint: "javascript:alert(1)" })}`), null);
  assert.equal(launchOf(`?${query({ actor: '{"name": "no account"}' })}`), null);
  assert.equal(launchOf(`?${query({ actor: "not json" })}`), null);
  assert.equal(launchOf(`?${query({ registration: "42" })}`), null);
});

test("LMS.LaunchData needs its template and launch mode; a returnURL is only ever an http(s) address", () => {
  assert.equal(launchData({ launchMode: "Normal" }, "https://x/", httpURL), null);
  assert.equal(launchData({ contextTemplate: {}, launchMode: "Sideways" }, "https://x/", httpURL), null);
  const read = launchData({ contextTemplate: {}, launchMode: "Review", masteryScore: 0.75, moveOn: "Passed", returnURL: "/back" }, "https://lms.example.org/pkg/a.html", httpURL);
  assert.deepEqual(read, { contextTemplate: {}, launchMode: "Review", masteryScore: 0.75, moveOn: "Passed", returnURL: "https://lms.example.org/back" });
  assert.equal(launchData({ contextTemplate: {}, launchMode: "Normal", returnURL: "javascript:alert(1)" }, "https://x/", httpURL).returnURL, undefined);
  assert.equal(launchData({ contextTemplate: {}, launchMode: "Normal", masteryScore: 2 }, "https://x/", httpURL).masteryScore, undefined);
});

test("the context keeps the LMS's template and adds the categories a kind of statement needs", () => {
  const c = contextFor(template, REG, { cmi5: true, moveOn: true, extensions: { [MASTERY]: 0.5 } });
  assert.equal(c.registration, REG);
  assert.deepEqual(c.contextActivities.category.map((a) => a.id), [CATEGORY, MOVEON]);
  assert.deepEqual(c.contextActivities.grouping, template.contextActivities.grouping);
  assert.equal(c.extensions["https://w3id.org/xapi/cmi5/context/extensions/sessionid"], "s-1");
  assert.equal(c.extensions[MASTERY], 0.5);
  assert.equal(template.contextActivities.category, undefined); // the template itself is left as it was
  const kept = contextFor({ extensions: { [MASTERY]: 0.9 } }, REG, { extensions: { [MASTERY]: 0.5 } });
  assert.equal(kept.extensions[MASTERY], 0.9); // a value of the template is never overwritten
});

test("initialized and terminated are cmi5 defined about the AU; an answer is cmi5 allowed, within it, with its first attempt", () => {
  const now = clock(() => 1000);
  const init = defined(launch, data, "initialized", now());
  assert.equal(init.object.id, launch.activityId);
  assert.deepEqual(init.context.contextActivities.category.map((a) => a.id), [CATEGORY]); // no result: no moveon
  assert.equal(init.result, undefined);
  assert.deepEqual(init.actor, actor);
  const [fact] = newFacts(page, data, { "check:v": { 1: { answer: "2", first: "1", tries: 2 } } }, new Set());
  const answered = allowed(launch, data, fact, now());
  assert.equal(answered.verb.id, "http://adlnet.gov/expapi/verbs/answered");
  assert.equal(answered.object.definition.interactionType, "choice");
  assert.equal(answered.result.extensions[FIRST], "1");
  assert.equal(answered.context.contextActivities.category, undefined); // cmi5 allowed: never the cmi5 category
  assert.deepEqual(answered.context.contextActivities.parent, [{ objectType: "Activity", id: launch.activityId }]);
  assert.ok(answered.timestamp > init.timestamp); // each statement later than the one before, whatever the clock says
  assert.match(answered.id, /^[0-9a-f-]{36}$/);
  assert.deepEqual(newFacts(page, { ...data, launchMode: "Browse" }, { "check:v": { 1: "2" } }, new Set()), []);
});

test("passed once per registration, with the score against the LMS's mastery score, and completed once", () => {
  const right = { "check:v": { 1: "2", 2: "2" } }; // 1 of 2: 0.5, the LMS's mastery score (course.yaml says 0.8)
  const due = verdicts(lms, data, right, { sent: new Set(), seconds: 65 });
  assert.deepEqual(verbs(due), ["completed", "passed"]);
  assert.deepEqual(due[1].result, { success: true, score: { raw: 1, min: 0, max: 2, scaled: 0.5 }, duration: "PT1M5S" });
  assert.deepEqual(due[1].extensions, { [MASTERY]: 0.5 });
  assert.deepEqual(due[0].result, { completion: true, duration: "PT1M5S" });
  assert.deepEqual(verdicts(lms, data, right, { sent: new Set(["completed", "passed"]) }), []);
  assert.deepEqual(verdicts(lms, data, { "check:v": { 1: "2" } }, { sent: new Set() }), []); // not all answered: nothing
  const passedStatement = defined(launch, data, "passed", "2026-01-01T00:00:00.000Z", { result: due[1].result, extensions: due[1].extensions });
  assert.deepEqual(passedStatement.context.contextActivities.category.map((a) => a.id), [CATEGORY, MOVEON]);
});

test("failed waits for the session's end while a later answer can still pass, never follows passed, and is not said twice", () => {
  const wrong = { "check:v": { 1: "1", 2: "2" } }; // 0 of 2
  const strict = { ...data, masteryScore: undefined };
  delete strict.masteryScore;
  assert.deepEqual(verbs(verdicts(lms, strict, wrong, { sent: new Set() })), ["completed"]);
  const ending = verdicts(lms, strict, wrong, { sent: new Set(["completed"]), ending: true });
  assert.deepEqual(verbs(ending), ["failed"]);
  assert.deepEqual(ending[0].result.score, { raw: 0, min: 0, max: 2, scaled: 0 });
  assert.deepEqual(ending[0].extensions, {}); // course.yaml's passing score, not the LMS's: no masteryscore
  assert.deepEqual(verdicts(lms, strict, wrong, { sent: new Set(["completed", ending[0].key]), ending: true }), []);
  assert.deepEqual(verdicts(lms, strict, wrong, { sent: new Set(["completed", "passed"]), ending: true }), []);
  const first = verdicts({ ...lms, scoring: "first-attempt" }, strict, wrong, { sent: new Set(["completed"]) });
  assert.deepEqual(verbs(first), ["failed"]); // it cannot turn: said at once
  // passed or failed once a session: a pass reached after this session's failure waits for the next session
  assert.deepEqual(verdicts(lms, data, { "check:v": { 1: "2", 2: "1" } }, { sent: new Set(["completed"]), judged: true }), []);
});

test("a failed score is written below the mastery score", () => {
  const three = { ...lms, blocks: [{ type: "quiz", id: "q", version: "v", questions: 3 }],
    items: [1, 2, 3].map((n) => ({ id: `urn:x:q:${n}`, block: "q", kind: "question", n, correct: "1", description: "Q" })) };
  const [failed] = verdicts(three, { ...data, masteryScore: 0.6667 }, { "q:v": { 1: "1", 2: "1", 3: "2" } }, { sent: new Set(["completed"]), ending: true });
  assert.equal(failed.verb, "failed");
  assert.equal(failed.result.score.scaled, 0.6666);
});

test("a launch in Browse or Review judges nothing", () => {
  for (const launchMode of ["Browse", "Review"]) {
    assert.deepEqual(verdicts(lms, { ...data, launchMode }, { "check:v": { 1: "2", 2: "1" } }, { sent: new Set(), ending: true }), []);
  }
});

test("the lesson's state document gives back its entries and what was sent, and nothing from anything else", () => {
  const work = workOf({ v: 1, entries: { "check:v": { 1: "2" } }, sent: ["completed", 4] });
  assert.deepEqual(work.entries, { "check:v": { 1: "2" } });
  assert.deepEqual([...work.sent], ["completed"]);
  assert.deepEqual(workOf(null), { entries: {}, sent: new Set() });
  assert.deepEqual(workOf("text"), { entries: {}, sent: new Set() });
});
