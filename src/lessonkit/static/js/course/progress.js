// A learner's progress across the course: one lesson's (from the course manifest and what this browser saved), the
// progress file that holds every lesson's, and loading such a file back. The course index uses it; the entries it
// reads are the ones the lesson pages' blocks write (store.js keys, shapes.js shapes).
//
// Every function takes the page's store (main.js's `page.store`: store.js with shapes.js's `saved`) rather than
// importing it, so the page keeps one copy of store.js. The manifest is the build's (lessonkit/manifest.py):
// {course: {id, title}, format, lessons: [{slug, title, summary, version, href, blocks: [{type, id, version,
// questions?}]}], parts: [{id, title, lessons: [slug]}]}, a block listed when it keeps progress, `parts` empty for a
// course without parts.
//
// The progress file (version 1):
//   {"format": "lessonkit-progress", "version": 1, "course": {"id", "title"}, "exported": "<UTC, ISO 8601>",
//    "lessons": {"<slug>": {"title", "version", "part"?, "entries": {"<block>:<version>" or "<block>:code": <saved value>}}},
//    "sha256": "<hex>"}
// `entries` holds what the lesson's blocks saved, under their key in the lesson (store.js: lessonkit:v1:<slug>:<name>),
// exactly as saved; `part` is the title of the lesson's part, in a course of parts. `sha256` is the lowercase hex SHA-256 of the UTF-8 bytes of the canonical JSON of the file's
// object without its "sha256" field. Canonical JSON here is RFC 8785's JSON Canonicalization Scheme:
//   - object keys sorted by their UTF-16 code units (JavaScript's default sort), at every level;
//   - no whitespace outside strings;
//   - strings as JSON.stringify writes them (\" \\ \b \f \n \r \t, other characters below U+0020 as \u00xx with
//     lowercase hex, everything else as itself), numbers in ECMAScript's shortest form (integers without ".0");
//   - encoded as UTF-8, without a byte order mark.
// For the files this site writes (whole numbers, keys without characters above U+FFFF) Python gives the same bytes:
//   json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
// The hash tells a file damaged or edited by hand from the one that was saved; anyone can recompute it, so a file
// is a record a learner hands on, not a certificate.

import { PROGRESS } from "../generated/block-progress.js";

export const FORMAT = "lessonkit-progress";
const VERSION = 1;
/** Far above a course's progress (a lab's code is at most store.js's MAX_ENTRY_CHARS); bigger files are not read. */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;
/**
 * How deep a file may nest objects and arrays: a progress file nests six (file, lessons, lesson, entries, entry, a
 * lab's earlier edit). Deeper is refused before anything walks it, since canonicalJSON and the shape checks recurse.
 */
const MAX_FILE_DEPTH = 16;

/** Characters of a name from the file (another course's title or id, an entry's name) a message echoes. */
export const ECHOED_NAME_CHARS = 80;

