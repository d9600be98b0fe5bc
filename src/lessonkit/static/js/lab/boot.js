/**
 * What each of the page's Pythons boots from (lab-client.js starts them): the worker script's verified bytes, its
 * `init` (config, with every URL absolute), and the memory snapshot and compiled wasm the page keeps.
 *
 * The first boot of a visit takes the snapshot from Cache Storage when an earlier visit saved one
 * (lab-snapshot-cache.js), else boots normally and takes one; either way it hands the page, before its Ready (only
 * our own code has run there), the snapshot it took and the pyodide.asm.wasm it compiled. Every later Python of
 * the page boots from those: no Cache Storage read, no compile. A snapshot that fails in a worker is replaced by the
 * one that worker takes instead.
 *
 *   const sources = bootSources(runtime, starter);
 *   const plan = await sources.plan({ first });   // -> {script, config, snapshot, wasm, note, fromCache}
 *   sources.handOff(plan, snapshotMessage);        // the worker's hand-off
 *   sources.ready(plan, diagnostics)               // -> snapshotNote; saves or turns off for later visits
 */

import { LABKIT } from "../generated/labkit.js";
import { signs, t } from "../page/words.js";
import { WORKER_WORDED } from "./protocol.js";
import { snapshotCache, snapshotKey } from "./snapshot-cache.js";

// A snapshot boot from Cache Storage slower than the normal boot it replaced by more than this turns snapshots off
// for later visits (single boots on a busy machine drift about 20 % either way).
const SNAPSHOT_SLOWER = 1.2;
// A first visit stores its ~12 MB snapshot this long after Ready: a learner's Run at Ready goes first (the write
// then follows it), and no later, or a short first visit would close the page before the snapshot is stored.
const SAVE_DELAY_MS = 250;

const describe = (err) => (err && typeof err === "object" && "message" in err ? String(err.message) : String(err));
const absolute = (url) => new URL(url, document.baseURI).href;

const scripts = new Map(); // worker URL -> Promise of the blob: URL of its verified bytes (once per page)

/** The worker script's bytes, checked against the build's hash, as a blob: URL. */
function workerScript(url, integrity) {
  if (!scripts.has(url)) {
    const made = (async () => {
      if (typeof integrity !== "string") {
        console.error("lab: the page names no integrity hash for the lab's worker");
        throw new Error(t("lab.worker_unloaded"));
      }
      let response;
      try {
        response = await fetch(url, { integrity, credentials: "same-origin" });
      } catch (err) {
        console.warn(`lab: the lab's worker could not load, or is not the file the build wrote (${describe(err)})`);
        throw new Error(t("lab.worker_unloaded"));
      }
      if (!response.ok) throw new Error(t("lab.worker_http", { status: String(response.status) }));
      return URL.createObjectURL(new Blob([await response.arrayBuffer()], { type: "text/javascript" }));
    })();
    made.catch(() => scripts.delete(url)); // the next boot tries again
    scripts.set(url, made);
  }
  return scripts.get(url);
}

/** What labkit and the worker word their own text with (labkit/_words.py WORDED, worker-said.json `worded`): the
 * page's messages, placeholders unfilled. */
function labkitWords() {
  const keys = [...Object.keys(LABKIT.worded), ...Object.keys(WORKER_WORDED)];
  const texts = Object.fromEntries(keys.map((key) => [key, t(key)]));
  return { texts, ...signs() };
}

