// The lab's worker (a module worker, bundled as lab-worker.js): it boots Pyodide and runs learner code for exactly
// one request, a run through labkit's runner or an exercise's check (labkit.check_code); the page then terminates
// it (lab/client.js: one Python per request). This module only dispatches: the page's messages (lab/protocol.js)
// to the boot (boot.js) and the runner (runner.js). What learner code can reach here: sandbox.js (lockDown runs
// before Ready). The page starts this script from a blob: URL of its verified bytes, so every URL it is handed is
// absolute and `self.location` names nothing. Python only ever runs here, never on the page's main thread.

import { MSG, messageProblem } from "../lab/protocol.js";
import { fatal, post, saidOf, worker } from "./channel.js";
import { init } from "./boot.js";
import { describe } from "./downloads.js";
import { serve } from "./runner.js";
import { capMemory } from "./sandbox.js";

// Taken before anything else runs: learner code may redefine MessageEvent.prototype.data.
const eventData = Object.getOwnPropertyDescriptor(MessageEvent.prototype, "data").get;
capMemory(); // before Pyodide makes its memory: a learner's program meets MemoryError at the lab's limit

let queue = Promise.resolve(); // messages are handled one at a time, in order
let served = false; // this worker's one request has arrived

// Only errors the browser raised: learner code can dispatch an event that looks like one, not make it trusted.
self.addEventListener("error", (event) => {
  if (!event.isTrusted) return;
  console.warn(`lab-worker: Python crashed: ${event.message || "worker error"}`);
  fatal(worker.currentRunId, { key: "worker.crashed", values: {} });
});
self.addEventListener("unhandledrejection", (event) => {
  if (!event.isTrusted) return;
  console.warn(`lab-worker: Python crashed: ${describe(event.reason)}`);
  fatal(worker.currentRunId, { key: "worker.crashed", values: {} });
});

const fault = { key: "worker.fault", values: {} }; // our bug: its words are on the console

async function handle(msg) {
  const problem = messageProblem(msg, "worker");
  if (problem) {
    console.error(`lab-worker: ignored a malformed message from the page: ${problem}`);
    const id = msg && typeof msg === "object" && Number.isSafeInteger(msg.id) && msg.id > 0 ? msg.id : null;
    post({ type: MSG.ERROR, id, said: fault });
    return;
  }
  if (worker.dead) {
    post({ type: MSG.FATAL, id: msg.id, said: { key: "worker.dead", values: {} } });
    return;
  }
  if (msg.type === MSG.INIT) {
    try {
      await init(msg);
    } catch (err) {
      fatal(msg.id, saidOf(err, "worker.start_failed"));
    }
    return;
  }
  if (!worker.runner) {
    console.error("lab-worker: a request came before Python was ready");
    post({ type: MSG.ERROR, id: msg.id, said: fault });
    return;
  }
  serve(msg);
}

// The worker's own channel carries one message: init, with this worker's end of the lab's channel. Anything after
// it (or not sent by the page: learner code can dispatch a "message" event here) is ignored. Event data is read
// with the getter taken at the start.
self.addEventListener("message", (event) => {
  const msg = eventData.call(event);
  if (worker.send || !event.isTrusted) {
    console.warn("lab-worker: ignored a message outside the lab's channel");
    return;
  }
  const port = msg && typeof msg === "object" ? msg.port : undefined;
  if (!(port instanceof MessagePort)) {
    console.error("lab-worker: the page's first message must be init, with the lab's channel as `port`");
    return;
  }
  worker.send = port.postMessage.bind(port);
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
