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
 * against.
 *
 * page -> worker
 *   init      {id, config, port, interruptBuffer?, snapshot?, wasm?}  start Python (the worker's own channel; hands
 *                                                  over `port`): from `snapshot` (a packed heap, lab-snapshot.js)
 *                                                  and the compiled `wasm` when the page has them
 *   run       {id, code, filename}                 run learner code: the one request of this worker
 *   check     {id, code, filename, checks, modules, timeout}  or run an exercise's code, then its checks; what the
 *                                                  code prints comes back in the report
 * worker -> page (over `port`)
 *   progress  {id, phase, text, loaded?, total?}   loading line while Python starts (id: the init's)
 *   snapshot  {id, heap, wasm}                     before Ready: the packed heap this boot took (null when it took
 *                                                  none) and the compiled pyodide.asm.wasm (null when it was given)
 *   ready     {id, diagnostics, limits}            Python is ready for its request (id: the init's); limits: labkit's
 *   stdout    {id, text}                           output of the request `id`
 *   stderr    {id, text}
 *   result    {id, ok, ms, error, charts, truncated, stopped}  the run `id` ended
 *   report    {id, ms, ok, passed, total, error, checks, output, truncated}  the check `id` ended (CheckReport)
 *   error     {id, message}                        a request the worker could not take (id null: not known)
 *   fatal     {id, message}                        Python is gone (id null allowed)
 *
 * ## Stop
 * Stopping is not a message: a running request holds the worker's only thread. With cross-origin isolation the page
 * writes STOP_SIGNAL into the one-byte interrupt buffer it handed over with `init` (shared memory Python checks as
 * it runs: the run ends with KeyboardInterrupt and a `result` with `stopped`). Without the buffer, or when the run
 * does not stop soon (a blocking call), the page terminates the worker. Either way that worker is then retired.
 *
 * ## Charts
 * `result.charts` are the charts the run's code drew with labkit.bars, labkit.heatmap and labkit.lines
 * (lab/labkit/_chart.py, _heatmap.py and _lines.py make and check them; lab/chart.js, lab/heatmap.js and
 * lab/lines.js draw them), at most `limits.charts` of them (labkit's cap, brought by Ready; lab/gate.js holds a
 * result to it). The build sends the lesson's own run's charts to the page in the lab's island.
 */

import { LABKIT } from "../generated/labkit.js";

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

/** What one run may draw (labkit refuses more, with the learner's line): labkit's own numbers (lab/labkit/_limits.py,
 * written by the build into generated/labkit.js). */
const CHART_LIMITS = LABKIT.chart;

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
 * @property {boolean} [countDownloads]   report the runtime's download as it comes ("Downloading Python… x of y
 *                                        MB"); false when an earlier boot had it
 *
 * @typedef {object} InitMessage
 * @property {"init"} type
 * @property {number} id
 * @property {InitConfig} config
 * @property {MessagePort} port           the worker's end of the lab's channel
 * @property {SharedArrayBuffer} [interruptBuffer]  one byte: the page writes STOP_SIGNAL to stop a run softly
 * @property {Blob} [snapshot]            a packed heap an earlier boot took before any learner code ran
 * @property {WebAssembly.Module} [wasm]  pyodide.asm.wasm, compiled by an earlier boot
 *
 * @typedef {object} SnapshotMessage      the boot's hand-off, before its Ready (so before any learner code)
 * @property {"snapshot"} type
 * @property {number} id
 * @property {Uint8Array|null} heap       the packed heap this boot took, or null
 * @property {WebAssembly.Module|null} wasm  the module it compiled, or null
 *
 * @typedef {object} RunMessage
 * @property {"run"} type
 * @property {number} id
 * @property {string} code
 * @property {string} filename            the name learner tracebacks show
 *
 * @typedef {object} ProgressMessage
 * @property {"progress"} type
 * @property {number} id
 * @property {"download"|"start"|"install"} phase
 * @property {string} text                the loading line, as shown
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
 * @typedef {object} OutputMessage
 * @property {"stdout"|"stderr"} type
 * @property {number} id
 * @property {string} text
 *
 * @typedef {object} RunError
 * @property {string} type                the exception's class name ("SyntaxError", "KeyboardInterrupt", …)
 * @property {string} message             one line
 * @property {number|null} line           line in the learner's file, when known
 * @property {string} [traceback]         the learner's frames only
 *
 * @typedef {object} ChartSeries
 * @property {string} name                the series' name ("4"), spoken after the chart's series_title
 * @property {string} legend              its legend text ("k = 4 (steepest)")
 * @property {number[]} values            one finite number per label
 *
 * @typedef {object} Chart                 a bar chart labkit.bars recorded; every text is plain text
 * @property {"bars"} type
 * @property {string} title               the figure's accessible name
 * @property {string[]} labels            one per group of bars ("1", "2", "3")
 * @property {string} series_title        what the series' names are ("k"; may be "")
 * @property {ChartSeries[]} series
 * @property {{title: string, item: string}} x   the axis title, and how one label is spoken ("position" → "position 2")
 * @property {{title: string, percent: boolean}} y  the axis title; values 0…1 shown as 0…100 %
 *
 * @typedef {object} HeatmapChart          a matrix labkit.heatmap recorded: one shaded cell per number
 * @property {"heatmap"} type
 * @property {string} title               the figure's accessible name
 * @property {string[]} rows              one label per row (1 to CHART_LIMITS.side)
 * @property {string[]} cols              one label per column
 * @property {string} row_title           what the rows are ("Query"; may be "")
 * @property {string} col_title           what the columns are ("Key"; may be "")
 * @property {(number|null)[][]} cells    one row per label, one finite number or null (masked) per column
 * @property {boolean} percent            values 0…1 shown as 0…100 %, shaded on one scale from 0 to 1
 * @property {boolean} values             each value printed in its cell (where it fits)
 *
 * @typedef {object} LinesChart            curves labkit.lines recorded, over one x axis
 * @property {"lines"} type
 * @property {string} title
 * @property {{title: string, values: number[]}} x   the axis title and the x values (increasing)
 * @property {string} series_title
 * @property {ChartSeries[]} series       one value per x each
 * @property {{title: string, percent: boolean}} y
 *
 * @typedef {object} ResultMessage
 * @property {"result"} type
 * @property {number} id
 * @property {boolean} ok
 * @property {number} ms                  the run's time in the worker
 * @property {RunError|null} error
 * @property {(Chart|HeatmapChart|LinesChart)[]} charts  what the run drew, in order (at most limits.charts)
 * @property {boolean} truncated          output went past the limit
 * @property {boolean} stopped            ended by Stop
 *
 * @typedef {object} Check               one of an exercise's checks (the build verified them)
 * @property {string} name
 * @property {string} code                 Python, run against the learner's objects; fails by assert
 * @property {boolean} secret              reported by name with a generic message
 *
 * @typedef {object} CheckMessage
 * @property {"check"} type
 * @property {number} id
 * @property {string} code                 the learner's code
 * @property {string} filename             the name learner tracebacks show
 * @property {Check[]} checks
 * @property {Object<string, string>} modules  sources of the lesson's lab files the checks import, by module name
 * @property {number} timeout              seconds the learner's code, and each check, may run
 *
 * @typedef {object} CheckResult           one check's outcome (lab/labkit/_check.py)
 * @property {string} name
 * @property {boolean} secret
 * @property {"passed"|"failed"|"error"|"timeout"|"skipped"} status
 * @property {string} message              why it did not pass ("expected 6, got 4"); "" when it passed
 * @property {string} traceback            the learner's frames, when their code raised in the check
 *
 * @typedef {object} ReportMessage         CheckReport: what Check shows
 * @property {"report"} type
 * @property {number} id
 * @property {number} ms                   the check run's time in the worker
 * @property {boolean} ok                  every check passed
 * @property {number} passed
 * @property {number} total
 * @property {RunError|null} error         the learner's code itself failed (the checks were skipped)
 * @property {CheckResult[]} checks
 * @property {string} output               what the learner's code printed, apart from the report
 * @property {boolean} truncated           output went past the limit
 *
 * @typedef {object} ProblemMessage
 * @property {"error"|"fatal"} type
 * @property {number|null} id
 * @property {string} message
 */

// ---- field checks: each returns "" when the value fits, else what is wrong -------------------------------------

const plain = (value) =>
  value !== null && typeof value === "object" && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
const show = (value) => {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.slice(0, 40));
  return typeof value === "number" ? String(value) : typeof value;
};
/** A field's problem under its name: ".a.b: …", ".a[2]: …". */
const under = (name, problem) => (/^[.[]/.test(problem) ? `${name}${problem}` : `${name}: ${problem}`);
const expect = (ok, what) => (value) => (ok(value) ? "" : `expected ${what}, got ${show(value)}`);

const string = expect((v) => typeof v === "string", "a string");
const boolean = expect((v) => typeof v === "boolean", "true or false");
const count = expect((v) => Number.isFinite(v) && v >= 0, "a number ≥ 0");
const finite = expect((v) => Number.isFinite(v), "a finite number");
const requestId = expect((v) => Number.isSafeInteger(v) && v > 0, "a positive integer");
const oneOf = (...values) => expect((v) => values.includes(v), values.map((v) => JSON.stringify(v)).join(" or "));
const instance = (name) => expect((v) => typeof globalThis[name] === "function" && v instanceof globalThis[name], `a ${name}`);
const wasmModule = expect((v) => typeof WebAssembly === "object" && v instanceof WebAssembly.Module, "a WebAssembly.Module");
const url = expect((v) => typeof v === "string" && /^https?:\/\/[^/]/.test(v), "an absolute http(s) URL");

/** Passes null as well as whatever check passes. */
const nullable = (check) => (value) => (value === null ? "" : check(value));

/** An optional field: absent (or undefined) passes. Only meaningful inside shape(). */
const optional = (check) => Object.assign((value) => (value === undefined ? "" : check(value)), { optional: true });

/** An array of at most `most` items (and at least `least`), each passing check. */
const arrayOf = (check, { least = 0, most = Infinity } = {}) => (value) => {
  if (!Array.isArray(value)) return `expected an array, got ${show(value)}`;
  if (value.length < least || value.length > most) {
    return `expected ${most === Infinity ? `at least ${least}` : `${least} to ${most}`} items, got ${value.length}`;
  }
  for (let i = 0; i < value.length; i++) {
    const problem = check(value[i]);
    if (problem) return under(`[${i}]`, problem);
  }
  return "";
};

const recordOf = (check) => (value) => {
  if (!plain(value)) return `expected an object, got ${show(value)}`;
  for (const [key, item] of Object.entries(value)) {
    const problem = check(item);
    if (problem) return under(`.${key}`, problem);
  }
  return "";
};

/** A plain object with exactly these fields (optional ones may be left out), each passing its check. */
const shape = (fields) => (value) => {
  if (!plain(value)) return `expected an object, got ${show(value)}`;
  for (const key of Object.keys(value)) if (!Object.hasOwn(fields, key)) return `.${key}: not a field of this message`;
  for (const [key, check] of Object.entries(fields)) {
    if (!Object.hasOwn(value, key) && !check.optional) return `.${key}: missing`;
    const problem = check(value[key]);
    if (problem) return under(`.${key}`, problem);
  }
  return "";
};

/** Both checks must pass (the first's problem wins). */
const both = (first, second) => (value) => first(value) || second(value);

const anyObject = expect(plain, "an object");
const lineNumber = expect((v) => Number.isSafeInteger(v) && v >= 0, "a line number");
const text = expect((v) => typeof v === "string" && v.length <= CHART_LIMITS.text, `a string of at most ${CHART_LIMITS.text} characters`);

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
});

