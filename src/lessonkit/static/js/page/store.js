// Saved progress in localStorage. Storage that is off, full or corrupt never breaks the page:
// reads fall back to nothing, writes report failure, and the page says progress can't be saved.
//
// Whatever a browser kept is untrusted input: an older page's entry, a hand edit in devtools, another tab. So every
// read names the shape it expects (`load(key, is.shape({...}))`, validators below), and an entry that is not JSON,
// not that shape, or larger than any entry the page writes is discarded (removed) with a console warning naming its
// key; the caller then starts as if nothing had been saved. Entries are at most MAX_ENTRY_CHARS on both sides, so
// the page never writes what it would refuse to read back.
//
// Keys are `lessonkit:v1:<lesson>:<block>:<version>`, the version being the block's content hash: an entry saved
// for an older version of a block is never read, and `dropOtherVersions` removes it so it cannot fill the quota.
// Another tab writing the same key is seen through `watch`, validated the same way. The prefix and the keys that are
// no lesson's come from storage-layout.json, which the build reads too: it keeps lessons from those names.
import layout from "./storage-layout.json" with { type: "json" };

const PREFIX = layout.prefix;
export const MAX_ENTRY_CHARS = 1024 * 1024; // far above a lab's code and its earlier edit; bigger entries are not parsed
let usable = probe();
const listeners = [];
const savedListeners = [];

function probe() {
  try {
    const k = `${PREFIX}:${layout.keys.probe.key}`;
    localStorage.setItem(k, "1");
    localStorage.removeItem(k);
    return true;
  } catch {
    return false;
  }
}

function fail() {
  const first = usable;
  usable = false;
  if (first) for (const fn of listeners) fn();
}

export function storeKey(lesson, block, version) {
  return `${PREFIX}:${lesson}:${block}:${version}`;
}

/** Where the course index finds the lesson a learner opened last ({lesson, course, at}; shapes.js's `last`). */
export const LAST_LESSON_KEY = `${PREFIX}:${layout.keys.last.key}`;

/** Where a learner's membership of a class is kept (class/member.js). */
export const CLASS_KEY = `${PREFIX}:${layout.keys.class.key}`;
/** Where presenter mode is kept on (true) until it is turned off (page/presenter.js). */
export const PRESENTER_KEY = `${PREFIX}:${layout.keys.presenter.key}`;

export function onUnavailable(fn) {
  listeners.push(fn);
  if (!usable) fn();
}

// ---------- shapes ----------

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

/** Small validators for saved values: each is `(value) => boolean`, and they compose. */
export const is = {
  string: (v) => typeof v === "string",
  number: (v) => typeof v === "number" && Number.isFinite(v),
  boolean: (v) => typeof v === "boolean",
  /** A whole number, 0 or more. */
  count: (v) => Number.isSafeInteger(v) && v >= 0,
  literal: (expected) => (v) => v === expected,
  /** Absent (undefined), or passes `check`: marks an optional field in `shape`. */
  optional: (check) => (v) => v === undefined || check(v),
  nullable: (check) => (v) => v === null || check(v),
  /** An object with exactly these fields (optional ones may be missing) and no others. */
  shape: (fields) => (v) =>
    isObject(v) &&
    Object.keys(v).every((k) => has(fields, k)) &&
    Object.entries(fields).every(([k, check]) => check(has(v, k) ? v[k] : undefined)),
  /** An object used as a map: every key passes `key(k)`, every value passes `value(v, k)`. */
  record: (key, value) => (v) => isObject(v) && Object.entries(v).every(([k, x]) => key(k) && value(x, k)),
};

// ---------- reading and writing ----------

function discard(key, why) {
  console.warn(`lessonkit: discarded saved progress "${key}" (${why}); starting without it.`);
  remove(key);
}

/** `raw` (a stored string, or null) parsed and checked with `validate`; null when absent or discarded. */
function accept(key, raw, validate) {
  if (raw === null) return null;
  if (raw.length > MAX_ENTRY_CHARS) {
    discard(key, `${raw.length.toLocaleString("en")} characters, larger than any entry this page saves`);
    return null;
  }
  let value;
  try {
    value = JSON.parse(raw);
  } catch {
    discard(key, "not readable as JSON");
    return null;
  }
  if (!validate(value)) {
    discard(key, "not the shape this page saves there");
    return null;
  }
  return value;
}

/** The value saved under `key` if it passes `validate`, else null (a value that fails is discarded). */
export function load(key, validate) {
  if (typeof validate !== "function") throw new TypeError(`store.load("${key}") needs a validator`);
  let raw = null;
  try {
    raw = localStorage.getItem(key);
  } catch {
    fail();
    return null;
  }
  return accept(key, raw, validate);
}

/**
 * Call `fn(key, value)` after every save (value: what was saved) and remove (value: null), whether or not this
 * browser could store it: the page's one write path, which the LMS reporter (lms/scorm.js) follows.
 */
export function onSaved(fn) {
  savedListeners.push(fn);
}

function saved(key, value) {
  for (const fn of savedListeners) {
    try {
      fn(key, value);
    } catch (err) {
      console.error("lessonkit: a listener of saved progress failed:", err);
    }
  }
}

export function save(key, value) {
  const text = JSON.stringify(value);
  if (text.length > MAX_ENTRY_CHARS) {
    console.warn(`lessonkit: not saving "${key}": ${text.length.toLocaleString("en")} characters is more than this page keeps.`);
    return false;
  }
  let ok = false;
  try {
    localStorage.setItem(key, text);
    ok = true;
  } catch {
    fail();
  }
  if (savedListeners.length) saved(key, JSON.parse(text)); // a copy: the caller may change its object later
  return ok;
}

export function remove(key) {
  try {
    localStorage.removeItem(key);
  } catch {
    fail();
  }
  if (savedListeners.length) saved(key, null);
}

/** Call `fn(value | null)` when another tab changes `key` (null: removed, cleared, or discarded as invalid). */
export function watch(key, validate, fn) {
  addEventListener("storage", (event) => {
    if (event.key !== null && event.key !== key) return;
    try {
      if (event.storageArea !== localStorage) return;
    } catch {
      return;
    }
    fn(event.key === null ? null : accept(key, event.newValue, validate));
  });
}

/** Every key saved for `lesson` (any block, any version), so its progress can be removed as a whole. */
export function lessonKeys(lesson) {
  const prefix = `${PREFIX}:${lesson}:`;
  const found = [];
  try {
    for (let i = 0; i < localStorage.length; i += 1) {
      const k = localStorage.key(i);
      if (k !== null && k.startsWith(prefix)) found.push(k);
    }
  } catch {
    fail();
  }
  return found;
}

/** Remove the entries of `block` saved under versions other than `version` (its content changed since). */
export function dropOtherVersions(lesson, block, version) {
  const prefix = `${PREFIX}:${lesson}:${block}:`;
  const keep = storeKey(lesson, block, version);
  try {
    const stale = [];
    for (let i = 0; i < localStorage.length; i += 1) {
      const k = localStorage.key(i);
      if (k !== null && k.startsWith(prefix) && k !== keep) stale.push(k);
    }
    for (const k of stale) localStorage.removeItem(k);
  } catch {
    fail();
  }
}
