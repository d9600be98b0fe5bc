// Saved progress in localStorage. Storage that is off, full or corrupt never breaks the page:
// reads fall back to nothing, writes report failure, and the page says progress can't be saved.
const PREFIX = "lessonkit:v1";
let usable = probe();
const listeners = [];

function probe() {
  try {
    const k = `${PREFIX}:probe`;
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

export function available() {
  return usable;
}

export function onUnavailable(fn) {
  listeners.push(fn);
  if (!usable) fn();
}

export function load(key) {
  let raw = null;
  try {
    raw = localStorage.getItem(key);
  } catch {
    fail();
    return null;
  }
  if (raw === null) return null;
  try {
    return JSON.parse(raw);
  } catch {
    remove(key); // corrupt entry: forget it rather than fail every load
    return null;
  }
}

export function save(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
    return true;
  } catch {
    fail();
    return false;
  }
}

export function remove(key) {
  try {
    localStorage.removeItem(key);
  } catch {
    fail();
  }
}
