// The service worker: offline after the first visit. It precaches the pages, the search index and static/<hash>/
// (the course's shell); a lesson page that registers it then asks it to keep that lesson's runtime and wheels
// (LESSONS: read from the HTTP cache the lab just filled, so they cost no second download), and the course index's
// "Save the course for offline use" asks for every lesson's. A first visit thus downloads what its lesson needs. Nothing leaves the cache unless its sha256 is the one this build wrote: Cache Storage is
// writable by any script of this origin, so an entry is checked before it is served, and one that does not match is
// deleted and fetched anew.
//
// A plain classic script (no imports: a module worker would need Chrome-only `type: "module"`). The build writes
// site/sw.js as this build's data (lessonkit/hosting/offline.py: `const` lines of JSON, nothing else) followed by
// this file as it is:
//   CACHE         the cache's name, "lessonkit-<12 hex>" (from the vendor manifest, this file and what it serves)
//   PRECACHE      site-relative URLs (relative to this script) installed up front, all immutable except the pages
//   LESSONS       page file name -> the site-relative runtime URLs its lab boots with (and "" -> the rest of the
//                 runtime), kept on a page's "keep" message, all of them on "save-course"
//   DIGESTS       sha256 (hex) of every file of this build that may be served from the cache: the precached ones and
//                 those cached on first use (the full stdlib, wheels no page names, large lesson images). Any other
//                 URL goes to the network, never to the cache.
//   TYPES         the build's Content-Type by extension: a cached entry's own headers are not trusted for it
//   KEPT_HEADERS  the host's security headers, kept from the answer that was cached; every other header is dropped
//   OFFLINE_COPY  the fragment that asks for the checked offline copy of one of Pyodide's modules (see below)
/* global CACHE, PRECACHE, LESSONS, DIGESTS, TYPES, KEPT_HEADERS, OFFLINE_COPY */
"use strict";

const SCOPE = new URL("./", self.location.href);
const OWN_CACHE = /^lessonkit-[0-9a-f]{12}$/; // only precaches; other lessonkit-* caches are left alone
const abs = (u) => new URL(u, SCOPE).href;
const EXPECTED = new Map(Object.entries(DIGESTS).map(([u, digest]) => [abs(u), digest]));
const PAGES = new Set(PRECACHE.filter((u) => u.endsWith(".html")).map(abs));
const RUNTIME = [...new Set(Object.values(LESSONS).flat())].map(abs);
const DEV_PATH = SCOPE.pathname + "__lessonkit/";
// The search index (lessonkit.assets.search) keeps Pagefind's own file names, which are not versioned: like the pages it is
// network-first, so a rebuild's index is used as soon as it is published, and this build's copy serves offline.
// Pagefind asks for pagefind-entry.json?ts=<time> (to get past HTTP caches): the key is the URL without its query.
const SEARCH_PATH = SCOPE.pathname + "pagefind/";
// Checked in this worker's lifetime: URL -> promise of {headers, body} (the Blob whose hash matched). Served again as
// it is, so the runtime is hashed once per worker start, not on every visit: a later write to Cache Storage cannot
// change a Blob (that entry is checked, and dropped, the next time the worker starts). Pages are checked every time.
const checked = new Map();
// The runtime's folder and wheels: their URLs name their content, so what the browser's HTTP cache holds for such a
// URL is that file, and it is answered from there first (see httpCacheFirst). The rest (static/<hash>/, the course's
// small shell) is answered from the checked offline copy.
const RUNTIME_PATH = "runtime/";
// Pyodide's own JavaScript modules are left to the browser while it is online: a script this worker answers, even
// with the HTTP cache's own answer, gets no compiled code from the browser's code cache (every visit would compile
// Pyodide's 1.2 MB of JavaScript again). The lab's worker imports one again with OFFLINE_COPY, a fragment, after a
// failed import (online as far as the browser knows, but with neither a network nor the file in the HTTP cache): that
// request is answered from the checked offline copy.

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    try {
      // All or nothing, like cache.addAll: a failed download, an answer other than 200, or a file that is not the
      // one this build wrote (a page of a newer build published meanwhile) fails the install, and a failed install
      // never activates: the previous worker keeps its own, consistent, offline copy.
      await Promise.all(PRECACHE.map((u) => precache(cache, abs(u))));
    } catch (err) {
      await caches.delete(CACHE); // never leave a half cache behind
      throw err;
    }
    // Every precached asset has a versioned URL, so the new worker can take over open pages at once.
    await self.skipWaiting();
  })());
});

