// What the lab worker's modules share: its state, its one channel to the page (a MessagePort handed over with
// `init`), and its failures, said by message key (lab/worker-said.json: the page words them; the details, the
// browser's words of a failed download or a crash, and the words of a bug, go to the console). Module scope only: learner code reaches the global object,
// never a module's bindings.

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

/** A failure the page words by `key` (lab/worker-said.json) with `values`; `detail`, its English for the console. */
export class Said extends Error {
  constructor(key, values = {}, detail = "") {
    super(detail || key);
    this.said = { key, values };
  }
}

/** What the page is told of a failure: its said, or (anything else thrown: Pyodide's, the browser's) `fallback`'s;
 * the detail, in its own words, a console warning. */
export function saidOf(err, fallback) {
  if (err instanceof Said) {
    if (err.message !== err.said.key) console.warn(`lab-worker: ${err.message}`);
    return err.said;
  }
  console.warn(`lab-worker: ${err && typeof err === "object" && "message" in err ? err.message : String(err)}`);
  return { key: fallback, values: {} };
}

/** Post a message made of labkit's JSON once it fits the protocol (labkit's bug otherwise: the page gets an error). */
export function postChecked(message) {
  const problem = messageProblem(message, "page");
  if (!problem) {
    post(message);
    return;
  }
  console.error(`lab-worker: labkit's answer does not fit the lab's protocol: ${problem}`);
  post({ type: MSG.ERROR, id: message.id, said: { key: "worker.fault", values: {} } });
}

/** Python has crashed (`said`, for the page to word): say so, and refuse everything after. */
export function fatal(id, said) {
  worker.dead = true;
  post({ type: MSG.FATAL, id, said });
}
