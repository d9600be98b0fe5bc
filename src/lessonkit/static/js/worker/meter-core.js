// A run's memory budget in the lab's worker: Python's heap and what learner code allocates in JavaScript share one
// cap (MEMORY_LIMIT_BYTES).
//
// Learner code cannot write JavaScript here (the page's CSP refuses eval, Function and run_js in the worker): it can
// only call the functions the worker's global object leads to. So before any learner code runs, every function of
// the language's built-ins is classified (meter-buffers.js, meter-text.js, meter-objects.js) and a function no table
// lists is deleted. A function that allocates is replaced by a metered one, which charges the request's budget and,
// past it, throws a RangeError in the learner's words:
// - by what comes back, after the call, when its allocation is its result — a string or an array, which V8 bounds
//   (a string at 2**29 characters, an array's store at 1 GB), so one call overshoots the budget by a bounded
//   amount and nothing past it is kept;
// - before the call, from sizes learner code cannot fake (a primitive string's length, a real array's length, a
//   typed array's or buffer's size read by the built-in getter, a number the wrapper coerced itself and passes on),
//   when one call may allocate more than that or make many objects: typed arrays, buffers, split pieces, keys;
// - element by element, when a built-in would consume an iterable or array-like: the wrapper reads it into an
//   array of its own, charging each element, and hands the built-in that array;
// - per call, for a function that makes a small object (an iterator, a promise, an error with its stack), since a
//   built-in may call it once per element of an array (map, from).
// A metered function is non-writable and non-configurable; a metered constructor is a Proxy of the original, stored
// as the global's binding (non-writable) and as its prototype's `constructor`. The originals stay in module scope,
// which no global leads to, and the wrappers call them through references taken before any learner code ran. The
// budget is charged for each allocation and never refunded: the worker serves one request and is then terminated
// (lab/client.js), so a run may allocate at most the cap in all, however much of it is later garbage; RESERVE_BYTES
// of it wait for the lab's own report of the run's end.

/** Python's memory and a run's JavaScript allocations together may reach this much. */
export const MEMORY_LIMIT_BYTES = 1024 * 1024 * 1024;

export const CHAR = 2; // bytes a string's character may take
export const SLOT = 16; // bytes charged per element of an array made: its slot and, for a number or BigInt, its box
export const OBJECT = 64; // bytes charged per object a call makes (an iterator, a promise, a wrapper)
export const ENTRY = 48; // bytes charged per entry of a Map or Set, or property of an object made
export const FREE = 0; // a table's mark for a function that allocates nothing in proportion to its arguments

// Built-ins taken before any learner code runs: a wrapper never looks a global up at call time.
const { apply, construct, defineProperty, getOwnPropertyDescriptor, getPrototypeOf, ownKeys } = Reflect;
const { isArray } = Array;
const { isView } = ArrayBuffer;
const { hasOwn } = Object;
const ToObject = Object;
const ToNumber = Number;
const ToString = String;
const { min, max, trunc } = Math;
const Refusal = RangeError;
const ITERATOR = Symbol.iterator;
const SPREADABLE = Symbol.isConcatSpreadable;
// "@@iterator" for Symbol.iterator, and so on: how a table names a well-known symbol.
const WELL_KNOWN = new Map(Object.getOwnPropertyNames(Symbol).filter((name) => typeof Symbol[name] === "symbol")
  .map((name) => [Symbol[name], `@@${name}`]));
const getterOf = (object, name) => getOwnPropertyDescriptor(object, name).get;
const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype);
const typedLengthOf = getterOf(TypedArrayPrototype, "length");
const typedByteLengthOf = getterOf(TypedArrayPrototype, "byteLength");
const viewByteLengthOf = getterOf(DataView.prototype, "byteLength");
const bufferByteLengthOf = getterOf(ArrayBuffer.prototype, "byteLength");
const sharedByteLengthOf = typeof SharedArrayBuffer === "function"
  ? getterOf(SharedArrayBuffer.prototype, "byteLength") : null;

let refusal = "worker.memory_refused {mb}"; // the page's words, once the boot has them (useRefusal)

/** Refuse in the page's words: its message "worker.memory_refused" (init's config.words), `{mb}` the cap. */
export function useRefusal(text) {
  if (typeof text === "string") refusal = text;
}

/** The words a learner reads when a run asks for more (a RangeError's message: it reaches Python's traceback). */
export function overMessage(limit) {
  return refusal.replace("{mb}", String(Math.round(limit / 2 ** 20)));
}

/** Held back from the start, and released at the first refusal: what the lab itself needs to report the run's
 * end (the error's text and the output handed to the page, Python's heap for its traceback) once learner code has
 * used everything else. */
export const RESERVE_BYTES = 32 * 1024 * 1024;

