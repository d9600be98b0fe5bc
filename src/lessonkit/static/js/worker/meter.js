// A run's memory budget in the lab's worker: Python's heap and what learner code allocates in JavaScript share one
// cap (MEMORY_LIMIT_BYTES).
//
// Learner code cannot write JavaScript here (the page's CSP refuses eval, Function and run_js in the worker): it can
// only call the functions the worker's global object offers. So every built-in that allocates memory in proportion
// to its arguments is replaced, before any learner code runs, by a metered one that charges the request's budget
// first and throws a RangeError in the learner's words once the budget would be exceeded, before allocating:
// typed arrays, ArrayBuffer and SharedArrayBuffer (constructors, slice, transfer, growth), WebAssembly memories
// (constructor, grow; and a module's own memory, read from its bytes when it is compiled), strings (repeat, padding,
// join, concat, split, replace, and every Python string handed to JavaScript), arrays (fill, from, push, concat and
// the methods that copy one), Map and Set entries, and Blob. A metered constructor is a Proxy of the original, stored as
// the global's binding and as its prototype's `constructor`, both non-writable and non-configurable; the original
// is kept only in this module's closure, which no global leads to. The budget is charged for each allocation and
// never refunded: the worker serves one request and is then terminated (lab/client.js), so a run may allocate at most
// the cap in all, however much of it is later garbage. The refusal is worded in the page's language (useRefusal).

/** Python's memory and a run's JavaScript allocations together may reach this much. */
export const MEMORY_LIMIT_BYTES = 1024 * 1024 * 1024;

const WASM_PAGE = 65536;
const TYPED_ARRAYS = ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
  "Uint32Array", "Float16Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"];
const ARRAY_SLOT = 8; // bytes an array element takes, at least
const STRING_UNIT = 2; // bytes a string's character may take

let refusal = "worker.memory_refused {mb}"; // the page's words, once the boot has them (useRefusal)

/** Refuse in the page's words: its message "worker.memory_refused" (init's config.words), `{mb}` the cap. */
export function useRefusal(text) {
  if (typeof text === "string") refusal = text;
}

/** The words a learner reads when a run asks for more (a RangeError's message: it reaches Python's traceback). */
export function overMessage(limit) {
  return refusal.replace("{mb}", String(Math.round(limit / 2 ** 20)));
}

