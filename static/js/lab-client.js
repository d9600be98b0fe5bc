/**
 * The page's side of the lab's Python: starts the worker (lab-worker.js), speaks lab-protocol.js with it, and turns
 * its messages into promises. It shows nothing; lab.js is the view.
 *
 *   const python = createPython(runtime, { starter, onProgress, onCrash });
 *   await python.boot();                 // -> BootDiagnostics; the same promise until Python is gone
 *   const result = await python.run(code, { filename, onOutput: (stream, text) => … });
 *   python.stop();                       // ends the run in progress (soft interrupt, else a new worker)
 *   const report = await python.check(code, { filename, checks, modules, timeout });  // an exercise's checks
 *
 * A page has one Python: sharedPython(runtime, options) makes the client the first time and hands every later
 * caller (each lab, each exercise) the same one, adding its onProgress / onCrash to the listeners. Runs and checks
 * are queued: one waits for the one in progress to end (and for Python to start again if that one restarted it).
 *
 * `runtime` is the page's runtime block (#lesson-data: indexURL, lock, labkit, worker, …; URLs relative to the
 * page). A run's result is the protocol's `result` message (ok, ms, error, charts, truncated, stopped) and `id`,
 * plus `restarted`: true when Python had to be restarted to end it (a hard Stop, a crash), so earlier variables are
 * gone. After a restart, or a crash between runs (onCrash(message)), the next boot() starts a new worker.
 *
 * Only the worker's own code speaks on the channel this client hands it (learner code in the worker cannot reach
 * that end), so a malformed message there is our bug: logged loudly and never acted on. Anything posted on the
 * worker itself is ignored with a warning.
 */

import { MSG, STOP_SIGNAL, messageProblem } from "./lab-protocol.js";

const STOP_GRACE_MS = 300; // soft interrupt first; a blocked call (time.sleep) needs the hard path
const BOOT_STALL_MS = 45000; // no message from the worker for this long while loading = failed
const STRAY_WARNINGS = 10; // per worker: a flood of stray messages must not flood the console too
const CHECK_GRACE_MS = 3000; // beyond a check run's own limits (each part's timeout) before its worker is ended
export const TOO_LONG = "took too long: Python was restarted to stop it";

function absolute(url) {
  return new URL(url, document.baseURI).href;
}

/** A run that ended without a result from Python: Stop restarted it, or it crashed. */
function ended(error, { stopped = false } = {}) {
  return { ok: false, ms: null, error: { line: null, ...error }, charts: [], truncated: false, stopped, restarted: true };
}

/**
 * The client for one lab. Options: starter {code, filename} (compiled during the boot, never run), onProgress
 * (progress message: {phase, text, loaded?, total?}), onCrash(message) (Python died between runs).
 */
