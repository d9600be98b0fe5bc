// The lab worker's runner: labkit's (labkit/_worker.py, the module pytest tests in CPython), made once per boot, and
// the one function that serves this worker's one request, a run or a check; the output that bypasses it (C level),
// and the crash of a Python.

import { MSG, NO_SIGNAL } from "../lab/protocol.js";
import { fatal, post, postChecked, worker } from "./channel.js";
import { describe } from "./downloads.js";
import { MEMORY_LIMIT_BYTES, overMessage } from "./meter.js";

// Taken before anything else runs: learner code runs only after lockDown(), which removes XMLHttpRequest from the
// global object, and it may replace any built-in.
const XHR = self.XMLHttpRequest; // the full stdlib, fetched synchronously from Python's import system
const parseJSON = JSON.parse;

const FULL_STDLIB_PATH = "/lib/python_stdlib_full.zip";

// Pyodide's fatal-error dump (faulthandler) lists every Python frame, ours and the stdlib's among them
// (`File "<exec>", line 13 in run`), under headers of its own. Learners see only their own file's frames.
const DUMP_HEADER = /^(Fatal Python error|Python runtime state|Current thread|Thread 0x|Stack \(most recent call first\)|Extension modules|\s+<no Python frame>|\s+\.\.\.$)/;
const DUMP_FRAME = /^\s+File "(.*)", line \d+ in /;

/** Pyodide's stdout/stderr: output that bypasses sys.stdout (C level); labkit captures everything else. The page
 * caps both. */
export function forward(stream, text) {
  if (DUMP_HEADER.test(text)) return;
  const frame = DUMP_FRAME.exec(text);
  if (frame && frame[1] !== worker.currentFile) return;
  if (worker.currentRunId !== null) post({ type: stream, id: worker.currentRunId, text: text + "\n" });
  else if (stream === "stderr") console.warn(text);
}

// Sync XHR (allowed in workers): called from Python's import system, which cannot await. A failure is said on the
// console; labkit tells the learner the rest of the standard library could not be downloaded.
function mountFullStdlib(url) {
  const xhr = new XHR();
  xhr.open("GET", url, false);
  xhr.responseType = "arraybuffer";
  try {
    xhr.send();
  } catch (err) {
    console.warn(`lab-worker: could not download the full standard library: ${describe(err)}`);
    throw err;
  }
  if (xhr.status !== 200) {
    const why = `HTTP ${xhr.status} for ${url.split("/").slice(-2).join("/")}`;
    console.warn(`lab-worker: could not download the full standard library: ${why}`);
    throw new Error(why);
  }
  worker.pyodide.FS.writeFile(FULL_STDLIB_PATH, new Uint8Array(xhr.response));
  console.info(`lab-worker: loaded the full standard library (${(xhr.response.byteLength / 1e6).toFixed(1)} MB)`);
  return FULL_STDLIB_PATH;
}

// Python reaches the worker's functions through `js` (globalThis), never as arguments: a memory snapshot can only
// refer to JS objects by their path from globalThis, and the runner is made before the snapshot is taken.
const writer = (type) => (text) => {
  if (worker.currentRunId !== null) post({ type, id: worker.currentRunId, text });
};
self.labkitWriteOut = writer(MSG.STDOUT);
self.labkitWriteErr = writer(MSG.STDERR);
self.labkitMountStdlib = () => mountFullStdlib(worker.fullStdLibURL);

/**
 * Make labkit's runner, once: a run then creates no proxies and converts no objects, the writers are JS functions
 * Python keeps, and the result comes back as one JSON string. fallback: Python booted with the trimmed stdlib, so a
 * left-out import mounts the full one. The working directory and /tmp are the runs' scratch folders.
 */
