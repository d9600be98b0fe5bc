// What learner code can reach in the lab's worker, and what it cannot.
//
// Learner code (Python, and any JavaScript it evaluates) runs in the worker, on the site's origin. Every route it has
// to JavaScript leads to the worker's one global object: `import js`, `pyodide_js`, `pyodide.code.run_js`, the
// constructor of any function (`Function("return this")`). Narrowing one route (Pyodide's `jsglobals` option only
// changes what `import js` is) would leave the others open, so the lab does not try to hide the global: once Python
// has booted and before any learner code runs, lockDown() deletes from the global object and its whole prototype
// chain every name REACHABLE does not list, and from the objects it keeps every member their lists do not name: an
// API a newer browser adds is gone too. WebIDL attributes and operations are configurable, so they are gone for
// everyone, whichever route leads there. What the worker's own code still needs (its port to the page, XHR for the
// full stdlib) it captured in module scope before, where learner code cannot see it. The worker serves one request
// and is then terminated (lab/client.js), so nothing learner code changes here, deleted or not, outlives that request.
//
// Kept: the language's built-ins, every function of which is classified and metered against the request's memory
// budget, or deleted (meter.js); WebAssembly without its constructors and compilers (wasm.js); and what Pyodide and
// the lab's own code use while a run goes on (REACHABLE.runtime, trimmed to the members in REACHABLE_MEMBERS).
// Pages have no way in either: localStorage and the DOM do not exist in a worker. JavaScript syntax cannot be
// removed: `import()` of a module URL still makes a request, same-origin only (the worker runs from a blob: URL under
// the page's own CSP, its <meta> tag on any host), and the module runs in this same, emptied global. That CSP also
// refuses `eval`, `Function` and Pyodide's `run_js` here.

import { createBudget, MEMORY_LIMIT_BYTES, meterMemory } from "./meter.js";
import { TYPED_ARRAYS } from "./meter-buffers.js";

const { getOwnPropertyDescriptor, getPrototypeOf, ownKeys } = Reflect;

/** The names left on the worker's global object and its prototype chain once learner code may run. */
export const REACHABLE = Object.freeze({
  // ECMAScript's global object: the language, metered (meter.js); WebAssembly shut (wasm.js).
  language: Object.freeze(["globalThis", "Infinity", "NaN", "undefined", "eval", "isFinite", "isNaN", "parseFloat",
    "parseInt", "decodeURI", "decodeURIComponent", "encodeURI", "encodeURIComponent", "escape", "unescape", "Object",
    "Function", "Boolean", "Symbol", "Error", "AggregateError", "EvalError", "RangeError", "ReferenceError",
    "SuppressedError", "SyntaxError", "TypeError", "URIError", "Number", "BigInt", "Math", "Date", "String", "RegExp",
    "Array", ...TYPED_ARRAYS, "Map", "Set", "WeakMap", "WeakSet", "ArrayBuffer", "SharedArrayBuffer", "DataView",
    "Atomics", "JSON", "WeakRef", "FinalizationRegistry", "Iterator", "Promise", "Reflect", "Proxy", "WebAssembly"]),
  // What Pyodide and the lab's own code use while a run goes on: the clock, random bytes, the console, timers (an
  // asyncio event loop), text codecs (Python's strings), the global itself, and labkit's writers.
  runtime: Object.freeze(["self", "constructor", "console", "performance", "crypto", "setTimeout", "clearTimeout",
    "setInterval", "clearInterval", "queueMicrotask", "TextDecoder", "TextEncoder", "labkitWriteOut",
    "labkitWriteErr", "labkitMountStdlib"]),
  // Numbers that cannot be deleted, and lead nowhere (an old file system API's). lockDown leaves any such constant;
  // tests/browser/test_lab_reach.py fails on one this list does not name.
  constants: Object.freeze(["TEMPORARY", "PERSISTENT"]),
});

/** Of the kept Web objects, the members left (on the object and its prototype chain up to Object.prototype). */
export const REACHABLE_MEMBERS = Object.freeze({
  performance: Object.freeze(["now", "timeOrigin", "constructor"]),
  crypto: Object.freeze(["getRandomValues", "constructor"]),
  console: Object.freeze(["log", "info", "warn", "error", "debug", "trace"]),
});

/** A fixed number or string (REACHABLE.constants): nothing to reach through, and it cannot be deleted. */
function isConstant(object, key) {
  const desc = getOwnPropertyDescriptor(object, key);
  return !desc.configurable && !desc.writable && "value" in desc
    && (desc.value === null || (typeof desc.value !== "object" && typeof desc.value !== "function"));
}

/** Delete every string-keyed property of object and its prototype chain (up to Object.prototype) not in `kept`. */
function strip(object, kept, global) {
  const allowed = new Set(kept);
  for (let o = object; o !== null && o !== global.Object.prototype; o = getPrototypeOf(o)) {
    for (const key of ownKeys(o)) {
      if (typeof key !== "string" || allowed.has(key) || isConstant(o, key)) continue;
      // Strict mode (a module): deleting a non-configurable property throws, so nothing is left half done silently.
      delete o[key];
    }
  }
}

/** Names on the global object and its chain, and members of the kept Web objects, that their lists do not name
 * (none after lockDown). */
export function unlisted(global = globalThis) {
  const left = [];
  const scan = (object, kept, prefix) => {
    for (let o = object; o !== null && o !== global.Object.prototype; o = getPrototypeOf(o)) {
      for (const key of ownKeys(o)) {
        if (typeof key === "string" && !kept.includes(key) && !isConstant(o, key)) left.push(prefix + key);
      }
    }
  };
  scan(global, [...REACHABLE.language, ...REACHABLE.runtime], "");
  for (const [name, members] of Object.entries(REACHABLE_MEMBERS)) {
    if (global[name]) scan(global[name], members, `${name}.`);
  }
  return left;
}

/**
 * Delete every name and member the lists above do not keep, and meter every built-in kept against one budget of
 * MEMORY_LIMIT_BYTES less `inUse` (Python's heap now: meter.js), scrubbing the originals out of what `roots` (Pyodide's
 * API object) lead to, `skip` naming what not to enter; throw if anything unlisted is left.
 */
export function lockDown(global = globalThis, inUse = 0, roots = [], skip = undefined) {
  const members = REACHABLE_MEMBERS;
  for (const name of Object.keys(members)) {
    if (global[name]) strip(global[name], members[name], global);
  }
  strip(global, [...REACHABLE.language, ...REACHABLE.runtime], global);
  const budget = createBudget(MEMORY_LIMIT_BYTES);
  budget.spend(inUse);
  meterMemory(budget, global, roots, skip);
  const left = unlisted(global);
  if (left.length) throw new Error(`the lab could not shut learner code out of ${left.join(", ")}`);
}

export { capMemory, MEMORY_LIMIT_BYTES, useRefusal } from "./meter.js";
