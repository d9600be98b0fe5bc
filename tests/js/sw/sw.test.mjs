// The service worker (static/js/sw/sw.js) run as the browser runs it: a classic script after the build's data, here
// in a context of its own with a fake network, Cache Storage and worker globals (Node's Response, Headers, Blob and
// crypto are the real ones).
import assert from "node:assert/strict";
import { createHash, webcrypto } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import vm from "node:vm";

const SOURCE = readFileSync(new URL("../../../static/js/sw/sw.js", import.meta.url), "utf8");
const SCOPE = "https://example.test/course/";
const sha256 = (text) => createHash("sha256").update(text).digest("hex");

// What the build publishes: site-relative URL -> body.
const FILES = {
  "index.html": "<h1>Course</h1>",
  "lesson.html": "<h1>Lesson</h1>",
  "static/abc12345/js/main.js": "console.log('main')",
  "runtime/pyodide-1/pyodide.asm.wasm": "wasm bytes",
  "runtime/pyodide-1/pyodide.asm.mjs": "export default 1",
  "runtime/pyodide-1/full/python_stdlib.zip": "full stdlib",
};
const PRECACHED = ["index.html", "lesson.html", "static/abc12345/js/main.js", "runtime/pyodide-1/pyodide.asm.wasm",
  "runtime/pyodide-1/pyodide.asm.mjs"];
const OFFLINE_COPY = "#lessonkit-offline-copy";

/** A response as the browser's fetch gives it (same-origin: type "basic"). */
function answer(body, status = 200) {
  const response = new Response(body, { status, headers: { "content-type": "text/plain", "x-frame-options": "DENY",
    "set-cookie": "a=b" } });
  Object.defineProperty(response, "type", { value: "basic" });
  return response;
}

class FakeCache {
  constructor() {
    this.entries = new Map();
  }
  async match(key) {
    const found = this.entries.get(typeof key === "string" ? key : key.url);
    return found ? found.clone() : undefined;
  }
  async put(key, response) {
    this.entries.set(typeof key === "string" ? key : key.url, response);
  }
  async delete(key) {
    return this.entries.delete(typeof key === "string" ? key : key.url);
  }
  async keys() {
    return [...this.entries.keys()].map((url) => ({ url }));
  }
}

/** The worker started in a fresh context: {listeners, caches, network, requests, context}. */
function start({ files = FILES, digests = null } = {}) {
  const listeners = {};
  const stores = new Map();
  // httpCache: the URLs the browser's HTTP cache holds (answered to `cache: "only-if-cached"`, even offline).
  const network = { files: { ...files }, offline: false, httpCache: new Set() };
  const requests = [];
  const caches = {
    open: async (name) => {
      if (!stores.has(name)) stores.set(name, new FakeCache());
      return stores.get(name);
    },
    delete: async (name) => stores.delete(name),
    has: async (name) => stores.has(name),
    keys: async () => [...stores.keys()],
    stores,
  };
  const fetch = async (request, init = {}) => {
    const url = typeof request === "string" ? request : request.url;
    if (init.cache === "only-if-cached") {
      if (init.mode !== "same-origin") throw new TypeError("only-if-cached needs mode same-origin");
      const rel = url.slice(SCOPE.length);
      return network.httpCache.has(url) && rel in network.files ? answer(network.files[rel]) : answer("", 504);
    }
    requests.push(url);
    if (network.offline) throw new TypeError("Failed to fetch");
    // The host serves index.html for the folder and slug.html for a pretty URL.
    const rel = url.startsWith(SCOPE) ? url.slice(SCOPE.length) || "index.html" : null;
    const file = rel !== null && [rel, `${rel}.html`].find((name) => name in network.files);
    return file ? answer(network.files[file]) : answer("not found", 404);
  };
  const self = {
    location: { href: `${SCOPE}sw.js`, origin: "https://example.test" },
    navigator: { get onLine() { return !network.offline; } },
    addEventListener: (type, fn) => {
      listeners[type] = fn;
    },
    registration: { navigationPreload: null },
    skipWaiting: async () => {},
    clients: { claim: async () => {} },
  };
  const data = {
    CACHE: "lessonkit-0123456789ab",
    PRECACHE: PRECACHED,
    LESSONS: {},
    DIGESTS: digests || Object.fromEntries(Object.entries(FILES).map(([u, body]) => [u, sha256(body)])),
    TYPES: { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".wasm": "application/wasm" },
    KEPT_HEADERS: ["x-frame-options"],
    OFFLINE_COPY,
  };
  const prologue = '"use strict";\n' + Object.entries(data).map(([k, v]) => `const ${k} = ${JSON.stringify(v)};`).join("\n");
  const context = vm.createContext({ self, caches, fetch, crypto: webcrypto, console: { info() {}, warn() {} }, URL,
    setTimeout,
    Request, Response, Headers, Map, Set, Promise, Uint8Array, Array, Object, Error, TypeError });
  vm.runInContext(`${prologue}\n${SOURCE}`, context, { filename: "sw.js" });
  return { listeners, caches, network, requests, self, cache: () => caches.open(data.CACHE) };
}

