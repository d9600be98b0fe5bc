// The memory meter's tables for text: strings, regular expressions, JSON, numbers, BigInt, symbols, dates and the
// global URI functions (see meter-core.js for the rules). A call that makes one string is charged by what comes back;
// one that makes many pieces of a string (split, a global match) or many values from text (JSON.parse), or a BigInt
// of a given width, is charged before, from a length coerced here and passed on in place of what it came from.

import {
  after,
  asString,
  before,
  CHAR,
  coerced,
  FREE,
  lock,
  MAKES_OBJECT,
  meterConstructor,
  meterTable,
  named,
  OBJECT,
  SLOT,
  STRING,
  stringBytes,
} from "./meter-core.js";
import { keepingCallback } from "./meter-objects.js";

const { apply, construct, getOwnPropertyDescriptor } = Reflect;
const { min, trunc } = Math;
const ToNumber = Number;
const sourceOf = getOwnPropertyDescriptor(RegExp.prototype, "source").get;

export const PIECE = 32; // bytes charged per piece a string may be cut into: a substring and its slot
export const JSON_CHAR = 12; // bytes charged per character of JSON text parsed: `[{},{},…]` makes an object of three
export const REGEXP_CHAR = 16; // bytes charged per character of a regular expression's pattern, compiled

/** split(separator, limit) of `this` as a string: charged for as many pieces as it could make (coerced here). */
const split = (original, budget, name) => named(name, (self, args) => {
  const text = asString(self);
  const limit = args[1] === undefined ? undefined : coerced(args[1]);
  const most = limit === undefined ? text.length + 1 : min(text.length + 1, trunc(ToNumber(limit)) >>> 0);
  budget.charge(most * PIECE);
  return apply(original, text, limit === undefined ? [args[0]] : [args[0], limit]);
});

/** A RegExp's [Symbol.match] and [Symbol.split] on a string (coerced here): as many pieces as the string has
 * characters, and one more. */
const pieces = (original, budget, name) => named(name, (self, args) => {
  const text = asString(args[0]);
  budget.charge((text.length + 1) * PIECE);
  return apply(original, self, args.length > 1 ? [text, args[1]] : [text]);
});

/** JSON.parse(text, reviver): the values its text can make, text coerced here. */
const parse = (original, budget, name) => named(name, (self, args) => {
  const text = asString(args[0]);
  budget.charge(text.length * JSON_CHAR);
  return apply(original, self, args.length > 1 ? [text, args[1]] : [text]);
});

/** BigInt.asIntN and asUintN(bits, bigint): a BigInt of `bits` bits (coerced here). */
const asBits = (original, budget, name) => named(name, (self, args) => {
  const bits = coerced(args[0]);
  budget.charge(ToNumber(bits) / 8);
  return apply(original, self, [bits, args[1]]);
});

/** A pattern's size, compiled. */
function patternBytes(pattern) {
  if (typeof pattern === "string") return OBJECT + pattern.length * REGEXP_CHAR;
  try {
    return OBJECT + apply(sourceOf, pattern, []).length * REGEXP_CHAR; // a RegExp
  } catch {
    return OBJECT; // another object: its toString is charged on its own
  }
}

const STRING_PROTOTYPE = {
  constructor: FREE,
  at: FREE, charAt: FREE, charCodeAt: FREE, codePointAt: FREE, endsWith: FREE, includes: FREE, indexOf: FREE,
  isWellFormed: FREE, lastIndexOf: FREE, localeCompare: FREE, startsWith: FREE, toString: FREE, valueOf: FREE,
  // These hand a RegExp (or an object with the method) to its own [Symbol.match], [Symbol.matchAll] and
  // [Symbol.search], or make one and do: the RegExp's methods are metered.
  match: FREE, matchAll: FREE, search: FREE,
  split,
  "@@iterator": MAKES_OBJECT,
  concat: STRING, normalize: STRING, padEnd: STRING, padStart: STRING, repeat: STRING, replace: STRING,
  replaceAll: STRING, slice: STRING, substr: STRING, substring: STRING, toLocaleLowerCase: STRING,
  toLocaleUpperCase: STRING, toLowerCase: STRING, toUpperCase: STRING, toWellFormed: STRING, trim: STRING,
  trimEnd: STRING, trimLeft: STRING, trimRight: STRING, trimStart: STRING,
  anchor: STRING, big: STRING, blink: STRING, bold: STRING, fixed: STRING, fontcolor: STRING, fontsize: STRING,
  italics: STRING, link: STRING, small: STRING, strike: STRING, sub: STRING, sup: STRING,
};

