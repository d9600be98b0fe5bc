// The xAPI statements a class member's page sends to the class's Learning Record Store, from what the lesson's
// blocks saved: pure functions (no page, no network), so node --test checks them. The instructor's view
// (lessonkit/lms/classroom.py) reads exactly these.
//
//   answered   a quiz question checked: object the question (its SCORM interaction id, a cmi.interaction choice
//              whose `choices` are its options, id 1, 2, … and their text), result.response the option checked (1, 2, …), result.success, and in result.extensions the learner's
//              first checked option (FIRST) and how many different options they checked (TRIES);
//   attempted  an exercise checked without passing (result.success false, extensions ATTEMPTS);
//   passed     an exercise checked and passed; or the lesson, once every counted item is answered and its score
//              reaches the passing score (result.score.scaled);
//   failed     the lesson, once every counted item is answered below the passing score;
//   completed  the lesson, once everything that counts is done.
// Every statement carries context.registration (the class's id: it is what the instructor's view asks the LRS for),
// context.contextActivities.parent (the lesson) and the actor: the learner's LMS id, or the name they typed, as an
// account of the class. Names and descriptions are in the lesson's language (page.lms.lesson.lang).
// A cmi5 launch (lms/cmi5.js) sends the same item facts (itemFacts) in its own context, and judges the lesson by
// the same record with the LMS's mastery score.
import { answerOf, entryNames, record } from "../lms/record.js";

export const VERB = "http://adlnet.gov/expapi/verbs/";
export const FIRST = "urn:lessonkit:xapi:first-response";
export const TRIES = "urn:lessonkit:xapi:tries";
export const ATTEMPTS = "urn:lessonkit:xapi:failed-checks";
const INTERACTION = "http://adlnet.gov/expapi/activities/cmi.interaction";
const LESSON = "http://adlnet.gov/expapi/activities/lesson";

export const verb = (name) => ({ id: `${VERB}${name}`, display: { "en-US": name } });

/** The learner as an xAPI agent: an account of the class (its home page the class's, its name the learner's id). */
export function actor(member) {
  return { objectType: "Agent", name: member.learner, account: { homePage: member.home, name: member.account } };
}

/**
 * What the learner did since `before` (the lesson's entries when last sent, by name), as "facts": {key, verb,
 * object, result}, one per question answered anew, exercise checked anew, and lesson status reached. `page` is the
 * lesson page's data ({lms}: its items, its rule and the lesson as an activity).
 */
export function facts(page, before, now) {
  return [...itemFacts(page, before, now), ...lessonFacts(page, before, now)];
}

/** The facts of the lesson's questions and exercises alone (see facts). */
export function itemFacts(page, before, now) {
  const { lms } = page;
  const lang = lms.lesson.lang || "en";
  const names = entryNames(lms.blocks);
  const out = [];
  for (const item of lms.items) {
    const name = names.get(item.block);
    const was = before[name] ?? null;
    const is = now[name] ?? null;
    if (!is) continue;
    if (item.kind === "question") {
      const given = answerOf(is[String(item.n)]);
      const had = was ? answerOf(was[String(item.n)]) : null;
      if (!given || (had && had.answer === given.answer && had.tries === given.tries)) continue;
      out.push({ key: `${item.id}|${given.tries}`, verb: "answered", object: question(item, lang),
        result: { response: given.answer, success: given.answer === item.correct, extensions: { [FIRST]: given.first, [TRIES]: given.tries } } });
    } else if (item.kind === "exercise") {
      const checks = (is.attempts || 0) + (is.passed ? 1 : 0);
      const had = was ? (was.attempts || 0) + (was.passed ? 1 : 0) : 0;
      if (checks <= had || (!is.passed && !is.attempts)) continue;
      out.push({ key: `${item.id}|${checks}`, verb: is.passed ? "passed" : "attempted", object: activity(item.id, item.description, INTERACTION, lang),
        result: { success: Boolean(is.passed), extensions: { [ATTEMPTS]: is.attempts || 0 } } });
    }
  }
  return out;
}

/** The lesson's score as xAPI's result.score: scaled to 4 decimals. */
export function score(s) {
  return { raw: s.raw, min: 0, max: s.max, scaled: Math.round(s.scaled * 10000) / 10000 };
}

/** The facts of the lesson's own status reached since `before`: passed or failed, completed. */
function lessonFacts(page, before, now) {
  const { lms } = page;
  const rule = { passing: lms.passing };
  const then = record(lms, before, rule);
  const r = record(lms, now, rule);
  const lesson = activity(lms.lesson.id, lms.lesson.title, LESSON, lms.lesson.lang || "en");
  const out = [];
  if (r.success !== "unknown" && r.success !== then.success) {
    out.push({ key: `${lms.lesson.id}|${r.success}`, verb: r.success, object: lesson,
      result: { success: r.success === "passed", score: score(r.score) } });
  }
  if (r.completion === "completed" && then.completion !== "completed" && lms.items.length) {
    out.push({ key: `${lms.lesson.id}|completed`, verb: "completed", object: lesson, result: { completion: true } });
  }
  return out;
}

function activity(id, name, type, lang) {
  return { objectType: "Activity", id, definition: { type, name: { [lang]: name } } };
}

/** A question as an xAPI choice interaction: its options (`choices`, by the id a response names) and the right one. */
function question(item, lang) {
  const a = activity(item.id, item.description, INTERACTION, lang);
  a.definition.interactionType = "choice";
  a.definition.correctResponsesPattern = [item.correct];
  a.definition.choices = (item.choices || []).map((c) => ({ id: c.id, description: { [lang]: c.description } }));
  return a;
}

/** A fact as the statement the LRS stores, for `member` in the lesson of `page`, at `when` (a Date). */
export function statement(fact, member, page, when) {
  const lesson = page.lms.lesson.id;
  const context = { registration: member.id }; // xAPI allows no empty value: a lesson's statement has no parent
  if (fact.object.id !== lesson) context.contextActivities = { parent: [{ objectType: "Activity", id: lesson }] };
  return { actor: actor(member), verb: verb(fact.verb), object: fact.object, result: fact.result, timestamp: when.toISOString(), context };
}

/**
 * Parse a join code (the link's #class=<code>: base64url of the UTF-8 JSON {v: 1, id, name, key}), or a whole join
 * link pasted in its place; null when it is neither.
 */
export function parseCode(code) {
  try {
    const text = String(code).trim();
    const found = /[#&]class=([^&\s]*)/.exec(text);
    const b64 = (found ? found[1] : text).replace(/-/g, "+").replace(/_/g, "/");
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const data = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    if (data.v !== 1 || !uuid.test(data.id) || typeof data.name !== "string" || typeof data.key !== "string") return null;
    if (!/^[A-Za-z0-9_-]{1,64}:[A-Za-z0-9_-]{8,128}$/.test(data.key) || data.name.length > 200) return null;
    return { id: data.id, name: data.name, key: data.key };
  } catch {
    return null;
  }
}
