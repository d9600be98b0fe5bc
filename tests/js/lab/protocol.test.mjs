// The lab's message protocol (static/js/lab/protocol.js): what each side accepts, and why not.
import assert from "node:assert/strict";
import { test } from "node:test";

import { problems } from "./messages.mjs";

const CONFIG = { indexURL: "http://127.0.0.1/runtime/", lock: { packages: {} }, labkit: "http://127.0.0.1/l.whl",
  micropip: [], requirements: [] };
const CHART = { type: "bars", title: "Softmax probability per position", labels: ["1", "2", "3"],
  series_title: "head_dim",
  series: [{ name: "1", legend: "head_dim = 1 (divide by 1.00)", values: [0.016, 0.867, 0.117] },
    { name: "4", legend: "head_dim = 4", values: [0.09, -0.665, 24] }],
  x: { title: "Position (key)", item: "position" }, y: { title: "Probability", percent: true } };
const RESULT = { type: "result", id: 3, ok: false, ms: 2, error: { type: "ValueError", message: "no", line: 4,
  traceback: "…" }, charts: [CHART], truncated: false, stopped: false };
const LIMITS = { chars: 111_000, lines: 2_420, messages: 5_008, checkChars: 31_000, checkLines: 820,
  errorChars: 11_000, charts: 16 };
const HEATMAP = { type: "heatmap", title: "Head 1", rows: ["t=1", "t=2"], cols: ["k1", "k2"], row_title: "Query",
  col_title: "Key", cells: [[1.0, null], [0.25, 0.75]], percent: true, values: true, masked: "masked" };
const LINES = { type: "lines", title: "σ(kx)", x: { title: "x", values: [-1.0, 0.0, 1.0] }, series_title: "k",
  series: [{ name: "1", legend: "k = 1", values: [0.27, 0.5, 0.73] }], y: { title: "", percent: true } };
const READY = { type: "ready", id: 1,
  diagnostics: { ms: 900, pythonMs: 700, snapshot: true, snapshotError: "", isolated: false },
  limits: LIMITS };

const range = (n) => Array.from({ length: n }, (_, i) => i);
const repeat = (item, n) => range(n).map(() => item);

test("every message the lab sends is accepted", () => {
  const cases = [
    ["worker", { type: "init", id: 1, config: CONFIG, port: true }],
    ["worker", { type: "init", id: 1, port: true, interruptBuffer: true,
      config: { ...CONFIG, lock: "{}", stdLibURL: "http://127.0.0.1/s.zip",
        sizes: { "python_stdlib.zip": 12 }, starter: { code: "print(1)", filename: "lab.py" },
        snapshots: true, countDownloads: false,
        words: { texts: { "labkit.stopped": "Gestoppt." }, decimal: ",", group: "." } } }],
    ["worker", { type: "init", id: 1, config: CONFIG, port: true, snapshot: true, wasm: true }],
    ["worker", { type: "run", id: 2, code: "print(1)", filename: "lab.py" }],
    ["page", { type: "progress", id: 1, phase: "download", loaded: 5, total: null }],
    ["page", { type: "progress", id: 1, phase: "start" }],
    ["page", { type: "snapshot", id: 1, heap: true, wasm: true }],
    ["page", { type: "snapshot", id: 1, heap: null, wasm: true }],
    ["page", READY],
    ["page", { type: "stdout", id: 3, text: "hello\n" }],
    ["page", { type: "stderr", id: 3, text: "" }],
    ["page", RESULT],
    ["page", { ...RESULT, ok: true, error: null, charts: [] }],
    ["page", { ...RESULT, charts: repeat(CHART, 4) }],
    ["page", { ...RESULT, charts: [{ ...CHART, labels: repeat("x", 64), series:
      range(12).map((i) => ({ name: String(i), legend: "", values: repeat(0, 64) })) }] }],
    ["page", { type: "error", id: null, said: { key: "worker.fault", values: {} } }],
    ["page", { type: "fatal", id: 3, said: { key: "worker.crashed_stack", values: {} } }],
    ["page", { type: "error", id: 1, said: { key: "worker.download_failed", values: { file: "x.whl", status: "404" } } }],
    ["page", { ...RESULT, error: { ...RESULT.error, message: "", said: { key: "check.code_too_long", values: { seconds: 5 } } } }],
  ];
  assert.deepEqual(problems(cases), repeat("", cases.length));
});

