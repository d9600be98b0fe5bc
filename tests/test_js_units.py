"""The JavaScript unit tests (tests/js/**/*.test.mjs) under `node --test`, so `make test` runs them with the rest: on
the page's module tree (tests/modules.py), where they import the generated modules as the page does."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from modules import ENGLISH, module_tree

ROOT = Path(__file__).resolve().parent.parent
UNITS = sorted((ROOT / "tests" / "js").rglob("*.test.mjs"))
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")


@pytest.mark.parametrize("unit", UNITS, ids=[p.relative_to(ROOT / "tests" / "js").as_posix() for p in UNITS])
def test_javascript_units(unit: Path) -> None:
    tree = module_tree()
    proc = subprocess.run(["node", "--import", f"./{ENGLISH}", "--test", "--test-reporter=spec",
                           str(tree / unit.relative_to(ROOT))], cwd=tree,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_there_are_javascript_units() -> None:
    assert {p.name for p in UNITS} >= {"lab-gate.test.mjs", "lab-client.test.mjs", "scorm-find-api.test.mjs",
                                        "scorm-record.test.mjs", "scorm-session.test.mjs", "scorm-suspend.test.mjs",
                                        "scorm-values.test.mjs"}