/** Fire an event at the worker: resolves with what it answered (respondWith) once its waitUntil work is done. */
async function fire(worker, type, fields = {}) {
  const pending = [];
  let responded = null;
  const event = { ...fields, waitUntil: (p) => pending.push(p), respondWith: (p) => (responded = p) };
  worker.listeners[type](event);
  const response = responded ? await responded : null;
  await Promise.all(pending);
  return response;
}

const get = (url, mode = "no-cors", destination = "") => ({
  request: { method: "GET", url, mode, destination, headers: new Headers() } });

test("install precaches every listed file, each checked against the build's digest", async () => {
  const worker = start();
  await fire(worker, "install");
  const cache = await worker.cache();
  assert.deepEqual([...cache.entries.keys()].sort(), PRECACHED.map((u) => SCOPE + u).sort());
  const page = cache.entries.get(`${SCOPE}index.html`);
  assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8", "the build's type, not the host's");
  assert.equal(page.headers.get("x-frame-options"), "DENY");
  assert.equal(page.headers.get("set-cookie"), null, "only the kept security headers");
});

test("an install that meets a file this build did not write fails, and leaves no half cache", async () => {
  const worker = start();
  worker.network.files["lesson.html"] = "<h1>A newer build's lesson</h1>";
  await assert.rejects(fire(worker, "install"), /lesson\.html is not the file this build wrote/);
  assert.equal(worker.caches.stores.size, 0);
});

test("a tampered cache entry is dropped, fetched anew, and never served", async () => {
  const worker = start();
  await fire(worker, "install");
  const url = `${SCOPE}static/abc12345/js/main.js`;
  (await worker.cache()).entries.set(url, answer("evil()"));
  const response = await fire(worker, "fetch", get(url));
  assert.equal(await response.text(), FILES["static/abc12345/js/main.js"]);
  assert.equal(worker.requests.at(-1), url, "fetched from the network");
  const stored = (await worker.cache()).entries.get(url);
  assert.equal(await stored.clone().text(), FILES["static/abc12345/js/main.js"], "the good copy is cached again");
});

test("offline, pages come from the cache by their pretty URLs; online they come from the network first", async () => {
  const worker = start();
  await fire(worker, "install");
  worker.network.files["index.html"] = "<h1>Rebuilt</h1>";
  assert.equal(await (await fire(worker, "fetch", get(SCOPE, "navigate"))).text(), "<h1>Rebuilt</h1>");
  worker.network.offline = true;
  assert.equal(await (await fire(worker, "fetch", get(`${SCOPE}lesson`, "navigate"))).text(), FILES["lesson.html"]);
  assert.equal(await (await fire(worker, "fetch", get(SCOPE, "navigate"))).text(), FILES["index.html"],
    "the rebuilt page was not this build's: the offline copy stayed this build's");
});

test("a file cached on first use is checked too; URLs the build did not list are left to the network", async () => {
  const worker = start();
  await fire(worker, "install");
  const full = `${SCOPE}runtime/pyodide-1/full/python_stdlib.zip`;
  assert.equal(await (await fire(worker, "fetch", get(full))).text(), FILES["runtime/pyodide-1/full/python_stdlib.zip"]);
  assert.ok((await worker.cache()).entries.has(full));
  for (const url of [`${SCOPE}static/other/js/main.js`, "https://elsewhere.test/x.js", `${SCOPE}__lessonkit/events`]) {
    assert.equal(await fire(worker, "fetch", get(url)), null, url);
  }
  assert.equal(await fire(worker, "fetch", { request: { ...get(full).request, method: "POST" } }), null);
});

test("a worker that a newer build's has taken over from drops what it writes, leaving no cache beside the newer one",
  async () => {
    const worker = start();
    await fire(worker, "install");
    // The newer worker activated (and dropped this one's cache) while this one was answering: the registration's
    // active worker is no longer this one.
    worker.self.serviceWorker = { scriptURL: `${SCOPE}sw.js` };
    worker.self.registration.active = { scriptURL: `${SCOPE}sw.js` };
    const full = `${SCOPE}runtime/pyodide-1/full/python_stdlib.zip`;
    assert.equal(await (await fire(worker, "fetch", get(full))).text(), FILES["runtime/pyodide-1/full/python_stdlib.zip"]);
    assert.equal(worker.caches.stores.has("lessonkit-0123456789ab"), false, "the first use's write was dropped");
    await worker.caches.open("lessonkit-0123456789ab");
    const kept = await new Promise((resolve) => {
      const port = { postMessage: resolve };
      worker.listeners.message({ data: { type: "keep" }, ports: [port], source: { url: `${SCOPE}lesson.html` },
        waitUntil: () => {} });
    });
    assert.equal(kept.ok, true);
    assert.equal(worker.caches.stores.has("lessonkit-0123456789ab"), false, "a page's keep was dropped too");
  });

