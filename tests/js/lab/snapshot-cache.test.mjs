// The page's store of Python snapshots (static/js/lab/snapshot-cache.js) over an in-memory Cache Storage: one entry
// per site and Pyodide release, so the pages of a course's two releases never evict each other's.
import assert from "node:assert/strict";
import { test } from "node:test";

import { snapshotCache, snapshotKey } from "../../../static/js/lab/snapshot-cache.js";

/** Cache Storage with one cache, as much of it as the store uses. */
function memoryStorage() {
  const entries = new Map();
  const cache = {
    match: async (key) => entries.get(key),
    put: async (key, response) => { entries.set(key, response); },
    keys: async () => [...entries.keys()].map((url) => ({ url })),
    delete: async (request) => entries.delete(request.url),
  };
  return { entries, open: async () => cache };
}

const SITE = "https://example.org/course/";
const key = (release, hash, site = SITE) => snapshotKey({
  indexURL: `${site}runtime/pyodide-${release}-${hash}/`, stdLibURL: `${site}runtime/pyodide-${release}-${hash}/x.zip`,
  labkitURL: `${site}runtime/wheels/labkit.whl`, workerURL: `${site}static/h/js/lab-worker.js`, release });
const releases = ["0.27.7", "314.0.7"];

test("a save keeps the site's entry of its other release, and replaces its own release's older one", async () => {
  const storage = memoryStorage();
  await snapshotCache(key("314.0.7", "old"), releases, storage).save(new Blob(["a"]), 100);
  await snapshotCache(key("0.27.7", "one"), releases, storage).save(new Blob(["b"]), 100);
  assert.deepEqual([...storage.entries.keys()].sort(), [key("0.27.7", "one"), key("314.0.7", "old")].sort());
  await snapshotCache(key("314.0.7", "new"), releases, storage).save(new Blob(["c"]), 100);
  assert.deepEqual([...storage.entries.keys()].sort(), [key("0.27.7", "one"), key("314.0.7", "new")].sort());
  const found = await snapshotCache(key("0.27.7", "one"), releases, storage).lookup();
  assert.equal(found.found, true);
  assert.equal(await found.heap.text(), "b");
});

test("a release the site no longer boots is forgotten on the next save", async () => {
  const storage = memoryStorage();
  await snapshotCache(key("0.27.7", "one"), releases, storage).save(new Blob(["b"]), 100);
  await snapshotCache(key("314.0.7", "two"), ["314.0.7"], storage).save(new Blob(["c"]), 100);
  assert.deepEqual([...storage.entries.keys()], [key("314.0.7", "two")]);
});

test("another site of the origin keeps its entries", async () => {
  const storage = memoryStorage();
  const other = key("314.0.7", "one", "https://example.org/other/");
  await snapshotCache(other, ["314.0.7"], storage).save(new Blob(["o"]), 100);
  await snapshotCache(key("314.0.7", "two"), ["314.0.7"], storage).save(new Blob(["c"]), 100);
  assert.deepEqual([...storage.entries.keys()].sort(), [other, key("314.0.7", "two")].sort());
});

test("a page's whole-stdlib snapshot and the trimmed one of the same release keep each other", async () => {
  const storage = memoryStorage();
  const full = (hash) => snapshotKey({
    indexURL: `${SITE}runtime/pyodide-0.27.7-${hash}/`, stdLibURL: `${SITE}runtime/pyodide-0.27.7-${hash}/full/x.zip`,
    labkitURL: `${SITE}runtime/wheels/labkit.whl`, workerURL: `${SITE}static/h/js/lab-worker.js`, release: "0.27.7" });
  await snapshotCache(key("0.27.7", "one"), releases, storage).save(new Blob(["t"]), 100);
  await snapshotCache(full("one"), releases, storage).save(new Blob(["f"]), 100);
  assert.deepEqual([...storage.entries.keys()].sort(), [key("0.27.7", "one"), full("one")].sort());
  await snapshotCache(full("two"), releases, storage).save(new Blob(["g"]), 100);
  assert.deepEqual([...storage.entries.keys()].sort(), [key("0.27.7", "one"), full("two")].sort());
});

test("a page's packages' bytecode is kept in its entry, after the heap", async () => {
  const storage = memoryStorage();
  const store = snapshotCache(key("0.27.7", "one"), releases, storage);
  await store.save(new Blob(["heap"]), 100, new Blob(["code"]));
  const found = await store.lookup();
  assert.equal(await found.heap.text(), "heap");
  assert.equal(await found.bytecode.text(), "code");
  await store.save(new Blob(["heap2"]), 100);
  const plain = await store.lookup();
  assert.equal(await plain.heap.text(), "heap2");
  assert.equal(plain.bytecode, null);
});
