// The memory meter's tables for objects and collections: Object, Function, Array, Reflect, Map, Set and their weak
// kin, Promise, Proxy, errors, iterators, Math, Atomics (see meter-core.js for the rules). An array made is charged
// by what comes back; keys, entries and property copies before, by how many the object has; what a built-in would
// read from an iterable is read element by element first; and a function that makes an object is charged per call,
// since a built-in may call it once per element of an array.

import {
  after,
  arrayBytes,
  asArrayLike,
  before,
  charging,
  coerced,
  ENTRY,
  FREE,
  keyCount,
  MAKES_OBJECT,
  materialize,
  meterConstructor,
  meterTable,
  named,
  OBJECT,
  perCall,
  SLOT,
  STRING,
} from "./meter-core.js";

const { apply, construct, defineProperty, getPrototypeOf, getOwnPropertyDescriptor, preventExtensions } = Reflect;
const { isArray } = Array;
const { max, min, trunc } = Math;
const ToNumber = Number;
const ToObject = Object;
const ErrorOriginal = Error;
const SetOriginal = Set;
const ITERATOR = Symbol.iterator;
const setSizeOf = getOwnPropertyDescriptor(Set.prototype, "size").get;
const ARRAY = after(arrayBytes);

export const FRAME = 64; // bytes charged per frame of a stack trace an error captures
// Frames charged at most: a stack deeper than this is rare, and Pyodide sets Error.stackTraceLimit to Infinity
// for each Python exception it hands to JavaScript.
export const MOST_FRAMES = 2000;

/** An error and its stack trace: Error.stackTraceLimit frames at most (none when that is not a number). */
export function errorBytes() {
  const limit = getOwnPropertyDescriptor(ErrorOriginal, "stackTraceLimit")?.value;
  return OBJECT + (typeof limit === "number" && limit > 0 ? min(limit, MOST_FRAMES) * FRAME : 0);
}

/** A rule for a built-in that keeps what a callback (its argument `at`) returns for each element (map's array,
 * JSON.parse's values): the callback charged per call, since it may make an object each time that no meter sees (a
 * function of Pyodide's own); `inner` is the rule for the rest. */
export const keepingCallback = (at, inner) => (original, budget, name) => {
  const metered = inner ? inner(original, budget, name) : original;
  return named(name, (self, args) => {
    const callback = args[at];
    if (typeof callback === "function") {
      args[at] = function charged(...values) {
        budget.charge(OBJECT);
        return apply(callback, this, values);
      };
    }
    return apply(metered, self, args);
  });
};

/** A length read once as the built-in reads it: a real array's own, else ToLength of the object's "length". */
function lengthOf(self) {
  if (isArray(self)) return self.length;
  return min(max(trunc(ToNumber(ToObject(self).length)) || 0, 0), 2 ** 53 - 1);
}

/** A relative index (coerced already) clamped into [0, length], as fill, copyWithin and splice clamp theirs. */
function clamp(value, length, fallback) {
  if (value === undefined) return fallback;
  const n = trunc(ToNumber(value)) || 0;
  return n < 0 ? max(length + n, 0) : min(n, length);
}

/** Array methods whose result the array's species would make: called on a stand-in (meter-core asArrayLike) when
 * `this` is a real array, so the intrinsic Array makes it, and charged by its length. */
const viewed = (original, budget, name) => named(name, (self, args) => {
  const result = apply(original, isArray(self) ? asArrayLike(self) : self, args);
  budget.charge(arrayBytes(result));
  return result;
});

/** fill(value, start, end): the span it writes (which may make a sparse array dense), its bounds passed as read. */
const fill = (original, budget, name) => named(name, (self, args) => {
  const length = lengthOf(self);
  const start = clamp(coerced(args[1]), length, 0);
  const end = clamp(coerced(args[2]), length, length);
  budget.charge(max(end - start, 0) * SLOT);
  return apply(original, self, [args[0], start, end]);
});

/** copyWithin(target, start, end): the elements it copies, its bounds passed as read. */
const copyWithin = (original, budget, name) => named(name, (self, args) => {
  const length = lengthOf(self);
  const to = clamp(coerced(args[0]), length, 0);
  const from = clamp(coerced(args[1]), length, 0);
  const final = clamp(coerced(args[2]), length, length);
  const count = max(min(final - from, length - to), 0);
  budget.charge(count * SLOT);
  return apply(original, self, [to, from, from + count]);
});