export function createPython(runtime, { starter = null, onProgress = () => {}, onCrash = () => {} } = {}) {
  const listeners = [{ onProgress, onCrash }];
  let worker = null;
  let port = null; // the page's end of the lab's channel: the only place worker messages are read from
  let booting = null; // {promise, resolve, reject, initId}
  let nextId = 1;
  let active = null; // {id, resolve, onOutput, stopping, timer}
  let watchdog = 0;
  let interrupt = null; // the shared byte the page writes STOP_SIGNAL into (cross-origin isolated pages only)
  const client = { state: "idle", diagnostics: null, boot, run, check, stop, listen };

  /** Add another user's onProgress / onCrash (sharedPython). */
  function listen({ onProgress: progress = () => {}, onCrash: crash = () => {} } = {}) {
    listeners.push({ onProgress: progress, onCrash: crash });
  }

  function kill() {
    clearTimeout(watchdog);
    if (worker) worker.terminate();
    if (port) port.close();
    worker = null;
    port = null;
  }

  function failBoot(message) {
    const pending = booting;
    kill();
    booting = null;
    client.state = "failed";
    if (pending) pending.reject(new Error(message));
  }

  function armWatchdog(forWorker) {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      if (forWorker === worker && client.state === "loading") {
        failBoot(`Python did not finish loading (nothing happened for ${BOOT_STALL_MS / 1000} s).`);
      }
    }, BOOT_STALL_MS);
  }

  /** Start Python (once; again after it failed or was restarted). Resolves with the worker's BootDiagnostics. */
  function boot() {
    if (booting) return booting.promise;
    let resolve;
    let reject;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => {}); // a failure is the caller's to show; an unawaited boot must not be an unhandled one
    booting = { promise, resolve, reject, initId: nextId++ };
    client.state = "loading";
    if (!runtime) {
      failBoot("this page has no runtime configuration.");
      return promise;
    }
    try {
      const url = runtime.worker ? absolute(runtime.worker) : new URL("./lab-worker.js", import.meta.url).href;
      worker = new Worker(url, { type: "module", name: "python-lab" });
    } catch (err) {
      failBoot(`the Python worker could not start (${err.message}).`);
      return promise;
    }
    const own = worker;
    interrupt = globalThis.crossOriginIsolated && typeof SharedArrayBuffer === "function" ? new SharedArrayBuffer(1) : null;
    const channel = new MessageChannel();
    port = channel.port1;
    port.onmessage = (event) => receive(own, event.data);
    port.onmessageerror = (event) => console.error("lab: unreadable message from the worker", event);
    // The worker's own code never posts on the worker itself: whatever arrives there came from somewhere else.
    let strays = 0;
    const stray = (event) => {
      strays += 1;
      if (strays > STRAY_WARNINGS) return;
      const type = event.data && typeof event.data === "object" ? String(event.data.type) : typeof event.data;
      const more = strays === STRAY_WARNINGS ? " (further ones are not logged)" : "";
      console.warn(`lab: ignored a "${type}" message that did not come over the lab's channel${more}`);
    };
    worker.onmessage = stray;
    worker.onmessageerror = stray;
    worker.onerror = (event) => {
      event.preventDefault();
      died(own, event.message || "the Python worker stopped unexpectedly.");
    };
    armWatchdog(own);
    const config = {
      indexURL: absolute(runtime.indexURL),
      lock: runtime.lock,
      labkit: absolute(runtime.labkit),
      micropip: (runtime.micropip || []).map(absolute),
      requirements: (runtime.requirements || []).map(absolute),
    };
    if (runtime.stdLibURL) config.stdLibURL = absolute(runtime.stdLibURL);
    if (runtime.sizes) config.sizes = runtime.sizes;
    // Compiled (never run) during the boot, so the learner's first run of it skips compiling.
    if (starter) config.starter = { code: String(starter.code), filename: String(starter.filename) };
    const init = { type: MSG.INIT, id: booting.initId, config, port: channel.port2 };
    if (interrupt) init.interruptBuffer = interrupt;
    worker.postMessage(init, [channel.port2]);
    return promise;
  }

  function receive(from, msg) {
    if (from !== worker) return; // a terminated worker's last words
    const problem = messageProblem(msg, "page");
    if (problem) {
      console.error(`lab: ignored a malformed message from the worker: ${problem}`);
      return;
    }
    const loading = client.state === "loading" && booting && msg.id === booting.initId;
    const forRun = active !== null && msg.id === active.id;
    switch (msg.type) {
      case MSG.PROGRESS:
        if (!loading) return;
        armWatchdog(from);
        for (const l of listeners) l.onProgress({ phase: msg.phase, text: msg.text, loaded: msg.loaded, total: msg.total });
        return;
      case MSG.READY:
        if (!loading) return;
        clearTimeout(watchdog);
        client.state = "ready";
        client.diagnostics = msg.diagnostics;
        booting.resolve(msg.diagnostics);
        return;
      case MSG.STDOUT:
      case MSG.STDERR:
        if (forRun) active.onOutput(msg.type, msg.text);
        return;
      case MSG.REPORT:
        if (forRun && active.kind === "check") {
          const { type, ...report } = msg;
          finish({ ...report, restarted: false });
        }
        return;
      case MSG.RESULT:
        if (forRun && active.kind === "run") {
          const { type, ...result } = msg;
          finish({ ...result, restarted: false });
        }
        return;
      case MSG.ERROR:
        console.error("lab: the worker reported a protocol error:", msg.message);
        if (forRun) finish({ ...active.ended({ type: "LabError", message: msg.message }), restarted: false });
        return;
      case MSG.FATAL:
        died(from, msg.message);
    }
  }

  /** Python is gone: fail the boot, end the run, or tell the view (which starts a new one with boot()). */
  function died(from, message) {
    if (from !== worker) return;
    const text = String(message);
    if (client.state === "loading") {
      failBoot(text);
      return;
    }
    const run = active;
    kill();
    booting = null;
    client.state = "gone";
    if (run) finish(run.ended({ type: "Crash", message: text }));
    else for (const l of listeners) l.onCrash(text);
  }

  function finish(result) {
    const run = active;
    if (!run) return;
    clearTimeout(run.timer);
    clearTimeout(run.limit);
    active = null;
    if (worker) client.state = "ready";
    run.resolve({ id: run.id, ...result });
  }

  /** Wait for the run or check in progress to end, and for Python to be ready (started again if need be). */
  async function free() {
    while (active) await active.promise.catch(() => {});
    if (client.state !== "ready") await boot();
    if (active) return free(); // another caller took the turn meanwhile
    return undefined;
  }

  /** Start a request once Python is free: its message, how a restart ends it, the result it resolves with. */
  function request(kind, message, endedBy, limitMs = 0) {
    return free().then(() => {
      const id = nextId++;
      let resolve;
      const promise = new Promise((res) => {
        resolve = res;
      });
      active = { id, kind, resolve, promise, onOutput: message.onOutput || (() => {}), stopping: null, timer: 0,
        ended: endedBy, limit: 0 };
      delete message.onOutput;
      client.state = "running";
      const job = active;
      if (limitMs) job.limit = setTimeout(() => tooLong(job.id), limitMs);
      port.postMessage({ type: kind, id, ...message });
      return promise;
    });
  }

  /** Run code; resolves with the run's result when it ends (queued after a run or check in progress). */
  function run(code, { filename = "lab.py", onOutput = () => {} } = {}) {
    return request(MSG.RUN, { code: String(code), filename: String(filename), onOutput }, ended);
  }

  /**
   * Check an exercise's code (lab-protocol.js CheckMessage: checks, modules, timeout in seconds); resolves with the
   * report (ReportMessage fields, plus `restarted`). A check run that outlasts its own limits (a loop Python cannot
   * interrupt) ends with its worker: every check "took too long", and the next request starts Python again.
   */
  function check(code, { filename = "exercise.py", checks = [], modules = {}, timeout = 5 } = {}) {
    const names = checks.map((c) => ({ name: String(c.name), secret: Boolean(c.secret) }));
    const endedBy = (error) => ({
      ok: false, ms: null, passed: 0, total: names.length, error: { line: null, ...error }, output: "",
      truncated: false, restarted: true,
      checks: names.map((c) => ({ ...c, status: "skipped", message: error.message, traceback: "" })),
    });
    const limitMs = (checks.length + 1) * timeout * 1000 + CHECK_GRACE_MS;
    const message = { code: String(code), filename: String(filename), checks, modules, timeout };
    return request(MSG.CHECK, message, endedBy, limitMs);
  }

  function tooLong(id) {
    if (!active || active.id !== id) return;
    const job = active;
    kill();
    booting = null;
    client.state = "gone";
    finish(job.ended({ type: "TookTooLong", message: `Your code ${TOO_LONG}.` }));
  }

  /** End the run in progress: STOP_SIGNAL first; a run still going after STOP_GRACE_MS ends with its worker. */
  function stop() {
    const run = active;
    if (!run) return Promise.resolve();
    if (run.stopping) return run.stopping;
    run.stopping = new Promise((resolve) => {
      const resolveRun = run.resolve;
      run.resolve = (result) => {
        resolveRun(result);
        resolve();
      };
    });
    if (interrupt) {
      new Uint8Array(interrupt)[0] = STOP_SIGNAL; // Python raises KeyboardInterrupt at its next check
      run.timer = setTimeout(() => {
        if (active === run) hardStop();
      }, STOP_GRACE_MS);
    } else {
      hardStop(); // a page without cross-origin isolation has no shared memory to signal with
    }
    return run.stopping;
  }

  function hardStop() {
    // Blocked calls (time.sleep) and pages without cross-origin isolation cannot be interrupted softly.
    kill();
    booting = null;
    client.state = "gone";
    finish(active.ended({ type: "KeyboardInterrupt", message: "Stopped." }, { stopped: true }));
  }

  return client;
}

let shared = null; // the page's one client: every lab and exercise of the page runs on it

/** The page's Python client (made by the first caller, with its options); later callers add their listeners. */
export function sharedPython(runtime, options = {}) {
  if (!shared) shared = createPython(runtime, options);
  else shared.listen(options);
  return shared;
}