// What an echoed name leaves out, so that it stays inside the message's quotes and cannot read as the page's own
// words: characters that are not shown as themselves (controls, line and paragraph separators, format characters:
// bidi embeddings, overrides and isolates, zero-width ones; private-use, unassigned, lone surrogates), and
// characters that read as quotation marks (every Unicode quotation mark, the primes and their look-alikes), which
// could close the message's quotes and go on in its voice.
const UNSHOWN = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}\p{Quotation_Mark}`\u00b4\u02b9-\u02bd\u02dd\u02ee\u2032-\u2037\u2057]/gu;
const ISOLATE = ["\u2068", "\u2069"]; // FIRST STRONG ISOLATE … POP DIRECTIONAL ISOLATE: what <bdi> does

/**
 * A name from the file as a message echoes it: on one line, without UNSHOWN's characters, at most ECHOED_NAME_CHARS
 * characters ("…" when cut), in a bidi isolate (a right-to-left name cannot reorder the message around it).
 */
export function echoed(name) {
  const text = [...String(name).replace(UNSHOWN, " ").replace(/\s+/g, " ").trim()]; // by code point: a cut never splits one
  const shown = text.length > ECHOED_NAME_CHARS ? `${text.slice(0, ECHOED_NAME_CHARS - 1).join("")}…` : text.join("");
  return `${ISOLATE[0]}${shown}${ISOLATE[1]}`;
}

// The page's words (page/i18n.js: main.js's one copy, on globalThis.lessonkitWords) for the course index and the LMS
// reporter and the class panel, which import them from here: read, not imported, so their bundles share no chunk
// with the lab's.
const words = () => globalThis.lessonkitWords;
/** The message of `key`, its placeholders filled from `params`. */
export const t = (key, params) => words().t(key, params);
/** The counted message of `key` for `n`. */
export const tn = (key, n, params) => words().tn(key, n, params);
/** A number as the page's language writes it. */
export const num = (value, digits, options) => words().num(value, digits, options);
/** The page's language. */
export const language = () => words().language();

/** Why a file is refused; each is followed by NOTHING_CHANGED on the page. */
export const REFUSED = {
  get large() { return t("progress.file_large"); },
  get json() { return t("progress.file_json"); },
  get deep() { return t("progress.file_deep", { depth: num(MAX_FILE_DEPTH) }); },
  get format() { return t("progress.file_format"); },
  get newer() { return t("progress.file_newer"); },
  course: (title) => t("progress.file_course", { title: echoed(title) }),
  get hash() { return t("progress.file_hash"); },
  entry: (lesson, name) => t("progress.file_entry", { lesson, name: echoed(name) }),
  get insecure() { return t("progress.file_insecure"); },
};
export const NOTHING_CHANGED = { toString: () => t("progress.nothing_changed") };

// ---------- what each block keeps ----------

// Each block type that keeps progress says what it saves and how it counts, in the progress.js of its folder
// (lessonkit/blocks/<type>/), as its `progress`: `entries(block, saved)` -> [{part, shape, count}], and `counts`
// {name: {order, add(sum, value, block), words(sum, plural), meter?}} for counts of its own; a count with `meter: true`
// is what the index's meter of a lesson measures (questions answered, exercises passed). The build lists those modules
// (generated/block-progress.js, imported above).

/** Counts every type may use: the code a learner edited in a block with an editor (a lab, an exercise). */
const SHARED_COUNTS = {
  code: {
    order: 40,
    add: (sum, code) => {
      sum.total += 1;
      sum.done += code ? 1 : 0;
    },
    words: ({ done }) => (done ? "code edited" : ""),
  },
};
// The toolkit's types (generated) and a course's own (registerProgress: the course index imports their progress.js).
const TYPES = { ...PROGRESS };
let COUNTS, ORDER;
function recount() {
  COUNTS = Object.assign({}, SHARED_COUNTS, ...Object.values(TYPES).map((type) => type.counts || {}));
  ORDER = Object.keys(COUNTS).sort((a, b) => COUNTS[a].order - COUNTS[b].order);
}
recount();

/** A course's own block type's progress (its folder's progress.js `progress` export), counted from now on. */
export function registerProgress(name, type) {
  TYPES[name] = type;
  recount();
}

const warned = new Set();

/** The entries a block saves in its lesson: [{name, part, shape, count}], from its manifest entry. */
function entriesOf(block, saved) {
  const type = TYPES[block.type];
  if (!type) {
    if (!warned.has(block.type)) console.warn(`lessonkit: progress of "${block.type}" blocks is not counted (progress.js does not know that type).`);
    warned.add(block.type);
    return [];
  }
  return type.entries(block, saved).map((entry) => ({ ...entry, name: `${block.id}:${entry.part}` }));
}

/** The entries of a manifest lesson, by name: {block, name, part, shape, count, kind}. */
export function lessonEntries(lesson, saved) {
  return new Map(lesson.blocks.flatMap((block) => entriesOf(block, saved).map((e) => [e.name, { ...e, block }])));
}

/**
 * One lesson's progress from `read(entry)` (the saved value of an entry, already checked, or null): each count's
 * {done, total} (questions, drafts, exercises, code), and `started`.
 */
function tally(lesson, saved, read) {
  const p = Object.fromEntries(ORDER.map((name) => [name, { done: 0, total: 0 }]));
  p.started = false;
  for (const entry of lessonEntries(lesson, saved).values()) {
    const value = read(entry);
    if (value !== null) p.started = true;
    COUNTS[entry.count].add(p[entry.count], value, entry.block);
  }
  return p;
}

/** One lesson of the manifest: its progress in this browser. */
export function lessonProgress(lesson, store) {
  return tally(lesson, store.saved, (e) => store.load(store.storeKey(lesson.slug, e.block.id, e.part), e.shape));
}

/** What a lesson's meter shows of its progress `p`: the sum of its measured counts, {done, total}. */
export function measure(p) {
  const sum = { done: 0, total: 0 };
  for (const name of ORDER) {
    if (!COUNTS[name].meter) continue;
    sum.done += p[name].done;
    sum.total += p[name].total;
  }
  return sum;
}

/** Where a lesson stands: "not-started" (nothing saved), "done" (everything its meter measures), or "in-progress". */
export function state(p) {
  if (!p.started) return "not-started";
  const { done, total } = measure(p);
  return done >= total ? "done" : "in-progress";
}

/** A state in words. */
export const STATE_WORDS = {
  get "not-started"() { return t("progress.not_started"); },
  get "in-progress"() { return t("progress.in_progress"); },
  get done() { return t("progress.done"); },
};

/**
 * A lesson's progress in words, each count's in its order ("2 of 4 questions answered · explanation drafted · 1 of 1
 * exercise passed"); `plural` is the page's (page/dom.js).
 */
export function describe(p, plural) {
  if (!p.started) return t("progress.not_started");
  return ORDER.map((name) => COUNTS[name].words(p[name], plural)).filter(Boolean).join(" · ");
}

/**
 * The lesson a learner opened last, if this course's page saved it (its course id, and one of its lessons); else null.
 * Another course on the same origin writes the same key: with a lesson of the same slug it is still not this course's.
 */
export function lastLesson(manifest, store) {
  const last = store.load(store.LAST_LESSON_KEY, store.saved.last);
  if (!last || (last.course !== undefined && last.course !== manifest.course.id)) return null;
  return manifest.lessons.find((l) => l.slug === last.lesson) || null;
}

// ---------- the file ----------

/** `value` as canonical JSON (see the top of this file). */
export function canonicalJSON(value) {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) throw new TypeError("canonical JSON has no infinite numbers");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJSON).join(",")}]`;
  const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJSON(value[k])}`).join(",")}}`;
}

