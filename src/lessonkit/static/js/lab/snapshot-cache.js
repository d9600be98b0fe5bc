/**
 * The page's store of Python memory snapshots in Cache Storage, for later visits (lab-client.js uses it; the
 * worker never touches storage). A snapshot is the packed heap (lab-snapshot.js) a first boot took once our own
 * code had set Python up and before any learner code ran; it is handed to the page before that worker's Ready.
 *
 * One entry per site, Pyodide release and standard library (a course's lessons may boot different releases, and a
 * page with packages boots the whole stdlib where the others boot the trimmed one), under a key made of the runtime's
 * and the worker script's versioned URLs, so a new Pyodide, stdlib, labkit or worker never meets an old heap (Pyodide
 * also checks its build id on load). Sites published in other folders of this origin share the cache, and each
 * replaces or forgets only its own entries: saving forgets the site's older entry of the same release and stdlib,
 * and those of releases its pages no longer boot. Entries carry the normal boot's time; an empty entry with
 * SNAPSHOT_OFF_HEADER says snapshot boots did not pay in this browser.
 *
 * A page with packages keeps their bytecode (labkit/_bytecode.py) in the same entry, after the heap.
 *
 *   const store = snapshotCache(key, releases); // key: snapshotKey(...); releases: every one the site's pages boot
 *   await store.lookup()   -> {heap: Blob|null, bytecode: Blob|null, off: boolean, normalMs: number, found: boolean}
 *   await store.save(heap, normalMs, bytecode = null)   // and forget this site's older entries
 *   await store.turnOff()
 * Every failure is a console warning: without the cache the lab boots normally.
 */

const SNAPSHOT_CACHE = "lab-python-snapshot"; // not lessonkit-<hash>: the service worker leaves it alone
const SNAPSHOT_MS_HEADER = "X-Lab-Normal-Boot-Ms"; // the normal boot's Python part, to compare with
const SNAPSHOT_OFF_HEADER = "X-Lab-Snapshots-Off";
const HEAP_BYTES_HEADER = "X-Lab-Heap-Bytes"; // the entry's first bytes are the heap; what follows is bytecode

const describe = (err) => (err && typeof err === "object" && "message" in err ? String(err.message) : String(err));

/** The key of this runtime's snapshot: in the site's own folder (the runtime is <site>/runtime/<version>/). */
export function snapshotKey({ indexURL, stdLibURL, labkitURL, workerURL, release = "", packages = "" }) {
  const key = new URL("../../__lab-python-snapshot__", indexURL);
  key.searchParams.set("release", release);
  key.searchParams.set("index", indexURL);
  key.searchParams.set("stdlib", stdLibURL);
  key.searchParams.set("labkit", labkitURL);
  // The heap also holds what the worker's script set up in Python (the runner, its warm-up): its URL carries its
  // content hash.
  key.searchParams.set("worker", workerURL);
  if (packages) key.searchParams.set("packages", packages); // their bytecode is in the entry
  return key.href;
}

/** True when a saved snapshot's key is this site's (any runtime version); key is this boot's. */
const ofThisSite = (url, key) => new URL(url).pathname === new URL(key).pathname;
const releaseOf = (url) => new URL(url).searchParams.get("release") || "";
/** Which of its release's standard libraries a key's heap was made with: the stdlib's path in the runtime folder. */
function stdlibOf(url) {
  const params = new URL(url).searchParams;
  const [index, stdlib] = [params.get("index") || "", params.get("stdlib") || ""];
  return stdlib.startsWith(index) ? stdlib.slice(index.length) : stdlib;
}

export function snapshotCache(key, releases = [], storage = globalThis.caches) {
  // What a save forgets: this site's entries of its own release and stdlib but this one, and those of releases its
  // pages no longer boot.
  const booted = new Set([...releases, releaseOf(key)]);
  const mine = (url) => releaseOf(url) === releaseOf(key) && stdlibOf(url) === stdlibOf(key);
  const stale = (url) => url !== key && ofThisSite(url, key) && (mine(url) || !booted.has(releaseOf(url)));
  let opened = null;
  const open = () => {
    if (!storage) return Promise.resolve(null);
    opened = opened || storage.open(SNAPSHOT_CACHE).catch((err) => {
      console.warn(`lab: could not open the Python snapshot cache (${describe(err)}).`);
      return null;
    });
    return opened;
  };

  async function lookup() {
    const none = { heap: null, bytecode: null, off: false, normalMs: 0, found: false };
    const cache = await open();
    if (!cache) return none;
    try {
      const entry = await cache.match(key);
      if (!entry) return none;
      if (entry.headers.get(SNAPSHOT_OFF_HEADER)) return { ...none, off: true, found: true };
      const body = await entry.blob();
      const heapBytes = Number(entry.headers.get(HEAP_BYTES_HEADER));
      const split = Number.isSafeInteger(heapBytes) && heapBytes > 0 && heapBytes < body.size;
      return { heap: split ? body.slice(0, heapBytes) : body, bytecode: split ? body.slice(heapBytes) : null, off: false,
        normalMs: Number(entry.headers.get(SNAPSHOT_MS_HEADER)) || 0, found: true };
    } catch (err) {
      console.warn(`lab: could not read the Python snapshot cache (${describe(err)}).`);
      return none;
    }
  }

  async function put(response) {
    const cache = await open();
    if (!cache) return;
    try {
      await cache.put(key, response);
      const others = (await cache.keys()).filter((r) => stale(r.url));
      await Promise.all(others.map((r) => cache.delete(r)));
    } catch (err) {
      console.warn(`lab: could not save the Python snapshot (${describe(err)}).`);
    }
  }

  return {
    lookup,
    save: (heap, normalMs, bytecode = null) => put(new Response(bytecode ? new Blob([heap, bytecode]) : heap, {
      headers: { "Content-Type": "application/octet-stream", [SNAPSHOT_MS_HEADER]: String(Math.round(normalMs)),
        ...(bytecode ? { [HEAP_BYTES_HEADER]: String(heap.size) } : {}) },
    })),
    turnOff: () => put(new Response("", { headers: { [SNAPSHOT_OFF_HEADER]: "1" } })),
  };
}
