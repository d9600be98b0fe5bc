// WebAssembly in the lab's worker: Python's own heap is capped (capMemory, before Pyodide makes it), and once Python
// has booted — its runtime, its packages' shared libraries and its trampolines compiled and instantiated — learner
// code may compile nothing (meterWasm). A module of its own could define or import a memory and grow it with the
// `memory.grow` instruction, allocate in a loop as a garbage-collected array, or hold tables, none of which a meter of
// JavaScript's built-ins sees; no lesson needs one. So every constructor and compiler of the WebAssembly namespace is
// refused after boot (a Proxy of it that throws, so `instanceof` goes on working for Pyodide's own code), a module's
// introspection is deleted, and what stays reachable is metered: every growth of a memory (Python's heap, which meets
// MemoryError at the cap) and of a table.

import { errorBytes } from "./meter-objects.js";
import {
  byteSize,
  FREE,
  lock,
  meterTable,
  MEMORY_LIMIT_BYTES,
  named,
  OBJECT,
  ORIGINALS,
  overMessage,
  SLOT,
} from "./meter-core.js";

const WASM_PAGE = 65536;
const { apply, construct, defineProperty, getOwnPropertyDescriptor, ownKeys } = Reflect;
const ToNumber = Number;
const Refusal = TypeError;
const Over = RangeError;

let growBudget = null; // the request's budget, once meterWasm has run

/** Refuse growth of any wasm memory past `limit` bytes (Python then raises MemoryError), and once meterWasm has
 * run, charge every growth to the request's budget; call before Pyodide makes its memory. */
export function capMemory(limit = MEMORY_LIMIT_BYTES, global = globalThis) {
  const proto = global.WebAssembly.Memory.prototype;
  const grow = proto.grow;
  const bufferOf = getOwnPropertyDescriptor(proto, "buffer").get;
  // Learner code cannot put the uncapped one back (nor reach it: it is only in this closure).
  lock(proto, "grow", function capped(pages) {
    const count = ToNumber(pages);
    if (byteSize(apply(bufferOf, this, [])) + count * WASM_PAGE > limit) throw new Over(overMessage(limit));
    if (growBudget) growBudget.charge(count * WASM_PAGE);
    return apply(grow, this, [count]);
  });
}

/** The WebAssembly namespace once learner code may run: each member refused (a constructor or compiler that throws),
 * or kept; any other is deleted. */
export const WEBASSEMBLY = Object.freeze({
  refused: Object.freeze(["Module", "Instance", "Memory", "Table", "Global", "Tag", "Suspending", "Function", "compile",
    "instantiate", "validate", "compileStreaming", "instantiateStreaming", "promising"]),
  // Errors and exceptions Pyodide's code raises and tests (`instanceof`), and the tag of a JavaScript exception.
  kept: Object.freeze(["Exception", "CompileError", "LinkError", "RuntimeError", "SuspendError", "JSTag"]),
});

/** The words of a refused WebAssembly API. */
export const refusedMessage = (name) => `WebAssembly.${name} is not available in the lab`;

/** A rule: the constructor refused on `new` and on a call, kept for `instanceof` (its prototype's `constructor` too). */
const refusedConstructor = (Original, budget, name) => {
  const refused = new Proxy(Original, {
    construct() {
      throw new Refusal(refusedMessage(name));
    },
    apply() {
      throw new Refusal(refusedMessage(name));
    },
  });
  if (Original.prototype) {
    defineProperty(Original.prototype, "constructor", { value: refused, writable: true, configurable: true });
  }
  ORIGINALS.set(Original, refused);
  return refused;
};

/** A Proxy of Original with `handler`, noted as what replaced it. */
function registered(Original, handler) {
  const proxy = new Proxy(Original, handler);
  ORIGINALS.set(Original, proxy);
  defineProperty(Original.prototype, "constructor", { value: proxy, writable: true, configurable: true });
  return proxy;
}

/** A rule: the function refused. */
const refused = (original, budget, name) => named(name, () => {
  throw new Refusal(refusedMessage(name));
});

/** A rule: an error class of WebAssembly's, charged like the language's errors. */
const errorClass = (Original, budget) => registered(Original, {
  construct(target, args, newTarget) {
    budget.charge(errorBytes());
    return construct(target, args, newTarget);
  },
  apply(target, self, args) {
    budget.charge(errorBytes());
    return apply(target, self, args);
  },
});

/** A rule: WebAssembly.Exception, which Pyodide 0.27 makes for a JavaScript error passing through its code. */
const exceptionClass = (Original, budget) => registered(Original, {
  construct(target, args, newTarget) {
    budget.charge(OBJECT);
    return construct(target, args, newTarget);
  },
});

/** Refuse WebAssembly's constructors and compilers of `global`, delete a module's introspection, and charge every
 * memory's and table's growth to `budget`. Call once Python and its packages are loaded, before learner code. */
export function meterWasm(budget, global) {
  const wasm = global.WebAssembly;
  if (!wasm) return;
  growBudget = budget;
  const { Memory, Table, Global, Instance, Module, Tag, Exception } = wasm;
  meterTable(Memory.prototype, { constructor: FREE, grow: FREE }, budget); // grow: capped and charged (capMemory)
  meterTable(Table.prototype, {
    constructor: FREE, get: FREE, set: FREE,
    grow: (original) => named("grow", (self, args) => {
      const count = ToNumber(args[0]);
      budget.charge(count * SLOT);
      return apply(original, self, args.length > 1 ? [count, args[1]] : [count]);
    }),
  }, budget);
  meterTable(Global.prototype, { constructor: FREE, valueOf: FREE }, budget);
  if (Tag) meterTable(Tag.prototype, { constructor: FREE }, budget);
  if (Exception) meterTable(Exception.prototype, { constructor: FREE, getArg: FREE, is: FREE }, budget);
  for (const Class of [Memory, Table, Global, Instance, Module, Tag, Exception]) {
    if (Class) meterTable(Class, {}, budget); // no statics: Module.customSections would copy a module's bytes
  }
  const table = { Exception: exceptionClass, CompileError: errorClass, LinkError: errorClass,
    RuntimeError: errorClass, SuspendError: errorClass };
  for (const name of WEBASSEMBLY.refused) table[name] = /^[A-Z]/.test(name) ? refusedConstructor : refused;
  meterTable(wasm, table, budget);
  for (const key of ownKeys(wasm)) {
    if (typeof key === "string" && !WEBASSEMBLY.refused.includes(key) && !WEBASSEMBLY.kept.includes(key)) {
      delete wasm[key]; // a value no list names (a function no table lists is gone already)
    }
  }
}