/** splice(start, deleteCount, ...items): the removed elements' new array and the items, its bounds passed as read. */
const splice = (original, budget, name) => named(name, (self, args) => {
  const length = lengthOf(self);
  const start = clamp(coerced(args[0]), length, 0);
  let deleted = 0;
  if (args.length === 1) deleted = length - start;
  else if (args.length > 1) deleted = min(max(trunc(ToNumber(coerced(args[1]))) || 0, 0), length - start);
  const items = max(args.length - 2, 0);
  budget.charge((deleted + items) * SLOT);
  const passed = [start, deleted];
  for (let i = 2; i < args.length; i++) passed[i] = args[i];
  return apply(original, self, args.length ? passed : []);
});

/** A static that reads an iterable (its first argument), given it read element by element first. */
const reading = (bytes) => (original, budget, name) => named(name, (self, args) => {
  const passed = [materialize(args[0], budget, bytes)];
  for (let i = 1; i < args.length; i++) passed[i] = args[i];
  return apply(original, self, passed);
});

/** Array.from(items, mapFn, thisArg) and Array.of(...items), made with the intrinsic Array whatever `this` is (a
 * constructor of learner code's could make the result something whose length says less than it holds). */
const arrayFrom = (original, budget, name) => named(name, (self, args) => {
  const passed = [materialize(args[0], budget)];
  for (let i = 1; i < args.length; i++) passed[i] = args[i];
  const result = apply(original, undefined, passed);
  budget.charge(arrayBytes(result));
  return result;
});
const arrayOf = (original, budget, name) => named(name, (self, args) => {
  budget.charge(args.length * SLOT);
  return apply(original, undefined, args);
});

/** Iterator.prototype.toArray(): the iterator read here, element by element. */
const toArray = (original, budget, name) => named(name, (self) => {
  const out = [];
  const next = self.next;
  for (;;) {
    const step = apply(next, self, []);
    if (step.done) return out;
    budget.charge(SLOT);
    out[out.length] = step.value;
  }
});

/** Set.prototype.union(other) and its kin: `other`'s keys read here, element by element, into a Set of their own
 * (its size and `has` are then the Set's). */
const setWith = (original, budget, name) => named(name, (self, args) => {
  const other = args[0];
  const keys = materialize({ [ITERATOR]: () => apply(other.keys, other, []) }, budget, ENTRY);
  budget.charge((apply(setSizeOf, self, []) + keys.length) * ENTRY);
  return apply(original, self, [construct(SetOriginal, [keys])]);
});

/** Keys, values, entries and descriptors: charged per key the object has before the call. */
const perKey = (bytes) => before((self, args) => keyCount(args[0]) * bytes);

/** Object.assign(target, ...sources): a property per key of each source. */
function assignBytes(self, args) {
  let keys = 0;
  for (let i = 1; i < args.length; i++) keys += keyCount(args[i]);
  return keys * ENTRY;
}

const OBJECT_STATICS = {
  freeze: FREE, getPrototypeOf: FREE, hasOwn: FREE, is: FREE, isExtensible: FREE, isFrozen: FREE, isSealed: FREE,
  preventExtensions: FREE, seal: FREE, setPrototypeOf: FREE,
  getOwnPropertyDescriptor: MAKES_OBJECT, defineProperty: perCall(ENTRY),
  keys: perKey(ENTRY), getOwnPropertyNames: perKey(ENTRY), values: perKey(SLOT), entries: perKey(OBJECT + ENTRY),
  getOwnPropertyDescriptors: perKey(OBJECT + ENTRY), getOwnPropertySymbols: ARRAY,
  assign: before(assignBytes),
  create: before((self, args) => OBJECT + (args[1] === undefined ? 0 : keyCount(args[1]) * ENTRY)),
  defineProperties: before((self, args) => keyCount(args[1]) * ENTRY),
  fromEntries: reading(ENTRY),
  groupBy: keepingCallback(1, reading(SLOT + OBJECT + ENTRY)), // each element may be its group's first
};

const ARRAY_PROTOTYPE = {
  constructor: FREE,
  at: FREE, every: FREE, find: FREE, findIndex: FREE, findLast: FREE, findLastIndex: FREE, forEach: FREE,
  includes: FREE, indexOf: FREE, lastIndexOf: FREE, pop: FREE, reduce: FREE, reduceRight: FREE, reverse: FREE,
  shift: FREE, some: FREE, sort: FREE,
  // Kept as they are (V8's fast iteration of arrays depends on it): an iterator is a few words.
  entries: FREE, keys: FREE, values: FREE, "@@iterator": FREE,
  push: before((self, args) => args.length * SLOT), unshift: before((self, args) => args.length * SLOT),
  fill, copyWithin, splice,
  concat: viewed, filter: viewed, flat: viewed, flatMap: keepingCallback(0, viewed), map: keepingCallback(0, viewed),
  slice: viewed,
  toReversed: ARRAY, toSorted: ARRAY, toSpliced: ARRAY, with: ARRAY,
  join: STRING, toLocaleString: STRING, toString: STRING,
};

