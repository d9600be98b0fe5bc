// The lab protocol's field checks (protocol.js): each takes a value and returns "" when it fits, else what is
// wrong, under the field's name (".a.b: …", ".a[2]: …"); shape() makes one for a whole message.

export const plain = (value) =>
  value !== null && typeof value === "object" && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
export const show = (value) => {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.slice(0, 40));
  return typeof value === "number" ? String(value) : typeof value;
};
/** A field's problem under its name: ".a.b: …", ".a[2]: …". */
export const under = (name, problem) => (/^[.[]/.test(problem) ? `${name}${problem}` : `${name}: ${problem}`);
export const expect = (ok, what) => (value) => (ok(value) ? "" : `expected ${what}, got ${show(value)}`);

export const string = expect((v) => typeof v === "string", "a string");
export const boolean = expect((v) => typeof v === "boolean", "true or false");
export const count = expect((v) => Number.isFinite(v) && v >= 0, "a number ≥ 0");
export const finite = expect((v) => Number.isFinite(v), "a finite number");
export const requestId = expect((v) => Number.isSafeInteger(v) && v > 0, "a positive integer");
export const oneOf = (...values) => expect((v) => values.includes(v), values.map((v) => JSON.stringify(v)).join(" or "));
export const instance = (name) => expect((v) => typeof globalThis[name] === "function" && v instanceof globalThis[name], `a ${name}`);
export const wasmModule = expect((v) => typeof WebAssembly === "object" && v instanceof WebAssembly.Module, "a WebAssembly.Module");
export const url = expect((v) => typeof v === "string" && /^https?:\/\/[^/]/.test(v), "an absolute http(s) URL");

/** Passes null as well as whatever check passes. */
export const nullable = (check) => (value) => (value === null ? "" : check(value));

/** An optional field: absent (or undefined) passes. Only meaningful inside shape(). */
export const optional = (check) => Object.assign((value) => (value === undefined ? "" : check(value)), { optional: true });

/** An array of at most `most` items (and at least `least`), each passing check. */
export const arrayOf = (check, { least = 0, most = Infinity } = {}) => (value) => {
  if (!Array.isArray(value)) return `expected an array, got ${show(value)}`;
  if (value.length < least || value.length > most) {
    return `expected ${most === Infinity ? `at least ${least}` : `${least} to ${most}`} items, got ${value.length}`;
  }
  for (let i = 0; i < value.length; i++) {
    const problem = check(value[i]);
    if (problem) return under(`[${i}]`, problem);
  }
  return "";
};

export const recordOf = (check) => (value) => {
  if (!plain(value)) return `expected an object, got ${show(value)}`;
  for (const [key, item] of Object.entries(value)) {
    const problem = check(item);
    if (problem) return under(`.${key}`, problem);
  }
  return "";
};

/** A plain object with exactly these fields (optional ones may be left out), each passing its check. */
export const shape = (fields) => (value) => {
  if (!plain(value)) return `expected an object, got ${show(value)}`;
  for (const key of Object.keys(value)) if (!Object.hasOwn(fields, key)) return `.${key}: not a field of this message`;
  for (const [key, check] of Object.entries(fields)) {
    if (!Object.hasOwn(value, key) && !check.optional) return `.${key}: missing`;
    const problem = check(value[key]);
    if (problem) return under(`.${key}`, problem);
  }
  return "";
};

/** Both checks must pass (the first's problem wins). */
export const both = (first, second) => (value) => first(value) || second(value);

export const anyObject = expect(plain, "an object");
export const lineNumber = expect((v) => Number.isSafeInteger(v) && v >= 0, "a line number");

/**
 * What labkit or the worker reports by message key, for the page to word (labkit/_words.py SAID, worker-said.json):
 * {key, values}, `key` one of `table`'s (key → the names of its values) and `values` exactly those, each a string
 * or a finite number.
 */
export const said = (table) => (value) => {
  if (!plain(value)) return `expected an object, got ${show(value)}`;
  for (const name of Object.keys(value)) if (name !== "key" && name !== "values") return `.${name}: not a field of a said`;
  if (typeof value.key !== "string" || !Object.hasOwn(table, value.key)) return `.key: no message ${show(value.key)}`;
  if (!plain(value.values)) return `.values: expected an object, got ${show(value.values)}`;
  const names = table[value.key];
  const given = Object.keys(value.values);
  for (const name of given) if (!names.includes(name)) return `.values.${name}: not a value of ${value.key}`;
  for (const name of names) {
    const v = value.values[name];
    if (typeof v !== "string" && !Number.isFinite(v)) return `.values.${name}: expected a string or a number, got ${show(v)}`;
  }
  return "";
};

/** The characters a said's values hold (what it adds to a message's size). */
export const saidLength = (value) => (value ? Object.values(value.values).reduce((n, v) => n + String(v).length, 0) : 0);
