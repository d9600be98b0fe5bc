// Module worker that boots Pyodide and runs learner code through labkit.run_code (and exercises' checks through
// labkit.check_code).
// Messages: lab-protocol.js (the page hands this worker a MessagePort with `init`; everything else goes over it).
// What learner code can reach here: lab-sandbox.js (lockDown runs before Ready).
// Python only ever runs here, never on the page's main thread.

import { MSG, NO_SIGNAL, messageProblem } from "./lab-protocol.js";
import { capMemory, lockDown } from "./lab-sandbox.js";
import { packHeap, unpackHeap } from "./lab-snapshot.js";

// Taken before anything else runs: lockDown() removes these from the global object, and learner code, which runs
// only after it, never sees them (module scope is not reachable from the global).
const cacheStorage = self.caches; // the Python snapshot (undefined where Cache Storage is not available)
const XHR = self.XMLHttpRequest; // the full stdlib, fetched synchronously from Python's import system
capMemory(); // before Pyodide makes its memory: a learner's program meets MemoryError at the lab's limit

const PROGRESS_EVERY_MS = 100; // enough for a smooth counter without flooding the page

const FULL_STDLIB_PATH = "/lib/python_stdlib_full.zip";

let pyodide = null;
let fullStdLibURL = null; // where a left-out stdlib import finds the full stdlib
let runner = null; // labkit's runner (see findRunner), made once per boot
let interruptView = null;
let currentRunId = null; // run whose output C-level writes belong to
let currentFile = null; // that run's file name: the only one a crash report may name
let dead = false;
let queue = Promise.resolve(); // messages are handled one at a time, in order
let send = null; // postMessage bound to this worker's end of the lab's channel, taken from init (module scope only)

function post(message) {
  if (send) send(message);
  else console.error(`lab-worker: no channel to the page yet; dropped a "${message.type}" message`);
}

function fatal(id, message) {
  // The page terminates this worker and starts a fresh one.
  dead = true;
  post({ type: MSG.FATAL, id, message });
}

// Only errors the browser raised: learner code can dispatch an event that looks like one, not make it trusted.
self.addEventListener("error", (event) => {
  if (!event.isTrusted) return;
  fatal(currentRunId, `Python crashed: ${event.message || "worker error"}`);
});
self.addEventListener("unhandledrejection", (event) => {
  if (!event.isTrusted) return;
  fatal(currentRunId, `Python crashed: ${describe(event.reason)}`);
});

function describe(err) {
  if (err && typeof err === "object" && "message" in err) return String(err.message);
  return String(err);
}

function megabytes(bytes) {
  return (bytes / 1e6).toFixed(1);
}

/** The absolute URL a fetch(input) asks for. */
function absoluteURL(input) {
  return new URL(input instanceof Request ? input.url : String(input), self.location.href).href;
}

