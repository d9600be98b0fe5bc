// cmi5, the xAPI profile an LMS launches a lesson (an AU of the cmi5 package, lessonkit/scorm/cmi5.py) with: what the
// launch URL gives, what the LMS's LMS.LaunchData state document says, and the statements the page sends. Pure
// functions (no page, no network), so node --test checks them; cmi5.js does the talking.
//
// What the page sends in a session, in this order (each statement's timestamp later than the one before):
//   initialized  first, once the page holds its token and the launch data;
//   answered, attempted, passed (an exercise)  "cmi5 allowed": the class path's item facts (class/statements.js's
//                itemFacts: a question as a cmi.interaction with its choices and the first attempt), their object
//                the question or exercise, context.contextActivities.parent the AU;
//   completed    "cmi5 defined", once per registration, when the lesson's record (record.js, the SCORM package's
//                rule) is completed;
//   passed       "cmi5 defined", once per registration, when every counted item is answered and the score reaches
//                the mastery score (LMS.LaunchData's masteryScore, else course.yaml's scorm.passing), with the score;
//   failed       "cmi5 defined", below it: at once when the course scores the first attempt (it cannot turn), else
//                when the session ends still failed (a later answer could still pass it); never after passed, and
//                passed or failed at most once a session (a pass reached after a failure of this session is sent
//                as the next session starts);
//   terminated   last, when the page goes away or the learner returns to the LMS.
// cmi5 defined statements have the AU (the launch's activityId) as their object, the cmi5 category and, with a
// success or completion, the moveon category. Every statement has the launch's actor and registration and the LMS's
// contextTemplate (its session id, its publisher id grouping), none of whose values is overwritten. A launch in
// "Browse" or "Review" mode sends initialized and terminated alone.
import { itemFacts, score, verb } from "../class/statements.js";
import { record } from "./record.js";
import { duration } from "./scorm-values.js";

export const CATEGORY = "https://w3id.org/xapi/cmi5/context/categories/cmi5";
export const MOVEON = "https://w3id.org/xapi/cmi5/context/categories/moveon";
export const SESSION_ID = "https://w3id.org/xapi/cmi5/context/extensions/sessionid";
export const MASTERY = "https://w3id.org/xapi/cmi5/context/extensions/masteryscore";
export const LAUNCH_DATA = "LMS.LaunchData"; // the LMS's state document (read only)
export const WORK = "urn:lessonkit:cmi5:work"; // the lesson's own state document: {v, entries, sent}
const MODES = ["Normal", "Browse", "Review"];
const MAX_SENT = 4000; // keys remembered as sent (far above a lesson's questions and exercises)

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * LMS.LaunchData as the page uses it ({contextTemplate, launchMode, masteryScore?, moveOn?, returnURL?}), or null
 * when it is not a launch data document. A returnURL is taken only as an http(s) address (resolved from `base`, and
 * checked by `httpURL`: cmi5-launch.js's, which the page's main bundle hands over rather than share a chunk with it).
 */
export function launchData(doc, base, httpURL) {
  if (!isObject(doc) || !isObject(doc.contextTemplate) || !MODES.includes(doc.launchMode)) return null;
  const out = { contextTemplate: doc.contextTemplate, launchMode: doc.launchMode };
  if (typeof doc.masteryScore === "number" && doc.masteryScore >= 0 && doc.masteryScore <= 1) out.masteryScore = doc.masteryScore;
  if (typeof doc.moveOn === "string") out.moveOn = doc.moveOn;
  if (typeof doc.returnURL === "string" && doc.returnURL) {
    try {
      out.returnURL = httpURL(new URL(doc.returnURL, base).href).href;
    } catch {
      // not an address the page goes to: the page ends without going anywhere
    }
  }
  return out;
}

/** The lesson's own state document as the page keeps it ({entries, sent: Set}); empty for anything else. */
export function workOf(doc) {
  const sent = isObject(doc) && Array.isArray(doc.sent) ? doc.sent.filter((k) => typeof k === "string") : [];
  return { entries: isObject(doc) && isObject(doc.entries) ? doc.entries : {}, sent: new Set(sent) };
}

