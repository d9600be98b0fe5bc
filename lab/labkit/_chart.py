"""Parse the lab's `head_dim=... probs=[...]` lines into chart data."""

from __future__ import annotations

import math
import re

# Each field is searched separately so learners may reorder, respace or drop the optional ones.
_HEAD_DIM = re.compile(r"\bhead_dim\s*=\s*([0-9]+(?:\.[0-9]*)?)")
_DIVISOR = re.compile(r"\bdivide by\s+([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)")
_SCALED = re.compile(r"\bscaled\s*=\s*\[([^\]]*)\]")
_PROBS = re.compile(r"\bprobs\s*=\s*\[([^\]]*)\]")


def _number(text: str) -> float | None:
    """Return a finite float for text, or None."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _probs(text: str) -> list[float] | None:
    """Parse `9.0%, 66.5%, 24.5%` (or plain fractions) into fractions."""
    items = [item.strip() for item in text.split(",")]
    if not items or any(not item for item in items):
        return None
    out = []
    for item in items:
        percent = item.endswith("%")
        value = _number(item[:-1] if percent else item)
        if value is None:
            return None
        out.append(round(value / 100, 6) if percent else value)
    return out


def _scaled(text: str) -> list[float] | None:
    """Parse `0.000, 2.000, 1.000` into floats."""
    items = [_number(item.strip()) for item in text.split(",")]
    return None if not items or any(v is None for v in items) else items  # type: ignore[return-value]


def chart_data(stdout: str) -> dict:
    """Return {"series": [...]} with one entry per parsable head_dim line of stdout."""
    series = []
    for line in stdout.splitlines():
        head = _HEAD_DIM.search(line)
        probs_match = _PROBS.search(line)
        if not head or not probs_match:
            continue
        probs = _probs(probs_match.group(1))
        if probs is None:
            continue
        head_value = float(head.group(1))
        entry: dict = {
            "head_dim": int(head_value) if head_value.is_integer() else head_value,
            "divisor": None,
            "scaled": None,
            "probs": probs,
        }
        divisor = _DIVISOR.search(line)
        if divisor:
            entry["divisor"] = _number(divisor.group(1))
        scaled = _SCALED.search(line)
        if scaled:
            entry["scaled"] = _scaled(scaled.group(1))
        series.append(entry)
    return {"series": series}
