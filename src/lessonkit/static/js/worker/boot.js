// The lab worker's boot, `init` as named steps: start the downloads → boot the runtime (from a snapshot, or fresh)
// → install labkit → warm up → compile the starter → take a snapshot → install the lesson's packages (Pyodide's,
// checked against its lock, and pure-Python wheels) → adopt them into the clean state → hand off the snapshot → lock
// down → ready. Our code only: learner code runs after lockDown(), and never during a boot.

import { MSG } from "../lab/protocol.js";
import { post, Said, worker } from "./channel.js";
import { absoluteURL, describe, trackDownloads, useCompiledWasm } from "./downloads.js";
import { forward, keptRunner, makeRunner, runnerLimits, useWords, warmUp } from "./runner.js";
import { lockDown, useRefusal } from "./sandbox.js";
import { packHeap, unpackHeap } from "./snapshot.js";

async function fetchBytes(url) {
  const file = url.split("/").pop();
  let resp;
  try {
    resp = await fetch(url);
  } catch (err) {
    throw new Said("worker.download_broken", { file }, `could not download ${file}: ${describe(err)}`);
  }
  if (!resp.ok) throw new Said("worker.download_failed", { file, status: String(resp.status) });
  return resp.arrayBuffer();
}

function sitePackages() {
  const version = worker.pyodide.FS.readdir("/lib").find((name) => /^python\d+\.\d+$/.test(name));
  if (!version) throw new Error("Python's library folder is missing");
  return `/lib/${version}/site-packages`;
}

/**
 * Boot Python: from msg.snapshot when given (a heap an earlier boot took before any learner code ran), else
 * normally, taking a snapshot for the page when config.snapshots says so; with the compiled msg.wasm when given.
 * Before Ready the page gets the hand-off (`snapshot`), then Ready with labkit's limits.
 */
export async function init(msg) {
  if (worker.pyodide) {
    console.error("lab-worker: Python is already started in this worker");
    post({ type: MSG.ERROR, id: msg.id, said: { key: "worker.fault", values: {} } });
    return;
  }
  const boot = startDownloads(msg);
  const snapshotError = msg.snapshot ? await bootFromSnapshot(boot, msg.snapshot) : "";
  if (!boot.fromSnapshot) await bootFresh(boot, Boolean(msg.snapshot));
  compileStarter(boot.cfg.starter);
  const heap = boot.takeSnapshot && !boot.fromSnapshot ? takeSnapshot() : null;
  await installPackages(boot);
  const bytecode = await adoptPackages(boot.cfg, msg.bytecode || null);
  await handOff(boot, heap, bytecode);
  ready(boot, msg.interruptBuffer, snapshotError);
}

/**
 * Everything a boot fetches, started at once: the runtime's files (counted for the page's loading line), the labkit
 * wheel (while Python boots instead of after it), Pyodide's modules, and the wasm compiling as it arrives. Returns
 * the boot's plan: its config, URLs and downloads under way.
 */
