/**
 * One Python worker as the page's client (lab/client.js) keeps it: a session from its boot to its end, the worker
 * and the private channel it is started with, and what a request resolves with when the page ended the worker
 * before Python's own result.
 *
 *   const session = newSession(initId);        // stage "booting", its gate (lab/gate.js) and its promise
 *   openWorker(session, plan, { message, unreadable, stray, error });   // the worker, its channel, its init
 *   retire(session);                           // stage "done": the worker terminated, the channel closed
 *
 * Stages: booting → ready → serving → done (a spare that fails or dies goes straight to done).
 */

import { createGate } from "./gate.js";
import { MSG } from "./protocol.js";

/** A promise with its resolve and reject beside it; an unawaited failure is not an unhandled one. */
export function settleLater() {
  const d = {};
  d.promise = new Promise((resolve, reject) => {
    d.resolve = resolve;
    d.reject = reject;
  });
  d.promise.catch(() => {}); // a failure is the caller's to show
  return d;
}

/** A Python about to boot, answering to the init `initId`. */
export function newSession(initId) {
  return { initId, stage: "booting", gate: createGate(initId), worker: null, port: null, interrupt: null,
    watchdog: 0, plan: null, strayWarned: false, ...settleLater() };
}

/**
 * Start the session's worker from its boot plan (lab/boot.js: the blob: script, the init's config, the handed-over
 * snapshot, wasm and bytecode) with a channel of its own. `on.message(data)` gets what arrives on that channel,
 * `on.unreadable()` a message that could not be read there, `on.stray(event)` what arrives on the worker itself
 * (never the worker's own code), `on.error(event)` the worker's uncaught error (already kept from the console).
 */
export function openWorker(session, plan, on) {
  const worker = new Worker(plan.script, { type: "module", name: "python-lab" });
  const channel = new MessageChannel();
  Object.assign(session, { worker, port: channel.port1 });
  session.interrupt = globalThis.crossOriginIsolated && typeof SharedArrayBuffer === "function"
    ? new SharedArrayBuffer(1) : null;
  session.port.onmessage = (event) => on.message(event.data);
  session.port.onmessageerror = () => on.unreadable();
  worker.onmessage = (event) => on.stray(event);
  worker.onmessageerror = (event) => on.stray(event);
  worker.onerror = (event) => {
    event.preventDefault();
    on.error(event);
  };
  const init = { type: MSG.INIT, id: session.initId, config: plan.config, port: channel.port2 };
  if (session.interrupt) init.interruptBuffer = session.interrupt;
  if (plan.snapshot) init.snapshot = plan.snapshot;
  if (plan.wasm) init.wasm = plan.wasm;
  if (plan.bytecode) init.bytecode = plan.bytecode;
  worker.postMessage(init, [channel.port2]);
}

/** The session is over: its worker goes, with everything learner code did in it. */
export function retire(session) {
  session.stage = "done";
  clearTimeout(session.watchdog);
  if (session.worker) session.worker.terminate();
  if (session.port) session.port.close();
}

/** A run that ended without a result from Python: the page ended its worker. */
export function ended(error, { stopped = false, truncated = false } = {}) {
  return { ok: false, ms: null, error: { line: null, ...error }, charts: [], truncated, stopped, restarted: true };
}

/** The same for a check of the named checks ([{name, secret}]): every check skipped with the error's message. */
export function checkEnded(names) {
  return (error, { truncated = false, stopped = false } = {}) => ({
    ok: false, ms: null, passed: 0, total: names.length, error: { line: null, ...error }, output: "", truncated,
    stopped, restarted: true,
    checks: names.map((c) => ({ ...c, status: "skipped", message: error.message, said: null, traceback: "" })),
  });
}