const ITERATOR_PROTOTYPE = {
  constructor: FREE, "@@iterator": FREE, "@@dispose": FREE, "@@asyncIterator": FREE, "@@asyncDispose": FREE,
  every: FREE, find: FREE, forEach: FREE, includes: FREE, reduce: FREE, some: FREE,
  drop: MAKES_OBJECT, filter: MAKES_OBJECT, take: MAKES_OBJECT,
  flatMap: keepingCallback(0, MAKES_OBJECT), map: keepingCallback(0, MAKES_OBJECT),
  join: STRING, toArray,
};

const MATH = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "clz32", "cos", "cosh",
  "exp", "expm1", "f16round", "floor", "fround", "hypot", "imul", "log", "log10", "log1p", "log2", "max", "min", "pow",
  "random", "round", "sign", "sin", "sinh", "sqrt", "sumPrecise", "tan", "tanh", "trunc"];
const ATOMICS = ["add", "and", "compareExchange", "exchange", "isLockFree", "load", "notify", "or", "pause", "store",
  "sub", "wait", "xor"];

const STEPPING = { next: FREE, return: FREE, throw: FREE }; // each step makes one small result object

const ERRORS = ["Error", "AggregateError", "EvalError", "RangeError", "ReferenceError", "SuppressedError", "SyntaxError",
  "TypeError", "URIError"];

/** The prototypes of the language's iterators and generators, which no global names. */
function iteratorPrototypes(global) {
  const { Array: A, Map: M, Set: S, String: Str, RegExp: R, Iterator: I } = global;
  const found = [
    getPrototypeOf(apply(A.prototype.values, [], [])),
    getPrototypeOf(apply(M.prototype.values, new M(), [])),
    getPrototypeOf(apply(S.prototype.values, new S(), [])),
    getPrototypeOf(apply(Str.prototype[Symbol.iterator], "", [])),
    getPrototypeOf(apply(Str.prototype.matchAll, "", [new R("", "g")])),
    getPrototypeOf(getPrototypeOf((function* generator() {})())),
    getPrototypeOf(getPrototypeOf((async function* generator() {})())),
  ];
  if (I) {
    found.push(getPrototypeOf(apply(I.prototype.map, apply(A.prototype.values, [], []), [(x) => x])));
    found.push(getPrototypeOf(apply(I.from, I, [{ next: () => ({ done: true }) }])));
  }
  return found;
}

