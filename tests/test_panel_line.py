"""The values panel's grammar in both hosts: the build's reading of a lab's declared line (lessonkit/blocks/lab/
panel_line.py) and the page's (static/js/lab/tools/values.js, under Node) agree on every case of
tests/fixtures/panel-lines.json, and what the page writes is a line the build reads back to the same numbers."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from lessonkit.blocks.lab.panel_line import NotAListError, parse

ROOT = Path(__file__).resolve().parent.parent
CASES = json.loads((ROOT / "tests" / "fixtures" / "panel-lines.json").read_text(encoding="utf-8"))

# stdin: the cases; prints the page's parse of each and its rewrite of each.
_JS = r"""
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const { listLine } = await import(pathToFileURL(process.argv[1]).href);
const cases = JSON.parse(readFileSync(0, "utf8"));
console.log(JSON.stringify({
  parse: cases.parse.map((c) => listLine(c.name).parse(c.code)?.values ?? null),
  rewrite: cases.rewrite.map((c) => listLine(c.name).rewrite(c.code, c.values)),
}));
"""


def _python(case: dict) -> list | None:
    try:
        return parse(case["code"], case["name"]).values
    except NotAListError as why:
        assert str(why) == case["why"], case
        return None


@pytest.mark.parametrize("case", CASES["parse"], ids=[c["code"][:30] for c in CASES["parse"]])
def test_the_build_reads_each_case(case: dict) -> None:
    assert _python(case) == case["values"]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_the_page_reads_and_writes_as_the_build_reads() -> None:
    proc = subprocess.run(["node", "--input-type=module", "-e", _JS, str(ROOT / "static/js/lab/tools/values.js")],
                          input=json.dumps(CASES), capture_output=True, text=True, check=True)
    page = json.loads(proc.stdout)
    assert page["parse"] == [c["values"] for c in CASES["parse"]]
    assert page["parse"] == [_python(c) for c in CASES["parse"]]
    for case, written in zip(CASES["rewrite"], page["rewrite"], strict=True):
        assert written == case["written"]
        assert parse(written, case["name"]).values == case["values"]  # the build reads back what the page wrote