/** The budget: `charge(bytes)` throws a RangeError, allocating nothing, once the request's total would pass it. */
export function createBudget(limit, reserve = Math.min(RESERVE_BYTES, limit / 4)) {
  let left = limit - reserve;
  let held = reserve;
  const message = overMessage(limit);
  return {
    charge(bytes) {
      if (!(bytes > 0)) return; // NaN, negative, zero: the built-in itself refuses or allocates nothing
      if (bytes <= left) {
        left -= bytes;
        return;
      }
      left += held;
      held = 0;
      throw new Refusal(message);
    },
    /** The budget starts from what is in use already (Python's heap at lockdown). */
    spend(bytes) {
      left = Math.max(0, left - bytes);
    },
    get left() {
      return left;
    },
  };
}

// ---- sizes learner code cannot fake ----------------------------------------------------------------------------

/** A typed array's length by the built-in getter (never an own "length" property), or -1 when it is not one. */
export function typedLength(value) {
  if (!isView(value)) return -1;
  try {
    return apply(typedLengthOf, value, []);
  } catch {
    return -1; // a DataView
  }
}

/** Bytes a typed array, DataView, ArrayBuffer or SharedArrayBuffer spans, by the built-in getters; else -1. */
export function byteSize(value) {
  if (isView(value)) {
    try {
      return apply(typedByteLengthOf, value, []);
    } catch {
      return apply(viewByteLengthOf, value, []);
    }
  }
  try {
    return apply(bufferByteLengthOf, value, []);
  } catch {
    // not an ArrayBuffer
  }
  try {
    return sharedByteLengthOf ? apply(sharedByteLengthOf, value, []) : -1;
  } catch {
    return -1;
  }
}

/** Bytes a string result takes (two a character: V8's two-byte strings, or a rope of them). */
export const stringBytes = (value) => (typeof value === "string" ? value.length * CHAR : 0);

/** Bytes an array result takes. A real array's length is its own data property; a Proxy of one answers through
 * its handler, whose traps are then called for every element too. */
export const arrayBytes = (value) => (isArray(value) ? value.length * SLOT : 0);

/** How many keys Object.keys and its kin make for value: one a character or element for a string, a typed array or
 * an array (each index becomes a new string), else as many as it has. */
export function keyCount(value) {
  if (typeof value === "string") return value.length;
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return 0;
  const length = typedLength(value);
  if (length >= 0) return length;
  if (isArray(value)) return value.length;
  return ownKeys(value).length;
}

/** A number as the built-in itself coerces it, once: the wrapper passes this primitive on, so an object's valueOf
 * cannot answer differently to the meter and to the built-in. */
export function coerced(value) {
  return typeof value === "object" || typeof value === "function" ? ToNumber(value) : value;
}

/** How many elements slice(start, end) takes of `length`, by the spec's clamping (start and end coerced already). */
export function span(length, start, end) {
  const at = (value, fallback) => {
    if (value === undefined) return fallback;
    const n = trunc(ToNumber(value)) || 0;
    return n < 0 ? max(length + n, 0) : min(n, length);
  };
  return max(at(end, length) - at(start, 0), 0);
}

/** A string as the built-in coerces it, once (passed on in its place). */
export const asString = (value) => (typeof value === "string" ? value : ToString(value));

// ---- reading what learner code hands a built-in ----------------------------------------------------------------

const NO_ARGUMENTS = Object.freeze([]);
const stringIterator = String.prototype[Symbol.iterator];
const stringNext = Object.getPrototypeOf(""[Symbol.iterator]()).next;

/**
 * value read into a new array of this module's, `bytes` charged per element: a string, a typed array or a real
 * array by its length, at once; any other iterable as it yields (an iterator may yield without end); anything else
 * as an array-like whose length is read once. (No prototype of an array can take a new index accessor, and the array
 * iterator cannot be replaced: meter-objects.js. So a built-in reads this array as it was made.)
 */
export function materialize(value, budget, bytes = SLOT) {
  const out = [];
  if (value === null || value === undefined) return out;
  if (typeof value === "string") {
    budget.charge(value.length * bytes);
    const iterator = apply(stringIterator, value, NO_ARGUMENTS);
    for (let n = 0; ; n++) {
      const step = apply(stringNext, iterator, NO_ARGUMENTS);
      if (step.done) return out;
      out[n] = step.value;
    }
  }
  let length = typedLength(value);
  if (length < 0 && isArray(value)) length = value.length;
  if (length >= 0) {
    budget.charge(length * bytes);
    for (let i = 0; i < length; i++) out[i] = value[i];
    return out;
  }
  const method = value[ITERATOR];
  if (method !== undefined && method !== null) {
    const iterator = apply(method, value, NO_ARGUMENTS);
    const next = iterator.next;
    for (let n = 0; ; n++) {
      const step = apply(next, iterator, NO_ARGUMENTS);
      if (step.done) return out;
      budget.charge(bytes);
      out[n] = step.value;
    }
  }
  const object = ToObject(value);
  length = min(max(trunc(ToNumber(object.length)) || 0, 0), 2 ** 32 - 1);
  budget.charge(length * bytes);
  for (let i = 0; i < length; i++) out[i] = object[i];
  return out;
}