/** Meter Object, Function, Array, Reflect, the collections, Promise, errors, iterators, Math and Atomics of `global`. */
export function meterObjects(budget, global) {
  const { Object: O, Array: A, Map: M, Set: S, WeakMap: WM, WeakSet: WS, Promise: P } = global;
  const iterators = iteratorPrototypes(global);
  meterTable(O, OBJECT_STATICS, budget);
  meterTable(O.prototype, {
    constructor: FREE, hasOwnProperty: FREE, isPrototypeOf: FREE, propertyIsEnumerable: FREE, toLocaleString: FREE,
    toString: FREE, valueOf: FREE, __lookupGetter__: FREE, __lookupSetter__: FREE,
    __defineGetter__: perCall(ENTRY), __defineSetter__: perCall(ENTRY),
  }, budget);
  meterTable(global.Function.prototype, {
    constructor: FREE, apply: FREE, call: FREE, "@@hasInstance": FREE, toString: STRING,
    bind: before((self, args) => OBJECT + args.length * SLOT),
  }, budget);
  meterConstructor(global, "Array", charging((args) =>
    (args.length === 1 && typeof args[0] === "number" ? args[0] : args.length) * SLOT, budget));
  meterTable(A, { from: keepingCallback(1, arrayFrom), of: arrayOf, isArray: FREE }, budget);
  meterTable(A.prototype, ARRAY_PROTOTYPE, budget);
  meterTable(global.Reflect, {
    apply: FREE, deleteProperty: FREE, get: FREE, getPrototypeOf: FREE, has: FREE, isExtensible: FREE,
    preventExtensions: FREE, setPrototypeOf: FREE,
    construct: MAKES_OBJECT, getOwnPropertyDescriptor: MAKES_OBJECT, defineProperty: perCall(ENTRY),
    set: perCall(ENTRY), ownKeys: perKey(ENTRY),
  }, budget);
  for (const name of ["Map", "Set", "WeakMap", "WeakSet"]) {
    meterConstructor(global, name, {
      construct(target, args, newTarget, called) {
        if (called) return apply(target, undefined, args); // the built-in's TypeError: it needs `new`
        // Each entry is charged again by the adder the built-in calls (set or add, metered below).
        return construct(target, args[0] == null ? [] : [materialize(args[0], budget)], newTarget);
      },
    });
  }
  meterTable(M, { groupBy: keepingCallback(1, reading(SLOT + OBJECT + ENTRY)) }, budget);
  for (const Statics of [S, WM, WS, global.WeakRef, global.FinalizationRegistry, global.Function, global.Boolean]) {
    meterTable(Statics, {}, budget); // none: a function added to them later is not reachable
  }
  const adds = perCall(ENTRY);
  meterTable(M.prototype, {
    constructor: FREE, clear: FREE, delete: FREE, forEach: FREE, get: FREE, has: FREE,
    entries: MAKES_OBJECT, keys: MAKES_OBJECT, values: MAKES_OBJECT, "@@iterator": MAKES_OBJECT,
    set: adds, getOrInsert: adds, getOrInsertComputed: adds,
  }, budget);
  const withOther = setWith;
  meterTable(S.prototype, {
    constructor: FREE, clear: FREE, delete: FREE, forEach: FREE, has: FREE, isDisjointFrom: FREE, isSubsetOf: FREE,
    isSupersetOf: FREE, entries: MAKES_OBJECT, keys: MAKES_OBJECT, values: MAKES_OBJECT, "@@iterator": MAKES_OBJECT,
    add: adds, difference: withOther, intersection: withOther, symmetricDifference: withOther, union: withOther,
  }, budget);
  meterTable(WM.prototype, { constructor: FREE, delete: FREE, get: FREE, has: FREE, set: adds, getOrInsert: adds,
    getOrInsertComputed: adds }, budget);
  meterTable(WS.prototype, { constructor: FREE, delete: FREE, has: FREE, add: adds }, budget);
  meterTable(global.WeakRef.prototype, { constructor: FREE, deref: FREE }, budget);
  meterTable(global.FinalizationRegistry.prototype, { constructor: FREE, register: MAKES_OBJECT, unregister: FREE },
    budget);
  const all = reading(3 * OBJECT); // each element is resolved as a promise and its reaction registered
  meterTable(P, { all, allSettled: all, any: all, race: all, reject: MAKES_OBJECT, resolve: MAKES_OBJECT,
    try: MAKES_OBJECT, withResolvers: MAKES_OBJECT }, budget);
  meterTable(P.prototype, { constructor: FREE, then: MAKES_OBJECT, catch: MAKES_OBJECT, finally: MAKES_OBJECT },
    budget);
  meterTable(global.Proxy, { revocable: MAKES_OBJECT }, budget);
  for (const name of ERRORS) {
    if (typeof global[name] !== "function") continue;
    const Original = global[name];
    meterConstructor(global, name, {
      construct(target, args, newTarget, called) {
        budget.charge(errorBytes());
        let passed = args;
        if (name === "AggregateError") {
          passed = [materialize(args[0], budget)];
          for (let i = 1; i < args.length; i++) passed[i] = args[i];
        }
        return called ? apply(target, undefined, passed) : construct(target, passed, newTarget);
      },
    });
    meterTable(Original, name === "Error" ? { captureStackTrace: before(errorBytes), isError: FREE } : {}, budget);
    meterTable(Original.prototype, name === "Error" ? { constructor: FREE, toString: STRING } : { constructor: FREE },
      budget);
  }
  if (global.Iterator) {
    meterTable(global.Iterator, { concat: MAKES_OBJECT, from: MAKES_OBJECT, zip: MAKES_OBJECT,
      zipKeyed: MAKES_OBJECT }, budget);
    meterTable(global.Iterator.prototype, ITERATOR_PROTOTYPE, budget);
  }
  for (const prototype of iterators) {
    meterTable(prototype, STEPPING, budget);
    meterTable(getPrototypeOf(prototype), ITERATOR_PROTOTYPE, budget); // %IteratorPrototype%, %AsyncIteratorPrototype%
  }
  const math = {};
  for (const name of MATH) math[name] = FREE; // numbers in, a number out
  meterTable(global.Math, math, budget);
  const atomics = { waitAsync: MAKES_OBJECT };
  for (const name of ATOMICS) atomics[name] = FREE; // on a buffer that exists
  meterTable(global.Atomics, atomics, budget);
  sealArrays(global);
}

/**
 * The arrays the meter makes and hands a built-in (meter-core materialize) are read as they were made: no prototype
 * every array inherits can take a new property (an index accessor through which learner code would see and change
 * them), and the array iterator a built-in reads them with cannot be replaced.
 */
function sealArrays(global) {
  const ArrayPrototype = global.Array.prototype;
  const keep = (object, key) => defineProperty(object, key, { writable: false, configurable: false });
  keep(ArrayPrototype, Symbol.iterator);
  keep(ArrayPrototype, "values");
  keep(getPrototypeOf(apply(ArrayPrototype.values, [], [])), "next");
  preventExtensions(ArrayPrototype);
  preventExtensions(global.Object.prototype);
}
