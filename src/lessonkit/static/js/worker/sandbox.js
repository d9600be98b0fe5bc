// What learner code can reach in the lab's worker, and what it cannot.
//
// Learner code (Python, and any JavaScript it evaluates) runs in the worker, on the site's origin. Every route it has
// to JavaScript leads to the worker's one global object: `import js`, `pyodide_js`, `pyodide.code.run_js`, the
// constructor of any function (`Function("return this")`), an event's `target`. Narrowing one route (Pyodide's
// `jsglobals` option only changes what `import js` is) would leave the others open, so the lab does not try to
// hide the global: once Python has booted and before any learner code runs, lockDown() deletes from the global
// object, its whole prototype chain and `navigator`'s every API that reaches beyond this worker. WebIDL attributes
// and operations are configurable, so they are gone for everyone, whichever route leads there. What the worker's
// own code still needs (its port to the page, XHR for the full stdlib) it captured in module scope before, where
// learner code cannot see it. The worker serves one request and is then terminated (lab-client.js), so nothing
// learner code changes here, deleted or not, outlives that request.
//
// Removed (BLOCKED_GLOBALS, BLOCKED_NAVIGATOR):
// - the site's storage: Cache Storage (the offline copy, the Python snapshot), IndexedDB, the origin's file
//   system (OPFS and the old webkit file system), storage buckets, Web Locks;
// - other contexts: postMessage (the worker's own channel to the page), nested workers (same-origin, with full
//   access), BroadcastChannel, importScripts;
// - the network: fetch, XMLHttpRequest, WebSocket, EventSource, WebTransport, font loading;
// - what no lesson uses: OffscreenCanvas and its 2D/WebGL contexts, createImageBitmap, WebGPU, navigator.permissions,
//   object URLs (BLOCKED_URL).
// Every allocating built-in is metered against the request's memory budget (meter.js).
// Left: the language, timers, MessageChannel (Pyodide schedules with it), TextEncoder/Decoder, crypto, performance,
// console. Pages have no way in either: localStorage and the DOM do not exist in a worker.
// JavaScript syntax cannot be removed: `import()` of a module URL still makes a request, same-origin only (the
// worker runs from a blob: URL under the page's own CSP, its <meta> tag on any host), and the module runs in this
// same, emptied global. That CSP also refuses `eval`, `Function` and Pyodide's `run_js` here.

import { createBudget, MEMORY_LIMIT_BYTES, meterMemory } from "./meter.js";

/** Global names (searched on the global object and its prototype chain). */
const BLOCKED_GLOBALS = Object.freeze([
  // storage
  "caches",
  "Cache",
  "CacheStorage",
  "indexedDB",
  "webkitRequestFileSystem",
  "webkitRequestFileSystemSync",
  "webkitResolveLocalFileSystemURL",
  "webkitResolveLocalFileSystemSyncURL",
  // other contexts
  "postMessage",
  "Worker",
  "SharedWorker",
  "BroadcastChannel",
  "importScripts",
  // the network
  "fetch",
  "XMLHttpRequest",
  "WebSocket",
  "WebSocketStream",
  "EventSource",
  "WebTransport",
  "FontFace",
  "fonts",
  // what no lesson uses: drawing off screen (2D, WebGL, bitmaps), object URLs
  "OffscreenCanvas",
  "OffscreenCanvasRenderingContext2D",
  "WebGLRenderingContext",
  "WebGL2RenderingContext",
  "ImageBitmapRenderingContext",
  "createImageBitmap",
  "GPU",
  "GPUAdapter",
  "GPUDevice",
  "Permissions",
]);

/** Static names on `URL` (searched on it). */
const BLOCKED_URL = Object.freeze(["createObjectURL", "revokeObjectURL"]);

/** Names on `navigator` (searched on it and its prototype chain). */
const BLOCKED_NAVIGATOR = Object.freeze(["storage", "storageBuckets", "locks", "serviceWorker", "sendBeacon", "gpu",
  "permissions"]);

function strip(object, names) {
  for (let o = object; o !== null; o = Object.getPrototypeOf(o)) {
    for (const name of names) {
      // Strict mode (a module): deleting a non-configurable property throws, so nothing is left half done silently.
      if (Object.prototype.hasOwnProperty.call(o, name)) delete o[name];
    }
  }
}

/** The blocked names still reachable from global (none after lockDown). */
function reachable(global = globalThis) {
  const nav = global.navigator;
  return [
    ...BLOCKED_GLOBALS.filter((name) => name in global),
    ...(nav ? BLOCKED_NAVIGATOR.filter((name) => name in nav).map((name) => `navigator.${name}`) : []),
    ...(global.URL ? BLOCKED_URL.filter((name) => name in global.URL).map((name) => `URL.${name}`) : []),
  ];
}

/**
 * Delete every blocked name from global, navigator and their prototype chains, and meter every allocating built-in
 * against one budget of MEMORY_LIMIT_BYTES less `inUse` (Python's heap now: meter.js); throw if any name is left.
 */
export function lockDown(global = globalThis, inUse = 0) {
  const nav = global.navigator;
  strip(global, BLOCKED_GLOBALS);
  if (nav) strip(nav, BLOCKED_NAVIGATOR);
  if (global.URL) strip(global.URL, BLOCKED_URL);
  const budget = createBudget(MEMORY_LIMIT_BYTES);
  budget.spend(inUse);
  meterMemory(budget, global);
  const left = reachable(global);
  if (left.length) throw new Error(`the lab could not shut learner code out of ${left.join(", ")}`);
}

export { capMemory, MEMORY_LIMIT_BYTES, useRefusal } from "./meter.js";
