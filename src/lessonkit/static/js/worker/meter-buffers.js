// The memory meter's tables for bytes: typed arrays, ArrayBuffer and SharedArrayBuffer, DataView, TextEncoder and
// TextDecoder (see meter-core.js for the rules). These are the built-ins one call of which may allocate more than V8's
// bound on a string or an array, so each charges before it allocates, from sizes learner code cannot fake.

import {
  asString,
  span,
  before,
  byteSize,
  CHAR,
  coerced,
  FREE,
  MAKES_OBJECT,
  materialize,
  meterConstructor,
  meterTable,
  named,
  SLOT,
  STRING,
  typedLength,
} from "./meter-core.js";

const { apply, construct, getPrototypeOf, ownKeys } = Reflect;
const { max } = Math;
const ToNumber = Number;
const isObject = (value) => value !== null && (typeof value === "object" || typeof value === "function");

export const TYPED_ARRAYS = ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
  "Uint32Array", "Float16Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"];

/** `new TypedArray(x)`: a length is charged as given (coerced here, once); a buffer makes a view; a typed array is
 * charged by its own length; anything else (an array, an iterable, an array-like) is read element by element into
 * an array of the meter's, each element charged, and the typed array made from that. */
function typedArrayHandler(size, budget) {
  return {
    construct(target, args, newTarget, called) {
      if (called) return apply(target, undefined, args); // the built-in's TypeError: it needs `new`
      const first = args[0];
      if (!isObject(first)) {
        if (first === undefined) return construct(target, args, newTarget);
        const length = coerced(first);
        budget.charge(ToNumber(length) * size);
        return construct(target, [length], newTarget);
      }
      const length = typedLength(first);
      if (length >= 0) {
        budget.charge(length * size);
        return construct(target, [first], newTarget);
      }
      if (byteSize(first) >= 0) return construct(target, args, newTarget); // a view of a buffer
      const elements = materialize(first, budget, SLOT + size);
      return construct(target, [elements], newTarget);
    },
  };
}

/** `new ArrayBuffer(length, {maxByteLength})`: the larger of the two (each coerced here, once) is charged. */
function bufferHandler(budget) {
  return {
    construct(target, args, newTarget, called) {
      if (called) return apply(target, undefined, args);
      const length = args[0];
      const options = args[1];
      const bytes = length === undefined ? length : coerced(length);
      const given = isObject(options) ? options.maxByteLength : undefined;
      const most = given === undefined ? given : coerced(given);
      budget.charge(max(ToNumber(bytes) || 0, ToNumber(most) || 0));
      return construct(target, most === undefined ? [bytes] : [bytes, { maxByteLength: most }], newTarget);
    },
  };
}

const ownBytes = (self) => max(byteSize(self), 0);

/** slice(start, end) of a typed array or buffer: the bytes of the span it copies, its bounds coerced here, once. */
const sliceOf = (original, budget, name) => named(name, (self, args) => {
  const bytes = ownBytes(self);
  const length = max(typedLength(self), 0);
  const start = args[0] === undefined ? undefined : coerced(args[0]);
  const end = args[1] === undefined ? undefined : coerced(args[1]);
  const count = span(length || bytes, start, end);
  budget.charge(length ? (count * bytes) / length : count);
  return apply(original, self, end === undefined ? [start] : [start, end]);
});

/** %TypedArray%.from(source, mapFn, thisArg): the source read element by element first. */
const typedFrom = (original, budget, name) => named(name, (self, args) => {
  const passed = [materialize(args[0], budget)];
  for (let i = 1; i < args.length; i++) passed[i] = args[i];
  return apply(original, self, passed);
});

/** A buffer's transfer(newLength): a new buffer of that length (coerced here, once). */
const transfer = (original, budget, name) => named(name, (self, args) => {
  const length = args[0] === undefined ? undefined : coerced(args[0]);
  budget.charge(length === undefined ? ownBytes(self) : ToNumber(length));
  return apply(original, self, length === undefined ? [] : [length]);
});

