"""What a {widget}'s function gives back, checked: a list of rows (mappings column → number or text, every row with
the same columns, at most MAX_ROWS by MAX_COLUMNS) or `{"rows": [...], **scalars}`, the scalars words for the caption;
a call that raised, ran too long or returned what JSON cannot carry, reported at the "function:" line."""

from __future__ import annotations

import math
import re
from typing import Any

from lessonkit.blocks import Context
from lessonkit.blocks.widget.cells import masked_value
from lessonkit.blocks.widget.parameters import Controls
from lessonkit.labs.limits import IDENTIFIER
from lessonkit.labs.process import MAX_TIMEOUT, LabError

MAX_ROWS = 200
MAX_COLUMNS = 12


def _call_failed(ctx: Context, exc: LabError, call: str, rel: str) -> None:
    """A call that raised, ran too long or returned what JSON cannot carry, reported at the "function:" line."""
    at = f" (at {rel}:{exc.line})" if exc.line else ""
    if exc.kind == "missing":
        message = f'{rel} defines no function "{ctx.data["function"]}" — define it, or name a function it defines'
    elif exc.kind == "timeout":
        message = (f"{call} did not finish within {float(ctx.data['timeout']):g} s{at} — make it end sooner, or allow "
                   f'more time with "timeout:" in the {{widget}} block, e.g. "timeout: {_more(ctx.data["timeout"])}"')
    elif exc.kind == "raised":
        message = f"{call} raised {exc.message}{at} — fix the function: the build calls it once per value"
    elif exc.kind == "value":
        message = exc.message.replace(f"{ctx.data['function']}(…)", call, 1)
    else:
        message = f"{call} failed{at}: {exc.message}"
    ctx.error(message, ctx.line("function"))


def _more(timeout: float) -> str:
    """A longer time limit to suggest."""
    return f"{min(MAX_TIMEOUT, max(20.0, 2 * float(timeout))):g}"


def _shape(ctx: Context, result: Any, call: str, found: Controls) -> tuple[list[dict[str, Any]], dict[str, Any]] | None:
    """(rows, scalars) from what the function returned, or None after reporting what is wrong with it."""
    at = ctx.line("function")
    scalars: dict[str, Any] = {}
    if isinstance(result, dict):
        if not isinstance(result.get("rows"), list):
            ctx.error(f'{call} returns a mapping without "rows" — return a list of rows, or {{"rows": [...], '
                      "...}", at)
            return None
        scalars = {k: v for k, v in result.items() if k != "rows"}
        for name, value in scalars.items():
            if not re.fullmatch(IDENTIFIER, name) or not _plain(value):
                ctx.error(f'{call} returns "{name}": {_kind(value)} — besides "rows", return words (Python names) '
                          "mapped to numbers or text, for the caption", at)
                return None
            if name in [p.name or "value" for p in found.parameters]:
                ctx.error(f'{call} returns "{name}", the name of a parameter, which the caption writes as '
                          f'{{{name}}} already — give the scalar another name', at)
                return None
        result = result["rows"]
    if not isinstance(result, list) or not result:
        what = "an empty list" if result == [] else _kind(result)
        ctx.error(f"{call} returns {what} — return a list of rows, each a mapping column → number or text", at)
        return None
    if len(result) > MAX_ROWS:
        ctx.error(f"{call} returns {len(result)} rows — a widget shows at most {MAX_ROWS}", at)
        return None
    columns: list[str] | None = None
    for n, row in enumerate(result, 1):
        if not isinstance(row, dict) or not row:
            ctx.error(f"row {n} of {call} is {_kind(row)} — each row must be a mapping column → number or text", at)
            return None
        if columns is None:
            columns = list(row)
            if len(columns) > MAX_COLUMNS:
                ctx.error(f"{call} returns {len(columns)} columns — a widget shows at most {MAX_COLUMNS}", at)
                return None
        elif list(row) != columns:
            ctx.error(f"row {n} of {call} has the columns {_names(row)}, but row 1 has {_names(columns)} — give "
                      "every row the same columns in the same order", at)
            return None
        for column, value in row.items():
            if not _plain(value) and not masked_value(value):
                ctx.error(f'row {n} of {call} has "{column}": {_kind(value)} — a cell is a number or text (or None or '
                          '-inf in a "heat:" column: a masked cell)', at)
                return None
    return result, scalars


def _plain(value: Any) -> bool:
    """A finite number or a string (what a cell or a caption scalar may be)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, str) or (isinstance(value, int | float) and math.isfinite(value))


def _kind(value: Any) -> str:
    """A value's kind, in words."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} (not a finite number)"
    kinds = {bool: "true or false", dict: "a mapping", list: "a list", type(None): "None", str: "text"}
    return kinds.get(type(value), f"a {type(value).__name__}")


def _names(columns: Any) -> str:
    return ", ".join(f'"{c}"' for c in columns)