// A page asks: {type: "keep"} (its own lesson's runtime) or {type: "save-course"} (every lesson's), and hears back on
// the message's port {ok, kept, failed}: how many files are in the offline copy now, and how many could not be.
// Or, of this worker while it waits, {type: "take-over"}: its install asked to take over at once, but Chromium gives
// up an activation that a request to the old worker interrupts (the page's "keep" of its lesson, a fetch), and the
// worker is left waiting until every tab of the site closes. Asked again, it takes over (no answer).
self.addEventListener("message", (event) => {
  const data = event.data;
  const port = event.ports && event.ports[0];
  if (data && data.type === "take-over") {
    if (self.registration.waiting === self.serviceWorker) event.waitUntil(self.skipWaiting());
    return;
  }
  if (!data || (data.type !== "keep" && data.type !== "save-course")) return;
  let urls = [];
  if (data.type === "save-course") urls = RUNTIME;
  else if (event.source && event.source.url) {
    const page = pageKey(new URL(event.source.url));
    const name = page ? new URL(page).pathname.slice(SCOPE.pathname.length) : null;
    urls = (name && LESSONS[name] ? LESSONS[name] : []).map(abs);
  }
  event.waitUntil(keep(urls).then((result) => port && port.postMessage(result)));
});

async function keep(urls) {
  // Each file checked like the install's; one that fails is left to the network (the lesson still works online).
  // A newer build's worker may have dropped this one's cache meanwhile: then it keeps its own, and this one nothing.
  const cache = await ownCache();
  if (!cache) return { ok: false, kept: 0, failed: urls.length };
  const results = await Promise.allSettled(urls.map((key) => precache(cache, key)));
  await dropIfSuperseded();
  const failed = results.filter((r) => r.status === "rejected");
  for (const r of failed) console.warn("lessonkit sw: not kept for offline use:", r.reason && r.reason.message);
  return { ok: failed.length === 0, kept: results.length - failed.length, failed: failed.length };
}

// A newer build's worker drops this one's cache when it activates, while this one may still be writing (a first
// use, a page's "keep"). Opening a dropped cache would make it anew, beside the newer one, for good: this worker
// opens its cache only while it exists, and after each write drops what it wrote if a newer worker has taken over
// meanwhile (between the check and the open, or during the write).
async function ownCache() {
  return (await caches.has(CACHE)) ? caches.open(CACHE) : null;
}

async function dropIfSuperseded() {
  const active = self.registration.active;
  if (active && self.serviceWorker && active !== self.serviceWorker) await dropOldCopy(CACHE);
}

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    // Navigation preload: a page request starts while this worker starts up, not after it (warm visits paint sooner).
    if (self.registration.navigationPreload) await self.registration.navigationPreload.enable();
    const names = await caches.keys();
    await Promise.all(names.filter((n) => OWN_CACHE.test(n) && n !== CACHE).map(dropOldCopy));
    await self.clients.claim();
  })());
});

function ofThisSite(url) {
  // This site's files: its pages and what lies under its static/, runtime/ and search index folders. Sites published
  // in other folders of this origin (one of them inside this one) have precaches too, maybe of the same name.
  if (!url.startsWith(SCOPE.href)) return false;
  const rest = url.slice(SCOPE.href.length);
  return !rest.includes("/") || ["static/", "runtime/", "pagefind/"].some((folder) => rest.startsWith(folder));
}

async function dropOldCopy(name) {
  // An older build's precache: this site's entries go, and the cache with them when nothing else is in it.
  const cache = await caches.open(name);
  const keys = await cache.keys();
  const mine = keys.filter((request) => ofThisSite(request.url));
  if (mine.length === keys.length) await caches.delete(name); // nothing else in it, or nothing at all
  else await Promise.all(mine.map((request) => cache.delete(request, { ignoreVary: true })));
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || request.headers.has("range")) return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith(DEV_PATH) || url.pathname.startsWith("/__lessonkit/")) return; // dev live reload
  if (request.mode === "navigate") {
    event.respondWith(networkFirst(event, pageKey(url)));
  } else if (url.pathname.startsWith(SEARCH_PATH)) {
    const key = url.origin + url.pathname;
    if (EXPECTED.has(key)) event.respondWith(networkFirst(event, key));
  } else if (url.hash === OFFLINE_COPY && EXPECTED.has(url.href.slice(0, -url.hash.length))) {
    event.respondWith(cacheFirst(event, url.href.slice(0, -url.hash.length)));
  } else if (EXPECTED.has(url.href)) {
    // The lab's Pythons are started from blob: URLs, which this worker controls: their runtime comes through here.
    const runtime = url.href.slice(SCOPE.href.length).startsWith(RUNTIME_PATH);
    if (runtime && request.destination === "script" && self.navigator.onLine) return;
    event.respondWith(runtime ? httpCacheFirst(event, url.href) : cacheFirst(event, url.href));
  }
  // Anything else (another build's files, unversioned, not ours) goes to the network as if there were no worker.
});

function cacheable(response) {
  // Only whole, same-origin, successful answers: no 206/304/404/500, no opaque or redirected responses.
  return response && response.status === 200 && response.type === "basic" && !response.redirected;
}

async function built(key, body) {
  // True when `body` is the file this build wrote at `key`.
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("") === EXPECTED.get(key);
}

function answer(key, headers, body) {
  // A checked body with the build's Content-Type and the host's security headers; status and the rest are ours.
  const kept = new Headers();
  for (const name of KEPT_HEADERS) if (headers.has(name)) kept.set(name, headers.get(name));
  const ext = /\.[^./]*$/.exec(new URL(key).pathname);
  kept.set("content-type", (ext && TYPES[ext[0].toLowerCase()]) || "application/octet-stream");
  return new Response(body, { status: 200, headers: kept });
}