function startDownloads(msg) {
  const t0 = performance.now();
  const cfg = msg.config;
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
  worker.fullStdLibURL = cfg.stdLibFullURL || new URL("full/python_stdlib.zip", stdLibURL).href;
  const labkitWheel = fetchBytes(cfg.labkit);
  labkitWheel.catch(() => {}); // awaited by installLabkit; a failure is reported there
  // Pyodide asks for these only once pyodide.mjs is in; asking now overlaps its import.
  const downloading = given ? [stdLibURL] : [wasmURL, stdLibURL];
  const early = new Map(downloading.map((url) => [url, fetch(url)]));
  for (const started of early.values()) started.catch(() => {}); // a failure surfaces when Pyodide asks
  // Both of Pyodide's modules, by the names the page gives (a copy of the site may rename them:
  // lessonkit/runtime/config.py). Pyodide is handed the second (createPyodideModule) rather than importing it by its
  // own name; 0.27's is a classic script pyodide.mjs loads itself (fetched now, so it is in the HTTP cache then).
  const asmURL = cfg.asmURL || new URL("pyodide.asm.mjs", indexURL).href;
  const asmModule = cfg.asmScript ? fetch(asmURL).then(() => ({ default: undefined }))
    : importRuntime(asmURL, cfg.offlineCopy);
  asmModule.catch(() => {}); // awaited in bootRuntime
  const pyodideModule = importRuntime(cfg.pyodideURL || new URL("pyodide.mjs", indexURL).href, cfg.offlineCopy);
  pyodideModule.catch(() => {}); // awaited in bootRuntime
  const firstDownloads = trackDownloads(post, msg.id, downloading, sizes, early, Boolean(cfg.countDownloads));
  // The wasm compiles as it arrives, while Pyodide loads its modules (and the snapshot is read): see useCompiledWasm.
  const wasmModule = given ? Promise.resolve(given) : WebAssembly.compileStreaming(firstDownloads.fetch(wasmURL));
  wasmModule.catch(() => {}); // a failure surfaces in bootRuntime
  return { id: msg.id, cfg, t0, indexURL, stdLibURL, wasmURL, given, sizes, early, labkitWheel, pyodideModule,
    asmModule, firstDownloads, wasmModule, takeSnapshot: Boolean(cfg.snapshots), fromSnapshot: false,
    downloadedAt: t0 }; // downloadedAt: when the runtime's bytes were in, where the Python part of a boot starts
}

/**
 * One of Pyodide's modules. The service worker leaves these to the browser while it is online (so its code cache
 * serves them); an import that fails is tried once more with `offlineCopy` (the page's fragment, sw.js's
 * OFFLINE_COPY), which the service worker answers from its checked offline copy: for a browser that thinks it is
 * online with neither a network nor the file in its HTTP cache.
 */
function importRuntime(url, offlineCopy) {
  return import(url).catch((err) => {
    if (!offlineCopy) throw err;
    return import(url + offlineCopy);
  });
}

/** Boot from a snapshot's heap; on any failure, forget that Python and return why (the boot goes on fresh). */
async function bootFromSnapshot(boot, snapshot) {
  try {
    const heap = snapshot.arrayBuffer().then(unpackHeap);
    heap.catch(() => {}); // Pyodide awaits it a little later: a bad one is not an unhandled rejection meanwhile
    await bootRuntime(boot, heap, boot.firstDownloads);
    await installLabkit(boot, true);
    // The snapshot froze the RNG state of the boot that made it: every Python would see the same "random" numbers.
    worker.pyodide.runPython("import random; random.seed()");
    worker.runner = keptRunner(); // made, warmed up and given the starter's bytecode before the snapshot
    warmUp(); // again: also the check that a snapshot-booted Python computes what a fresh one does
    boot.fromSnapshot = true;
    return "";
  } catch (err) {
    worker.pyodide = null;
    worker.runner = null;
    return describe(err);
  }
}

/** Boot without a snapshot, then make labkit's runner and warm it up. */
async function bootFresh(boot, afterSnapshot) {
  // After a snapshot that did not work, only the stdlib is fetched again: the compiled module is kept.
  const downloads = afterSnapshot ? trackDownloads(post, boot.id, [boot.stdLibURL], boot.sizes, boot.early, false)
    : boot.firstDownloads;
  await bootRuntime(boot, null, downloads);
  await installLabkit(boot, false);
  // Before micropip: installing requirements may import stdlib modules the trimmed zip left out.
  worker.runner = makeRunner(worker.fullStdLibURL !== boot.stdLibURL);
  warmUp(); // the first call: labkit's runner takes the clean state its run starts from
}

