/**
 * The lab's message protocol between the page (lab-client.js) and its Python worker (lab-worker.js): every message
 * type, the fields each carries, the chart data a run returns, and the one validator both sides run on what they
 * receive. esbuild bundles this module into both scripts.
 *
 * ## One Python per request
 * Each worker runs learner code for exactly one request (a lab run, an exercise's Run, or a Check); the page then
 * terminates it, and a fresh one takes the next request (lab-client.js keeps one booted ahead of need). Nothing a
 * request's code changes in its worker's realm, JavaScript or Python, can reach a later request.
 *
 * ## Channels
 * The page creates the worker (from a `blob:` URL of the script's verified bytes) and a MessageChannel. Its first and
 * only message on the worker's own channel (`Worker.postMessage`) is `init`, which hands the worker one end of the
 * channel (`port`). From then on both sides speak only over that channel; the worker removes `postMessage` from its
 * global object before any learner code runs (lab-sandbox.js). The worker's code never posts on the worker itself.
 *
 * ## What the page accepts from a worker (lab/gate.js)
 * Before its Ready: `progress`, the boot's `snapshot` hand-off and `ready`, for the init's id (or `error` / `fatal`,
 * which end the boot). After Ready: output for its one request's id, within the `limits` Ready brought, then that
 * request's one final message (`result` for a run, `report` for a check, for exactly the checks asked; `error`;
 * `fatal`). Anything else is ignored with one console warning, and a worker that breaks this after Ready is ended.
 *
 * ## Messages
 * Every message is a plain object with a `type` and a request `id` (a positive integer the page assigns; `null` only
 * where noted). A message of an unknown type, with a missing, extra or mistyped field, is an error: the receiver
 * logs it and never acts on it. Every URL the page hands over is absolute: a `blob:` worker has no URL to resolve
 * against. The worker and labkit say nothing in words of their own: what they report is a message key and its
 * values (a `said`: {key, values}), the worker's keys those of worker-said.json and labkit's those of
 * labkit/_words.py (generated/labkit.js), and the page words it from its catalog (said.js). labkit words only what
 * it writes into a run's output or raises into its code, with the page's messages `init` hands over
 * (`config.words`).
 *
 * page -> worker
 *   init      {id, config, port, interruptBuffer?, snapshot?, wasm?}  start Python (the worker's own channel; hands
 *                                                  over `port`): from `snapshot` (a packed heap, lab-snapshot.js)
 *                                                  and the compiled `wasm` when the page has them
 *   run       {id, code, filename}                 run learner code: the one request of this worker
 *   check     {id, code, filename, checks, modules, timeout}  or run an exercise's code, then its checks; what the
 *                                                  code prints comes back in the report
 * worker -> page (over `port`)
 *   progress  {id, phase, loaded?, total?}         the loading line while Python starts (id: the init's)
 *   snapshot  {id, heap, wasm}                     before Ready: the packed heap this boot took (null when it took
 *                                                  none) and the compiled pyodide.asm.wasm (null when it was given)
 *   ready     {id, diagnostics, limits}            Python is ready for its request (id: the init's); limits: labkit's
 *   stdout    {id, text}                           output of the request `id`
 *   stderr    {id, text}
 *   result    {id, ok, ms, error, charts, truncated, stopped}  the run `id` ended
 *   report    {id, ms, ok, passed, total, error, checks, output, truncated}  the check `id` ended (CheckReport)
 *   error     {id, said}                           a request the worker could not take (id null: not known)
 *   fatal     {id, said}                           Python is gone (id null allowed)
 *
 * ## Stop
 * Stopping is not a message: a running request holds the worker's only thread. With cross-origin isolation the page
 * writes STOP_SIGNAL into the one-byte interrupt buffer it handed over with `init` (shared memory Python checks as
 * it runs: the run ends with KeyboardInterrupt and a `result` with `stopped`). Without the buffer, or when the run
 * does not stop soon (a blocking call), the page terminates the worker. Either way that worker is then retired.
 *
 * ## Files
 * This module is the entry point (the page, the worker and the tests import it): the overview above, the message
 * types, the boot's messages (init, progress, snapshot, ready) and the problems (error, fatal), and the one
 * validator over every type. The other families' fields are protocol-run.js's (run, stdout, stderr, result; the
 * charts protocol-charts.js's) and protocol-check.js's (check, report); the field checks protocol-fields.js's.
 */

import { chartProblem } from "./protocol-charts.js";
import { checkFields, reportFields } from "./protocol-check.js";
import { anyObject, arrayOf, boolean, count, instance, nullable, oneOf, optional, plain, recordOf, requestId, said,
  shape, show, string, url, wasmModule } from "./protocol-fields.js";
import { outputFields, resultFields, runFields } from "./protocol-run.js";
import WORKER_WORDS from "./worker-said.json" with { type: "json" };