async function fromCache(key) {
  // The cached answer for `key` if its bytes are this build's, else null.
  const found = await entry(key);
  return found && answer(key, found.headers, found.body);
}

function entry(key) {
  // {headers, body} of the cached entry for `key` if its bytes are this build's (a tampered one is deleted), else
  // null; a check in progress or done in this worker's lifetime is shared.
  if (checked.has(key)) return checked.get(key);
  const found = check(key).catch((err) => {
    console.warn("lessonkit sw: could not read the offline copy of", key, err);
    return null;
  });
  if (PAGES.has(key)) return found;
  checked.set(key, found);
  found.then((ok) => {
    // Only a good entry is remembered: a missing or dropped one is looked up again once the network filled it.
    if (!ok && checked.get(key) === found) checked.delete(key);
  });
  return found;
}

async function check(key) {
  // Never opened by name when it is gone: a newer build's worker dropped it, and opening would make it anew.
  if (!(await caches.has(CACHE))) return null;
  const cache = await caches.open(CACHE);
  const cached = await cache.match(key, { ignoreVary: true });
  if (!cached) return null;
  // The Blob that is checked is the one served: a Blob never changes, even if the entry is replaced meanwhile (and
  // the page reads the Blob, not a copy pushed through this worker).
  const body = await cached.blob();
  if (await built(key, await body.arrayBuffer())) return { headers: cached.headers, body };
  console.warn(`lessonkit sw: ${key} in the offline copy is not the file this build wrote: dropped`);
  await cache.delete(key, { ignoreVary: true });
  return null;
}

async function precache(cache, key) {
  if (await entry(key)) return; // already there and whole (this build installed again after ?nosw)
  const response = await fetch(new Request(key, { credentials: "same-origin" }));
  if (!cacheable(response)) throw new Error(`lessonkit sw: ${key} answered ${response.status}`);
  const body = await response.arrayBuffer();
  if (!(await built(key, body))) throw new Error(`lessonkit sw: ${key} is not the file this build wrote`);
  await cache.put(key, answer(key, response.headers, body));
}

async function store(key, response) {
  // After the answer, not before it: the page never waits for a cache write.
  try {
    const body = await response.arrayBuffer();
    if (!(await built(key, body))) {
      // A page of a newer build (whose worker installs on this visit) or a host that rewrites files: it was
      // served as it came, and the offline copy stays this build's.
      console.info(`lessonkit sw: not cached: ${key} is not the file this build wrote`);
      return;
    }
    const cache = await ownCache();
    if (!cache) return;
    await cache.put(key, answer(key, response.headers, body));
    await dropIfSuperseded();
  } catch (err) {
    console.warn("lessonkit sw: could not cache", key, err); // e.g. quota; the page still works online
  }
}

async function cacheFirst(event, key) {
  const cached = await fromCache(key);
  if (cached) return cached;
  // Offline, a dropped entry fails here like any network error: nothing unchecked is ever served from the cache.
  const response = await fetch(event.request);
  if (cacheable(response)) event.waitUntil(store(key, response.clone()));
  return response;
}

async function httpCacheFirst(event, key) {
  // The browser's own HTTP cache first, never the network: its answer is what the network sent (the same trust as a
  // network answer, which is served unchecked too), handed on unchanged, so the browser keeps using its compiled code
  // for it (a Response made here has none: every visit would compile Pyodide's JavaScript and wasm again), and
  // nothing is read and hashed out of Cache Storage. Where the HTTP cache has lost it (evicted, or cleared), the
  // checked offline copy answers, then the network. (The lesson's runtime in the offline copy is checked, and
  // mended, by the page's "keep" message on every visit.)
  try {
    const cached = await fetch(key, { cache: "only-if-cached", mode: "same-origin", credentials: "same-origin" });
    if (cached.status === 200 && cacheable(cached)) return cached;
  } catch {
    // not in the HTTP cache: on to the offline copy
  }
  return cacheFirst(event, key);
}

function pageKey(url) {
  // "/" and pretty URLs ("/slug") map to the precached "index.html" and "slug.html".
  const key = new URL(url.pathname, url);
  if (key.pathname.endsWith("/")) key.pathname += "index.html";
  if (PAGES.has(key.href)) return key.href;
  if (PAGES.has(key.href + ".html")) return key.href + ".html";
  return null;
}

async function networkFirst(event, key) {
  // Pages and the search index are not versioned: online, an author's rebuild shows up at once; offline, this
  // build's copy is shown (`key`: its precached URL, or null for a page this build does not have).
  let response;
  try {
    // The navigation preload's answer when there is one (it was asked for while this worker started).
    response = (await event.preloadResponse) || (await fetch(event.request));
  } catch (err) {
    const cached = key && (await fromCache(key));
    if (cached) return cached;
    throw err;
  }
  if (key && cacheable(response)) event.waitUntil(store(key, response.clone()));
  return response;
}