export function makeRunner(fallback) {
  worker.pyodide.runPython(`
import js as _js, os as _os
from labkit import make_runner as _make_runner
_mount = _js.labkitMountStdlib if ${fallback ? "True" : "False"} else None
# Kept in Python, where the snapshot keeps it too.
_lab_run = _make_runner(_js.labkitWriteOut, _js.labkitWriteErr, _mount, scratch=(_os.getcwd(), "/tmp"))
del _js, _os, _make_runner, _mount`);
  return keptRunner();
}

/** The runner a boot made (kept in Python's globals, and in a snapshot). */
export function keptRunner() {
  const made = worker.pyodide.globals.get("_lab_run");
  if (!made) throw new Error("the runner is missing");
  return made;
}

/** labkit's own warm-up run (Runner.warm_up), then the clean state back; throws when it does not succeed. */
export function warmUp() {
  const result = parseJSON(worker.runner.warm_up());
  worker.runner.settle();
  if (!result.ok) throw new Error(`the lab's warm-up failed: ${JSON.stringify(result.error)}`);
}

/** labkit's words for what it writes itself (labkit/_words.py `use`): the page's, from init's config. */
export function useWords(words) {
  if (words) worker.runner.use_words(JSON.stringify(words));
}

/** labkit's limits (labkit/_limits.py), which the page enforces again. */
export function runnerLimits() {
  return parseJSON(worker.runner.limits());
}

/** Why Python crashed, by key (lab/worker-said.json): the page words it; the engine's own text goes to the console. */
function crashReason(err) {
  const text = describe(err);
  console.warn(`lab-worker: Python crashed: ${text}`);
  if (/Maximum call stack size exceeded|too much recursion/i.test(text)) return { key: "worker.crashed_stack", values: {} };
  if (text.includes(overMessage(MEMORY_LIMIT_BYTES))) {
    return { key: "worker.crashed_refused", values: { mb: String(Math.round(MEMORY_LIMIT_BYTES / 2 ** 20)) } };
  }
  if (/unreachable|abort/i.test(text)) return { key: "worker.crashed_abort", values: {} };
  if (/memory/i.test(text)) return { key: "worker.crashed_memory", values: {} };
  return { key: "worker.crashed", values: {} };
}

/** What labkit's runner is asked for a request: a run's result, or a check's report, as labkit's JSON text. */
function ask(msg) {
  if (msg.type !== MSG.CHECK) return worker.runner(msg.code, msg.filename);
  const exercise = JSON.stringify({ checks: msg.checks, modules: msg.modules });
  return worker.runner.check(msg.code, msg.filename, exercise, msg.timeout);
}

/**
 * The one request: a run (labkit's result) or a check (its report). labkit's JSON goes to the page as it is,
 * checked against the protocol here and again on the page. Nothing is put back after it: this worker is done.
 */
export function serve(msg) {
  const id = msg.id;
  const isCheck = msg.type === MSG.CHECK;
  worker.currentRunId = id; // C-level writes (during a check too) reach the page as output of this request
  worker.currentFile = msg.filename;
  const t0 = performance.now();
  try {
    const json = ask(msg);
    if (worker.interruptView) worker.interruptView[0] = NO_SIGNAL; // the code has ended: a late Stop must not land in what follows
    worker.currentRunId = null;
    postChecked({ type: isCheck ? MSG.REPORT : MSG.RESULT, id, ms: Math.round(performance.now() - t0), ...parseJSON(json) });
  } catch (err) {
    worker.currentRunId = null;
    const isPython = err && err.constructor && err.constructor.name === "PythonError";
    if (!isPython || err.pyodide_fatal_error) {
      fatal(id, crashReason(err));
      return;
    }
    // labkit turns every learner error, and running out of memory or stack while reporting it, into a result;
    // this is a bug in labkit. Its traceback names our files: the console gets it, the learner one line.
    console.error(`lab-worker: the lab's runner failed (${isCheck ? "a check" : "a run"}):`, describe(err));
    post({ type: MSG.ERROR, id, said: { key: "worker.fault", values: {} } });
  }
}
