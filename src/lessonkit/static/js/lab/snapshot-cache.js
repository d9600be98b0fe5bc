/**
 * The page's store of Python memory snapshots in Cache Storage, for later visits (lab-client.js uses it; the
 * worker never touches storage). A snapshot is the packed heap (lab-snapshot.js) a first boot took once our own
 * code had set Python up and before any learner code ran; it is handed to the page before that worker's Ready.
 *
 * One entry per site and Pyodide release (a course's lessons may boot different releases), under a key made of the
 * runtime's and the worker script's versioned URLs, so a new Pyodide, stdlib, labkit or worker never meets an old
 * heap (Pyodide also checks its build id on load). Sites published in other folders of this origin share the cache,
 * and each replaces or forgets only its own entries: saving forgets the site's other entries but those of the other
 * releases its pages still boot. Entries carry the normal boot's time; an empty entry with SNAPSHOT_OFF_HEADER says
 * snapshot boots did not pay in this browser.
 *
 *   const store = snapshotCache(key, releases); // key: snapshotKey(...); releases: every one the site's pages boot
 *   await store.lookup()   -> {heap: Blob|null, off: boolean, normalMs: number, found: boolean}
 *   await store.save(heap, normalMs)          // and forget this site's older entries
 *   await store.turnOff()
 * Every failure is a console warning: without the cache the lab boots normally.
 */

const SNAPSHOT_CACHE = "lab-python-snapshot"; // not lessonkit-<hash>: the service worker leaves it alone
const SNAPSHOT_MS_HEADER = "X-Lab-Normal-Boot-Ms"; // the normal boot's Python part, to compare with
const SNAPSHOT_OFF_HEADER = "X-Lab-Snapshots-Off";

const describe = (err) => (err && typeof err === "object" && "message" in err ? String(err.message) : String(err));

/** The key of this runtime's snapshot: in the site's own folder (the runtime is <site>/runtime/<version>/). */
export function snapshotKey({ indexURL, stdLibURL, labkitURL, workerURL, release = "" }) {
  const key = new URL("../../__lab-python-snapshot__", indexURL);
  key.searchParams.set("release", release);
  key.searchParams.set("index", indexURL);
  key.searchParams.set("stdlib", stdLibURL);
  key.searchParams.set("labkit", labkitURL);
  // The heap also holds what the worker's script set up in Python (the runner, its warm-up): its URL carries its
  // content hash.
  key.searchParams.set("worker", workerURL);
  return key.href;
}

/** True when a saved snapshot's key is this site's (any runtime version); key is this boot's. */
const ofThisSite = (url, key) => new URL(url).pathname === new URL(key).pathname;
const releaseOf = (url) => new URL(url).searchParams.get("release") || "";

export function snapshotCache(key, releases = [], storage = globalThis.caches) {
  // What a save forgets: this site's entries but this one and those of the site's other releases.
  const kept = new Set(releases.filter((release) => release !== releaseOf(key)));
  const stale = (url) => url !== key && ofThisSite(url, key) && !kept.has(releaseOf(url));
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
    const none = { heap: null, off: false, normalMs: 0, found: false };
    const cache = await open();
    if (!cache) return none;
    try {
      const entry = await cache.match(key);
      if (!entry) return none;
      if (entry.headers.get(SNAPSHOT_OFF_HEADER)) return { ...none, off: true, found: true };
      return { heap: await entry.blob(), off: false, normalMs: Number(entry.headers.get(SNAPSHOT_MS_HEADER)) || 0,
        found: true };
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
    save: (heap, normalMs) => put(new Response(heap, {
      headers: { "Content-Type": "application/octet-stream", [SNAPSHOT_MS_HEADER]: String(Math.round(normalMs)) },
    })),
    turnOff: () => put(new Response("", { headers: { [SNAPSHOT_OFF_HEADER]: "1" } })),
  };
}
