// Module worker that boots Pyodide and runs learner code for exactly one request: a run through labkit's runner,
// or an exercise's check (labkit.check_code). The page then terminates it (lab-client.js: one Python per request).
// Messages: lab-protocol.js (the page hands this worker a MessagePort with `init`; everything else goes over it).
// What learner code can reach here: lab-sandbox.js (lockDown runs before Ready). The page starts this script from a
// blob: URL of its verified bytes, so every URL it is handed is absolute and `self.location` names nothing.
// Python only ever runs here, never on the page's main thread.

import { MSG, NO_SIGNAL, messageProblem } from "../lab/protocol.js";
import { capMemory, lockDown } from "./sandbox.js";
import { packHeap, unpackHeap } from "./snapshot.js";
import { absoluteURL, describe, trackDownloads, useCompiledWasm } from "./downloads.js";

// Taken before anything else runs: learner code runs only after lockDown(), which removes XMLHttpRequest from the
// global object, and it may replace any built-in; module scope is not reachable from the global.
const XHR = self.XMLHttpRequest; // the full stdlib, fetched synchronously from Python's import system
const parseJSON = JSON.parse;
const eventData = Object.getOwnPropertyDescriptor(MessageEvent.prototype, "data").get;
capMemory(); // before Pyodide makes its memory: a learner's program meets MemoryError at the lab's limit

const FULL_STDLIB_PATH = "/lib/python_stdlib_full.zip";

let pyodide = null;
let fullStdLibURL = null; // where a left-out stdlib import finds the full stdlib
let runner = null; // labkit's runner (_lab_run in Python), made once per boot
let interruptView = null;
let currentRunId = null; // the request whose output C-level writes belong to
let currentFile = null; // its file name: the only one a crash report may name
let dead = false;
let queue = Promise.resolve(); // messages are handled one at a time, in order
let send = null; // postMessage bound to this worker's end of the lab's channel, taken from init (module scope only)
let served = false; // this worker's one request has arrived

function post(message, transfer = []) {
  if (send) send(message, transfer);
  else console.error(`lab-worker: no channel to the page yet; dropped a "${message.type}" message`);
}

/** Post a message made of labkit's JSON once it fits the protocol (labkit's bug otherwise: the page gets an error). */
function postChecked(message) {
  const problem = messageProblem(message, "page");
  if (!problem) {
    post(message);
    return;
  }
  console.error(`lab-worker: labkit's answer does not fit the lab's protocol: ${problem}`);
  post({ type: MSG.ERROR, id: message.id, message: "this could not be finished (a fault in the lab, not in your code)" });
}

