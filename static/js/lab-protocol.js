/**
 * The lab's message protocol between the page (lab-client.js) and its Python worker (lab-worker.js): every message
 * type, the fields each carries, the chart data a run returns, and the one validator both sides run on what they
 * receive. esbuild bundles this module into both scripts.
 *
 * ## Channels
 * The page creates the worker and a MessageChannel. Its first and only message on the worker's own channel
 * (`Worker.postMessage`) is `init`, which hands the worker one end of the channel (`port`). From then on both sides
 * speak only over that channel: the worker keeps its end in module scope, where learner code cannot reach it, and
 * removes `postMessage` from its global object before any learner code runs (lab-sandbox.js). Anything else that
 * arrives on the worker's own channel, in either direction, is ignored and logged with a warning: the worker's code
 * never sends there.
 *
 * ## Messages
 * Every message is a plain object with a `type` and a request `id` (a positive integer the page assigns; `null` only
 * where noted). A message of an unknown type, with a missing, extra or mistyped field, is an error: the receiver
 * logs it and never acts on it.
 *
 * page -> worker
 *   init      {id, config, port, interruptBuffer?}  start Python (the worker's own channel; hands over `port`)
 *   run       {id, code, filename}                 run learner code, one run at a time, in order
 *   check     {id, code, filename, checks, modules, timeout}  run an exercise's code, then its checks (queued
 *                                                  like runs); what the code prints comes back in the report
 * worker -> page (over `port`)
 *   progress  {id, phase, text, loaded?, total?}   loading line while Python starts (id: the init's)
 *   ready     {id, diagnostics}                    Python is ready for runs (id: the init's)
 *   stdout    {id, text}                           output of the run `id`
 *   stderr    {id, text}
 *   result    {id, ok, ms, error, charts, truncated, stopped}  the run `id` ended
 *   report    {id, ms, ok, passed, total, error, checks, output, truncated}  the check `id` ended (CheckReport)
 *   error     {id, message}                        a request the worker could not take (id null: not known)
 *   fatal     {id, message}                        Python is gone; the page starts a new worker (id null allowed)
 *
 * ## Stop
 * Stopping is not a message: a running run holds the worker's only thread, so nothing the page posts is read before
 * the run ends. With cross-origin isolation the page writes STOP_SIGNAL into the one-byte interrupt buffer it handed
 * over with `init` (shared memory Python checks as it runs: the run ends with KeyboardInterrupt and a `result` with
 * `stopped`); the worker sets it back to NO_SIGNAL before each run and once a run's code has ended. Without the
 * buffer, or when the run does not stop soon (a blocking call), the page terminates the worker and starts another.
 *
 * ## Charts
 * `result.charts` are the charts the run's code drew with labkit.bars (lab/labkit/_chart.py makes and checks them;
 * lab-chart.js draws them). The build sends the lesson's own run's charts to the page in the lab's island.
 */

/** Every message type, by name. */
export const MSG = Object.freeze({
  INIT: "init",
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

/** What one run may draw (labkit/_chart.py refuses more, with the learner's line). */
export const CHART_LIMITS = Object.freeze({ charts: 4, series: 12, labels: 64, text: 200 });

/**
 * @typedef {object} InitConfig
 * @property {string} indexURL            Pyodide's folder (absolute URL)
 * @property {string} [stdLibURL]         the trimmed stdlib zip
 * @property {string} [stdLibFullURL]     the full stdlib zip, mounted on the first import the trimmed one lacks
 * @property {object|string} lock         Pyodide's lock file contents
 * @property {string} labkit              labkit's wheel
 * @property {string[]} micropip          wheels Pyodide loads for micropip (empty without requirements)
 * @property {string[]} requirements      same-origin wheels micropip installs
 * @property {Object<string, number>} [sizes]  decompressed sizes of runtime files, by file name
 * @property {{code: string, filename: string}} [starter]  the lab's own code, compiled (never run) during the boot
 *
 * @typedef {object} InitMessage
 * @property {"init"} type
 * @property {number} id
 * @property {InitConfig} config
 * @property {MessagePort} port           the worker's end of the lab's channel
 * @property {SharedArrayBuffer} [interruptBuffer]  one byte: the page writes STOP_SIGNAL to stop a run softly
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
 * @property {boolean} snapshot           booted from a memory snapshot an earlier visit saved
 * @property {string} snapshotNote        why not, when not ("" when it did)
 * @property {boolean} isolated           the worker has the interrupt buffer (soft Stop)
 *
 * @typedef {object} ReadyMessage
 * @property {"ready"} type
 * @property {number} id
 * @property {BootDiagnostics} diagnostics
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
 * @typedef {object} ResultMessage
 * @property {"result"} type
 * @property {number} id
 * @property {boolean} ok
 * @property {number} ms                  the run's time in the worker
 * @property {RunError|null} error
 * @property {Chart[]} charts             what the run drew, in order (at most CHART_LIMITS.charts)
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
  indexURL: string,
  stdLibURL: optional(string),
  stdLibFullURL: optional(string),
  lock: (v) => (typeof v === "string" ? "" : anyObject(v)),
  labkit: string,
  micropip: arrayOf(string),
  requirements: arrayOf(string),
  sizes: optional(recordOf(count)),
  starter: optional(shape({ code: string, filename: string })),
});

const runError = shape({ type: string, message: string, line: nullable(lineNumber), traceback: optional(string) });

const chart = both(
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
  [MSG.READY]: {
    id: requestId,
    diagnostics: shape({ ms: count, pythonMs: count, snapshot: boolean, snapshotNote: string, isolated: boolean }),
  },
  [MSG.STDOUT]: output,
  [MSG.STDERR]: output,
  [MSG.RESULT]: {
    id: requestId,
    ok: boolean,
    ms: count,
    error: nullable(runError),
    charts: arrayOf(chart, { most: CHART_LIMITS.charts }),
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
export const ACCEPTS = Object.freeze({
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