const REGEXP_PROTOTYPE = {
  constructor: FREE, test: FREE, "@@search": FREE,
  exec: after((result) => (result ? OBJECT + result.length * SLOT : 0)),
  "@@match": pieces, "@@split": pieces, "@@matchAll": MAKES_OBJECT, "@@replace": STRING, toString: STRING,
  compile: before((self, [pattern]) => patternBytes(pattern)),
};

const DATE_STRINGS = ["toDateString", "toGMTString", "toISOString", "toJSON", "toLocaleDateString", "toLocaleString",
  "toLocaleTimeString", "toString", "toTimeString", "toUTCString", "@@toPrimitive"];

/** Meter strings, regular expressions, JSON, numbers, BigInt, symbols, dates and the URI functions of `global`. */
export function meterText(budget, global) {
  // Each Python string handed to JavaScript is a new copy, however often the same string is handed over: Pyodide
  // builds a short one a character code at a time, a long one with a TextDecoder (meter-buffers.js).
  const fromCodes = before((self, args) => args.length * CHAR);
  meterTable(global.String, { fromCharCode: fromCodes, fromCodePoint: fromCodes, raw: STRING }, budget);
  meterTable(global.String.prototype, STRING_PROTOTYPE, budget);
  meterConstructor(global, "String", {
    construct: (target, args, newTarget) => construct(target, args, newTarget),
    apply: (target, self, args) => { // String(x) of anything but a string makes one
      const result = apply(target, self, args);
      if (typeof args[0] !== "string") budget.charge(stringBytes(result));
      return result;
    },
  });
  const RegExpOriginal = global.RegExp;
  meterConstructor(global, "RegExp", {
    construct(target, args, newTarget, called) {
      budget.charge(patternBytes(args[0]));
      return called ? apply(target, undefined, args) : construct(target, args, newTarget);
    },
  });
  meterTable(RegExpOriginal, { escape: STRING }, budget);
  meterTable(RegExpOriginal.prototype, REGEXP_PROTOTYPE, budget);
  meterTable(global.JSON, { parse: keepingCallback(1, parse), stringify: STRING, rawJSON: MAKES_OBJECT,
    isRawJSON: FREE }, budget);
  const numberStatics = {};
  for (const name of ["isFinite", "isInteger", "isNaN", "isSafeInteger", "parseFloat", "parseInt"]) {
    numberStatics[name] = FREE;
  }
  meterTable(global.Number, numberStatics, budget);
  meterTable(global.Number.prototype, {
    constructor: FREE, valueOf: FREE, toExponential: STRING, toFixed: STRING, toLocaleString: STRING,
    toPrecision: STRING, toString: STRING,
  }, budget);
  meterTable(global.Boolean.prototype, { constructor: FREE, toString: FREE, valueOf: FREE }, budget);
  meterTable(global.BigInt, { asIntN: asBits, asUintN: asBits }, budget);
  meterTable(global.BigInt.prototype, { constructor: FREE, valueOf: FREE, toLocaleString: STRING, toString: STRING },
    budget);
  meterTable(global.Symbol, { for: MAKES_OBJECT, keyFor: FREE }, budget);
  meterTable(global.Symbol.prototype, { constructor: FREE, valueOf: FREE, "@@toPrimitive": FREE, toString: STRING },
    budget);
  const DateOriginal = global.Date;
  meterConstructor(global, "Date", {
    construct: (target, args, newTarget) => construct(target, args, newTarget),
    apply: (target, self, args) => { // Date() is a string
      const result = apply(target, self, args);
      budget.charge(stringBytes(result));
      return result;
    },
  });
  meterTable(DateOriginal, { UTC: FREE, now: FREE, parse: FREE }, budget);
  const date = { constructor: FREE, valueOf: FREE };
  for (const name of Object.getOwnPropertyNames(DateOriginal.prototype)) {
    if (name.startsWith("get") || name.startsWith("set")) date[name] = FREE;
  }
  for (const name of DATE_STRINGS) date[name] = STRING;
  meterTable(DateOriginal.prototype, date, budget);
  for (const name of ["encodeURI", "encodeURIComponent", "decodeURI", "decodeURIComponent", "escape", "unescape"]) {
    if (typeof global[name] === "function") lock(global, name, STRING(global[name], budget, name));
  }
}
