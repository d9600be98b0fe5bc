// The lab's run records and the words the view shows for them (static/js/lab/runs.js), without a page.
import assert from "node:assert/strict";
import { test } from "node:test";

import { errorSummary, finishStatus, keptStatus, newRecord, reasonFor, recordOutput, restartNote, runLabel, settle }
  from "../../../static/js/lab/runs.js";

const CHART = { type: "bars", title: "t", labels: ["a"], series_title: "s", series: [{ name: "n", legend: "l", values: [1] }],
  x: { title: "x", item: "i" }, y: { title: "y", percent: false } };

test("a record keeps the output by stream, and stdout on its own", () => {
  const record = newRecord(1, "print(1)");
  recordOutput(record, "stdout", "1\n");
  recordOutput(record, "stdout", "2\n");
  recordOutput(record, "stderr", "oops\n");
  assert.deepEqual(record.output, [{ stream: "stdout", text: "1\n2\n" }, { stream: "stderr", text: "oops\n" }]);
  assert.equal(record.stdout, "1\n2\n");
});

test("a settled record takes the result's fields, and only the charts it can draw", () => {
  const original = console.error;
  const logged = [];
  console.error = (text) => logged.push(text);
  try {
    const record = settle(newRecord(2, ""), { ok: 1, ms: 12, charts: [CHART, { type: "pie" }], truncated: 0 });
    assert.deepEqual({ ...record, charts: record.charts.length }, { runId: 2, code: "", stdout: "", output: [], ok: true,
      error: null, charts: 1, ms: 12, truncated: false, stopped: false });
    assert.equal(logged.length, 1);
    assert.match(logged[0], /^lab: a chart that cannot be drawn/);
  } finally {
    console.error = original;
  }
  assert.equal(settle(newRecord(3, ""), { ok: false, ms: null }).ms, null);
});

test("the status line says how the run ended", () => {
  const ok = settle(newRecord(1, ""), { ok: true, ms: 40 });
  assert.equal(finishStatus(ok), "Run finished in 40 ms");
  assert.equal(runLabel(ok), "This run");
  const failed = settle(newRecord(2, ""), { ok: false, error: { type: "NameError", message: "name 'x' is not defined", line: 3 } });
  assert.equal(finishStatus(failed), "Error on line 3: NameError: name 'x' is not defined");
  assert.equal(runLabel(failed), "This run (error)");
  assert.equal(keptStatus(failed), "Error on line 3: NameError: name 'x' is not defined (the output shown is from the last run that worked)");
  const stopped = settle(newRecord(3, ""), { ok: false, stopped: true, truncated: true });
  assert.equal(finishStatus(stopped), "Stopped. (output was cut at the limit)");
  assert.equal(runLabel(stopped), "This run (stopped)");
  assert.equal(finishStatus(stopped, "Stopped. Python was restarted."), "Stopped. Python was restarted. (output was cut at the limit)");
  assert.equal(errorSummary({ type: "SystemExit", message: "2" }), "The program exited with status 2");
  assert.equal(errorSummary({ type: "ValueError", message: "bad", line: null }), "Error: ValueError: bad");
  assert.equal(errorSummary(null), "");
});

test("a restart is told with the client's words for what ended the Python", () => {
  assert.equal(restartNote({ stopped: true, error: { type: "KeyboardInterrupt", message: "Stopped." } }), "Stopped. Python was restarted.");
  assert.equal(restartNote({ stopped: false, error: { type: "Crash", message: "Python crashed: it ran out of memory." } }),
    "Python crashed: it ran out of memory. Python was restarted.");
});

test("Run says why it cannot be pressed", () => {
  assert.equal(reasonFor("loading", false), "Python is loading…");
  assert.equal(reasonFor("loading", true), "Python is restarting…");
  assert.equal(reasonFor("failed", false), "Python could not be loaded.");
  assert.equal(reasonFor("ready", true), "");
  assert.equal(reasonFor("running", false), "");
});