/** Boot sources for the page's `runtime` block; starter {code, filename}: compiled (never run) by each boot. */
export function bootSources(runtime, starter = null) {
  const kept = { heap: null, wasm: null, bytecode: null }; // handed over by an earlier boot of this page
  let saved = null; // Promise of the Cache Storage lookup (once per page)
  let store = null;
  // A page with requirements or Pyodide packages boots with the full stdlib (micropip and Pyodide's package loader
  // need it) and takes its snapshot before any package is loaded (Pyodide cannot snapshot a heap with them): its
  // Pythons, and a later visit's first one, boot from that and install the packages after it.
  const workerURL = absolute(runtime.worker);

  function config() {
    const made = {
      indexURL: absolute(runtime.indexURL),
      ...(runtime.pyodideURL ? { pyodideURL: absolute(runtime.pyodideURL), asmURL: absolute(runtime.asmURL) } : {}),
      lock: runtime.lock,
      labkit: absolute(runtime.labkit),
      micropip: (runtime.micropip || []).map(absolute),
      requirements: (runtime.requirements || []).map(absolute),
      packages: (runtime.packages || []).map(String),
      snapshots: true, // a boot that is given none (or whose snapshot fails) takes one for the page
    };
    made.stdLibURL = absolute(runtime.stdLibURL || new URL("python_stdlib.zip", made.indexURL).href);
    if (runtime.stdLibFullURL) made.stdLibFullURL = absolute(runtime.stdLibFullURL);
    if (runtime.sizes) made.sizes = runtime.sizes;
    if (runtime.asmScript === true) made.asmScript = true;
    if (runtime.inlineLock === false) made.inlineLock = false;
    if (runtime.offlineCopy) made.offlineCopy = String(runtime.offlineCopy);
    // Compiled (never run) during the boot, so the learner's first run of it skips compiling.
    if (starter) made.starter = { code: String(starter.code), filename: String(starter.filename) };
    made.words = labkitWords();
    return made;
  }

  /** The page's packages by their files (name and sha256): their bytecode is kept with the snapshot. */
  function packageFiles() {
    const lock = (runtime.lock && runtime.lock.packages) || {};
    return (runtime.packages || []).map((name) => (lock[name] ? `${lock[name].file_name}:${lock[name].sha256}` : name))
      .sort().join(" ");
  }

  function savedSnapshot(cfg) {
    if (!saved) {
      if (!globalThis.caches) {
        saved = Promise.resolve({ heap: null, bytecode: null, off: false, normalMs: 0, found: false });
      } else {
        store = snapshotCache(snapshotKey({ indexURL: cfg.indexURL, stdLibURL: cfg.stdLibURL, labkitURL: cfg.labkit,
          workerURL, release: String(runtime.pyodide || ""), packages: packageFiles() }),
        (runtime.releases || []).map(String));
        saved = store.lookup();
      }
    }
    return saved;
  }

  /** What the next Python boots from. first: no Python of this page has been ready yet. */
  async function plan({ first }) {
    const cfg = config();
    const [script, found] = await Promise.all([workerScript(workerURL, runtime.workerIntegrity), savedSnapshot(cfg)]);
    let fromCache = false;
    if (!kept.heap && !found.off && found.heap) {
      kept.heap = found.heap; // a later visit: the first Python boots from the saved snapshot, and the rest too
      kept.bytecode = found.bytecode;
      fromCache = true;
    }
    // The runtime's download is counted only on a first visit's first boot: any other had it before.
    cfg.countDownloads = !found.found && first;
    const note = found.off ? "off: a snapshot boot was not faster here" : "none saved yet";
    return { script, config: cfg, snapshot: kept.heap, wasm: kept.wasm, bytecode: kept.bytecode, note, fromCache, found,
      newHeap: null, newBytecode: null };
  }

  /** The worker's hand-off, made before its Ready: what every later Python boots from. */
  function handOff(planned, msg) {
    if (msg.wasm) kept.wasm = msg.wasm;
    if (msg.heap) {
      planned.newHeap = msg.heap; // a Blob the worker made: nothing of it is copied on the page's thread
      kept.heap = planned.newHeap;
    }
    if (msg.bytecode) {
      planned.newBytecode = msg.bytecode;
      kept.bytecode = msg.bytecode;
    }
  }

  /** Its Ready: keep for later visits what it took (or turn snapshots off); returns the boot's snapshotNote. */
  function ready(planned, d) {
    if (d.snapshotError) {
      console.warn(`lab: the saved Python snapshot did not work (${d.snapshotError}); Python started normally.`);
      if (kept.heap === planned.snapshot) kept.heap = null; // none came in its place: later Pythons boot normally
    }
    if (store && (planned.newHeap || planned.newBytecode) && kept.heap && !planned.found.off) {
      // A snapshot this boot took (its normal boot's time kept with it), or the saved one with the bytecode this
      // boot collected for it.
      const [heap, bytecode] = [kept.heap, kept.bytecode];
      const normalMs = planned.newHeap ? d.pythonMs : planned.found.normalMs;
      setTimeout(() => store.save(heap, normalMs, bytecode), SAVE_DELAY_MS);
    } else if (store && planned.fromCache && d.snapshot && planned.found.normalMs > 0
               && d.pythonMs > planned.found.normalMs * SNAPSHOT_SLOWER) {
      console.info(`lab: the snapshot boot took ${d.pythonMs} ms, a normal boot ${planned.found.normalMs} ms; ` +
        "snapshots are off.");
      store.turnOff();
    }
    if (!planned.snapshot) return planned.note;
    return d.snapshotError ? `did not work: ${d.snapshotError}` : "";
  }

  return { plan, handOff, ready };
}
