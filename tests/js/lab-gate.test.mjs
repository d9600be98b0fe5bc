// What the page accepts from one Python worker (static/js/lab/gate.js): binding to one request, and the caps.
import assert from "node:assert/strict";
import { test } from "node:test";

import { createGate, within } from "../../static/js/lab/gate.js";

const LIMITS = { chars: 111_000, lines: 2_420, messages: 5_008, checkChars: 31_000, checkLines: 820, errorChars: 11_000,
  charts: 16 };
const DIAGNOSTICS = { ms: 900, pythonMs: 700, snapshot: true, snapshotError: "", isolated: false };
const READY = { type: "ready", id: 1, diagnostics: DIAGNOSTICS, limits: LIMITS };
const result = (id, fields = {}) => ({ type: "result", id, ok: true, ms: 3, error: null, charts: [], truncated: false,
  stopped: false, ...fields });
const CHECKS = [{ name: "one", secret: false }, { name: "hidden", secret: true }];
const item = (check, status, message = "", said = null) => ({ ...check, status, message, said, traceback: "" });
const fault = { key: "worker.fault", values: {} };
const crashed = { key: "worker.crashed_stack", values: {} };
const report = (id, fields = {}) => ({ type: "report", id, ms: 5, ok: false, passed: 1, total: 2, error: null,
  checks: [item(CHECKS[0], "passed"), item(CHECKS[1], "failed", "hidden")], output: "", truncated: false, ...fields });

/** A gate past Ready, bound to request 2 (a run, or a check of CHECKS). */
function serving(kind = "run") {
  const gate = createGate(1);
  assert.equal(gate.take(READY).act, "ready");
  gate.bind({ id: 2, kind, checks: CHECKS });
  return gate;
}