/** Pyodide started, from `snapshot` (a promise of a heap) or fresh, taking a snapshot when the page wants one. */
async function bootRuntime(boot, snapshot, downloads) {
  downloads.done.then(() => {
    boot.downloadedAt = performance.now();
    post({ type: MSG.PROGRESS, id: boot.id, phase: "start" });
  });
  // A release that takes no inline lock (0.27) fetches lockFileURL: the page's lock is answered from here.
  const lockURL = boot.cfg.inlineLock === false ? new URL("pyodide-lock.json", boot.indexURL).href : null;
  const lock = JSON.stringify(boot.cfg.lock);
  const others = (input, init) => (lockURL && absoluteURL(input) === lockURL
    ? Promise.resolve(new Response(lock, { headers: { "Content-Type": "application/json" } }))
    : downloads.fetch(input, init));
  const stopUsingModule = useCompiledWasm(boot.wasmURL, boot.wasmModule, others);
  try {
    const booting = (async () => {
      const [{ loadPyodide }, { default: createPyodideModule }] = await Promise.all([boot.pyodideModule, boot.asmModule]);
      return loadPyodide({
        indexURL: boot.indexURL,
        ...(createPyodideModule ? { createPyodideModule } : {}),
        stdLibURL: boot.stdLibURL,
        ...(lockURL ? { lockFileURL: lockURL } : { lockFileContents: boot.cfg.lock }),
        stdout: (text) => forward("stdout", text),
        stderr: (text) => forward("stderr", text),
        ...(snapshot ? { _loadSnapshot: snapshot } : boot.takeSnapshot ? { _makeSnapshot: true } : {}),
      });
    })();
    const compileFailed = boot.wasmModule.then(() => new Promise(() => {}), (err) => {
      throw new Said("worker.compile_failed", {}, `could not compile pyodide.asm.wasm: ${describe(err)}`);
    });
    worker.pyodide = await Promise.race([booting, downloads.failed, compileFailed]);
  } finally {
    stopUsingModule();
  }
}

/** labkit's wheel unpacked into site-packages (files live outside the wasm heap: a snapshot boot writes them again,
 * though its modules are already imported). */
async function installLabkit(boot, fromSnapshot) {
  post({ type: MSG.PROGRESS, id: boot.id, phase: "install" });
  // Pyodide's own unpacking (zipfile; Pyodide's boot has imported it already for its package loader).
  const folder = sitePackages();
  worker.pyodide.unpackArchive(new Uint8Array(await boot.labkitWheel), "wheel", { extractDir: folder });
  // A normal boot imports labkit next: the import system must not trust a listing of the folder made before.
  // (Not importlib.invalidate_caches(): it imports importlib.metadata, which the trimmed stdlib leaves out.)
  if (!fromSnapshot) worker.pyodide.runPython(`import sys; sys.path_importer_cache.pop(${JSON.stringify(folder)}, None)`);
}

/** Compile only (labkit keeps the bytecode): the first Run of the lesson's code then skips compiling. */
function compileStarter(starter) {
  if (!starter) return;
  const labkit = worker.pyodide.pyimport("labkit");
  labkit.precompile(starter.code, starter.filename);
  labkit.destroy();
}

/**
 * The heap for later Pythons, or null. Our own code has run (labkit imported, the runner made and warmed up, the
 * starter compiled); learner code has not. Every later Python of the page, and later visits, boot from this heap and
 * skip all of that. Before any package is installed: Pyodide cannot snapshot a heap that micropip has been loaded
 * into.
 */
function takeSnapshot() {
  try {
    return packHeap(worker.pyodide.makeMemorySnapshot()); // zero pages left out
  } catch (err) {
    console.warn(`lab-worker: could not take a Python snapshot (${describe(err)}); later Pythons boot normally.`);
    return null;
  }
}

/** The lesson's packages: installed files live outside the heap, so every Python installs them, snapshot or not. */
async function installPackages(boot) {
  const cfg = boot.cfg;
  if (cfg.packages && cfg.packages.length) await loadLocked(boot.id, cfg.packages);
  if (cfg.micropip && cfg.micropip.length) await worker.pyodide.loadPackage(cfg.micropip);
  if (cfg.requirements && cfg.requirements.length) {
    // micropip: the pinned wheel above, or (0.27) the release's own, one of cfg.packages.
    const micropip = worker.pyodide.pyimport("micropip");
    // Same-origin wheel URLs only, deps listed by the build: nothing may reach an index (offline, CSP).
    await micropip.install.callKwargs(cfg.requirements, { deps: false });
    micropip.destroy();
  }
}

/**
 * Pyodide's packages, by name from the page's lock (never by URL): Pyodide fetches each file with the lock's sha256
 * as its Subresource Integrity, so a byte that differs from the release's official wheel is refused by the browser.
 * Pyodide reports a failed package rather than throwing: one that is not loaded after it is this boot's error.
 */