/** The lowercase hex SHA-256 of `text`'s UTF-8 bytes (crypto.subtle: secure pages only). */
export async function sha256Hex(text) {
  if (!globalThis.crypto || !crypto.subtle) throw new Error(REFUSED.insecure);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function isoSeconds(date) {
  return date.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** The progress file's object: every lesson of the course, with what this browser saved for it. */
export async function exportProgress(manifest, store, now = new Date()) {
  const lessons = {};
  for (const lesson of manifest.lessons) {
    const entries = {};
    for (const e of lessonEntries(lesson, store.saved).values()) {
      const value = store.load(store.storeKey(lesson.slug, e.block.id, e.part), e.shape);
      if (value !== null) entries[e.name] = value;
    }
    lessons[lesson.slug] = { title: lesson.title, version: lesson.version, entries };
    const part = (manifest.parts || []).find((pt) => pt.lessons.includes(lesson.slug));
    if (part) lessons[lesson.slug].part = part.title;
  }
  const body = { format: FORMAT, version: VERSION, course: { id: manifest.course.id, title: manifest.course.title },
    exported: isoSeconds(now), lessons };
  return { ...body, sha256: await sha256Hex(canonicalJSON(body)) };
}

/** The file's text (indented, for a person to read). */
export function fileText(file) {
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** `<course-id>-progress-<YYYY-MM-DD>.json`, the learner's own date. */
export function fileName(manifest, now = new Date()) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${manifest.course.id}-progress-${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}.json`;
}

// ---------- loading a file back ----------

const refuse = (message) => ({ ok: false, message });

/** Whether `value` nests objects and arrays more than `most` deep (a flat one is 1), walked level by level, not
 * by recursion (JSON.parse reads any depth; the call stack does not). */
function nestedDeeperThan(value, most) {
  const nests = (v) => v !== null && typeof v === "object";
  let level = nests(value) ? [value] : [];
  for (let depth = 1; level.length; depth += 1) {
    if (depth > most) return true;
    level = level.flatMap((v) => Object.values(v).filter(nests));
  }
  return false;
}

/** The file's fields other than the entries, exactly these. */
function fileShape(is) {
  const lesson = is.shape({ title: is.string, version: is.string, part: is.optional(is.string),
    entries: is.record(is.string, () => true) });
  return is.shape({ format: is.literal(FORMAT), version: is.literal(VERSION), course: is.shape({ id: is.string, title: is.string }),
    exported: is.string, lessons: is.record(is.string, lesson), sha256: is.string });
}

/**
 * Check a progress file's text against this course, changing nothing: {ok: false, message} (a REFUSED reason), or
 * {ok: true, plan} where the plan lists what loading it writes ([key, value]), each lesson it restores with its
 * progress in words, what it skips (lessons and entries this course does not have: never written) and when it was
 * exported. `plural` words the progress (page/dom.js).
 */
export async function checkFile(text, manifest, store, plural) {
  if (text.length > MAX_FILE_BYTES) return refuse(REFUSED.large);
  let file;
  try {
    file = JSON.parse(text);
  } catch {
    return refuse(REFUSED.json);
  }
  if (nestedDeeperThan(file, MAX_FILE_DEPTH)) return refuse(REFUSED.deep);
  const { is, saved } = store;
  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  if (!isObject(file) || file.format !== FORMAT) return refuse(REFUSED.format);
  if (!Number.isSafeInteger(file.version) || file.version < 1) return refuse(REFUSED.format);
  if (file.version > VERSION) return refuse(REFUSED.newer);
  if (!isObject(file.course) || !is.string(file.course.id)) return refuse(REFUSED.format);
  if (file.course.id !== manifest.course.id) return refuse(REFUSED.course(is.string(file.course.title) && file.course.title.trim() ? file.course.title : file.course.id));
  const { sha256, ...body } = file;
  if (sha256 !== (await sha256Hex(canonicalJSON(body)))) return refuse(REFUSED.hash);
  if (!fileShape(is)(file)) return refuse(REFUSED.format);

  const bySlug = new Map(manifest.lessons.map((l) => [l.slug, l]));
  const plan = { writes: [], lessons: [], skipped: { lessons: 0, entries: 0 }, exported: file.exported };
  for (const [slug, kept] of Object.entries(file.lessons)) {
    const lesson = bySlug.get(slug);
    if (!lesson) {
      plan.skipped.lessons += 1;
      continue;
    }
    const known = lessonEntries(lesson, saved);
    const found = new Map();
    for (const [name, value] of Object.entries(kept.entries)) {
      const entry = known.get(name);
      if (!entry) {
        plan.skipped.entries += 1; // a block this course no longer has, or an older version of one
        continue;
      }
      if (!entry.shape(value) || JSON.stringify(value).length > store.MAX_ENTRY_CHARS) return refuse(REFUSED.entry(lesson.title, name));
      found.set(name, value);
      plan.writes.push([store.storeKey(slug, entry.block.id, entry.part), value]);
    }
    if (found.size) {
      const p = tally(lesson, saved, (e) => (found.has(e.name) ? found.get(e.name) : null));
      plan.lessons.push({ slug, title: lesson.title, progress: describe(p, plural) });
    }
  }
  return { ok: true, plan };
}

/** Write a checked plan; if storage refuses any entry, put back what was there and report failure. */
export function applyPlan(plan, store) {
  const any = () => true;
  const before = plan.writes.map(([key]) => [key, store.load(key, any)]);
  for (const [key, value] of plan.writes) {
    if (store.save(key, value)) continue;
    for (const [k, old] of before) (old === null ? store.remove(k) : store.save(k, old));
    return false;
  }
  return true;
}

/**
 * Remove every entry this browser saved for the course's lessons (any block, any version) and its Continue link when
 * this course saved it (lastLesson): another course's, on the same origin, stays.
 */
export function resetProgress(manifest, store) {
  let entries = 0;
  let lessons = 0;
  for (const lesson of manifest.lessons) {
    const keys = store.lessonKeys(lesson.slug);
    for (const key of keys) store.remove(key);
    entries += keys.length;
    lessons += keys.length ? 1 : 0;
  }
  if (lastLesson(manifest, store)) store.remove(store.LAST_LESSON_KEY);
  return { entries, lessons };
}
