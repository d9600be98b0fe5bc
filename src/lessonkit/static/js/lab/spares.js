// How many Pythons the page keeps booted ahead of need (lab/client.js), and when the extra one boots.
//
// A second spare costs about one more booted Pyodide (its heap and instance: docs/lesson/performance.md): kept where
// the browser says the device has SPARE_TWO_GB of memory or more (navigator.deviceMemory, in GB); browsers that do
// not say keep one.

const SPARE_TWO_GB = 4;
const FILL_IDLE_MS = 1000; // at most this long for an idle moment before the extra spare boots

export const SPARES = ((globalThis.navigator && navigator.deviceMemory) || 0) >= SPARE_TWO_GB ? 2 : 1;

/** fn in an idle moment (at most FILL_IDLE_MS from now), so a boot never competes with what the learner asked for. */
export function whenIdle(fn) {
  if (typeof requestIdleCallback === "function") requestIdleCallback(fn, { timeout: FILL_IDLE_MS });
  else setTimeout(fn, 0);
}