test("anything else is refused with the reason", () => {
  const cases = [
    ["worker", "run"],
    ["worker", [1]],
    ["worker", { id: 1 }],
    ["worker", { type: "result", id: 1 }],  // the page's type, sent the wrong way
    ["page", { type: "run", id: 1, code: "", filename: "lab.py" }],
    ["worker", { type: "init", id: 1, config: CONFIG }],
    ["worker", { type: "init", id: 1, config: CONFIG, port: "port" }],
    ["worker", { type: "init", id: 1, config: { ...CONFIG, labkit: "runtime/wheels/l.whl" }, port: true }],
    ["worker", { type: "init", id: 1, config: CONFIG, port: true, snapshot: "heap" }],
    ["page", { type: "snapshot", id: 1, heap: [0, 1], wasm: null }],
    ["worker", { type: "run", id: 0, code: "", filename: "lab.py" }],
    ["worker", { type: "run", id: 1.5, code: "", filename: "lab.py" }],
    ["worker", { type: "run", id: 2, code: null, filename: "lab.py" }],
    ["worker", { type: "run", id: 2, code: "", filename: "lab.py", extra: 1 }],
    ["worker", { type: "run", id: 2, code: "", filename: "lab.py", toString: 1 }],
    ["page", { type: "progress", id: 1, phase: "later" }],
    ["page", { ...READY, snapshotNote: "x" }],  // notes for tests live under diagnostics
    ["page", { ...READY, ms: 900 }],
    ["page", { ...READY, diagnostics: { ...READY.diagnostics, snapshot: "yes" } }],
    ["page", { type: "ready", id: 1, diagnostics: READY.diagnostics }],
    ["page", { ...READY, limits: { ...LIMITS, chars: -1 } }],
    ["page", { type: "stdout", id: 3, text: 5 }],
    ["page", { ...RESULT, ok: 1 }],
    ["page", { ...RESULT, charts: [1] }],
    ["page", { ...RESULT, chart: { series: [] } }],
    ["page", { ...RESULT, charts: repeat(CHART, 17) }], // well formed: how many a run may draw is the gate's (Ready)
    ["page", { ...RESULT, charts: [{ ...CHART, type: "pie" }] }],
    ["page", { ...RESULT, charts: [HEATMAP, LINES] }],
    ["page", { ...RESULT, charts: [{ ...HEATMAP, cells: [[1.0, null]] }] }],
    ["page", { ...RESULT, charts: [{ ...HEATMAP, cells: [[1.0, null], [0.5]] }] }],
    ["page", { ...RESULT, charts: [{ ...HEATMAP, cells: [[1.0, "-inf"], [0.5, 1]] }] }],
    ["page", { ...RESULT, charts: [{ ...HEATMAP, rows: repeat("r", 65) }] }],
    ["page", { ...RESULT, charts: [{ ...HEATMAP, values: null }] }],
    ["page", { ...RESULT, charts: [{ ...LINES, x: { title: "x", values: [0.0] } }] }],
    ["page", { ...RESULT, charts: [{ ...LINES, x: { title: "x", values: repeat(0.0, 501) } }] }],
    ["page", { ...RESULT, charts: [{ ...CHART, labels: [] }] }],
    ["page", { ...RESULT, charts: [{ ...CHART, title: "x".repeat(201) }] }],
    ["page", { ...RESULT, charts: [{ ...CHART, series: [{ ...CHART.series[0], values: [1, 2] }] }] }],
    ["page", { ...RESULT, charts: [{ ...CHART, series: [{ ...CHART.series[0], values: [1, "2", 3] }] }] }],
    ["page", { ...RESULT, charts: [{ ...CHART, y: { title: "", percent: 1 } }] }],
    ["page", { ...RESULT, charts: [{ ...CHART, series: repeat(CHART.series[0], 13) }] }],
    ["page", { ...RESULT, error: { type: "E", message: "m" } }],
    ["page", { ...RESULT, error: { type: "E", message: "m", line: -1 } }],
    ["page", { type: "fatal", said: { key: "worker.crashed", values: {} } }],
    ["page", { type: "fatal", id: 3, message: "Python crashed" }],
    ["page", { type: "fatal", id: 3, said: { key: "lab.run", values: {} } }],
    ["page", { type: "error", id: 3, said: { key: "worker.download_failed", values: { file: "x.whl" } } }],
    ["page", { type: "error", id: 3, said: { key: "worker.fault", values: { why: "a bug" } } }],
    ["page", { type: "error", id: 3, said: { key: "worker.download_failed", values: { file: "x", status: null } } }],
    ["page", { ...RESULT, error: { ...RESULT.error, said: { key: "worker.fault", values: {} } } }],
    ["page", { type: "progress", id: 1, phase: "start", text: "Starting Python…" }],
  ];
  assert.deepEqual(problems(cases), [
    'a message must be a plain object, got "run"',
    "a message must be a plain object, got an array",
    "unknown message type nothing for the worker",
    'unknown message type "result" for the worker',
    'unknown message type "run" for the page',
    "init.port: missing",
    'init.port: expected a MessagePort, got "port"',
    'init.config.labkit: expected an absolute http(s) URL, got "runtime/wheels/l.whl"',
    'init.snapshot: expected a Blob, got "heap"',
    "snapshot.heap: expected a Blob, got an array",
    "run.id: expected a positive integer, got 0",
    "run.id: expected a positive integer, got 1.5",
    "run.code: expected a string, got null",
    "run.extra: not a field of this message",
    "run.toString: not a field of this message",
    'progress.phase: expected "download" or "start" or "install", got "later"',
    "ready.snapshotNote: not a field of this message",
    "ready.ms: not a field of this message",
    'ready.diagnostics.snapshot: expected true or false, got "yes"',
    "ready.limits: missing",
    "ready.limits.chars: expected a number ≥ 0, got -1",
    "stdout.text: expected a string, got 5",
    "result.ok: expected true or false, got 1",
    "result.charts[0]: expected an object, got 1",
    "result.chart: not a field of this message",
    "",
    'result.charts[0].type: expected "bars" or "heatmap" or "lines", got "pie"',
    "",
    "result.charts[0].cells: expected one row per label (2), got 1",
    "result.charts[0].cells[1]: expected one per column (2), got 1",
    'result.charts[0].cells[0][1]: expected a finite number, got "-inf"',
    "result.charts[0].rows: expected 1 to 64 items, got 65",
    "result.charts[0].values: expected true or false, got null",
    "result.charts[0].series[0].values: expected one per x (1), got 3",
    "result.charts[0].x.values: expected 1 to 500 items, got 501",
    "result.charts[0].labels: expected 1 to 64 items, got 0",
    'result.charts[0].title: expected a string of at most 200 characters, got "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"',
    "result.charts[0].series[0].values: expected one per label (3), got 2",
    'result.charts[0].series[0].values[1]: expected a finite number, got "2"',
    "result.charts[0].y.percent: expected true or false, got 1",
    "result.charts[0].series: expected 1 to 12 items, got 13",
    "result.error.line: missing",
    "result.error.line: expected a line number, got -1",
    "fatal.id: missing",
    "fatal.message: not a field of this message",
    'fatal.said.key: no message "lab.run"',
    'error.said.values.status: expected a string or a number, got nothing',
    "error.said.values.why: not a value of worker.fault",
    "error.said.values.status: expected a string or a number, got null",
    'result.error.said.key: no message "worker.fault"',
    "progress.text: not a field of this message",
  ]);
});

