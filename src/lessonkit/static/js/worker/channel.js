// What the lab worker's modules share: its state, and its one channel to the page (a MessagePort handed over with
// `init`). Module scope only: learner code reaches the global object, never a module's bindings.

import { MSG, messageProblem } from "../lab/protocol.js";

/** The worker's state: one Python, booted once, serving one request. */
export const worker = {
  pyodide: null,
  runner: null, // labkit's runner (_lab_run in Python), made once per boot
  fullStdLibURL: null, // where a left-out stdlib import finds the full stdlib
  interruptView: null, // the page's Stop flag, when the page is cross-origin isolated
  currentRunId: null, // the request whose output C-level writes belong to
  currentFile: null, // its file name: the only one a crash report may name
  dead: false, // Python has crashed: every later request gets `fatal`
  send: null, // postMessage bound to this worker's end of the lab's channel, taken from init
};

export function post(message, transfer = []) {
  if (worker.send) worker.send(message, transfer);
  else console.error(`lab-worker: no channel to the page yet; dropped a "${message.type}" message`);
}

/** Post a message made of labkit's JSON once it fits the protocol (labkit's bug otherwise: the page gets an error). */
export function postChecked(message) {
  const problem = messageProblem(message, "page");
  if (!problem) {
    post(message);
    return;
  }
  console.error(`lab-worker: labkit's answer does not fit the lab's protocol: ${problem}`);
  post({ type: MSG.ERROR, id: message.id, message: "this could not be finished (a fault in the lab, not in your code)" });
}

/** Python has crashed: say so, and refuse everything after. */
export function fatal(id, message) {
  worker.dead = true;
  post({ type: MSG.FATAL, id, message });
}