const runError = shape({ type: string, message: string, line: nullable(lineNumber), traceback: optional(string) });

const bars = both(
  shape({
    type: oneOf("bars"),
    title: text,
    labels: arrayOf(text, { least: 1, most: CHART_LIMITS.labels }),
    series_title: text,
    series: arrayOf(shape({ name: text, legend: text, values: arrayOf(finite) }), { least: 1, most: CHART_LIMITS.series }),
    x: shape({ title: text, item: text }),
    y: shape({ title: text, percent: boolean }),
  }),
  (value) => {
    const wrong = value.series.findIndex((s) => s.values.length !== value.labels.length);
    return wrong < 0 ? "" : `.series[${wrong}].values: expected one per label (${value.labels.length}), got ${value.series[wrong].values.length}`;
  },
);

const heatmap = both(
  shape({
    type: oneOf("heatmap"),
    title: text,
    rows: arrayOf(text, { least: 1, most: CHART_LIMITS.side }),
    cols: arrayOf(text, { least: 1, most: CHART_LIMITS.side }),
    row_title: text,
    col_title: text,
    cells: arrayOf(arrayOf(nullable(finite)), { least: 1, most: CHART_LIMITS.side }),
    percent: boolean,
    values: boolean,
  }),
  (value) => {
    if (value.cells.length !== value.rows.length) return `.cells: expected one row per label (${value.rows.length}), got ${value.cells.length}`;
    const wrong = value.cells.findIndex((row) => row.length !== value.cols.length);
    return wrong < 0 ? "" : `.cells[${wrong}]: expected one per column (${value.cols.length}), got ${value.cells[wrong].length}`;
  },
);

