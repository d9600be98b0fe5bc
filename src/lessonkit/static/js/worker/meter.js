// A run's memory budget in the lab's worker (the rules: meter-core.js): every function of the language's built-ins
// classified and metered (meter-buffers.js, meter-text.js, meter-objects.js), and WebAssembly shut after boot
// (wasm.js). lockDown (sandbox.js) calls meterMemory once, before any learner code runs.

import { meterBuffers } from "./meter-buffers.js";
import { meterObjects } from "./meter-objects.js";
import { meterText } from "./meter-text.js";
import { meterWasm } from "./wasm.js";

export { createBudget, MEMORY_LIMIT_BYTES, overMessage } from "./meter-core.js";
export { capMemory } from "./wasm.js";

/** Meter every function of `global`'s language built-ins against `budget`, deleting those no table lists, and
 * refuse WebAssembly's constructors and compilers. Call once, before any learner code runs. */
export function meterMemory(budget, global = globalThis) {
  meterBuffers(budget, global);
  meterText(budget, global);
  meterObjects(budget, global);
  meterWasm(budget, global);
}