// A fetch that counts the big downloads so the page can show "Downloading Python… 4.1 of 12 MB".
// early: url -> Promise<Response> of a fetch already under way, handed to the first request for that url.
// counted: false hands responses over as they are, with no progress line: a visit with a saved snapshot has had
// the runtime before, so it comes from the cache (counting it would only cost the worker time on the way to
// Ready, and "Downloading" would not be true).
// Returns {fetch, failed: Promise that rejects on a bad response, done: Promise when all tracked bodies are read}.
function trackDownloads(id, urls, sizes, early, counted = true) {
  const realFetch = self.fetch.bind(self);
  const files = new Map(urls.map((url) => [url, { loaded: 0, total: sizes[url] || 0, done: false }]));
  let lastPost = 0;
  let rejectFailed;
  let resolveDone;
  const failed = new Promise((_, reject) => {
    rejectFailed = reject;
  });
  failed.catch(() => {}); // observed by the race in init; avoid an unhandled rejection otherwise
  const done = new Promise((resolve) => {
    resolveDone = resolve;
  });

  const report = (force) => {
    if (!counted) return; // nothing is downloaded: the page goes from "Loading Python…" to "Starting Python…"
    const now = performance.now();
    if (!force && now - lastPost < PROGRESS_EVERY_MS) return;
    lastPost = now;
    let loaded = 0;
    let total = 0;
    let totalKnown = true;
    for (const f of files.values()) {
      loaded += f.loaded;
      total += f.total;
      if (!f.total) totalKnown = false;
    }
    const text = totalKnown
      ? `Downloading Python… ${megabytes(loaded)} of ${megabytes(total)} MB`
      : `Downloading Python… ${megabytes(loaded)} MB`;
    post({ type: MSG.PROGRESS, id, phase: "download", loaded, total: totalKnown ? total : null, text });
  };

  const finishOne = (file) => {
    file.done = true;
    report(true);
    if ([...files.values()].every((f) => f.done)) resolveDone();
  };

  const trackedFetch = async (input, init) => {
    const url = absoluteURL(input);
    const file = files.get(url);
    if (!file) return realFetch(input, init);
    let resp;
    try {
      const started = early.get(url);
      early.delete(url); // used once: a second boot in this worker (after a failed snapshot) fetches again
      resp = await (started || realFetch(input, init));
    } catch (err) {
      rejectFailed(new Error(`Could not download ${url.split("/").pop()}: ${describe(err)}`));
      throw err;
    }
    const name = url.split("/").pop();
    if (!resp.ok) {
      rejectFailed(new Error(`Could not download ${name} (HTTP ${resp.status}).`));
      return resp;
    }
    const type = resp.headers.get("content-type") || "";
    if (name.endsWith(".wasm") && !type.startsWith("application/wasm")) {
      // Pyodide would otherwise wait forever (measured with 314.0.7).
      rejectFailed(new Error(`${name} was served as "${type}", not application/wasm.`));
      return resp;
    }
    if (!resp.body || !counted) {
      file.loaded = file.total;
      finishOne(file);
      return resp;
    }
    // Content-Length counts compressed bytes when the server precompresses; the stream yields
    // decompressed ones, so only trust it for uncompressed responses (or use the build's sizes).
    const length = Number(resp.headers.get("content-length"));
    if (!file.total && !resp.headers.get("content-encoding") && length > 0) file.total = length;
    const reader = resp.body.getReader();
    const counting = new ReadableStream({
      async pull(controller) {
        try {
          const { done: finished, value } = await reader.read();
          if (finished) {
            controller.close();
            finishOne(file);
            return;
          }
          file.loaded += value.byteLength;
          report(false);
          controller.enqueue(value);
        } catch (err) {
          rejectFailed(new Error(`Download of ${name} was interrupted: ${describe(err)}`));
          controller.error(err);
        }
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    });
    return new Response(counting, { status: resp.status, statusText: resp.statusText, headers: resp.headers });
  };
  report(true);
  return { fetch: trackedFetch, failed, done };
}

// Pyodide fetches the wasm at once but instantiates it only after pyodide.asm.mjs is in and, on a snapshot boot,
// the snapshot is read (it sizes the memory). The worker compiles the module from its own early download
// meanwhile: while Pyodide boots, its request for the file gets an empty stand-in, and instantiateStreaming of
// that stand-in instantiates the compiled module. Returns the function that puts fetch and instantiateStreaming back.
function useCompiledWasm(wasmURL, module, fetchOthers) {
  const nativeFetch = self.fetch;
  const nativeInstantiate = WebAssembly.instantiateStreaming;
  const standIns = new WeakSet();
  self.fetch = async (input, init) => {
    const url = absoluteURL(input);
    if (url !== wasmURL) return fetchOthers(input, init);
    const standIn = new Response(null, { headers: { "Content-Type": "application/wasm" } });
    standIns.add(standIn);
    return standIn;
  };
  WebAssembly.instantiateStreaming = async (source, imports) => {
    const response = await source;
    if (!standIns.has(response)) return nativeInstantiate.call(WebAssembly, response, imports);
    const compiled = await module;
    return { module: compiled, instance: await WebAssembly.instantiate(compiled, imports) };
  };
  return () => {
    self.fetch = nativeFetch;
    WebAssembly.instantiateStreaming = nativeInstantiate;
  };
}

function sitePackages() {
  const version = pyodide.FS.readdir("/lib").find((name) => /^python\d+\.\d+$/.test(name));
  if (!version) throw new Error("Python's library folder is missing");
  return `/lib/${version}/site-packages`;
}

async function fetchBytes(url) {
  const resp = await fetch(url);
  if (!resp.ok) throw new Error(`Could not download ${url.split("/").pop()} (HTTP ${resp.status}).`);
  return resp.arrayBuffer();
}

async function init(msg) {
  const id = msg.id;
  const cfg = msg.config || {};
  const t0 = performance.now();
  if (pyodide) {
    post({ type: MSG.ERROR, id, message: "Python is already started in this worker." });
    return;
  }
  const indexURL = new URL(cfg.indexURL, self.location.href).href;
  const stdLibURL = new URL(cfg.stdLibURL || "python_stdlib.zip", indexURL).href;
  const wasmURL = new URL("pyodide.asm.wasm", indexURL).href;
  const sizes = {};
  if (cfg.sizes) {
    // Optional decompressed sizes from the build, keyed by file name.
    if (cfg.sizes["pyodide.asm.wasm"]) sizes[wasmURL] = cfg.sizes["pyodide.asm.wasm"];
    if (cfg.sizes["python_stdlib.zip"]) sizes[stdLibURL] = cfg.sizes["python_stdlib.zip"];
  }
  fullStdLibURL = new URL(cfg.stdLibFullURL || "full/python_stdlib.zip", cfg.stdLibFullURL ? self.location.href : stdLibURL).href;
  // The labkit wheel downloads while Python boots instead of after it.
  const labkitURL = new URL(cfg.labkit, self.location.href).href;
  const labkitWheel = fetchBytes(labkitURL);
  labkitWheel.catch(() => {}); // awaited below; a failure is reported there
  // Snapshots cannot hold packages, so a lab with requirements always boots normally.
  let usesSnapshots = !(cfg.micropip && cfg.micropip.length) && cacheStorage !== undefined;
  const snapshotKey = usesSnapshots ? snapshotKeyFor(indexURL, stdLibURL, labkitURL) : null;
  // Looked up first: a few ms of I/O that would otherwise wait behind compiling pyodide.asm.mjs on this thread.
  const snapshotCache = usesSnapshots ? openSnapshotCache() : Promise.resolve(null);
  const lookup = snapshotCache.then((cache) => findSnapshot(cache, snapshotKey));
  // Pyodide asks for these only once pyodide.mjs is in and the snapshot is looked up; asking now overlaps both.
  const early = new Map([wasmURL, stdLibURL].map((url) => [url, fetch(url)]));
  for (const started of early.values()) started.catch(() => {}); // a failure surfaces when Pyodide asks
  import(new URL("pyodide.asm.mjs", indexURL).href).catch(() => {}); // the module Pyodide imports next
  const pyodideModule = import(new URL("pyodide.mjs", indexURL).href);
  pyodideModule.catch(() => {}); // awaited in boot
  let cached = await lookup;
  let snapshotNote = !usesSnapshots ? "not used" : cached ? "" : "none saved yet";
  // Any entry, even "off", means an earlier visit downloaded this runtime: it comes from the cache, uncounted.
  const firstDownloads = trackDownloads(id, [wasmURL, stdLibURL], sizes, early, !cached);
  // The wasm compiles as it arrives, while Pyodide loads its modules (and the snapshot is read): see useCompiledWasm.
  const wasmModule = WebAssembly.compileStreaming(firstDownloads.fetch(wasmURL));
  wasmModule.catch(() => {}); // a failure surfaces in boot
  if (cached && cached.headers.get(SNAPSHOT_OFF_HEADER)) {
    usesSnapshots = false; // one did not pay in this browser: boot normally until the runtime changes
    snapshotNote = "off: a snapshot boot was not faster here";
    cached = null;
  }
  let downloadedAt = t0; // when the runtime's bytes were in: the Python part of a boot starts there
  const boot = async (snapshot, downloads) => {
    downloads.done.then(() => {
      downloadedAt = performance.now();
      post({ type: MSG.PROGRESS, id, phase: "start", text: "Starting Python…" });
    });
    const stopUsingModule = useCompiledWasm(wasmURL, wasmModule, downloads.fetch);
    try {
      const booting = (async () => {
        const { loadPyodide } = await pyodideModule;
        return loadPyodide({
          indexURL,
          stdLibURL,
          lockFileContents: cfg.lock,
          stdout: (text) => forward("stdout", text),
          stderr: (text) => forward("stderr", text),
          ...(snapshot ? { _loadSnapshot: snapshot } : usesSnapshots ? { _makeSnapshot: true } : {}),
        });
      })();
      const compileFailed = wasmModule.then(() => new Promise(() => {}), (err) => {
        throw new Error(`Could not compile pyodide.asm.wasm: ${describe(err)}`);
      });
      pyodide = await Promise.race([booting, downloads.failed, compileFailed]);
    } finally {
      stopUsingModule();
    }
    post({ type: MSG.PROGRESS, id, phase: "install", text: "Installing the lab…" });
    // Files live outside the wasm heap, so a snapshot boot writes labkit's again (its modules are already imported).
    // Pyodide's own unpacking (zipfile; Pyodide's boot has imported it already for its package loader).
    const folder = sitePackages();
    pyodide.unpackArchive(new Uint8Array(await labkitWheel), "wheel", { extractDir: folder });
    // A normal boot imports labkit next: the import system must not trust a listing of the folder made before.
    // (Not importlib.invalidate_caches(): it imports importlib.metadata, which the trimmed stdlib leaves out.)
    if (!snapshot) pyodide.runPython(`import sys; sys.path_importer_cache.pop(${JSON.stringify(folder)}, None)`);
  };
  let fromSnapshot = false;
  let newSnapshot = null;
  if (cached) {
    try {
      const heap = cached.arrayBuffer().then(unpackHeap);
      heap.catch(() => {}); // Pyodide awaits it a little later: a bad one is not an unhandled rejection meanwhile
      await boot(heap, firstDownloads);
      // The snapshot froze the RNG state of the boot that made it: every visit would see the same "random" numbers.
      pyodide.runPython("import random; random.seed()");
      runner = findRunner(); // made, warmed up and given the starter's bytecode by the boot that took the snapshot
      runner.warmUp(); // again: also the check that a snapshot-booted Python computes what a fresh one does
      fromSnapshot = true;
    } catch (err) {
      snapshotNote = `did not work: ${describe(err)}`;
      console.warn(`lab-worker: the saved Python snapshot did not work (${describe(err)}); starting Python normally.`);
      await forgetSnapshots(await snapshotCache, snapshotKey); // before the normal boot saves a fresh one
      pyodide = null;
      runner = null;
    }
  }
  if (!fromSnapshot) {
    // After a snapshot that did not work, only the stdlib is fetched again: the compiled module is kept.
    await boot(null, cached ? trackDownloads(id, [stdLibURL], sizes, early) : firstDownloads);
    // Before micropip: installing requirements may import stdlib modules the trimmed zip left out.
    runner = makeRunner(fullStdLibURL !== stdLibURL);
  }
  if (cfg.micropip && cfg.micropip.length) {
    const absolute = (u) => new URL(u, self.location.href).href;
    await pyodide.loadPackage(cfg.micropip.map(absolute));
    if (cfg.requirements && cfg.requirements.length) {
      const micropip = pyodide.pyimport("micropip");
      // Same-origin wheel URLs only, deps listed by the build: nothing may reach an index (offline, CSP).
      await micropip.install.callKwargs(cfg.requirements.map(absolute), { deps: false });
      micropip.destroy();
    }
  }
  if (!fromSnapshot) runner.warmUp(); // the first call: labkit's runner takes the clean state every run starts from
  if (cfg.starter && typeof cfg.starter.code === "string") {
    // Compile only (labkit keeps the bytecode): the first Run of the lesson's code then skips compiling.
    const labkit = pyodide.pyimport("labkit");
    labkit.precompile(cfg.starter.code, String(cfg.starter.filename || "lab.py"));
    labkit.destroy();
  }
  if (usesSnapshots && !fromSnapshot) {
    // Our own code has run (labkit imported, the runner made and warmed up, the starter compiled); learner code
    // has not. A later boot from this heap skips all of that.
    try {
      newSnapshot = pyodide.makeMemorySnapshot();
    } catch (err) {
      console.warn(`lab-worker: could not take a Python snapshot (${describe(err)}); later visits boot normally.`);
    }
  }
  if (msg.interruptBuffer) {
    interruptView = new Uint8Array(msg.interruptBuffer);
    pyodide.setInterruptBuffer(interruptView);
  }
  const pythonMs = Math.round(performance.now() - downloadedAt); // the boot after the downloads: what a snapshot saves
  // What this boot writes to storage is decided and made ready now, while only our own code has run: learner code
  // may run before the write happens (see prepareSnapshotWrite).
  let snapshotWrite = null;
  if (newSnapshot) {
    // Packed here, not after Ready (first visits only; the cost is in the benchmark's cold Ready row): after Ready,
    // learner code could already have changed the built-ins packing uses, and with them the heap a later visit
    // boots from before its own lockdown.
    const headers = { "Content-Type": "application/octet-stream", [SNAPSHOT_MS_HEADER]: String(pythonMs) };
    const response = new Response(packHeap(newSnapshot), { headers }); // zero pages left out: ~12 of ~31 MB
    newSnapshot = null;
    snapshotWrite = await prepareSnapshotWrite(await snapshotCache, snapshotKey, response, true);
  } else if (fromSnapshot) {
    // Kept only while it wins: a snapshot boot slower than the normal one it replaced turns snapshots off (beyond
    // a 20 % margin: single boots on a busy machine drift that much either way).
    const normalMs = Number(cached.headers.get(SNAPSHOT_MS_HEADER));
    if (normalMs > 0 && pythonMs > normalMs * 1.2) {
      console.info(`lab-worker: the snapshot boot took ${pythonMs} ms, a normal boot ${normalMs} ms; snapshots are off.`);
      const off = new Response("", { headers: { [SNAPSHOT_OFF_HEADER]: "1" } });
      snapshotWrite = await prepareSnapshotWrite(await snapshotCache, snapshotKey, off, false);
    }
  }
  lockDown(); // from here on, learner code may run: nothing beyond this worker is left on its global object
  const ms = Math.round(performance.now() - t0);
  post({ type: MSG.READY, id, diagnostics: { ms, pythonMs, snapshot: fromSnapshot, snapshotNote, isolated: Boolean(interruptView) } });
  // After Ready, and a moment later: a learner's Run at Ready must not queue behind writing ~12 MB from this thread
  // (a run that arrives first goes first; the write then follows it). Not later than that: a short first visit
  // would close the page before the snapshot is stored.
  if (snapshotWrite) setTimeout(snapshotWrite, SNAPSHOT_SAVE_DELAY_MS);
}

// ---- memory snapshot (Pyodide's private _makeSnapshot/_loadSnapshot API) -----------------------------------
// A later visit boots from the heap of an earlier first boot: taken once labkit is imported and the runner made,
// warmed up and given the starter's bytecode, before any learner code. Kept in Cache Storage under a key made of
// the runtime's and this script's versioned URLs, so a new Pyodide, stdlib, labkit or worker never meets an old
// heap (Pyodide also checks its build id on load).

const SNAPSHOT_SAVE_DELAY_MS = 250;
const SNAPSHOT_CACHE = "lab-python-snapshot"; // not lessonkit-<hash>: the service worker leaves it alone
const SNAPSHOT_MS_HEADER = "X-Lab-Normal-Boot-Ms"; // the normal boot's Python part, to compare with
const SNAPSHOT_OFF_HEADER = "X-Lab-Snapshots-Off"; // an empty entry: snapshots did not pay for this runtime

function snapshotKeyFor(indexURL, stdLibURL, labkitURL) {
  // In the site's own folder (the runtime is <site>/runtime/<version>/): sites published in other folders of this
  // origin share the cache, and each replaces or forgets only its own snapshots (see ofThisSite).
  const key = new URL("../../__lab-python-snapshot__", indexURL);
  key.searchParams.set("index", indexURL);
  key.searchParams.set("stdlib", stdLibURL);
  key.searchParams.set("labkit", labkitURL);
  // The heap also holds what this script set up in Python (the runner, its warm-up): a new build of the worker,
  // whose URL carries its content hash, never meets a heap made by an older one.
  key.searchParams.set("worker", self.location.href);
  return key.href;
}

async function openSnapshotCache() {
  try {
    return await cacheStorage.open(SNAPSHOT_CACHE);
  } catch (err) {
    console.warn(`lab-worker: could not open the Python snapshot cache (${describe(err)}).`);
    return null;
  }
}

async function findSnapshot(cache, key) {
  if (!cache) return null;
  try {
    return (await cache.match(key)) || null;
  } catch (err) {
    console.warn(`lab-worker: could not read the Python snapshot cache (${describe(err)}).`);
    return null;
  }
}

// True when a saved snapshot's key is this site's (any runtime version); key is this boot's.
function ofThisSite(url, key) {
  return new URL(url).pathname === new URL(key).pathname;
}

// Deletes every snapshot this site saved (before lockdown only).
async function forgetSnapshots(cache, key) {
  if (!cache) return;
  try {
    const requests = (await cache.keys()).filter((r) => ofThisSite(r.url, key));
    await Promise.all(requests.map((r) => cache.delete(r)));
  } catch (err) {
    console.warn(`lab-worker: could not clear the Python snapshot cache (${describe(err)}).`);
  }
}

// Returns the function that puts response under key (and, with forgetOthers, deletes this site's other entries:
// older runtime versions), or null without a cache. It runs after Ready, when learner code may already have changed
// JavaScript's built-ins (Cache.prototype, Request.prototype.url, array iteration, …): so it is made, before
// lockdown, only of functions bound to the cache and of arguments computed now. Such tampering can at worst keep a
// snapshot from being saved; it cannot choose what is written, nor where.
async function prepareSnapshotWrite(cache, key, response, forgetOthers) {
  if (!cache) return null;
  try {
    const put = cache.put.bind(cache);
    const remove = cache.delete.bind(cache);
    const others = forgetOthers ? (await cache.keys()).filter((r) => r.url !== key && ofThisSite(r.url, key)) : [];
    return async () => {
      try {
        await put(key, response);
        for (let i = 0; i < others.length; i++) await remove(others[i]);
      } catch (err) {
        console.warn(`lab-worker: could not save the Python snapshot (${describe(err)}).`);
      }
    };
  } catch (err) {
    console.warn(`lab-worker: could not prepare the Python snapshot (${describe(err)}).`);
    return null;
  }
}

// Pyodide's fatal-error dump (faulthandler) lists every Python frame, ours and the stdlib's among them
// (`File "<exec>", line 13 in run`), under headers of its own. Learners see only their own file's frames.
const DUMP_HEADER = /^(Fatal Python error|Python runtime state|Current thread|Thread 0x|Stack \(most recent call first\)|Extension modules|\s+<no Python frame>|\s+\.\.\.$)/;
const DUMP_FRAME = /^\s+File "(.*)", line \d+ in /;

function forward(stream, text) {
  // Output that bypasses sys.stdout (C level); labkit captures everything else.
  if (DUMP_HEADER.test(text)) return;
  const frame = DUMP_FRAME.exec(text);
  if (frame && frame[1] !== currentFile) return;
  if (currentRunId !== null) post({ type: stream, id: currentRunId, text: text + "\n" });
  else if (stream === "stderr") console.warn(text);
}

// Sync XHR (allowed in workers): called from Python's import system, which cannot await.
function mountFullStdlib(url) {
  const xhr = new XHR();
  xhr.open("GET", url, false);
  xhr.responseType = "arraybuffer";
  xhr.send();
  if (xhr.status !== 200) throw new Error(`HTTP ${xhr.status} for ${url.split("/").slice(-2).join("/")}`);
  pyodide.FS.writeFile(FULL_STDLIB_PATH, new Uint8Array(xhr.response));
  console.info(`lab-worker: loaded the full standard library (${megabytes(xhr.response.byteLength)} MB)`);
  return FULL_STDLIB_PATH;
}

// Python reaches the worker's functions through `js` (globalThis), never as arguments: a memory snapshot can only
// refer to JS objects by their path from globalThis, and the runner is made before the snapshot is taken.
const writer = (type) => (text) => {
  if (currentRunId !== null) post({ type, id: currentRunId, text });
};
self.labkitWriteOut = writer("stdout");
self.labkitWriteErr = writer("stderr");
self.labkitMountStdlib = () => mountFullStdlib(fullStdLibURL);

// The runner is labkit's (labkit/_worker.py, the module pytest tests in CPython), made once here: a run then creates
// no proxies and converts no objects, the writers are JS functions Python keeps, and the result comes back as one
// JSON string. fallback: Python booted with the trimmed stdlib, so a left-out import mounts the full one. The
// working directory and /tmp are the runs' scratch folders: what a run writes there is gone before the next.
function makeRunner(fallback) {
  pyodide.runPython(`
import js as _js, os as _os
from labkit import make_runner as _make_runner
_mount = _js.labkitMountStdlib if ${fallback ? "True" : "False"} else None
# Kept in Python, where the snapshot keeps it too.
_lab_run = _make_runner(_js.labkitWriteOut, _js.labkitWriteErr, _mount, scratch=(_os.getcwd(), "/tmp"))
del _js, _os, _make_runner, _mount`);
  return findRunner();
}

// runner(code, filename, deliver) -> the result: deliver(result) hands it out first, then Python is put back in its
// clean state (settle; tests/bench_labkit.py times it), off the path from Run to the output.
// runner.warmUp(): labkit's own warm-up run (Runner.warm_up); throws when it does not succeed.
function findRunner() {
  const fn = pyodide.globals.get("_lab_run");
  if (!fn) throw new Error("the runner is missing");
  const settle = fn.settle;
  const warmUp = fn.warm_up;
  const checker = fn.check;
  const run = (code, filename, deliver = () => {}) => {
    const result = JSON.parse(fn(code, filename));
    deliver(result);
    settle();
    return result;
  };
  // check(code, filename, exercise, timeout, deliver): the same, for an exercise's check run (labkit/_check.py).
  run.check = (code, filename, exercise, timeout, deliver = () => {}) => {
    const report = JSON.parse(checker(code, filename, exercise, timeout));
    deliver(report);
    settle();
    return report;
  };
  run.warmUp = () => {
    const result = JSON.parse(warmUp());
    settle();
    if (!result.ok) throw new Error(`the lab's warm-up failed: ${JSON.stringify(result.error)}`);
  };
  return run;
}

function crashReason(err) {
  const text = describe(err);
  if (/Maximum call stack size exceeded|too much recursion/i.test(text)) {
    return "Python crashed: it ran out of stack space (recursion that is too deep, or a very deeply nested object).";
  }
  if (/unreachable|abort/i.test(text)) return "Python crashed: the program aborted.";
  if (/memory/i.test(text)) return "Python crashed: it ran out of memory.";
  return `Python crashed: ${text}`;
}

function run(msg) {
  const id = msg.id;
  if (!runner) {
    post({ type: MSG.ERROR, id, message: "Python is not ready yet." });
    return;
  }
  currentRunId = id;
  currentFile = String(msg.filename);
  if (interruptView) interruptView[0] = NO_SIGNAL; // a Stop meant for an earlier run must not hit this one
  const t0 = performance.now();
  let delivered = false;
  const deliver = (result) => {
    delivered = true;
    if (interruptView) interruptView[0] = NO_SIGNAL; // the code has ended: a late Stop must not land in the clean-up
    currentRunId = null;
    post({
      type: MSG.RESULT,
      id,
      ok: Boolean(result.ok),
      ms: Math.round(performance.now() - t0),
      error: result.error ?? null,
      charts: result.charts ?? [],
      truncated: Boolean(result.truncated),
      stopped: Boolean(result.stopped),
    });
  };
  try {
    runner(String(msg.code), String(msg.filename || "lab.py"), deliver);
  } catch (err) {
    currentRunId = null;
    const isPython = err && err.constructor && err.constructor.name === "PythonError";
    if (!isPython || err.pyodide_fatal_error || delivered) {
      // After the result, only labkit's clean-up runs: if it fails, the next run could not start clean.
      const reason = delivered ? "Python crashed: it could not return to a clean state after a run." : crashReason(err);
      fatal(delivered ? null : id, reason);
      return;
    }
    // labkit turns every learner error, and running out of memory or stack while reporting it, into a result;
    // this is a bug in labkit. Its traceback names our files: the console gets it, the learner one line.
    console.error("lab-worker: the lab's runner failed:", describe(err));
    deliver({
      ok: false,
      error: { type: "LabError", message: "this run could not be finished (a fault in the lab, not in your code)",
        line: null, traceback: "" },
    });
  }
}

// An exercise's check run: like a run, but what the code prints comes back inside the report.
function check(msg) {
  const id = msg.id;
  if (!runner) {
    post({ type: MSG.ERROR, id, message: "Python is not ready yet." });
    return;
  }
  currentRunId = id; // C-level writes during the check still reach the page as output of this request
  currentFile = String(msg.filename);
  if (interruptView) interruptView[0] = NO_SIGNAL;
  const t0 = performance.now();
  let delivered = false;
  const deliver = (report) => {
    delivered = true;
    if (interruptView) interruptView[0] = NO_SIGNAL;
    currentRunId = null;
    post({
      type: MSG.REPORT,
      id,
      ms: Math.round(performance.now() - t0),
      ok: Boolean(report.ok),
      passed: Number(report.passed) || 0,
      total: Number(report.total) || 0,
      error: report.error ?? null,
      checks: Array.isArray(report.checks) ? report.checks : [],
      output: String(report.output ?? ""),
      truncated: Boolean(report.truncated),
    });
  };
  const exercise = JSON.stringify({ checks: msg.checks, modules: msg.modules });
  try {
    runner.check(String(msg.code), String(msg.filename), exercise, Number(msg.timeout), deliver);
  } catch (err) {
    currentRunId = null;
    const isPython = err && err.constructor && err.constructor.name === "PythonError";
    if (!isPython || err.pyodide_fatal_error || delivered) {
      const reason = delivered ? "Python crashed: it could not return to a clean state after a check." : crashReason(err);
      fatal(delivered ? null : id, reason);
      return;
    }
    console.error("lab-worker: the check runner failed:", describe(err));
    deliver({ ok: false, passed: 0, total: 0, checks: [], output: "", truncated: false,
      error: { type: "LabError", message: "the check could not be finished (a fault in the lab, not in your code)",
        line: null, traceback: "" } });
  }
}

async function handle(msg) {
  const problem = messageProblem(msg, "worker");
  if (problem) {
    console.error(`lab-worker: ignored a malformed message from the page: ${problem}`);
    const id = msg && typeof msg === "object" && Number.isSafeInteger(msg.id) && msg.id > 0 ? msg.id : null;
    post({ type: MSG.ERROR, id, message: `Malformed message: ${problem}` });
    return;
  }
  if (dead) {
    post({ type: MSG.FATAL, id: msg.id, message: "Python has crashed; the page starts a new one." });
    return;
  }
  switch (msg.type) {
    case MSG.INIT:
      try {
        await init(msg);
      } catch (err) {
        fatal(msg.id, describe(err));
      }
      return;
    case MSG.RUN:
      run(msg);
      return;
    case MSG.CHECK:
      check(msg);
  }
}

// The worker's own channel carries one message: init, with this worker's end of the lab's channel. Anything after
// it (or not sent by the page: learner code can dispatch a "message" event here) is ignored.
self.addEventListener("message", (event) => {
  const msg = event.data;
  if (send || !event.isTrusted) {
    console.warn("lab-worker: ignored a message outside the lab's channel");
    return;
  }
  const port = msg && typeof msg === "object" ? msg.port : undefined;
  if (!(port instanceof MessagePort)) {
    console.error("lab-worker: the page's first message must be init, with the lab's channel as `port`");
    return;
  }
  send = port.postMessage.bind(port);
  port.onmessage = (e) => {
    const next = e.data;
    queue = queue.then(() => handle(next));
  };
  port.onmessageerror = () => console.error("lab-worker: a message from the page could not be read");
  queue = queue.then(() => handle(msg));
});