const lines = both(
  shape({
    type: oneOf("lines"),
    title: text,
    x: shape({ title: text, values: arrayOf(finite, { least: 1, most: CHART_LIMITS.points }) }),
    series_title: text,
    series: arrayOf(shape({ name: text, legend: text, values: arrayOf(finite) }), { least: 1, most: CHART_LIMITS.series }),
    y: shape({ title: text, percent: boolean }),
  }),
  (value) => {
    const wrong = value.series.findIndex((s) => s.values.length !== value.x.values.length);
    return wrong < 0 ? "" : `.series[${wrong}].values: expected one per x (${value.x.values.length}), got ${value.series[wrong].values.length}`;
  },
);

const CHARTS = { bars, heatmap, lines };
const chart = (value) => {
  if (!plain(value)) return `expected an object, got ${show(value)}`;
  return Object.hasOwn(CHARTS, value.type) ? CHARTS[value.type](value) : `.type: expected ${Object.keys(CHARTS).map((t) => JSON.stringify(t)).join(" or ")}, got ${show(value.type)}`;
};

/** "" when value is a chart a lab could have drawn, else what is wrong (the page checks the build's charts too). */
export function chartProblem(value) {
  return chart(value);
}

// The fields of each message type (besides `type`), per direction.
const TO_WORKER = {
  [MSG.INIT]: {
    id: requestId,
    config,
    port: instance("MessagePort"),
    interruptBuffer: optional(instance("SharedArrayBuffer")),
    snapshot: optional(instance("Blob")),
    wasm: optional(wasmModule),
  },
  [MSG.RUN]: { id: requestId, code: string, filename: string },
  [MSG.CHECK]: {
    id: requestId,
    code: string,
    filename: string,
    checks: arrayOf(shape({ name: string, code: string, secret: boolean }), { least: 1 }),
    modules: recordOf(string),
    timeout: expect((v) => Number.isFinite(v) && v > 0, "a number of seconds > 0"),
  },
};

