"""The values panel's statement `name = [numbers]` or `name = [[numbers], ...]`: one grammar
(lessonkit/blocks/lab/panel-line.json), read by the build (lessonkit/blocks/lab/panel.py) and by the page
(blocks/lab/tools/values.js under Node), on the same cases."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from modules import module_tree

from lessonkit.blocks.lab import panel

ROOT = Path(__file__).resolve().parent.parent
CASES: list[dict[str, Any]] = json.loads((ROOT / "tests" / "fixtures" / "panel-line-cases.json").read_text())["cases"]

# argv: the module tree, the cases; prints [[values or null, rewritten code or null], ...].
_PAGE_JS = r"""
import { pathToFileURL } from "node:url";
const [folder, cases] = process.argv.slice(1);
const { listLine, useLabkit } = await import(pathToFileURL(`${folder}/blocks/lab/tools/values.js`).href);
useLabkit((await import(pathToFileURL(`${folder}/static/js/generated/labkit.js`).href)).LABKIT);
console.log(JSON.stringify(JSON.parse(cases).map((c) => {
  const line = listLine(c.name);
  const found = line.parse(c.code);
  return [found ? found.values : null, c.rewrite ? line.rewrite(c.code, c.rewrite.values) : null];
})));
"""


@pytest.mark.parametrize("case", CASES, ids=[f"{c['name']}: {c['code']!r}" for c in CASES])
def test_the_build_reads_each_case_as_specified(case: dict[str, Any]) -> None:
    found = panel.parse(case["code"], case["name"])
    assert (found.values if found else None) == case["values"]
    if "why" in case:  # the reason the build's message gives
        with pytest.raises(panel.NotAListError, match=f"^{re.escape(case['why'])}$"):
            panel.read(case["code"], case["name"])
    if "rewrite" in case:  # what the page writes, the build reads back to the same numbers
        assert panel.parse(case["rewrite"]["code"], case["name"]).values == case["rewrite"]["values"]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_the_page_reads_and_rewrites_each_case_as_the_build_does() -> None:
    result = subprocess.run(["node", "--input-type=module", "-e", _PAGE_JS, str(module_tree()),
                             json.dumps(CASES)], capture_output=True, text=True, check=True)
    answers = json.loads(result.stdout)
    for case, (values, rewritten) in zip(CASES, answers, strict=True):
        assert values == case["values"], case
        assert rewritten == (case["rewrite"]["code"] if "rewrite" in case else None), case


def test_assignments_are_found_by_line() -> None:
    assert panel.assignment_lines("raw = [1]\nx = 2\nraw = [3]\n", "raw") == [1, 3]
    assert panel.assignment_lines("raw = [1]\n", "not a name") == []
    assert panel.parse("1raw = [1]\n", "1raw") is None and panel.parse("r.w = [1]\n", "r.w") is None