/** A non-array stand-in for a real array, which a built-in reads like it (its length taken once, its elements
 * through the prototype) and for which it makes its result with the intrinsic Array: an array's own
 * `constructor[Symbol.species]` could otherwise choose what the result is, and so what its length says. */
export function asArrayLike(array) {
  const view = { __proto__: array };
  defineProperty(view, "length", { value: array.length, writable: true });
  defineProperty(view, SPREADABLE, { value: true });
  return view;
}

// ---- replacing a built-in --------------------------------------------------------------------------------------

/** Each original constructor the meter replaced, and what replaced it (for meter.js's scrub of Pyodide's objects). */
export const ORIGINALS = new Map();

export const lock = (object, name, value) =>
  defineProperty(object, name, { value, writable: false, configurable: false, enumerable: false });

/** A function named `name` that calls body(this, args) (not a constructor, as a built-in method is not). */
export function named(name, body) {
  return {
    [name](...args) {
      return body(this, args);
    },
  }[name];
}

/** A rule: charge bytes(self, args) before the call. */
// A rule's bytes function reads only sizes learner code cannot fake (above); a rule that must coerce an argument to
// size it is written out, and passes the built-in what it coerced.
export const before = (bytes) => (original, budget, name) => named(name, (self, args) => {
  budget.charge(bytes(self, args));
  return apply(original, self, args);
});

/** A rule: charge bytes(result, self, args) after the call. */
export const after = (bytes) => (original, budget, name) => named(name, (self, args) => {
  const result = apply(original, self, args);
  budget.charge(bytes(result, self, args));
  return result;
});

/** A rule: a fixed charge per call. */
export const perCall = (bytes) => before(() => bytes);

/** A rule: the built-in's result is a string. */
export const STRING = after(stringBytes);

/** A rule: a small object per call. */
export const MAKES_OBJECT = perCall(OBJECT);

/**
 * Apply `table` to `object`'s own function-valued properties: each listed one is kept (FREE) or replaced by
 * table[key](original, budget, name); a function the table does not list is deleted. Accessors, other values and a
 * constructor's `prototype` are kept. Keys are property names, or "@@name" for the well-known symbol Symbol[name].
 */
export function meterTable(object, table, budget) {
  if (!object) return;
  for (const key of ownKeys(object)) {
    const desc = getOwnPropertyDescriptor(object, key);
    if (key === "prototype" || !desc || !("value" in desc) || typeof desc.value !== "function") continue;
    const entry = typeof key === "symbol" ? WELL_KNOWN.get(key) : key;
    const rule = hasOwn(table, entry) ? table[entry] : undefined;
    if (rule === undefined) {
      if (!desc.configurable) throw new Error(`the lab could not remove ${entry}, which no meter table lists`);
      delete object[key];
    } else if (rule !== FREE) {
      lock(object, key, rule(desc.value, budget, typeof key === "symbol" ? `[Symbol.${entry.slice(2)}]` : key));
    }
  }
}

/**
 * Replace holder[name] (a constructor) by a Proxy whose construct and apply traps call handler.construct(target,
 * args, newTarget) and handler.apply(target, self, args), where each charges what it makes; stored as holder[name]
 * and as its prototype's `constructor`. The original stays in this closure.
 */
export function meterConstructor(holder, name, handler) {
  const Original = holder[name];
  if (typeof Original !== "function") return null;
  const metered = new Proxy(Original, {
    construct(target, args, newTarget) {
      return handler.construct(target, args, newTarget === metered ? target : newTarget);
    },
    apply(target, self, args) {
      return handler.apply ? handler.apply(target, self, args) : handler.construct(target, args, target, true);
    },
  });
  lock(holder, name, metered);
  ORIGINALS.set(Original, metered);
  if (Original.prototype && getOwnPropertyDescriptor(Original.prototype, "constructor")?.configurable !== false) {
    // Writable as before: an object may still be given a `constructor` of its own by assignment.
    defineProperty(Original.prototype, "constructor", { value: metered, writable: true, configurable: true });
  }
  return metered;
}

/** A constructor handler: charge bytes(args) on `new` and on a call (which makes the same, for these). */
export const charging = (bytes, budget) => ({
  construct(target, args, newTarget, called) {
    budget.charge(bytes(args));
    return called ? apply(target, undefined, args) : construct(target, args, newTarget);
  },
});
