/**
 * What the page accepts from one Python worker, message by message (lab-client.js owns the worker and acts on the
 * answer). A worker serves one request, so its life is short and every stage says what may arrive:
 *
 *   booting  for the init's id: `progress`, the boot's `snapshot` hand-off, then `ready` (with labkit's limits);
 *            `error` or `fatal` end the boot. Only our own code has run in the worker so far.
 *   spare    ready, waiting for its request: nothing may arrive.
 *   serving  bound to one request (bind): `stdout` / `stderr` for its id, within the limits, then the request's one
 *            final message: `result` for a run, `report` for a check (for exactly the checks asked), `error`, `fatal`.
 *   done     nothing more: the page is ending the worker.
 *
 *   const gate = createGate(initId);
 *   gate.take(message)   -> an action: {act, …} (below)
 *   gate.bind({id, kind, checks})  once the worker is ready: kind "run" | "check"; checks [{name, secret}]
 *
 * Actions: progress {msg} · snapshot {msg} · ready {msg} · bootFailed {said} (booting only) · output {stream, text}
 * · limit {stream, text} (the part of the message within the limits, maybe ""; the request is over its limits) ·
 * final {msg} · died {said} (fatal after Ready; `said`: the worker's, for the page to word) · ignore {problem} · violation {problem} (after Ready: end the
 * worker). An action may carry `warn`: the console warning to print, once per worker. Nothing here is trusted from
 * the worker: every message is checked with lab/protocol.js first, in the page's own realm.
 */

import { MSG, messageProblem } from "./protocol.js";
import { saidLength } from "./protocol-fields.js";

const FINAL = { run: MSG.RESULT, check: MSG.REPORT };

/** The part of text that fits in `chars` characters and `lines` line breaks. */
export function within(text, chars, lines) {
  let cut = Math.min(text.length, Math.max(chars, 0));
  if (lines <= 0) return "";
  let pos = -1;
  for (let n = 0; n < lines; n++) {
    pos = text.indexOf("\n", pos + 1);
    if (pos === -1 || pos >= cut) return text.slice(0, cut);
  }
  return text.slice(0, Math.min(cut, pos + 1));
}

const lineCount = (text) => {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n += 1;
  return n;
};

/** What is wrong with a run's result or a check's report for this request ("" when nothing). */
function finalProblem(msg, request, limits) {
  if (msg.type === MSG.RESULT && msg.charts.length > limits.charts) return `result.charts: more than ${limits.charts}`;
  const error = msg.error;
  if (error && error.message.length + (error.traceback || "").length + saidLength(error.said) > limits.errorChars) {
    return `${msg.type}.error: longer than ${limits.errorChars} characters`;
  }
  if (msg.type !== MSG.REPORT) return "";
  const asked = request.checks;
  if (msg.checks.length !== asked.length || msg.total !== asked.length) {
    return `report: ${msg.checks.length} checks for the ${asked.length} asked`;
  }
  for (let i = 0; i < asked.length; i++) {
    const got = msg.checks[i];
    if (got.name !== asked[i].name || got.secret !== asked[i].secret) return `report.checks[${i}]: not the check asked`;
    if (got.message.length + got.traceback.length + saidLength(got.said) > limits.errorChars) {
      return `report.checks[${i}]: longer than ${limits.errorChars} characters`;
    }
  }
  const passed = msg.checks.filter((c) => c.status === "passed").length;
  if (msg.passed !== passed) return `report.passed: ${msg.passed}, but ${passed} checks passed`;
  if (msg.ok !== (error === null && passed === asked.length)) return "report.ok: not what its checks say";
  if (msg.output.length > limits.checkChars || lineCount(msg.output) > limits.checkLines) {
    return `report.output: more than ${limits.checkChars} characters or ${limits.checkLines} lines`;
  }
  return "";
}

/** The gate for the worker started with init `initId` (see the top). */
export function createGate(initId) {
  let stage = "booting";
  let limits = null;
  let request = null; // {id, kind, checks}
  let sent = { messages: 0, chars: 0, lines: 0 };
  let warned = false;

  const warnOnce = (text) => {
    if (warned) return undefined;
    warned = true;
    return text;
  };
  // Before Ready only our own code has run in the worker: what does not fit is our bug, ignored and logged. After
  // it, learner code may have run there: the worker is ended.
  const refuse = (problem) => {
    const after = stage === "spare" || stage === "serving";
    const action = after ? { act: "violation", problem } : { act: "ignore", problem };
    if (after) stage = "done";
    const what = after ? "ended the Python worker: it" : "ignored a message from the Python worker that";
    const warn = warnOnce(`lab: ${what} does not keep to the lab's protocol (${problem})`);
    return warn ? { ...action, warn } : action;
  };

  function take(msg) {
    const problem = messageProblem(msg, "page");
    if (stage === "done") {
      const warn = warnOnce("lab: ignored a message from a Python worker whose request is over");
      return warn ? { act: "ignore", problem: "after its request", warn } : { act: "ignore", problem: "after its request" };
    }
    if (problem) return refuse(problem);
    if (stage === "booting") {
      if (msg.id !== initId) return refuse(`${msg.type} for request ${msg.id}, while it starts (${initId})`);
      switch (msg.type) {
        case MSG.PROGRESS:
        case MSG.SNAPSHOT:
          return { act: msg.type, msg };
        case MSG.READY:
          stage = "spare";
          limits = msg.limits;
          return { act: "ready", msg };
        case MSG.ERROR:
        case MSG.FATAL:
          stage = "done";
          return { act: "bootFailed", said: msg.said };
        default:
          return refuse(`${msg.type} before Ready`);
      }
    }
    if (msg.type === MSG.FATAL && (msg.id === null || (request && msg.id === request.id))) {
      stage = "done";
      return { act: "died", said: msg.said };
    }
    if (stage === "spare") return refuse(`${msg.type} before its request`);
    if (msg.id !== request.id) return refuse(`${msg.type} for request ${msg.id}, not ${request.id}`);
    if (msg.type === MSG.STDOUT || msg.type === MSG.STDERR) return output(msg);
    if (msg.type === FINAL[request.kind] || msg.type === MSG.ERROR) {
      const wrong = msg.type === MSG.ERROR ? "" : finalProblem(msg, request, limits);
      if (wrong) return refuse(wrong);
      stage = "done";
      return { act: "final", msg };
    }
    return refuse(`${msg.type} for a ${request.kind}`);
  }

  function output(msg) {
    sent.messages += 1;
    const fits = sent.messages <= limits.messages
      ? within(msg.text, limits.chars - sent.chars, limits.lines - sent.lines)
      : "";
    sent.chars += fits.length;
    sent.lines += lineCount(fits);
    if (fits.length === msg.text.length && sent.messages <= limits.messages) {
      return { act: "output", stream: msg.type, text: msg.text };
    }
    stage = "done";
    const warn = warnOnce(`lab: ended the Python worker: its request sent more than ${limits.messages} messages, ` +
      `${limits.chars} characters or ${limits.lines} lines of output`);
    return { act: "limit", stream: msg.type, text: fits, warn };
  }

  function bind({ id, kind, checks = [] }) {
    if (stage !== "spare") throw new Error(`lab: a Python worker that is ${stage} cannot take a request`);
    stage = "serving";
    request = { id, kind, checks: checks.map((c) => ({ name: String(c.name), secret: Boolean(c.secret) })) };
    sent = { messages: 0, chars: 0, lines: 0 };
  }

  return {
    take,
    bind,
    get stage() {
      return stage;
    },
    get limits() {
      return limits;
    },
  };
}