/** Uint8Array.fromBase64 and fromHex take a string (else they throw): bytes at most its length. */
const fromText = (original, budget, name) => named(name, (self, args) => {
  if (typeof args[0] === "string") budget.charge(args[0].length);
  return apply(original, self, args);
});

/** TextEncoder's encode(input): at most three bytes a character of input (coerced here, once). */
const encode = (original, budget, name) => named(name, (self, args) => {
  const text = args[0] === undefined ? "" : asString(args[0]);
  budget.charge(text.length * 3);
  return apply(original, self, [text]);
});

const TYPED_ARRAY_PROTOTYPE = {
  constructor: FREE,
  at: FREE, copyWithin: FREE, every: FREE, fill: FREE, find: FREE, findIndex: FREE, findLast: FREE,
  findLastIndex: FREE, forEach: FREE, includes: FREE, indexOf: FREE, lastIndexOf: FREE, reduce: FREE,
  reduceRight: FREE, reverse: FREE, set: FREE, some: FREE, sort: FREE,
  entries: MAKES_OBJECT, keys: MAKES_OBJECT, values: MAKES_OBJECT, "@@iterator": MAKES_OBJECT,
  subarray: MAKES_OBJECT, // a view of the same buffer
  // A new typed array of at most this one's size, made with its species (charged again when that is a metered
  // constructor) or, when its `constructor` says nothing, with the intrinsic one.
  filter: before(ownBytes), map: before(ownBytes), slice: sliceOf, toReversed: before(ownBytes),
  toSorted: before(ownBytes), with: before(ownBytes),
  join: STRING, toLocaleString: STRING, toString: STRING,
};

/** Meter typed arrays, buffers, DataView and the text codecs of `global` against `budget`. */
export function meterBuffers(budget, global) {
  for (const name of TYPED_ARRAYS) {
    const Typed = global[name];
    if (typeof Typed !== "function") continue;
    meterConstructor(global, name, typedArrayHandler(Typed.BYTES_PER_ELEMENT, budget));
    meterTable(Typed, name === "Uint8Array" ? { fromBase64: fromText, fromHex: fromText } : {}, budget);
    meterTable(Typed.prototype, name === "Uint8Array"
      ? { constructor: FREE, setFromBase64: FREE, setFromHex: FREE, toBase64: STRING, toHex: STRING }
      : { constructor: FREE }, budget);
  }
  const TypedArray = getPrototypeOf(global.Int8Array);
  meterTable(TypedArray, { from: typedFrom, of: FREE }, budget); // `of`: made with `this`, a metered constructor
  meterTable(TypedArray.prototype, TYPED_ARRAY_PROTOTYPE, budget);
  for (const name of ["ArrayBuffer", "SharedArrayBuffer"]) {
    if (typeof global[name] !== "function") continue;
    const Original = global[name];
    meterConstructor(global, name, bufferHandler(budget));
    meterTable(Original, { isView: FREE }, budget);
    meterTable(Original.prototype, {
      constructor: FREE, resize: FREE, grow: FREE, // within the maxByteLength charged when it was made
      slice: sliceOf, transfer, transferToFixedLength: transfer,
    }, budget);
  }
  const dataView = { constructor: FREE }; // its getters and setters read and write its buffer
  for (const key of ownKeys(global.DataView.prototype)) {
    if (typeof key === "string" && (key.startsWith("get") || key.startsWith("set"))) dataView[key] = FREE;
  }
  meterTable(global.DataView.prototype, dataView, budget);
  if (global.TextEncoder) meterTable(global.TextEncoder.prototype, { constructor: FREE, encode, encodeInto: FREE }, budget);
  if (global.TextDecoder) {
    // Every Python string handed to JavaScript is a new copy, decoded from Python's heap when it is long.
    meterTable(global.TextDecoder.prototype, {
      constructor: FREE, decode: before((self, [bytes]) => ownBytes(bytes) * CHAR),
    }, budget);
  }
}