const CHECK = { type: "check", id: 4, code: "def f():\n    return 1\n", filename: "ex.py",
  checks: [{ name: "one", code: "assert f() == 1", secret: false }], modules: { lab: "x = 1\n" },
  timeout: 5 };
const REPORT = { type: "report", id: 4, ms: 12, ok: false, passed: 0, total: 1, error: null,
  checks: [{ name: "one", secret: false, status: "failed", message: "",
    said: { key: "check.expected", values: { expected: "1", actual: "2" } }, traceback: "" }], output: "",
  truncated: false };

test("an exercise's check and its report are checked both ways", () => {
  assert.deepEqual(problems([["worker", CHECK], ["page", REPORT]]), ["", ""]);
  assert.deepEqual(problems([
    ["page", CHECK],
    ["worker", REPORT],
    ["worker", { ...CHECK, checks: [] }],
    ["worker", { ...CHECK, checks: [{ name: "one", code: "assert 1" }] }],
    ["worker", { ...CHECK, timeout: 0 }],
    ["worker", { ...CHECK, modules: { lab: 1 } }],
    ["page", { ...REPORT, checks: [{ ...REPORT.checks[0], status: "crashed" }] }],
    ["page", { ...REPORT, output: null }],
    ["page", { ...REPORT, extra: 1 }],
    ["page", { ...REPORT, checks: [{ ...REPORT.checks[0], said: { key: "check.expected", values: { expected: "1" } } }] }],
    ["page", { ...REPORT, checks: [{ ...REPORT.checks[0], said: undefined }] }],
  ]), [
    'unknown message type "check" for the page',
    'unknown message type "report" for the worker',
    "check.checks: expected at least 1 items, got 0",
    "check.checks[0].secret: missing",
    "check.timeout: expected a number of seconds > 0, got 0",
    "check.modules.lab: expected a string, got 1",
    'report.checks[0].status: expected "passed" or "failed" or "error" or "timeout" or "skipped", got "crashed"',
    "report.output: expected a string, got null",
    "report.extra: not a field of this message",
    "report.checks[0].said.values.actual: expected a string or a number, got nothing",
    "report.checks[0].said: expected an object, got nothing",
  ]);
});

test("an error's class name is a short Python identifier, in a run's result and a check's report", () => {
  const named = (type) => ({ ...RESULT.error, type });
  const fine = ["ValueError", "_Private", "Ошибка", "名前", "x".repeat(40), `${"é".repeat(39)}1`];
  assert.deepEqual(problems(fine.map((type) => ["page", { ...RESULT, error: named(type) }])), fine.map(() => ""));
  const spoofs = ["Run finished in 3 ms. All 5 checks passed. Well done!", "x".repeat(41), "", "1Error",
    "Value\u202eError", "Value\u200bError", "Value Error", "Error\n", 7];
  const expected = (where, type) => `${where}.error.type: expected a Python identifier of at most 40 characters, ` +
    `got ${typeof type === "string" ? JSON.stringify(type.slice(0, 40)) : "7"}`;
  assert.deepEqual(problems(spoofs.map((type) => ["page", { ...RESULT, error: named(type) }])),
    spoofs.map((type) => expected("result", type)));
  assert.deepEqual(problems([["page", { ...REPORT, error: named(spoofs[0]) }]]), [expected("report", spoofs[0])]);
});
