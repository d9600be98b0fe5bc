// cmi.suspend_data: what a lesson's blocks saved, kept by the LMS between sessions, in at most
// limits.suspendData (64,000) characters (SCORM 2004's smallest permitted maximum).
//
// The value (version 1) is "lk1:" + base64(deflate-raw(UTF-8 JSON of the payload)), or, where the browser has no
// CompressionStream (and on the way out of the page, which cannot wait for one), "lk0:" + base64(UTF-8 JSON).
// Base64 keeps the value ASCII, so the limit is exact however an LMS counts characters, and a database column that
// is not UTF-8 gives it back unchanged. Python reads it with
//   json.loads(zlib.decompress(base64.b64decode(value[4:]), -15))   ("lk1:"; "lk0:" without the decompress)
// The payload:
//   {"format": "lessonkit-scorm", "version": 1,
//    "lessons": {"<slug>": {"version": "<the lesson's content version>",
//                           "entries": {"<block>:<version>" or "<block>:code": <saved value>},
//                           "local": ["<entry name>", …]}}}
// `entries` are the lesson's saved entries exactly as a progress file carries them (progress.js); the page checks
// each with its shape before using it. A value not in this form reads as nothing (decode never throws). An LMS that
// keeps one store for several SCOs (Open edX's block) keeps the other lessons' parts: each lesson replaces its own.
//
// When a lesson's part does not fit, its entries are left out, in this order, until it does: a lab's earlier edit
// (the `earlier` field of its code entry), then edited code (lab and exercise, the largest first), then drafts (the
// largest first). Answers and exercise results are never left out (they are a few dozen characters each). What is
// left out is named in `local`: it stays in this browser, and the next session in this browser keeps this
// browser's copy of it rather than the LMS's.
import { limits } from "./scorm-values.js";

export const FORMAT = limits.suspendFormat;
export const VERSION = limits.suspendVersion;
const DEFLATED = "lk1:";
const PLAIN = "lk0:";

function toBase64(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64(text) {
  const s = atob(text);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i += 1) bytes[i] = s.charCodeAt(i);
  return bytes;
}

async function through(bytes, stream) {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

const canCompress = () => typeof CompressionStream === "function" && typeof DecompressionStream === "function";

/** The payload as "lk0:" text, at once. */
export function encodePlain(payload) {
  return PLAIN + toBase64(new TextEncoder().encode(JSON.stringify(payload)));
}

/** The payload as "lk1:" text (or "lk0:" without CompressionStream). */
export async function encode(payload) {
  if (!canCompress()) return encodePlain(payload);
  const json = new TextEncoder().encode(JSON.stringify(payload));
  return DEFLATED + toBase64(await through(json, new CompressionStream("deflate-raw")));
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** The payload in `text`, or null when it is empty, not of this form, or of a newer version (never throws). */
export async function decode(text) {
  if (typeof text !== "string" || text.length > limits.suspendData) return null;
  let payload;
  try {
    if (text.startsWith(PLAIN)) {
      payload = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(fromBase64(text.slice(PLAIN.length))));
    } else if (text.startsWith(DEFLATED) && canCompress()) {
      const bytes = await through(fromBase64(text.slice(DEFLATED.length)), new DecompressionStream("deflate-raw"));
      payload = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    } else {
      return null;
    }
  } catch {
    return null;
  }
  if (!isObject(payload) || payload.format !== FORMAT || payload.version !== VERSION || !isObject(payload.lessons)) return null;
  return payload;
}

/**
 * One lesson's part of a decoded payload: {entries, local: Set} (empty when it has none, or a malformed one).
 * Each entry is still to be checked with its shape by the caller.
 */
export function lessonPart(payload, slug) {
  const part = payload && Object.prototype.hasOwnProperty.call(payload.lessons, slug) ? payload.lessons[slug] : null;
  if (!isObject(part) || !isObject(part.entries)) return { entries: {}, local: new Set() };
  const local = Array.isArray(part.local) ? part.local.filter((n) => typeof n === "string") : [];
  return { entries: part.entries, local: new Set(local) };
}

/**
 * The ways to shorten a lesson's entries, in order: each step is [name, entries without it (or with less of it)].
 * `kindOf(name)` says what an entry is: "code" (edited code), "draft", or anything else (kept).
 */
function* shorter(entries, kindOf) {
  let now = { ...entries };
  for (const [name, value] of Object.entries(now)) {
    if (kindOf(name) === "code" && isObject(value) && value.earlier !== undefined) {
      const { earlier, ...rest } = value;
      now = { ...now, [name]: rest };
      yield [name, now];
    }
  }
  const size = (name) => JSON.stringify(now[name]).length;
  for (const kind of ["code", "draft"]) {
    const names = Object.keys(now).filter((n) => kindOf(n) === kind).sort((a, b) => size(b) - size(a) || (a < b ? -1 : 1));
    for (const name of names) {
      const { [name]: gone, ...rest } = now;
      now = rest;
      yield [name, now];
    }
  }
}

function withLesson(payload, slug, version, entries, local) {
  const lessons = { ...(payload ? payload.lessons : {}), [slug]: { version, entries, local: [...local].sort() } };
  return { format: FORMAT, version: VERSION, lessons };
}

/** The payloads to try, in order: this lesson's part whole, then shorter and shorter ({payload, local}). */
function* attempts(earlier, slug, version, entries, kindOf) {
  const local = new Set();
  yield { payload: withLesson(earlier, slug, version, entries, local), local: [] };
  for (const [name, less] of shorter(entries, kindOf)) {
    local.add(name);
    yield { payload: withLesson(earlier, slug, version, less, local), local: [...local].sort() };
  }
}

/**
 * `earlier` (a decoded payload or null) with this lesson's part replaced by `entries`, encoded within
 * limits.suspendData: {text, local: [names left out]}, text null when even the answers do not fit (other lessons'
 * parts filling the room). `kindOf(name)`: "code", "draft", or anything else (never left out).
 */
export async function fit(earlier, slug, version, entries, kindOf) {
  let last = [];
  for (const { payload, local } of attempts(earlier, slug, version, entries, kindOf)) {
    const text = await encode(payload);
    if (text.length <= limits.suspendData) return { text, local };
    last = local;
  }
  return { text: null, local: last };
}

/** fit, at once, in the "lk0:" form: for the page's last moment (pagehide), which cannot wait for a stream. */
export function fitNow(earlier, slug, version, entries, kindOf) {
  let last = [];
  for (const { payload, local } of attempts(earlier, slug, version, entries, kindOf)) {
    const text = encodePlain(payload);
    if (text.length <= limits.suspendData) return { text, local };
    last = local;
  }
  return { text: null, local: last };
}