export { chartProblem };

/** Every message type, by name. */
export const MSG = Object.freeze({
  INIT: "init",
  SNAPSHOT: "snapshot",
  RUN: "run",
  CHECK: "check",
  REPORT: "report",
  PROGRESS: "progress",
  READY: "ready",
  STDOUT: "stdout",
  STDERR: "stderr",
  RESULT: "result",
  ERROR: "error",
  FATAL: "fatal",
});

/** The interrupt buffer's values: what the page writes to stop a run (SIGINT), and "nothing to do". */
export const STOP_SIGNAL = 2;
export const NO_SIGNAL = 0;

/**
 * @typedef {object} InitConfig          every URL absolute
 * @property {string} indexURL            Pyodide's folder
 * @property {string} [pyodideURL]        Pyodide's module (default: pyodide.mjs in indexURL)
 * @property {string} [asmURL]            the module it makes Python from (default: pyodide.asm.mjs in indexURL);
 *                                        with asmScript, the classic script pyodide.mjs loads itself (0.27)
 * @property {string} [stdLibURL]         the trimmed stdlib zip
 * @property {string} [stdLibFullURL]     the full stdlib zip, mounted on the first import the trimmed one lacks
 * @property {object|string} lock         Pyodide's lock file contents
 * @property {string} labkit              labkit's wheel
 * @property {string[]} micropip          wheels Pyodide loads for micropip (empty without requirements)
 * @property {string[]} requirements      same-origin wheels micropip installs
 * @property {string[]} [packages]        Pyodide packages loaded by name from `lock` (each checked against its sha256)
 * @property {boolean} [asmScript]       true: asmURL is a classic script pyodide.mjs loads by its own name (0.27),
 *                                        fetched early rather than imported and handed over
 * @property {boolean} [inlineLock]       false: the release takes no lockFileContents (0.27), the worker answers
 *                                        its fetch of the lock
 * @property {Object<string, number>} [sizes]  decompressed sizes of runtime files, by file name
 * @property {{code: string, filename: string}} [starter]  the lab's own code, compiled (never run) during the boot
 * @property {boolean} [snapshots]        a boot without `snapshot` (or whose snapshot fails) takes one for the page
 * @property {boolean} [countDownloads]   report the runtime's download as it comes (its bytes, for the page's
 *                                        "Downloading Python… x of y MB"); false when an earlier boot had it
 * @property {string} [offlineCopy]       the fragment that asks the service worker for its checked offline copy of
 *                                        one of Pyodide's modules, after an import that failed ("" for none)
 * @property {LabkitWords} [words]        what labkit and the worker word their own text with, in the page's language
 *
 * @typedef {object} LabkitWords          labkit/_words.py `use`: the page's catalog's texts of labkit's WORDED keys
 *                                        and the worker's (worker-said.json `worded`)
 * @property {Object<string, string>} texts  key → text with its {placeholders}
 * @property {string} decimal             the page's decimal sign ("," in German)
 * @property {string} group              its group sign ("." in German)
 *
 * @typedef {object} InitMessage
 * @property {"init"} type
 * @property {number} id
 * @property {InitConfig} config
 * @property {MessagePort} port           the worker's end of the lab's channel
 * @property {SharedArrayBuffer} [interruptBuffer]  one byte: the page writes STOP_SIGNAL to stop a run softly
 * @property {Blob} [snapshot]            a packed heap an earlier boot took before any learner code ran
 * @property {WebAssembly.Module} [wasm]  pyodide.asm.wasm, compiled by an earlier boot
 * @property {Blob} [bytecode]            the page's packages' bytecode an earlier boot collected (labkit/_bytecode.py)
 *
 * @typedef {object} SnapshotMessage      the boot's hand-off, before its Ready (so before any learner code)
 * @property {"snapshot"} type
 * @property {number} id
 * @property {Blob|null} heap             the packed heap this boot took (made a Blob in the worker: the page
 *                                        copies none of it), or null
 * @property {WebAssembly.Module|null} wasm  the module it compiled, or null
 * @property {Blob|null} [bytecode]       the bytecode of the page's packages it collected, or null
 *
 * @typedef {object} ProgressMessage
 * @property {"progress"} type
 * @property {number} id
 * @property {"download"|"start"|"install"} phase   what the boot is doing: the page words it
 * @property {number} [loaded]            bytes downloaded so far (phase "download")
 * @property {number|null} [total]        bytes to download, null when not known
 *
 * @typedef {object} BootDiagnostics       for tests and the benchmark only: the page shows none of it
 * @property {number} ms                  from init to ready, in the worker
 * @property {number} pythonMs            the boot after the downloads were in: what a snapshot saves
 * @property {boolean} snapshot           booted from the snapshot it was given
 * @property {string} snapshotError       why the snapshot it was given did not work ("" when none failed)
 * @property {boolean} isolated           the worker has the interrupt buffer (soft Stop)
 *
 * @typedef {object} Limits               what the worker may send for its one request (labkit/_limits.py)
 * @property {number} chars               characters of stdout and stderr messages together
 * @property {number} lines               their lines
 * @property {number} messages            how many there may be
 * @property {number} checkChars          characters of a report's output
 * @property {number} checkLines          its lines
 * @property {number} errorChars          of one error's message and traceback, or one check's
 * @property {number} charts              charts one run's result may carry
 *
 * @typedef {object} ReadyMessage
 * @property {"ready"} type
 * @property {number} id
 * @property {BootDiagnostics} diagnostics
 * @property {Limits} limits
 *
 * @typedef {object} Said                what the worker or labkit reports, for the page to word (said.js)
 * @property {string} key                 a message key: worker-said.json's (a problem) or labkit's (labkit/_words.py)
 * @property {Object<string, string|number>} values  exactly the key's values
 *
 * @typedef {object} ProblemMessage
 * @property {"error"|"fatal"} type
 * @property {number|null} id
 * @property {Said} said                  a key of worker-said.json: the worker's failures, worded by the page
 */

