"""Code run through labkit in CPython, for the labkit chart tests: a run's result and everything it wrote, the
charts of a run that must succeed, and the last line of the report a refused call gives."""

from __future__ import annotations

import json
from typing import Any

import labkit


def run(code: str) -> tuple[dict, str]:
    """Run code through labkit; the result and everything it wrote."""
    out: list[str] = []
    result = labkit.run_code(code, "lab.py", write_out=out.append, write_err=out.append)
    return result, "".join(out)


def charts_of(code: str) -> list[dict[str, Any]]:
    """The charts a run of code drew (it must succeed)."""
    result, out = run(code)
    assert result["ok"], out
    json.dumps(result["charts"], allow_nan=False)  # what the worker sends: no -inf, no nan
    return result["charts"]


def refusal(call: str) -> str:
    """The last line of the report a run of `import labkit; <call>` gives (it must fail at line 2, drawing nothing)."""
    result, out = run(f"import labkit\n{call}\n")
    assert not result["ok"] and result["error"]["line"] == 2, out
    assert result["charts"] == []
    return out.rstrip().splitlines()[-1]
