/**
 * The page's side of the lab's Python, and the broker between learner code and everything else: it starts the
 * workers (lab-worker.js), speaks lab-protocol.js with them and turns their messages into promises. It shows
 * nothing; lab.js and exercise.js are the views. Learner code never runs in this realm.
 *
 *   const python = createPython(runtime, { starter, onProgress });
 *   await python.boot();                 // -> BootDiagnostics of the Python the next request takes
 *   const result = await python.run(code, { filename, onOutput: (stream, text) => …, onStart: () => … });
 *   python.stop();                       // ends the request in progress (soft interrupt, else its worker goes)
 *   const report = await python.check(code, { filename, checks, modules, timeout });  // an exercise's checks
 *
 * One Python per request: a worker runs learner code for exactly one request (a run or a check), and when that
 * request ends (its result or report, a crash, Stop) the worker is terminated: nothing the code did, in Python or in
 * JavaScript, reaches a later request. The page keeps spare Pythons booted ahead of need (one or two: lab/spares.js,
 * one boot at a time): a request takes one, and when it ends a new one boots in the background; a request that
 * arrives when none is ready waits for the next. With two, a second Run or Check right after the first finds one. The
 * first boot hands over, before its Ready (only our own code has run there), the packed memory snapshot it took and
 * the compiled pyodide.asm.wasm: every spare boots from them, without Cache Storage or compiling. The snapshot is
 * also kept in Cache Storage for later visits (lab-snapshot-cache.js).
 *
 * What a worker may send, and when, is lab-gate.js's: anything else is ignored with one console warning, a worker
 * that breaks it after Ready is ended, and the output caps (labkit's own numbers, handed over with Ready) are
 * enforced here on what arrives, whatever the worker sends. The worker is started from a `blob:` URL of its
 * script's bytes, fetched with the build's integrity hash: it runs only the build's code, under the page's own
 * Content-Security-Policy (a blob: worker inherits its creator's, the <meta> one included).
 *
 * `python.state`: "idle" · "loading" (the page's first Python is starting) · "starting" (the next one is: a fresh
 * Python after a request) · "ready" · "running" · "failed" (it could not start; the next boot() or request tries
 * again). `runtime` is the page's runtime block (#lesson-data: indexURL, lock, labkit, worker, workerIntegrity, …;
 * URLs relative to the page; lab-boot.js makes each Python's init from it). A run's result is the protocol's `result` message (ok, ms, error, charts, truncated,
 * stopped) and `id`, plus `restarted`: true when the page ended the worker before Python's own result (a hard Stop,
 * a crash, output past the caps, a check past its time).
 *
 * A page has one client: sharedPython(runtime, options) makes it the first time and hands every later caller (each
 * lab, each exercise) the same one, adding its onProgress to the listeners. Requests are queued, one at a time.
 */

import { num, t } from "../page/words.js";
import { bootSources } from "./boot.js";
import { MSG, STOP_SIGNAL } from "./protocol.js";
import { say } from "./said.js";
import { checkEnded, ended, newSession, openWorker, retire, settleLater } from "./session.js";
import { SPARES, whenIdle } from "./spares.js";

const STOP_GRACE_MS = 300; // soft interrupt first; a blocked call (time.sleep) needs the hard path
const BOOT_STALL_MS = 45000; // no message from the worker for this long while it starts = failed
const CHECK_GRACE_MS = 3000; // beyond a check run's own limits (each part's timeout) before its worker is ended
export const OUTPUT_LIMIT = t("lab.output_limit");
export const PROTOCOL_BROKEN = t("lab.protocol_broken");

const describe = (err) => (err && typeof err === "object" && "message" in err ? String(err.message) : String(err));

/**
 * The client for the page's labs and exercises. Options: starter {code, filename} (compiled during each boot, never
 * run), onProgress (progress message: {phase, loaded?, total?}) while the page's first Python starts.
 */