async function loadLocked(id, names) {
  post({ type: MSG.PROGRESS, id, phase: "install" });
  const failures = [];
  await worker.pyodide.loadPackage(names, {
    checkIntegrity: true, messageCallback: () => {}, errorCallback: (text) => failures.push(text),
  });
  const missing = names.filter((name) => !(name in worker.pyodide.loadedPackages));
  if (missing.length) {
    throw new Said("worker.packages_failed", { packages: missing.join(", ") }, `could not load ${missing.join(", ")}: `
      + `the download does not match Pyodide's lock, or failed (${failures.join(" ").trim() || "no detail"})`);
  }
}

/**
 * Pyodide's packages imported by our code, and made part of the clean state every run starts from (labkit's
 * Runner.adopt): a run finds them as the first one did. Their bytecode (labkit/_bytecode.py): `given` (a Blob an
 * earlier boot collected) is installed first, so the import compiles nothing; without it, the import writes its
 * bytecode and this returns it collected (a Uint8Array) for the page to keep, or null.
 */
async function adoptPackages(cfg, given) {
  if (!cfg.packages || !cfg.packages.length) return null;
  const imports = JSON.stringify(cfg.packages.flatMap((name) => (name === "micropip" ? []
    : cfg.lock.packages[name].imports || [])));
  const kit = worker.pyodide.pyimport("labkit._bytecode");
  try {
    if (given) {
      try {
        kit.install(new Uint8Array(await given.arrayBuffer()), sitePackages());
      } catch (err) {
        console.warn(`lab-worker: the packages' saved bytecode was not used (${describe(err)}); they are compiled.`);
      }
      worker.runner.adopt(imports);
      return null;
    }
    const packed = kit.adopt_collecting(worker.runner, imports, sitePackages());
    const bytes = packed.toJs();
    packed.destroy();
    return bytes.length ? bytes : null;
  } finally {
    kit.destroy();
  }
}

/** The hand-off: made by our own code before Ready, so the page may trust it and give it to every later Python. */
async function handOff(boot, heap, bytecode) {
  if (!heap && !bytecode && boot.given) return;
  const wasm = boot.given ? null : await boot.wasmModule;
  // Blobs made here: the page keeps them and passes them on without copying ~12 MB on its own thread.
  const blob = (bytes) => (bytes ? new Blob([bytes], { type: "application/octet-stream" }) : null);
  post({ type: MSG.SNAPSHOT, id: boot.id, heap: blob(heap), wasm, bytecode: blob(bytecode) });
}

/** The size of Python's heap now (its share of the run's memory budget). */
function pythonHeapBytes() {
  const heap = worker.pyodide._module && worker.pyodide._module.HEAP8;
  return heap ? heap.byteLength : 0;
}

/** labkit's words, the page's Stop flag taken, learner code's reach locked down, then Ready with labkit's limits. */
function ready(boot, interruptBuffer, snapshotError) {
  useWords(boot.cfg.words); // after the snapshot, which so holds no language: every boot is given its page's
  if (boot.cfg.words) useRefusal(boot.cfg.words.texts["worker.memory_refused"]);
  if (interruptBuffer) {
    worker.interruptView = new Uint8Array(interruptBuffer);
    worker.pyodide.setInterruptBuffer(worker.interruptView);
  }
  const pythonMs = Math.round(performance.now() - boot.downloadedAt); // the boot after the downloads: what a snapshot saves
  const limits = runnerLimits(); // labkit's caps, which the page enforces again (labkit/_limits.py)
  // From here on, learner code may run: nothing beyond this worker is left on its global object, and Pyodide's API
  // (`pyodide_js`) holds no original of a metered built-in. Python's own objects are not entered.
  const { PyProxy } = worker.pyodide.ffi;
  lockDown(globalThis, pythonHeapBytes(), [worker.pyodide], (value) => value instanceof PyProxy);
  const ms = Math.round(performance.now() - boot.t0);
  const diagnostics = { ms, pythonMs, snapshot: boot.fromSnapshot, snapshotError, isolated: Boolean(worker.interruptView) };
  post({ type: MSG.READY, id: boot.id, diagnostics, limits });
}