/** The state document of the lesson's work: its entries and what was sent (the latest MAX_SENT keys). */
export function workDocument(entries, sent) {
  return { v: 1, entries, sent: [...sent].slice(-MAX_SENT) };
}

/**
 * A statement's context: the LMS's contextTemplate (a copy; its values are never overwritten), the registration,
 * and the categories and parent asked for, each added to the template's lists.
 */
export function contextFor(template, registration, { cmi5 = false, moveOn = false, parent = null, extensions = {} } = {}) {
  const context = structuredClone(template);
  context.registration ??= registration;
  const activities = { ...(context.contextActivities || {}) };
  const add = (list, id) => {
    const found = activities[list] === undefined ? [] : [activities[list]].flat();
    if (!found.some((a) => a && a.id === id)) found.push({ objectType: "Activity", id });
    activities[list] = found;
  };
  if (cmi5) add("category", CATEGORY);
  if (moveOn) add("category", MOVEON);
  if (parent) add("parent", parent);
  if (Object.keys(activities).length) context.contextActivities = activities;
  if (Object.keys(extensions).length) context.extensions = { ...extensions, ...(context.extensions || {}) };
  return context;
}

/** Times for a session's statements: now, and always later than the last one given. */
export function clock(now = () => Date.now()) {
  let last = 0;
  return () => {
    last = Math.max(now(), last + 1);
    return new Date(last).toISOString();
  };
}

/** A "cmi5 defined" statement: `verbName` about the AU, with `result` (and context `extensions`). */
export function defined(launch, data, verbName, when, { result = null, extensions = {} } = {}) {
  const judged = Boolean(result && ("success" in result || "completion" in result));
  const s = { id: crypto.randomUUID(), actor: launch.actor, verb: verb(verbName), object: { objectType: "Activity", id: launch.activityId },
    context: contextFor(data.contextTemplate, launch.registration, { cmi5: true, moveOn: judged, extensions }), timestamp: when };
  if (result) s.result = result;
  return s;
}

/** A "cmi5 allowed" statement of an item fact (class/statements.js): the question or exercise, within the AU. */
export function allowed(launch, data, fact, when) {
  return { id: crypto.randomUUID(), actor: launch.actor, verb: verb(fact.verb), object: fact.object, result: fact.result,
    context: contextFor(data.contextTemplate, launch.registration, { parent: launch.activityId }), timestamp: when };
}

/** The item facts not sent yet (`sent`: their keys), in a Normal launch. */
export function newFacts(page, data, entries, sent) {
  return data.launchMode === "Normal" ? itemFacts(page, {}, entries).filter((f) => !sent.has(f.key)) : [];
}

/**
 * The lesson's "cmi5 defined" verdicts due now: [{key, verb, result, extensions}], from its entries, the launch data,
 * what the registration was sent (`sent`), whether this session judged already (`judged`), whether the session is
 * ending, and the seconds since it began.
 */
export function verdicts(lms, data, entries, { sent, judged = false, ending = false, seconds = 0 }) {
  if (data.launchMode !== "Normal") return [];
  const passing = data.masteryScore ?? lms.passing;
  const r = record(lms, entries, { passing });
  const spent = duration(seconds);
  const out = [];
  if (r.completion === "completed" && !sent.has("completed")) {
    out.push({ key: "completed", verb: "completed", result: { completion: true, duration: spent } });
  }
  if (judged || sent.has("passed") || !r.score || r.success === "unknown") return out;
  const extensions = data.masteryScore === undefined ? {} : { [MASTERY]: data.masteryScore };
  if (r.success === "passed") {
    out.push({ key: "passed", verb: "passed", result: { success: true, score: score(r.score), duration: spent }, extensions });
    return out;
  }
  const key = `failed|${r.score.raw}/${r.score.max}`;
  const final = ending || (lms.scoring ?? "final") === "first-attempt";
  if (final && !sent.has(key)) {
    // below the mastery score, written so: 4 decimals rounded down
    const below = { ...score(r.score), scaled: Math.floor(r.score.scaled * 10000) / 10000 };
    out.push({ key, verb: "failed", result: { success: false, score: below, duration: spent }, extensions });
  }
  return out;
}