function fatal(id, message) {
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

/**
 * Boot Python: from msg.snapshot when given (a heap an earlier boot took before any learner code ran), else
 * normally, taking a snapshot for the page when config.snapshots says so; with the compiled msg.wasm when given.
 * Before Ready the page gets the hand-off (`snapshot`), then Ready with labkit's limits.
 */
async function init(msg) {
  const id = msg.id;
  const cfg = msg.config;
  const t0 = performance.now();
  if (pyodide) {
    post({ type: MSG.ERROR, id, message: "Python is already started in this worker." });
    return;
  }
  const indexURL = cfg.indexURL;
  const stdLibURL = cfg.stdLibURL || new URL("python_stdlib.zip", indexURL).href;
  const wasmURL = new URL("pyodide.asm.wasm", indexURL).href;
  const given = msg.wasm || null; // pyodide.asm.wasm compiled by an earlier boot
  const sizes = {};
  if (cfg.sizes) {
    // Optional decompressed sizes from the build, keyed by file name.
    if (cfg.sizes["pyodide.asm.wasm"]) sizes[wasmURL] = cfg.sizes["pyodide.asm.wasm"];
    if (cfg.sizes["python_stdlib.zip"]) sizes[stdLibURL] = cfg.sizes["python_stdlib.zip"];
  }
  fullStdLibURL = cfg.stdLibFullURL || new URL("full/python_stdlib.zip", stdLibURL).href;
  // The labkit wheel downloads while Python boots instead of after it.
  const labkitWheel = fetchBytes(cfg.labkit);
  labkitWheel.catch(() => {}); // awaited below; a failure is reported there
  const takeSnapshot = Boolean(cfg.snapshots);
  // Pyodide asks for these only once pyodide.mjs is in; asking now overlaps its import.
  const downloading = given ? [stdLibURL] : [wasmURL, stdLibURL];
  const early = new Map(downloading.map((url) => [url, fetch(url)]));
  for (const started of early.values()) started.catch(() => {}); // a failure surfaces when Pyodide asks
  // What Pyodide loads next: a module in 314 (imported now, so its import overlaps), a classic script in 0.27
  // (pyodide.mjs evaluates it itself: fetched now, so it is in the HTTP cache when asked for).
  const asmURL = new URL(cfg.asm || "pyodide.asm.mjs", indexURL).href;
  (asmURL.endsWith(".mjs") ? import(asmURL) : fetch(asmURL)).catch(() => {});
  const pyodideModule = import(new URL("pyodide.mjs", indexURL).href);
  pyodideModule.catch(() => {}); // awaited in boot
  const firstDownloads = trackDownloads(post, id, downloading, sizes, early, Boolean(cfg.countDownloads));
  // The wasm compiles as it arrives, while Pyodide loads its modules (and the snapshot is read): see useCompiledWasm.
  const wasmModule = given ? Promise.resolve(given) : WebAssembly.compileStreaming(firstDownloads.fetch(wasmURL));
  wasmModule.catch(() => {}); // a failure surfaces in boot
  let downloadedAt = t0; // when the runtime's bytes were in: the Python part of a boot starts there
  const boot = async (snapshot, downloads) => {
    downloads.done.then(() => {
      downloadedAt = performance.now();
      post({ type: MSG.PROGRESS, id, phase: "start", text: "Starting Python…" });
    });
    // A release that takes no inline lock (0.27) fetches lockFileURL: the page's lock is answered from here.
    const lockURL = cfg.inlineLock === false ? new URL("pyodide-lock.json", indexURL).href : null;
    const others = (input, init) => (lockURL && absoluteURL(input) === lockURL
      ? Promise.resolve(new Response(JSON.stringify(cfg.lock), { headers: { "Content-Type": "application/json" } }))
      : downloads.fetch(input, init));
    const stopUsingModule = useCompiledWasm(wasmURL, wasmModule, others);
    try {
      const booting = (async () => {
        const { loadPyodide } = await pyodideModule;
        return loadPyodide({
          indexURL,
          stdLibURL,
          ...(lockURL ? { lockFileURL: lockURL } : { lockFileContents: cfg.lock }),
          stdout: (text) => forward("stdout", text),
          stderr: (text) => forward("stderr", text),
          ...(snapshot ? { _loadSnapshot: snapshot } : takeSnapshot ? { _makeSnapshot: true } : {}),
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
  let snapshotError = "";
  let newSnapshot = null;
  if (msg.snapshot) {
    try {
      const heap = msg.snapshot.arrayBuffer().then(unpackHeap);
      heap.catch(() => {}); // Pyodide awaits it a little later: a bad one is not an unhandled rejection meanwhile
      await boot(heap, firstDownloads);
      // The snapshot froze the RNG state of the boot that made it: every Python would see the same "random" numbers.
      pyodide.runPython("import random; random.seed()");
      runner = pyodide.globals.get("_lab_run"); // made, warmed up and given the starter's bytecode before the snapshot
      if (!runner) throw new Error("the runner is missing");
      warmUp(); // again: also the check that a snapshot-booted Python computes what a fresh one does
      fromSnapshot = true;
    } catch (err) {
      snapshotError = describe(err);
      pyodide = null;
      runner = null;
    }
  }
  if (!fromSnapshot) {
    // After a snapshot that did not work, only the stdlib is fetched again: the compiled module is kept.
    await boot(null, msg.snapshot ? trackDownloads(post, id, [stdLibURL], sizes, early, false) : firstDownloads);
    // Before micropip: installing requirements may import stdlib modules the trimmed zip left out.
    runner = makeRunner(fullStdLibURL !== stdLibURL);
    warmUp(); // the first call: labkit's runner takes the clean state its run starts from
  }
  if (cfg.starter) {
    // Compile only (labkit keeps the bytecode): the first Run of the lesson's code then skips compiling.
    const labkit = pyodide.pyimport("labkit");
    labkit.precompile(cfg.starter.code, cfg.starter.filename);
    labkit.destroy();
  }
  if (takeSnapshot && !fromSnapshot) {
    // Our own code has run (labkit imported, the runner made and warmed up, the starter compiled); learner code
    // has not. Every later Python of the page, and later visits, boot from this heap and skip all of that.
    // Before any package is installed: Pyodide cannot snapshot a heap that micropip has been loaded into.
    try {
      newSnapshot = packHeap(pyodide.makeMemorySnapshot()); // zero pages left out: ~12 of ~31 MB
    } catch (err) {
      console.warn(`lab-worker: could not take a Python snapshot (${describe(err)}); later Pythons boot normally.`);
    }
  }
  if (cfg.packages && cfg.packages.length) {
    // By name from the page's lock (never by URL): Pyodide fetches each file with the lock's sha256 as its
    // Subresource Integrity, so a byte that differs from the release's official wheel is refused by the browser.
    post({ type: MSG.PROGRESS, id, phase: "install", text: `Loading ${cfg.packages.join(", ")}…` });
    const failures = [];
    await pyodide.loadPackage(cfg.packages, {
      checkIntegrity: true, messageCallback: () => {}, errorCallback: (text) => failures.push(text),
    });
    const missing = cfg.packages.filter((name) => !(name in pyodide.loadedPackages));
    if (missing.length) {
      throw new Error(`Could not load ${missing.join(", ")}: the download does not match Pyodide's lock, or failed `
        + `(${failures.join(" ").trim() || "no detail"}).`);
    }
  }
  // Installed files live outside the heap, so every Python installs the lesson's packages, snapshot or not.
  if (cfg.micropip && cfg.micropip.length) await pyodide.loadPackage(cfg.micropip);
  if (cfg.requirements && cfg.requirements.length) {
    // micropip: the pinned wheel above, or (0.27) the release's own, one of cfg.packages.
    const micropip = pyodide.pyimport("micropip");
    // Same-origin wheel URLs only, deps listed by the build: nothing may reach an index (offline, CSP).
    await micropip.install.callKwargs(cfg.requirements, { deps: false });
    micropip.destroy();
  }
  if (cfg.packages && cfg.packages.length) {
    // Imported now, by our code, and made part of the clean state every run starts from (labkit's Runner.adopt).
    const imports = cfg.packages.flatMap((name) => (name === "micropip" ? [] : cfg.lock.packages[name].imports || []));
    runner.adopt(JSON.stringify(imports));
  }
  if (newSnapshot || !given) {
    // The hand-off: made by our own code before Ready, so the page may trust it and give it to every later Python.
    const wasm = given ? null : await wasmModule;
    post({ type: MSG.SNAPSHOT, id, heap: newSnapshot, wasm }, newSnapshot ? [newSnapshot.buffer] : []);
  }
  if (msg.interruptBuffer) {
    interruptView = new Uint8Array(msg.interruptBuffer);
    pyodide.setInterruptBuffer(interruptView);
  }
  const pythonMs = Math.round(performance.now() - downloadedAt); // the boot after the downloads: what a snapshot saves
  const limits = parseJSON(runner.limits()); // labkit's caps, which the page enforces again (labkit/_limits.py)
  lockDown(); // from here on, learner code may run: nothing beyond this worker is left on its global object
  const ms = Math.round(performance.now() - t0);
  const diagnostics = { ms, pythonMs, snapshot: fromSnapshot, snapshotError, isolated: Boolean(interruptView) };
  post({ type: MSG.READY, id, diagnostics, limits });
}

// Pyodide's fatal-error dump (faulthandler) lists every Python frame, ours and the stdlib's among them
// (`File "<exec>", line 13 in run`), under headers of its own. Learners see only their own file's frames.
const DUMP_HEADER = /^(Fatal Python error|Python runtime state|Current thread|Thread 0x|Stack \(most recent call first\)|Extension modules|\s+<no Python frame>|\s+\.\.\.$)/;
const DUMP_FRAME = /^\s+File "(.*)", line \d+ in /;

function forward(stream, text) {
  // Output that bypasses sys.stdout (C level); labkit captures everything else. The page caps both.
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
  console.info(`lab-worker: loaded the full standard library (${(xhr.response.byteLength / 1e6).toFixed(1)} MB)`);
  return FULL_STDLIB_PATH;
}

// Python reaches the worker's functions through `js` (globalThis), never as arguments: a memory snapshot can only
// refer to JS objects by their path from globalThis, and the runner is made before the snapshot is taken.
const writer = (type) => (text) => {
  if (currentRunId !== null) post({ type, id: currentRunId, text });
};
self.labkitWriteOut = writer(MSG.STDOUT);
self.labkitWriteErr = writer(MSG.STDERR);
self.labkitMountStdlib = () => mountFullStdlib(fullStdLibURL);

// The runner is labkit's (labkit/_worker.py, the module pytest tests in CPython), made once here: a run then creates
// no proxies and converts no objects, the writers are JS functions Python keeps, and the result comes back as one
// JSON string. fallback: Python booted with the trimmed stdlib, so a left-out import mounts the full one. The
// working directory and /tmp are the runs' scratch folders.
function makeRunner(fallback) {
  pyodide.runPython(`
import js as _js, os as _os
from labkit import make_runner as _make_runner
_mount = _js.labkitMountStdlib if ${fallback ? "True" : "False"} else None
# Kept in Python, where the snapshot keeps it too.
_lab_run = _make_runner(_js.labkitWriteOut, _js.labkitWriteErr, _mount, scratch=(_os.getcwd(), "/tmp"))
del _js, _os, _make_runner, _mount`);
  const made = pyodide.globals.get("_lab_run");
  if (!made) throw new Error("the runner is missing");
  return made;
}

/** labkit's own warm-up run (Runner.warm_up), then the clean state back; throws when it does not succeed. */
function warmUp() {
  const result = parseJSON(runner.warm_up());
  runner.settle();
  if (!result.ok) throw new Error(`the lab's warm-up failed: ${JSON.stringify(result.error)}`);
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

/**
 * The one request: a run (labkit's result) or a check (its report). labkit's JSON goes to the page as it is,
 * checked against the protocol here and again on the page. Nothing is put back after it: this worker is done.
 */
function serve(msg) {
  const id = msg.id;
  const isCheck = msg.type === MSG.CHECK;
  currentRunId = id; // C-level writes (during a check too) reach the page as output of this request
  currentFile = msg.filename;
  const t0 = performance.now();
  const answer = (json) => {
    if (interruptView) interruptView[0] = NO_SIGNAL; // the code has ended: a late Stop must not land in what follows
    currentRunId = null;
    const made = parseJSON(json);
    postChecked({ type: isCheck ? MSG.REPORT : MSG.RESULT, id, ms: Math.round(performance.now() - t0), ...made });
  };
  try {
    if (isCheck) {
      const exercise = JSON.stringify({ checks: msg.checks, modules: msg.modules });
      answer(runner.check(msg.code, msg.filename, exercise, msg.timeout));
    } else {
      answer(runner(msg.code, msg.filename));
    }
  } catch (err) {
    currentRunId = null;
    const isPython = err && err.constructor && err.constructor.name === "PythonError";
    if (!isPython || err.pyodide_fatal_error) {
      fatal(id, crashReason(err));
      return;
    }
    // labkit turns every learner error, and running out of memory or stack while reporting it, into a result;
    // this is a bug in labkit. Its traceback names our files: the console gets it, the learner one line.
    console.error("lab-worker: the lab's runner failed:", describe(err));
    post({ type: MSG.ERROR, id, message: `${isCheck ? "the check" : "this run"} could not be finished (a fault in the lab, not in your code)` });
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
  if (msg.type === MSG.INIT) {
    try {
      await init(msg);
    } catch (err) {
      fatal(msg.id, describe(err));
    }
    return;
  }
  if (!runner) {
    post({ type: MSG.ERROR, id: msg.id, message: "Python is not ready yet." });
    return;
  }
  serve(msg);
}

// The worker's own channel carries one message: init, with this worker's end of the lab's channel. Anything after
// it (or not sent by the page: learner code can dispatch a "message" event here) is ignored. Event data is read
// with the getter taken at the start: learner code may redefine MessageEvent.prototype.data.
self.addEventListener("message", (event) => {
  const msg = eventData.call(event);
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
  // One request, then nothing: once it is in, the port's handler goes, so no later event is read by our code.
  port.onmessage = (e) => {
    const next = eventData.call(e);
    if (next && typeof next === "object" && (next.type === MSG.RUN || next.type === MSG.CHECK)) {
      if (served) return;
      served = true;
      port.onmessage = null;
    }
    queue = queue.then(() => handle(next));
  };
  port.onmessageerror = () => console.error("lab-worker: a message from the page could not be read");
  queue = queue.then(() => handle(msg));
});