test("activate drops this site's entries from an older build's precache, and leaves other caches alone", async () => {
  const worker = start();
  const older = await worker.caches.open("lessonkit-aaaaaaaaaaaa");
  await older.put(`${SCOPE}index.html`, answer("old"));
  const shared = await worker.caches.open("lessonkit-bbbbbbbbbbbb");
  await shared.put(`${SCOPE}index.html`, answer("old"));
  await shared.put("https://example.test/other-site/index.html", answer("theirs"));
  await worker.caches.open("lessonkit-notes");
  await fire(worker, "install");
  await fire(worker, "activate");
  assert.deepEqual([...worker.caches.stores.keys()].sort(), ["lessonkit-0123456789ab", "lessonkit-bbbbbbbbbbbb",
    "lessonkit-notes"]);
  assert.deepEqual([...shared.entries.keys()], ["https://example.test/other-site/index.html"]);
});

test("a runtime file the browser's HTTP cache holds is answered from there, as it is", async () => {
  const worker = start();
  await fire(worker, "install");
  const url = `${SCOPE}runtime/pyodide-1/pyodide.asm.wasm`;
  worker.network.httpCache.add(url);
  worker.network.offline = true; // only-if-cached never goes to the network
  const before = worker.requests.length;
  const response = await fire(worker, "fetch", get(url));
  assert.equal(await response.text(), FILES["runtime/pyodide-1/pyodide.asm.wasm"]);
  assert.equal(response.headers.get("content-type"), "text/plain", "the HTTP cache's own answer, not one made here");
  assert.equal(worker.requests.length, before, "no network request");
});

test("without it, the checked offline copy answers, then the network; an altered copy is never served", async () => {
  const worker = start();
  await fire(worker, "install");
  const url = `${SCOPE}runtime/pyodide-1/pyodide.asm.wasm`;
  const fromCopy = await fire(worker, "fetch", get(url));
  assert.equal(fromCopy.headers.get("content-type"), "application/wasm", "the offline copy's answer");
  (await worker.cache()).entries.set(url, answer("evil wasm"));
  const worker2 = start();
  worker2.caches.stores.set("lessonkit-0123456789ab", await worker.cache());
  assert.equal(await (await fire(worker2, "fetch", get(url))).text(), FILES["runtime/pyodide-1/pyodide.asm.wasm"]);
  assert.equal(worker2.requests.at(-1), url, "fetched from the network after the altered copy was dropped");
});

test("Pyodide's modules are left to the browser while online; the offline-copy fragment gets the checked copy", async () => {
  const worker = start();
  await fire(worker, "install");
  const url = `${SCOPE}runtime/pyodide-1/pyodide.asm.mjs`;
  assert.equal(await fire(worker, "fetch", get(url, "cors", "script")), null, "left to the browser's own cache");
  const copy = await fire(worker, "fetch", get(url + OFFLINE_COPY, "cors", "script"));
  assert.equal(await copy.text(), FILES["runtime/pyodide-1/pyodide.asm.mjs"]);
  worker.network.offline = true;
  const offline = await fire(worker, "fetch", get(url, "cors", "script"));
  assert.equal(await offline.text(), FILES["runtime/pyodide-1/pyodide.asm.mjs"], "offline: the checked copy");
  const elsewhere = `${SCOPE}runtime/other/x.mjs${OFFLINE_COPY}`;
  assert.equal(await fire(worker, "fetch", get(elsewhere, "cors", "script")), null, "not a file of this build");
});

test("a worker left waiting takes over when a page asks; an active one, or another message, is not changed", async () => {
  const worker = start();
  let skipped = 0;
  worker.self.skipWaiting = async () => {
    skipped += 1;
  };
  await fire(worker, "install");
  skipped = 0;
  worker.self.serviceWorker = { scriptURL: `${SCOPE}sw.js` };
  worker.self.registration.waiting = worker.self.serviceWorker;
  await fire(worker, "message", { data: { type: "take-over" }, ports: [] });
  assert.equal(skipped, 1, "the waiting worker takes over");
  worker.self.registration.waiting = null;
  worker.self.registration.active = worker.self.serviceWorker;
  await fire(worker, "message", { data: { type: "take-over" }, ports: [] });
  await fire(worker, "message", { data: { type: "skipWaiting" }, ports: [] });
  assert.equal(skipped, 1, "nothing else makes it skip waiting");
});