const output = { id: requestId, text: string };
const problem = { id: nullable(requestId), message: string };
const TO_PAGE = {
  [MSG.PROGRESS]: {
    id: requestId,
    phase: oneOf("download", "start", "install"),
    text: string,
    loaded: optional(count),
    total: optional(nullable(count)),
  },
  [MSG.SNAPSHOT]: { id: requestId, heap: nullable(instance("Uint8Array")), wasm: nullable(wasmModule) },
  [MSG.READY]: {
    id: requestId,
    diagnostics: shape({ ms: count, pythonMs: count, snapshot: boolean, snapshotError: string, isolated: boolean }),
    limits: shape({ chars: count, lines: count, messages: count, checkChars: count, checkLines: count, errorChars: count,
      charts: count }),
  },
  [MSG.STDOUT]: output,
  [MSG.STDERR]: output,
  [MSG.RESULT]: {
    id: requestId,
    ok: boolean,
    ms: count,
    error: nullable(runError),
    charts: arrayOf(chart),
    truncated: boolean,
    stopped: boolean,
  },
  [MSG.REPORT]: {
    id: requestId,
    ms: count,
    ok: boolean,
    passed: count,
    total: count,
    error: nullable(runError),
    checks: arrayOf(shape({
      name: string,
      secret: boolean,
      status: oneOf("passed", "failed", "error", "timeout", "skipped"),
      message: string,
      traceback: string,
    })),
    output: string,
    truncated: boolean,
  },
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