test("before Ready: the boot's own messages for its init, anything else ignored with one warning", () => {
  const gate = createGate(1);
  assert.equal(gate.take({ type: "progress", id: 1, phase: "start" }).act, "progress");
  assert.equal(gate.take({ type: "snapshot", id: 1, heap: new Blob([new Uint8Array(8)]), wasm: null }).act, "snapshot");
  const stray = gate.take({ type: "stdout", id: 1, text: "early" });
  assert.equal(stray.act, "ignore");
  assert.match(stray.warn, /does not keep to the lab's protocol \(stdout before Ready\)/);
  const again = gate.take({ type: "progress", id: 7, phase: "start" });
  assert.equal(again.act, "ignore");
  assert.equal(again.warn, undefined, "one warning per worker");
  assert.equal(gate.take(READY).act, "ready");
  assert.deepEqual(gate.limits, LIMITS);
});

test("an error or a crash while starting ends the boot", () => {
  assert.deepEqual(createGate(1).take({ type: "fatal", id: 1, said: crashed }), { act: "bootFailed", said: crashed });
  assert.deepEqual(createGate(1).take({ type: "error", id: 1, said: fault }), { act: "bootFailed", said: fault });
});

test("a spare waiting for its request may send nothing: the worker is ended", () => {
  const gate = createGate(1);
  gate.take(READY);
  const action = gate.take({ type: "stdout", id: 2, text: "hello" });
  assert.equal(action.act, "violation");
  assert.equal(gate.stage, "done");
  // A second Ready, a snapshot after Ready: all violations too.
  for (const msg of [READY, { type: "snapshot", id: 1, heap: null, wasm: null }]) {
    const g = createGate(1);
    g.take(READY);
    assert.equal(g.take(msg).act, "violation");
  }
});

test("serving: output and the final message for its own request only", () => {
  const gate = serving();
  assert.deepEqual(gate.take({ type: "stdout", id: 2, text: "42\n" }), { act: "output", stream: "stdout", text: "42\n" });
  assert.equal(gate.take({ type: "stdout", id: 3, text: "forged\n" }).act, "violation");
  assert.equal(serving().take(result(3)).act, "violation");
  assert.equal(serving().take(report(2)).act, "violation", "a report is not a run's answer");
  assert.equal(serving("check").take(result(2)).act, "violation", "nor a result a check's");
  const done = serving();
  assert.equal(done.take(result(2)).act, "final");
  const late = done.take({ type: "stdout", id: 2, text: "after the result\n" });
  assert.equal(late.act, "ignore");
  assert.match(late.warn, /whose request is over/);
  assert.equal(done.take(result(2)).warn, undefined);
});

test("a crash ends the request; an error answers it", () => {
  assert.deepEqual(serving().take({ type: "fatal", id: 2, said: crashed }), { act: "died", said: crashed });
  assert.deepEqual(serving().take({ type: "fatal", id: null, said: crashed }), { act: "died", said: crashed });
  assert.equal(serving().take({ type: "error", id: 2, said: fault }).act, "final");
});

test("a check's report must be for exactly the checks asked, and add up", () => {
  assert.equal(serving("check").take(report(2)).act, "final");
  const forged = {
    "all passed, hidden one renamed": report(2, { ok: true, passed: 2,
      checks: [item(CHECKS[0], "passed"), item({ name: "other", secret: true }, "passed")] }),
    "all passed, by the count alone": report(2, { ok: true, passed: 2 }),
    "ok without every check": report(2, { ok: true }),
    "a check left out": report(2, { total: 1, passed: 1, checks: [item(CHECKS[0], "passed")] }),
    "a secret one made public": report(2, { checks: [item(CHECKS[0], "passed"), item({ name: "hidden", secret: false }, "failed")] }),
    "output past its cap": report(2, { output: "x".repeat(LIMITS.checkChars + 1) }),
    "a message past its cap": report(2, { checks: [item(CHECKS[0], "passed"), item(CHECKS[1], "failed", "m".repeat(LIMITS.errorChars + 1))] }),
    "a said past its cap": report(2, { checks: [item(CHECKS[0], "passed"), item(CHECKS[1], "failed", "", {
      key: "check.expected", values: { expected: "1", actual: "m".repeat(LIMITS.errorChars + 1) } })] }),
  };
  for (const [what, msg] of Object.entries(forged)) assert.equal(serving("check").take(msg).act, "violation", what);
});

test("a run's result carries at most the charts labkit's limits allow (Ready's charts)", () => {
  const chart = { type: "heatmap", title: "t", rows: ["1"], cols: ["1"], row_title: "", col_title: "", cells: [[null]],
    percent: false, values: true, masked: "masked" };
  assert.equal(serving().take(result(2, { charts: Array(LIMITS.charts).fill(chart) })).act, "final");
  const over = serving().take(result(2, { charts: Array(LIMITS.charts + 1).fill(chart) }));
  assert.equal(over.act, "violation");
  assert.equal(over.problem, `result.charts: more than ${LIMITS.charts}`);
});

test("a flood of output stops at the caps: what fits is delivered, then the request is over", () => {
  const gate = serving();
  const big = "x".repeat(2_000);
  let shown = 0;
  let last = null;
  for (let i = 0; i < 20_000; i++) {
    last = gate.take({ type: "stdout", id: 2, text: big });
    if (last.act !== "output") break;
    shown += last.text.length;
  }
  assert.equal(last.act, "limit");
  assert.match(last.warn, /sent more than 5008 messages, 111000 characters or 2420 lines/);
  assert.equal(shown + last.text.length, LIMITS.chars);
  assert.equal(gate.stage, "done");
  assert.equal(gate.take({ type: "stdout", id: 2, text: big }).act, "ignore");
});

test("the line and message caps hold as well", () => {
  const lines = serving();
  let delivered = "";
  let action;
  do {
    action = lines.take({ type: "stderr", id: 2, text: "a\nb\nc\n" });
    delivered += action.text;
  } while (action.act === "output");
  assert.equal(action.act, "limit");
  assert.equal(delivered.split("\n").length - 1, LIMITS.lines);
  const pieces = serving();
  for (let i = 0; i < LIMITS.messages; i++) assert.equal(pieces.take({ type: "stdout", id: 2, text: "" }).act, "output");
  assert.deepEqual(pieces.take({ type: "stdout", id: 2, text: "." }).act, "limit");
});

test("within: the part of a text that fits a number of characters and line breaks", () => {
  assert.equal(within("abcdef", 4, 10), "abcd");
  assert.equal(within("a\nb\nc\n", 100, 2), "a\nb\n");
  assert.equal(within("a\nb\nc\n", 3, 2), "a\nb");
  assert.equal(within("abc", 10, 0), "");
  assert.equal(within("abc", 0, 5), "");
});

test("a result naming its error like a sentence is never shown: the worker is ended", () => {
  const spoof = { type: "Run finished in 3 ms. All 5 checks passed. Well done!", message: "boom", line: 2 };
  const action = serving().take(result(2, { ok: false, error: spoof }));
  assert.equal(action.act, "violation");
  assert.match(action.warn, /result\.error\.type: expected a Python identifier of at most 40 characters/);
  assert.equal(serving("check").take(report(2, { ok: false, error: spoof })).act, "violation");
});
