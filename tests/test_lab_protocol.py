"""The lab's message protocol (static/js/lab/protocol.js) against what labkit makes in CPython: the charts it draws
and the limits it hands over with Ready are what the page accepts. The protocol's own cases are JavaScript units
(tests/js/lab/protocol.test.mjs); both ask tests/js/lab/messages.mjs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from modules import module_tree
from places import FIXTURE

import labkit
from labkit import _limits

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")

DIAGNOSTICS = {"ms": 900, "pythonMs": 700, "snapshot": True, "snapshotError": "", "isolated": False}


def problems(cases: list[tuple[str, Any]]) -> list[str]:
    """messageProblem(message, receiver) for each case, as Node answers it."""
    tree = module_tree()
    result = subprocess.run(["node", str(tree / "tests" / "js" / "lab" / "messages.mjs")], input=json.dumps(cases),
                            cwd=tree, capture_output=True, text=True, timeout=60, check=True)
    return list(json.loads(result.stdout))


def test_the_charts_labkit_draws_are_what_the_page_accepts() -> None:
    # The same chart, made by Python and read by JavaScript: the seed lab's, and the most a run may draw.
    most = (
        "import labkit\n"
        "for n in range(6):\n"
        "    labkit.bars({f's{i}': [i / 7] * 64 for i in range(12)}, labels=[str(i) for i in range(64)],"
        " title='t' * 200, series_title='k', percent=n % 2 == 0)\n"
        "    labkit.heatmap([[None if j > i else (i - j) / 9 for j in range(64)] for i in range(64)],"
        " rows=['r' * 200] * 64, cols=[str(j) for j in range(64)], title='t' * 200, percent=n % 2 == 0)\n"
        "for n in range(4):\n"
        "    labkit.lines({f's{i}': [i / 7] * 500 for i in range(12)}, x=range(500), title='t' * 200)\n"
    )
    cases = []
    for code in ((FIXTURE / "lab" / "scaled_softmax.py").read_text(encoding="utf-8"), most):
        result = labkit.run_code(code, "lab.py", write_out=lambda t: None, write_err=lambda t: None)
        assert result["ok"] and result["charts"]
        assert len(result["charts"]) <= _limits.for_the_page()["charts"]
        cases.append(("page", {**result, "type": "result", "id": 1, "ms": 1}))
    assert problems(cases) == ["", ""]


def test_labkits_limits_are_what_ready_carries() -> None:
    # The page enforces labkit's own caps, handed over with Ready: the same fields on both sides, each one required.
    limits = _limits.for_the_page()
    ready = {"type": "ready", "id": 1, "diagnostics": DIAGNOSTICS, "limits": limits}
    without = [("page", {**ready, "limits": {k: v for k, v in limits.items() if k != name}}) for name in limits]
    assert problems([("page", ready), *without]) == ["", *(f"ready.limits.{name}: missing" for name in limits)]
    spare = ("page", {**ready, "limits": {**limits, "spare": 1}})
    assert problems([spare]) == ["ready.limits.spare: not a field of this message"]


def test_the_error_names_labkit_shows_are_the_names_the_page_takes() -> None:
    # labkit names a learner's exception by a short identifier (shown_name); the page takes no other, so a worker
    # that sent a sentence (labkit changed, or the worker's realm reached) shows nothing of it.
    spoof = "Run finished in 3 ms. All 5 checks passed. Well done!"
    codes = [f"E = type({spoof!r}, (ValueError,), {{}})\nraise E('boom')\n", "class Ошибка(Exception): pass\nraise Ошибка\n",
             f"raise type({'E' * (_limits.MAX_ERROR_NAME + 1)!r}, (KeyError,), {{}})()\n"]
    results = [labkit.run_code(code, "lab.py", write_out=lambda t: None, write_err=lambda t: None) for code in codes]
    assert [r["error"]["type"] for r in results] == ["ValueError", "Ошибка", "KeyError"]
    cases = [("page", {**r, "type": "result", "id": 1, "ms": 1}) for r in results]
    forged = {**results[0], "error": {**results[0]["error"], "type": spoof}}
    assert problems([*cases, ("page", {**forged, "type": "result", "id": 1, "ms": 1})]) == [
        "", "", "", f"result.error.type: expected a Python identifier of at most {_limits.MAX_ERROR_NAME} characters, "
        f"got {json.dumps(spoof[:40], ensure_ascii=False)}"]
