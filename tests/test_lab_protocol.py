"""The lab's message protocol (static/js/lab/protocol.js), run under Node: what each side accepts, and why not."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from modules import module_tree

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")

# argv: module, then a JSON list of [receiver, message] pairs; a message's "port" / "interruptBuffer" / "snapshot" /
# "wasm" / "heap" given as true become a real MessagePort / SharedArrayBuffer / Blob / WebAssembly.Module /
# Uint8Array. Prints the JSON list of messageProblem() answers.
_CHECK_JS = r"""
import { pathToFileURL } from "node:url";
const [module, cases] = process.argv.slice(1);
const { messageProblem } = await import(pathToFileURL(module).href);
const answers = JSON.parse(cases).map(([receiver, message]) => {
  if (message && message.port === true) message.port = new MessageChannel().port1;
  if (message && message.interruptBuffer === true) message.interruptBuffer = new SharedArrayBuffer(1);
  if (message && message.snapshot === true) message.snapshot = new Blob([new Uint8Array(8)]);
  if (message && message.wasm === true) message.wasm = new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
  if (message && message.heap === true) message.heap = new Uint8Array(8);
  return messageProblem(message, receiver);
});
console.log(JSON.stringify(answers));
process.exit(0); // the ports made above would keep Node running
"""

CONFIG = {"indexURL": "http://127.0.0.1/runtime/", "lock": {"packages": {}}, "labkit": "http://127.0.0.1/l.whl",
          "micropip": [], "requirements": []}
CHART = {"type": "bars", "title": "Softmax probability per position", "labels": ["1", "2", "3"],
         "series_title": "head_dim",
         "series": [{"name": "1", "legend": "head_dim = 1 (divide by 1.00)", "values": [0.016, 0.867, 0.117]},
                    {"name": "4", "legend": "head_dim = 4", "values": [0.09, -0.665, 24]}],
         "x": {"title": "Position (key)", "item": "position"}, "y": {"title": "Probability", "percent": True}}
RESULT = {"type": "result", "id": 3, "ok": False, "ms": 2, "error": {"type": "ValueError", "message": "no", "line": 4,
          "traceback": "…"}, "charts": [CHART], "truncated": False, "stopped": False}
LIMITS = {"chars": 111_000, "lines": 2_420, "messages": 5_008, "checkChars": 31_000, "checkLines": 820,
          "errorChars": 11_000}
READY = {"type": "ready", "id": 1,
         "diagnostics": {"ms": 900, "pythonMs": 700, "snapshot": True, "snapshotError": "", "isolated": False},
         "limits": LIMITS}


def problems(cases: list[tuple[str, Any]]) -> list[str]:
    """messageProblem(message, receiver) for each case, as Node answers it."""
    result = subprocess.run(
        ["node", "--input-type=module", "-e", _CHECK_JS, str(module_tree() / "static/js/lab/protocol.js"), json.dumps(cases)],
        capture_output=True, text=True, check=True,
    )
    return list(json.loads(result.stdout))


def test_every_message_the_lab_sends_is_accepted() -> None:
    cases = [
        ("worker", {"type": "init", "id": 1, "config": CONFIG, "port": True}),
        ("worker", {"type": "init", "id": 1, "port": True, "interruptBuffer": True,
                    "config": {**CONFIG, "lock": "{}", "stdLibURL": "http://127.0.0.1/s.zip",
                               "sizes": {"python_stdlib.zip": 12}, "starter": {"code": "print(1)", "filename": "lab.py"},
                               "snapshots": True, "countDownloads": False}}),
        ("worker", {"type": "init", "id": 1, "config": CONFIG, "port": True, "snapshot": True, "wasm": True}),
        ("worker", {"type": "run", "id": 2, "code": "print(1)", "filename": "lab.py"}),
        ("page", {"type": "progress", "id": 1, "phase": "download", "text": "Downloading…", "loaded": 5, "total": None}),
        ("page", {"type": "progress", "id": 1, "phase": "start", "text": "Starting Python…"}),
        ("page", {"type": "snapshot", "id": 1, "heap": True, "wasm": True}),
        ("page", {"type": "snapshot", "id": 1, "heap": None, "wasm": True}),
        ("page", READY),
        ("page", {"type": "stdout", "id": 3, "text": "hello\n"}),
        ("page", {"type": "stderr", "id": 3, "text": ""}),
        ("page", RESULT),
        ("page", {**RESULT, "ok": True, "error": None, "charts": []}),
        ("page", {**RESULT, "charts": [CHART] * 4}),
        ("page", {**RESULT, "charts": [{**CHART, "labels": ["x"] * 64, "series": [
            {"name": str(i), "legend": "", "values": [0] * 64} for i in range(12)]}]}),
        ("page", {"type": "error", "id": None, "message": "Malformed message"}),
        ("page", {"type": "fatal", "id": 3, "message": "Python crashed"}),
    ]
    assert problems(cases) == [""] * len(cases)


def test_anything_else_is_refused_with_the_reason() -> None:
    cases = [
        ("worker", "run"),
        ("worker", [1]),
        ("worker", {"id": 1}),
        ("worker", {"type": "result", "id": 1}),  # the page's type, sent the wrong way
        ("page", {"type": "run", "id": 1, "code": "", "filename": "lab.py"}),
        ("worker", {"type": "init", "id": 1, "config": CONFIG}),
        ("worker", {"type": "init", "id": 1, "config": CONFIG, "port": "port"}),
        ("worker", {"type": "init", "id": 1, "config": {**CONFIG, "labkit": "runtime/wheels/l.whl"}, "port": True}),
        ("worker", {"type": "init", "id": 1, "config": CONFIG, "port": True, "snapshot": "heap"}),
        ("page", {"type": "snapshot", "id": 1, "heap": [0, 1], "wasm": None}),
        ("worker", {"type": "run", "id": 0, "code": "", "filename": "lab.py"}),
        ("worker", {"type": "run", "id": 1.5, "code": "", "filename": "lab.py"}),
        ("worker", {"type": "run", "id": 2, "code": None, "filename": "lab.py"}),
        ("worker", {"type": "run", "id": 2, "code": "", "filename": "lab.py", "extra": 1}),
        ("worker", {"type": "run", "id": 2, "code": "", "filename": "lab.py", "toString": 1}),
        ("page", {"type": "progress", "id": 1, "phase": "later", "text": ""}),
        ("page", {**READY, "snapshotNote": "x"}),  # notes for tests live under diagnostics
        ("page", {**READY, "ms": 900}),
        ("page", {**READY, "diagnostics": {**READY["diagnostics"], "snapshot": "yes"}}),
        ("page", {"type": "ready", "id": 1, "diagnostics": READY["diagnostics"]}),
        ("page", {**READY, "limits": {**LIMITS, "chars": -1}}),
        ("page", {"type": "stdout", "id": 3, "text": 5}),
        ("page", {**RESULT, "ok": 1}),
        ("page", {**RESULT, "charts": [1]}),
        ("page", {**RESULT, "chart": {"series": []}}),
        ("page", {**RESULT, "charts": [CHART] * 5}),
        ("page", {**RESULT, "charts": [{**CHART, "type": "pie"}]}),
        ("page", {**RESULT, "charts": [{**CHART, "labels": []}]}),
        ("page", {**RESULT, "charts": [{**CHART, "title": "x" * 201}]}),
        ("page", {**RESULT, "charts": [{**CHART, "series": [{**CHART["series"][0], "values": [1, 2]}]}]}),
        ("page", {**RESULT, "charts": [{**CHART, "series": [{**CHART["series"][0], "values": [1, "2", 3]}]}]}),
        ("page", {**RESULT, "charts": [{**CHART, "y": {"title": "", "percent": 1}}]}),
        ("page", {**RESULT, "charts": [{**CHART, "series": [CHART["series"][0]] * 13}]}),
        ("page", {**RESULT, "error": {"type": "E", "message": "m"}}),
        ("page", {**RESULT, "error": {"type": "E", "message": "m", "line": -1}}),
        ("page", {"type": "fatal", "message": "gone"}),
    ]
    assert problems(cases) == [
        'a message must be a plain object, got "run"',
        "a message must be a plain object, got an array",
        "unknown message type nothing for the worker",
        'unknown message type "result" for the worker',
        'unknown message type "run" for the page',
        "init.port: missing",
        'init.port: expected a MessagePort, got "port"',
        'init.config.labkit: expected an absolute http(s) URL, got "runtime/wheels/l.whl"',
        'init.snapshot: expected a Blob, got "heap"',
        "snapshot.heap: expected a Uint8Array, got an array",
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
        "result.charts: expected 0 to 4 items, got 5",
        'result.charts[0].type: expected "bars", got "pie"',
        "result.charts[0].labels: expected 1 to 64 items, got 0",
        'result.charts[0].title: expected a string of at most 200 characters, got "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"',
        "result.charts[0].series[0].values: expected one per label (3), got 2",
        'result.charts[0].series[0].values[1]: expected a finite number, got "2"',
        "result.charts[0].y.percent: expected true or false, got 1",
        "result.charts[0].series: expected 1 to 12 items, got 13",
        "result.error.line: missing",
        "result.error.line: expected a line number, got -1",
        "fatal.id: missing",
    ]


def test_the_charts_labkit_draws_are_what_the_page_accepts() -> None:
    # The same chart, made by Python and read by JavaScript: the seed lab's, and the most a run may draw.
    import sys

    sys.path.insert(0, str(ROOT / "lab"))
    import labkit

    most = (
        "import labkit\n"
        "for n in range(4):\n"
        "    labkit.bars({f's{i}': [i / 7] * 64 for i in range(12)}, labels=[str(i) for i in range(64)],"
        " title='t' * 200, series_title='k', percent=n % 2 == 0)\n"
    )
    cases = []
    for code in ((ROOT / "lab" / "scaled_softmax.py").read_text(encoding="utf-8"), most):
        result = labkit.run_code(code, "lab.py", write_out=lambda t: None, write_err=lambda t: None)
        assert result["ok"] and result["charts"]
        cases.append(("page", {**RESULT, **result, "type": "result", "id": 1, "ms": 1}))
    assert problems(cases) == ["", ""]


CHECK = {"type": "check", "id": 4, "code": "def f():\n    return 1\n", "filename": "ex.py",
         "checks": [{"name": "one", "code": "assert f() == 1", "secret": False}], "modules": {"lab": "x = 1\n"},
         "timeout": 5}
REPORT = {"type": "report", "id": 4, "ms": 12, "ok": False, "passed": 0, "total": 1, "error": None,
          "checks": [{"name": "one", "secret": False, "status": "failed", "message": "expected 1, got 2",
                      "traceback": ""}], "output": "", "truncated": False}


def test_an_exercises_check_and_its_report_are_checked_both_ways() -> None:
    assert problems([("worker", CHECK), ("page", REPORT)]) == ["", ""]
    assert problems([
        ("page", CHECK),
        ("worker", REPORT),
        ("worker", {**CHECK, "checks": []}),
        ("worker", {**CHECK, "checks": [{"name": "one", "code": "assert 1"}]}),
        ("worker", {**CHECK, "timeout": 0}),
        ("worker", {**CHECK, "modules": {"lab": 1}}),
        ("page", {**REPORT, "checks": [{**REPORT["checks"][0], "status": "crashed"}]}),
        ("page", {**REPORT, "output": None}),
        ("page", {**REPORT, "extra": 1}),
    ]) == [
        'unknown message type "check" for the page',
        'unknown message type "report" for the worker',
        "check.checks: expected at least 1 items, got 0",
        "check.checks[0].secret: missing",
        "check.timeout: expected a number of seconds > 0, got 0",
        "check.modules.lab: expected a string, got 1",
        'report.checks[0].status: expected "passed" or "failed" or "error" or "timeout" or "skipped", got "crashed"',
        "report.output: expected a string, got null",
        "report.extra: not a field of this message",
    ]


def test_labkits_limits_are_what_ready_carries() -> None:
    # The page enforces labkit's own caps, handed over with Ready: the same fields on both sides.
    import sys

    sys.path.insert(0, str(ROOT / "lab"))
    from labkit import _limits

    assert problems([("page", {**READY, "limits": _limits.for_the_page()})]) == [""]
    assert set(_limits.for_the_page()) == set(LIMITS)
