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
// - the network: fetch, XMLHttpRequest, WebSocket, EventSource, WebTransport, font loading.
// Left: the language, timers, MessageChannel (Pyodide schedules with it), TextEncoder/Decoder, crypto, performance,
// console. Pages have no way in either: localStorage and the DOM do not exist in a worker.
// JavaScript syntax cannot be removed: `import()` of a module URL still makes a request, same-origin only (the
// worker runs from a blob: URL under the page's own CSP, its <meta> tag on any host), and the module runs in this
// same, emptied global. That CSP also refuses `eval`, `Function` and Pyodide's `run_js` here.

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
]);

/** Names on `navigator` (searched on it and its prototype chain). */
const BLOCKED_NAVIGATOR = Object.freeze(["storage", "storageBuckets", "locks", "serviceWorker", "sendBeacon"]);

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
  ];
}

/** Delete every blocked name from global, navigator and their prototype chains; throw if any is left. */
export function lockDown(global = globalThis) {
  const nav = global.navigator;
  strip(global, BLOCKED_GLOBALS);
  if (nav) strip(nav, BLOCKED_NAVIGATOR);
  const left = reachable(global);
  if (left.length) throw new Error(`the lab could not shut learner code out of ${left.join(", ")}`);
}

/** Python's memory may grow to this much: a program that keeps too much data meets MemoryError in seconds, not
 * after filling wasm's 4 GB (a minute of work and a tab the browser may kill). */
export const MEMORY_LIMIT_BYTES = 1024 * 1024 * 1024;

/** Refuse growth of any wasm memory past `limit` bytes (Python then raises MemoryError); call before Pyodide loads. */
export function capMemory(limit = MEMORY_LIMIT_BYTES, global = globalThis) {
  const proto = global.WebAssembly.Memory.prototype;
  const grow = proto.grow;
  Object.defineProperty(proto, "grow", {
    configurable: false, // learner code cannot put the uncapped one back (nor reach it: it is only in this closure)
    writable: false,
    value: function capped(pages) {
      if (this.buffer.byteLength + pages * 65536 > limit) throw new RangeError(`memory limit of ${limit} bytes`);
      return grow.call(this, pages);
    },
  });
}