/** The worker's own problems, by key → the names of their values (the page's catalog words them); and the text it
 * words itself from the page's messages (`config.words`, as labkit does): the memory cap's refusal, raised into the
 * learner's code. */
export const WORKER_SAID = WORKER_WORDS.said;
export const WORKER_WORDED = WORKER_WORDS.worded;

const config = shape({
  indexURL: url,
  pyodideURL: optional(url),
  asmURL: optional(url),
  stdLibURL: optional(url),
  stdLibFullURL: optional(url),
  lock: (v) => (typeof v === "string" ? "" : anyObject(v)),
  labkit: url,
  micropip: arrayOf(url),
  requirements: arrayOf(url),
  packages: optional(arrayOf(string)),
  asmScript: optional(boolean),
  inlineLock: optional(boolean),
  sizes: optional(recordOf(count)),
  starter: optional(shape({ code: string, filename: string })),
  snapshots: optional(boolean),
  countDownloads: optional(boolean),
  words: optional(shape({ texts: recordOf(string), decimal: string, group: string })),
  offlineCopy: optional(string),
});

// The fields of each message type (besides `type`), per direction.
const TO_WORKER = {
  [MSG.INIT]: {
    id: requestId,
    config,
    port: instance("MessagePort"),
    interruptBuffer: optional(instance("SharedArrayBuffer")),
    snapshot: optional(instance("Blob")),
    wasm: optional(wasmModule),
    bytecode: optional(instance("Blob")),
  },
  [MSG.RUN]: runFields,
  [MSG.CHECK]: checkFields,
};

const problem = { id: nullable(requestId), said: said(WORKER_SAID) };
const TO_PAGE = {
  [MSG.PROGRESS]: {
    id: requestId,
    phase: oneOf("download", "start", "install"),
    loaded: optional(count),
    total: optional(nullable(count)),
  },
  [MSG.SNAPSHOT]: { id: requestId, heap: nullable(instance("Blob")), wasm: nullable(wasmModule),
    bytecode: optional(nullable(instance("Blob"))) },
  [MSG.READY]: {
    id: requestId,
    diagnostics: shape({ ms: count, pythonMs: count, snapshot: boolean, snapshotError: string, isolated: boolean }),
    limits: shape({ chars: count, lines: count, messages: count, checkChars: count, checkLines: count, errorChars: count,
      charts: count }),
  },
  [MSG.STDOUT]: outputFields,
  [MSG.STDERR]: outputFields,
  [MSG.RESULT]: resultFields,
  [MSG.REPORT]: reportFields,
  [MSG.ERROR]: problem,
  [MSG.FATAL]: problem,
};

const checkers = new Map(
  [...Object.entries(TO_WORKER), ...Object.entries(TO_PAGE)].map(([type, fields]) => [type, shape({ type: string, ...fields })]),
);

/** The message types each side accepts: "worker" (sent by the page) and "page" (sent by the worker). */
const ACCEPTS = Object.freeze({
  worker: Object.freeze(Object.keys(TO_WORKER)),
  page: Object.freeze(Object.keys(TO_PAGE)),
});

/**
 * Check a message `receiver` ("worker" or "page") got. Returns "" when it is well formed, else one line saying what
 * is wrong (the receiver logs it and drops the message).
 */
export function messageProblem(message, receiver) {
  if (!plain(message)) return `a message must be a plain object, got ${show(message)}`;
  const type = message.type;
  if (!ACCEPTS[receiver].includes(type)) return `unknown message type ${show(type)} for the ${receiver}`;
  const problem = checkers.get(type)(message);
  return problem ? `${type}${problem}` : "";
}