export function createPython(runtime, { starter = null, onProgress = () => {} } = {}) {
  const listeners = [onProgress];
  let nextId = 1;
  const spares = []; // the Pythons booted (or booting) ahead of need, oldest first (sessions, see startSpare)
  let filling = false; // a fill() is scheduled
  let serving = null; // {session, job}: the request in progress
  const queue = []; // requests waiting for a Python
  let failed = false;
  let everReady = false;
  let diagnostics = null;
  const sources = runtime ? bootSources(runtime, starter) : null; // what each Python boots from (lab-boot.js)

  const client = {
    get state() {
      if (serving) return "running";
      if (spares.some((s) => s.stage === "ready")) return "ready";
      if (spares.length) return everReady ? "starting" : "loading";
      return failed ? "failed" : "idle";
    },
    get diagnostics() {
      return diagnostics;
    },
    /** Every spare Python the page keeps is booted and none is busy (tests and the benchmark wait on it). */
    get settled() {
      return !serving && spares.length >= SPARES && spares.every((s) => s.stage === "ready");
    },
    /** A Python is booting (its downloads under way): a service worker stopped now would fail them. */
    get booting() {
      return spares.some((s) => s.stage === "booting");
    },
    boot,
    run,
    check,
    stop,
    listen,
  };

  /** Add another user's onProgress (sharedPython). */
  function listen({ onProgress: progress = () => {} } = {}) {
    listeners.push(progress);
  }

  // ---- one worker: its boot ---------------------------------------------------------------------------------

  function startSpare() {
    const session = newSession(nextId++);
    spares.push(session);
    failed = false;
    armWatchdog(session);
    launch(session).catch((err) => failBoot(session, describe(err)));
    return session;
  }

  async function launch(session) {
    if (!sources) throw new Error(t("lab.no_runtime"));
    const plan = await sources.plan({ first: !everReady });
    if (session.stage !== "booting") return;
    session.plan = plan;
    openWorker(session, plan, {
      message: (data) => receive(session, data),
      unreadable: () => refuse(session, "a message that could not be read"),
      stray: (event) => stray(session, event),
      error: (event) => {
        console.warn(`lab: the Python worker stopped: ${event.message || "no message"}`);
        const message = t("lab.worker_stopped");
        if (session.stage === "booting") failBoot(session, message);
        else died(session, t("lab.crashed", { error: message })); // the worker's own `fatal` says so itself
      },
    });
    armWatchdog(session);
  }

  function armWatchdog(session) {
    clearTimeout(session.watchdog);
    session.watchdog = setTimeout(() => {
      if (session.stage === "booting") {
        failBoot(session, t("lab.boot_stalled", { seconds: num(BOOT_STALL_MS / 1000) }));
      }
    }, BOOT_STALL_MS);
  }

  function failBoot(session, message) {
    if (session.stage === "done") return;
    retire(session);
    drop(session);
    const error = new Error(message);
    session.reject(error);
    if (spares.length) return; // another Python is there for the requests waiting
    failed = true;
    for (const job of queue.splice(0)) job.reject(error); // they were waiting for this Python
  }

  /** A session that is no spare any more (it failed, died or broke the protocol). */
  function drop(session) {
    const at = spares.indexOf(session);
    if (at >= 0) spares.splice(at, 1);
  }

  /** Another spare, in an idle moment, when the page keeps more than one and none is booting. */
  function scheduleFill() {
    if (filling || SPARES < 2) return;
    filling = true;
    whenIdle(() => {
      filling = false;
      if (failed || !everReady || spares.length >= SPARES || spares.some((s) => s.stage === "booting")) return;
      startSpare();
    });
  }

  function receive(session, msg) {
    const action = session.gate.take(msg);
    if (action.warn) console.warn(action.warn);
    const mine = serving !== null && serving.session === session; // what a request's actions need
    if (["output", "limit", "final"].includes(action.act) && !mine) return;
    switch (action.act) {
      case "progress":
        armWatchdog(session);
        if (everReady) return; // a spare starts unseen; the page's first Python shows its loading line
        for (const progress of listeners) {
          progress({ phase: msg.phase, loaded: msg.loaded, total: msg.total });
        }
        return;
      case "snapshot":
        armWatchdog(session);
        sources.handOff(session.plan, msg);
        return;
      case "ready":
        ready(session, msg);
        return;
      case "bootFailed":
        failBoot(session, say(action.said));
        return;
      case "output":
        serving.job.onOutput(action.stream, action.text);
        return;
      case "limit":
        if (action.text) serving.job.onOutput(action.stream, action.text);
        endRequest(session, serving.job.ended({ type: "OutputLimit", message: OUTPUT_LIMIT }, { truncated: true }));
        return;
      case "final":
        final(session, msg);
        return;
      case "died":
        died(session, say(action.said));
        return;
      case "violation":
        broke(session);
    }
  }

  /** What a worker posted on the worker itself (never the worker's own code): ignored, and once logged. */
  function stray(session, event) {
    // From the worker's thread (not a page script dispatching an event at the Worker object), after its Ready:
    // learner code may have run there, so the worker is ended.
    if (event.isTrusted && (session.stage === "ready" || session.stage === "serving")) {
      refuse(session, "a message on the worker's own channel");
      return;
    }
    if (session.strayWarned) return;
    session.strayWarned = true;
    const type = event.data && typeof event.data === "object" ? String(event.data.type) : typeof event.data;
    console.warn(`lab: ignored a "${type}" message that did not come over the lab's channel (further ones are not logged)`);
  }

  function refuse(session, problem) {
    if (session.stage === "booting") {
      console.warn(`lab: ignored ${problem} from the Python worker`);
      return;
    }
    if (session.stage === "done") return;
    console.warn(`lab: ended the Python worker: it sent ${problem}`);
    broke(session);
  }

  function ready(session, msg) {
    clearTimeout(session.watchdog);
    session.stage = "ready";
    everReady = true;
    diagnostics = { ...msg.diagnostics, snapshotNote: sources.ready(session.plan, msg.diagnostics) };
    session.resolve(diagnostics);
    pump();
    scheduleFill();
  }

  // ---- requests -----------------------------------------------------------------------------------------------

  /** Resolves with the BootDiagnostics of the Python the next request takes (starting one when there is none). */
  function boot() {
    if (serving && !spares.length) {
      const after = () => boot();
      return serving.job.promise.then(after, after); // the next spare starts when this request ends
    }
    return (spares.find((s) => s.stage === "ready") || spares[0] || startSpare()).promise;
  }

  function request(kind, message, { onOutput = () => {}, onStart = () => {}, checks = [], endedBy = ended, limitMs = 0 }) {
    const job = { id: nextId++, kind, message, checks, onOutput, onStart, ended: endedBy, limitMs, limit: 0, timer: 0,
      ...settleLater() };
    queue.push(job);
    pump();
    return job.promise;
  }

  /** Give the first waiting request a ready spare (starting one if there is none). */
  function pump() {
    if (serving || !queue.length) return;
    if (!spares.length) {
      startSpare();
      return; // its Ready pumps again
    }
    const session = spares.find((s) => s.stage === "ready");
    if (!session) return; // the one booting pumps again when it is ready
    const job = queue.shift();
    drop(session);
    serving = { session, job };
    session.stage = "serving";
    session.gate.bind({ id: job.id, kind: job.kind, checks: job.checks });
    if (job.limitMs) job.limit = setTimeout(() => tooLong(job), job.limitMs);
    session.port.postMessage({ type: job.kind, id: job.id, ...job.message });
    job.onStart();
  }

  /** The request in progress is over: its worker goes, the request gets `result`, and the next Python boots. */
  function endRequest(session, result) {
    if (!serving || serving.session !== session) return;
    const { job } = serving;
    serving = null;
    retire(session);
    clearTimeout(job.timer);
    clearTimeout(job.limit);
    job.resolve({ id: job.id, ...result });
    if (!spares.some((s) => s.stage === "booting")) startSpare(); // in place of the one this request used
    pump();
  }

  function final(session, msg) {
    if (msg.type === MSG.ERROR) {
      console.error("lab: the worker could not take a request:", msg.said.key);
      endRequest(session, { ...serving.job.ended({ type: "LabError", message: say(msg.said) }), restarted: false });
      return;
    }
    const { type, ...result } = msg;
    endRequest(session, { ...result, restarted: false });
  }

  /**
   * Python is gone: the request it served ends with the crash (type "Crash", `message` worded for the learner:
   * "Python crashed: …"); a spare is simply not there any more.
   */
  function died(session, message) {
    if (session.stage === "done") return; // ended already (a crash both posts `fatal` and raises an error event)
    if (serving && serving.session === session) {
      endRequest(session, serving.job.ended({ type: "Crash", message: String(message) }));
      return;
    }
    retire(session);
    drop(session);
    console.warn(`lab: the waiting Python stopped (${message}); a new one starts when it is needed.`);
    pump();
  }

  function broke(session) {
    if (session.stage === "done" && !(serving && serving.session === session)) return;
    if (serving && serving.session === session) {
      endRequest(session, serving.job.ended({ type: "LabError", message: PROTOCOL_BROKEN }));
      return;
    }
    retire(session);
    drop(session);
    pump();
  }

  /** Run code; resolves with the run's result when it ends (queued after a request in progress). */
  function run(code, { filename = "lab.py", onOutput, onStart } = {}) {
    return request(MSG.RUN, { code: String(code), filename: String(filename) }, { onOutput, onStart });
  }

  /**
   * Check an exercise's code (lab-protocol.js CheckMessage: checks, modules, timeout in seconds); resolves with the
   * report (ReportMessage fields, plus `restarted`). A check run that outlasts its own limits (a loop Python cannot
   * interrupt) ends with its worker: every check "took too long".
   */
  function check(code, { filename = "exercise.py", checks = [], modules = {}, timeout = 5, onStart } = {}) {
    const names = checks.map((c) => ({ name: String(c.name), secret: Boolean(c.secret) }));
    const endedBy = checkEnded(names);
    const limitMs = (checks.length + 1) * timeout * 1000 + CHECK_GRACE_MS;
    const message = { code: String(code), filename: String(filename), checks, modules, timeout };
    return request(MSG.CHECK, message, { checks: names, endedBy, limitMs, onStart });
  }

  function tooLong(job) {
    if (serving && serving.job === job) {
      endRequest(serving.session, job.ended({ type: "TookTooLong", message: t("lab.too_long") }));
    }
  }

  /**
   * End the request in progress (or the first one waiting, which then never runs): STOP_SIGNAL first, where the
   * page is cross-origin isolated; a run still going after STOP_GRACE_MS, or any run without isolation, ends with
   * its worker. Its worker is retired either way.
   */
  function stop() {
    if (!serving) {
      const job = queue.shift();
      if (job) job.resolve({ id: job.id, ...job.ended({ type: "KeyboardInterrupt", message: t("lab.stopped") }, { stopped: true }),
        restarted: false });
      return Promise.resolve();
    }
    const { session, job } = serving;
    const over = job.promise.then(() => undefined, () => undefined);
    if (job.timer) return over;
    const hard = () => {
      if (serving && serving.job === job) endRequest(session, job.ended({ type: "KeyboardInterrupt", message: t("lab.stopped") },
        { stopped: true }));
    };
    if (session.interrupt) {
      new Uint8Array(session.interrupt)[0] = STOP_SIGNAL; // Python raises KeyboardInterrupt at its next check
      job.timer = setTimeout(hard, STOP_GRACE_MS);
    } else {
      job.timer = -1;
      hard(); // a page without cross-origin isolation has no shared memory to signal with
    }
    return over;
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
