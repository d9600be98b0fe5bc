// A run's memory budget in the lab's worker (the rules: meter-core.js): every function of the language's built-ins
// classified and metered (meter-buffers.js, meter-text.js, meter-objects.js), WebAssembly shut after boot (wasm.js),
// and no original of a metered constructor left where Pyodide's own objects would hand it to learner code (scrub).
// lockDown (sandbox.js) calls meterMemory once, before any learner code runs.

import { ORIGINALS } from "./meter-core.js";
import { meterBuffers } from "./meter-buffers.js";
import { meterObjects } from "./meter-objects.js";
import { meterText } from "./meter-text.js";
import { meterWasm } from "./wasm.js";

export { createBudget, MEMORY_LIMIT_BYTES, overMessage, useRefusal } from "./meter-core.js";
export { capMemory } from "./wasm.js";

// Taken before the meter wraps them: the scrub runs after, and its own work is not the learner's to pay for.
const { apply, defineProperty, getOwnPropertyDescriptor, getPrototypeOf, ownKeys, setPrototypeOf } = Reflect;
const mapEntries = Map.prototype.entries;
const mapSet = Map.prototype.set;
const MapOriginal = Map;
const push = Array.prototype.push;
const SetOriginal = Set;
const setHas = Set.prototype.has;
const setAdd = Set.prototype.add;
const { isArray } = Array;
const { isView } = ArrayBuffer;
const isObject = (value) => value !== null && (typeof value === "object" || typeof value === "function");

export const SCRUB_DEPTH = 3; // how far from its roots the scrub follows properties
const LONG = 10000; // an array this long holds data, not classes

/** A Map's entries as [key, value] pairs, or none when value is not a Map. */
function entriesOf(value) {
  if (!(value instanceof MapOriginal)) return [];
  const pairs = [];
  const iterator = apply(mapEntries, value, []);
  for (let step = iterator.next(); !step.done; step = iterator.next()) apply(push, pairs, [step.value]);
  return pairs;
}

/** Scrub one object (see scrub), handing follow() what it holds. */
function scrubOne(object, follow) {
  const parent = typeof object === "function" ? getPrototypeOf(object) : null;
  if (ORIGINALS.has(parent)) setPrototypeOf(object, ORIGINALS.get(parent));
  if (isArray(object) && object.length > LONG) return;
  const pairs = entriesOf(object);
  for (let j = 0; j < pairs.length; j++) {
    const [key, value] = pairs[j];
    if (ORIGINALS.has(value)) apply(mapSet, object, [key, ORIGINALS.get(value)]);
    follow(key);
    follow(value);
  }
  const keys = ownKeys(object);
  for (let j = 0; j < keys.length; j++) {
    const desc = getOwnPropertyDescriptor(object, keys[j]);
    if (!desc || !isObject(desc.value)) continue;
    if (!ORIGINALS.has(desc.value)) follow(desc.value);
    else if (desc.writable || desc.configurable) {
      defineProperty(object, keys[j], { ...desc, value: ORIGINALS.get(desc.value) });
    }
  }
}

/**
 * Replace, in the objects learner code can reach from `roots` (Pyodide's API object: `pyodide_js`), every original
 * of a constructor the meter replaced by its metered stand-in: a property or a Map's value that holds one (Pyodide's
 * table of error classes), and the parent of a class derived from one (Pyodide's PythonError extends Error, so
 * `Object.getPrototypeOf` of it would be the original). `skip(value)` names objects not to enter (Python's objects,
 * which a walk would convert). Properties are followed SCRUB_DEPTH steps from the roots.
 */
export function scrub(roots, skip = () => false) {
  const seen = new SetOriginal();
  let level = roots;
  for (let depth = 0; depth <= SCRUB_DEPTH && level.length; depth++) {
    const next = [];
    const follow = (value) => {
      if (isObject(value)) apply(push, next, [value]);
    };
    for (let i = 0; i < level.length; i++) {
      const object = level[i];
      if (apply(setHas, seen, [object])) continue;
      apply(setAdd, seen, [object]);
      try {
        if (!isView(object) && !skip(object)) scrubOne(object, follow); // a typed array holds bytes, not classes
      } catch {
        // a Proxy whose traps refuse (Pyodide's recorder of paths, on the boot that takes a snapshot)
      }
    }
    level = next;
  }
}

/** Meter every function of `global`'s language built-ins against `budget`, deleting those no table lists, refuse
 * WebAssembly's constructors and compilers, and scrub the originals out of what `roots` lead to. Call once, before
 * any learner code runs. */
export function meterMemory(budget, global = globalThis, roots = [], skip = undefined) {
  meterBuffers(budget, global);
  meterText(budget, global);
  meterObjects(budget, global);
  meterWasm(budget, global);
  scrub(roots, skip);
}