/** The budget: `charge(bytes)` throws a RangeError, allocating nothing, once the request's total would pass it. */
export function createBudget(limit) {
  let left = limit;
  const message = overMessage(limit);
  return {
    charge(bytes) {
      const n = Number(bytes);
      if (!(n > 0)) return; // NaN, negative, zero: the built-in itself refuses or allocates nothing
      if (n > left) throw new RangeError(message);
      left -= n;
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

const lock = (object, name, value) =>
  Object.defineProperty(object, name, { value, writable: false, configurable: false, enumerable: false });

function lengthOf(value) {
  if (value !== null && (typeof value === "object" || typeof value === "function")) {
    const n = Number(value.length);
    return Number.isFinite(n) ? n : 0;
  }
  return 0;
}

/** Replace `object[name]` (a method) by one that charges bytes(thisValue, args) first. */
function meterMethod(object, name, bytes, budget) {
  const original = object[name];
  if (typeof original !== "function") return;
  lock(object, name, {
    [name](...args) {
      budget.charge(bytes(this, args));
      return Reflect.apply(original, this, args);
    },
  }[name]);
}

/** Replace global[name] (a constructor) by a Proxy that charges bytes(args) on construct and call. */
function meterConstructor(global, name, bytes, budget, holder = global) {
  const Original = holder[name];
  if (typeof Original !== "function") return null;
  const metered = new Proxy(Original, {
    construct(target, args, newTarget) {
      budget.charge(bytes(args));
      return Reflect.construct(target, args, newTarget === metered ? target : newTarget);
    },
    apply(target, thisArg, args) {
      budget.charge(bytes(args));
      return Reflect.apply(target, thisArg, args);
    },
  });
  lock(holder, name, metered);
  if (Original.prototype) lock(Original.prototype, "constructor", metered);
  return Original;
}

const isBuffer = (value, global) =>
  value instanceof global.ArrayBuffer || (global.SharedArrayBuffer && value instanceof global.SharedArrayBuffer);

/** A wasm module's own memories (section 5), in pages at most: their maximum, or 65536 (4 GB) when none is set. */
export function definedMemoryPages(bytes) {
  const b = ArrayBuffer.isView(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    : bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : null;
  if (!b) return 0;
  let at = 8; // magic and version
  const leb = () => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = b[at++];
      if (byte === undefined) return -1;
      result += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return result;
      shift += 7;
    }
  };
  let pages = 0;
  while (at < b.length) {
    const id = b[at++];
    const size = leb();
    if (size < 0) return 0;
    const end = at + size;
    if (id === 5) {
      for (let count = leb(); count > 0; count--) {
        const flags = b[at++];
        const min = leb();
        const max = flags & 1 ? leb() : 65536;
        pages += Math.max(min, flags & 4 ? 65536 : max); // memory64: no 4 GB bound
      }
    }
    at = end;
  }
  return pages;
}

/**
 * Meter every allocating built-in of `global` against `budget`; `inUse` bytes (Python's heap now) are spent already.
 * Call once, before any learner code runs.
 */
export function meterMemory(budget, global = globalThis) {
  for (const name of TYPED_ARRAYS) {
    const Typed = global[name];
    if (typeof Typed !== "function") continue;
    const size = Typed.BYTES_PER_ELEMENT;
    meterConstructor(global, name, ([first]) => {
      if (first === null || first === undefined) return 0;
      if (typeof first !== "object" && typeof first !== "function") return Number(first) * size;
      return isBuffer(first, global) ? 0 : lengthOf(first) * size;
    }, budget);
  }
  const TypedArrayPrototype = Object.getPrototypeOf(global.Uint8Array.prototype);
  for (const name of ["slice", "map", "filter", "toReversed", "toSorted", "with"]) {
    meterMethod(TypedArrayPrototype, name, (self) => (self && self.byteLength) || 0, budget);
  }
  for (const name of ["ArrayBuffer", "SharedArrayBuffer"]) {
    const Buffer = global[name];
    if (typeof Buffer !== "function") continue;
    const proto = Buffer.prototype;
    meterConstructor(global, name, ([length, options]) => Math.max(Number(length) || 0,
      (options && Number(options.maxByteLength)) || 0), budget);
    meterMethod(proto, "slice", (self) => (self && self.byteLength) || 0, budget);
    for (const move of ["transfer", "transferToFixedLength"]) {
      meterMethod(proto, move, (self, [length]) => (length === undefined ? (self && self.byteLength) || 0 : length),
        budget);
    }
  }
  meterWasm(budget, global);
  const StringPrototype = global.String.prototype;
  meterMethod(StringPrototype, "repeat", (self, [count]) => String(self).length * Number(count) * STRING_UNIT, budget);
  for (const name of ["padStart", "padEnd"]) {
    meterMethod(StringPrototype, name, (self, [length]) => Number(length) * STRING_UNIT, budget);
  }
  meterMethod(StringPrototype, "concat", (self, args) =>
    args.reduce((sum, part) => sum + String(part).length, String(self).length) * STRING_UNIT, budget);
  meterMethod(StringPrototype, "split", (self) => String(self).length * ARRAY_SLOT, budget);
  for (const name of ["replace", "replaceAll"]) {
    meterMethod(StringPrototype, name, (self, [, replacement]) =>
      String(self).length * (typeof replacement === "string" ? Math.max(1, replacement.length) : 1) * STRING_UNIT,
    budget);
  }
  // Each Python string handed to JavaScript is a new copy, however often the same string is handed over: Pyodide
  // builds a short one a character code at a time, a long one with a TextDecoder.
  for (const name of ["fromCharCode", "fromCodePoint"]) {
    meterMethod(global.String, name, (self, args) => args.length * STRING_UNIT, budget);
  }
  if (global.TextDecoder) {
    meterMethod(global.TextDecoder.prototype, "decode", (self, [bytes]) =>
      ((bytes && Number(bytes.byteLength)) || 0) * STRING_UNIT, budget);
  }
  const ArrayPrototype = global.Array.prototype;
  meterMethod(ArrayPrototype, "join", (self, [separator]) =>
    lengthOf(self) * (separator === undefined ? 1 : String(separator).length) * STRING_UNIT, budget);
  meterMethod(ArrayPrototype, "fill", (self) => lengthOf(self) * ARRAY_SLOT, budget);
  meterMethod(ArrayPrototype, "push", (self, args) => args.length * ARRAY_SLOT, budget);
  meterMethod(ArrayPrototype, "unshift", (self, args) => args.length * ARRAY_SLOT, budget);
  meterMethod(ArrayPrototype, "concat", (self, args) =>
    args.reduce((sum, part) => sum + Math.max(1, lengthOf(part)), lengthOf(self)) * ARRAY_SLOT, budget);
  for (const name of ["slice", "map", "filter", "flat", "flatMap", "toSorted", "toReversed", "toSpliced", "with"]) {
    meterMethod(ArrayPrototype, name, (self) => lengthOf(self) * ARRAY_SLOT, budget);
  }
  meterMethod(global.Array, "from", (self, [items]) => lengthOf(items) * ARRAY_SLOT, budget);
  meterMethod(global.Array, "of", (self, args) => args.length * ARRAY_SLOT, budget);
  meterMethod(global.Map.prototype, "set", () => 2 * ARRAY_SLOT, budget);
  meterMethod(global.Set.prototype, "add", () => ARRAY_SLOT, budget);
  if (typeof global.Blob === "function") {
    const partSize = (part) => (typeof part === "string" ? part.length * 3
      : part && typeof part === "object" ? Number(part.byteLength ?? part.size ?? String(part).length) || 0 : 0);
    meterConstructor(global, "Blob", ([parts]) => (parts && typeof parts[Symbol.iterator] === "function"
      ? Array.from(parts, partSize).reduce((a, b) => a + b, 0) : 0), budget);
  }
}

let growBudget = null; // the request's budget, once meterMemory has run

/** Refuse growth of any wasm memory past `limit` bytes (Python then raises MemoryError), and once meterMemory has
 * run, charge every growth to the request's budget; call before Pyodide makes its memory. */
export function capMemory(limit = MEMORY_LIMIT_BYTES, global = globalThis) {
  const proto = global.WebAssembly.Memory.prototype;
  const grow = proto.grow;
  // Learner code cannot put the uncapped one back (nor reach it: it is only in this closure).
  lock(proto, "grow", function capped(pages) {
    if (this.buffer.byteLength + pages * WASM_PAGE > limit) throw new RangeError(overMessage(limit));
    if (growBudget) growBudget.charge(Number(pages) * WASM_PAGE);
    return grow.call(this, pages);
  });
}

/** WebAssembly: new memories, every growth (Python's own heap too: capMemory), and each instance of a module
 * compiled from here on, for the memories it defines itself (their maximum, which its code may grow to unseen). */
function meterWasm(budget, global) {
  const wasm = global.WebAssembly;
  growBudget = budget;
  meterConstructor(global, "Memory", ([descriptor]) => ((descriptor && Number(descriptor.initial)) || 0) * WASM_PAGE,
    budget, wasm);
  const pagesOf = new WeakMap(); // module -> pages its own memories may take
  const compiled = (module, bytes) => {
    pagesOf.set(module, definedMemoryPages(bytes));
    return module;
  };
  const OriginalModule = wasm.Module;
  const MeteredModule = new Proxy(OriginalModule, {
    construct(target, args, newTarget) {
      return compiled(Reflect.construct(target, args, newTarget === MeteredModule ? target : newTarget), args[0]);
    },
  });
  lock(wasm, "Module", MeteredModule);
  lock(OriginalModule.prototype, "constructor", MeteredModule);
  const instanceBytes = (module) => (pagesOf.get(module) || 0) * WASM_PAGE;
  meterConstructor(global, "Instance", ([module]) => instanceBytes(module), budget, wasm);
  const compile = wasm.compile;
  const instantiate = wasm.instantiate;
  lock(wasm, "compile", function compile_(bytes, ...rest) {
    return Reflect.apply(compile, wasm, [bytes, ...rest]).then((module) => compiled(module, bytes));
  });
  lock(wasm, "instantiate", function instantiate_(source, ...rest) {
    budget.charge(source instanceof OriginalModule ? instanceBytes(source) : definedMemoryPages(source) * WASM_PAGE);
    return Reflect.apply(instantiate, wasm, [source, ...rest]);
  });
  for (const name of ["compileStreaming", "instantiateStreaming"]) {
    // A stream's bytes cannot be read before compiling: after lockdown only bytes (metered above) are compiled.
    if (typeof wasm[name] === "function") {
      lock(wasm, name, () => Promise.reject(new TypeError(`WebAssembly.${name} is not available in the lab`)));
    }
  }
}
