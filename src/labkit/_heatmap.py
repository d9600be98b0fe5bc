"""labkit.heatmap(...): a matrix drawn as shaded cells (an attention matrix: one row per query, one column per key).

It checks the matrix and records it for the current run with the other charts (labkit._chart); the page draws it
(lab/heatmap.js). A chart is plain JSON (lab/protocol.js `HeatmapChart`):
    {"type": "heatmap", "title", "rows": [str], "cols": [str], "row_title", "col_title",
     "cells": [[float | None]], "percent": bool, "values": bool, "masked": str}
A masked cell (None or -inf in the matrix: a causal mask's "never look ahead") is None in `cells`: JSON has no -inf,
and the page draws it hatched and calls it by `masked` (the author's words, "masked: not attended to"; "" when the
lab gives none, and the page says "masked" in the course's language), in the legend, its tooltip and the table,
never as a small value. A heatmap without a title has the title "": the page calls it "Heatmap" in that language.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from numbers import Real
from typing import Any

from labkit._chart import ChartError, _flag, _plain, _text, as_list, record
from labkit._limits import MAX_SIDE

WHO = "labkit.heatmap"
VALUES_UP_TO = 12  # a matrix at most this many rows and columns shows its numbers in the cells by default


def _rows_of(matrix: object) -> list[object]:
    """The matrix's rows: a list of rows, or anything with tolist() that gives one (a NumPy array)."""
    matrix = as_list(matrix)
    if isinstance(matrix, str | bytes | Mapping) or not isinstance(matrix, Iterable):
        raise TypeError(f"{WHO}: the matrix must be a list of rows, each a list of numbers, not "
                        f"{type(matrix).__name__}")
    rows = []
    for row in matrix:
        rows.append(row)
        if len(rows) > MAX_SIDE:
            raise ChartError(f"{WHO}: the matrix has more than {MAX_SIDE} rows; a heatmap has at most "
                             f"{MAX_SIDE} × {MAX_SIDE} cells")
    if not rows:
        raise ChartError(f"{WHO}: the matrix has no rows; give at least one row of numbers")
    return rows


def _cell(value: object, row: int, col: int) -> float | None:
    """One cell as a finite float, or None when it is masked (None or -inf)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{WHO}: row {row}, column {col} is {type(value).__name__}, not a number (or None for a "
                        "masked cell)")
    number = float(value)
    if number == -math.inf:
        return None
    if not math.isfinite(number):
        raise ChartError(f"{WHO}: row {row}, column {col} is {number}; a cell is a finite number, or None or -inf "
                         "for a masked cell")
    return number


def _cells(rows: list[object]) -> list[list[float | None]]:
    """Every row's cells, checked: numbers, or masked; every row as long as the first."""
    out: list[list[float | None]] = []
    for r, row in enumerate(rows, 1):
        row = as_list(row)
        if isinstance(row, str | bytes | Mapping) or not isinstance(row, Iterable):
            raise TypeError(f"{WHO}: row {r} must be a list of numbers, not {type(row).__name__}")
        cells = []
        for c, value in enumerate(row, 1):
            if c > MAX_SIDE:
                raise ChartError(f"{WHO}: row {r} has more than {MAX_SIDE} values; a heatmap has at most "
                                 f"{MAX_SIDE} × {MAX_SIDE} cells")
            cells.append(_cell(value, r, c))
        if not cells:
            raise ChartError(f"{WHO}: row {r} has no values; give every row at least one")
        if out and len(cells) != len(out[0]):
            raise ChartError(f"{WHO}: row {r} has {len(cells)} values but row 1 has {len(out[0])}; give every row "
                             "the same number of values")
        out.append(cells)
    return out


def _labels(labels: object, count: int, what: str) -> list[str]:
    """One label per row (or column): the given ones, or "1", "2", …."""
    if labels is None:
        return [str(i) for i in range(1, count + 1)]
    if isinstance(labels, str | bytes) or not isinstance(labels, Iterable):
        raise TypeError(f"{WHO}: {what}s must be a list, one label per {what}")
    shown = [_text(label, f"{what} label {i}", who=WHO) for i, label in enumerate(labels, 1)]
    if len(shown) != count:
        raise ChartError(f"{WHO}: {len(shown)} {what} labels for {count} {what}s; give one per {what}")
    return shown


def heatmap(
    matrix: Iterable[Iterable[float | None]],
    *,
    rows: Iterable[Any] | None = None,
    cols: Iterable[Any] | None = None,
    row_title: str = "",
    col_title: str = "",
    title: str = "",
    percent: bool = False,
    values: bool | None = None,
    masked: str = "",
) -> None:
    """Draw a matrix under this run's output, one shaded cell per number (None or -inf: a masked cell).

    matrix: a list of rows, each a list of numbers, every row as long as the first (or a NumPy array).
    rows / cols: one label per row / column (default "1", "2", …). row_title / col_title: what the rows and the
    columns are ("Query", "Key"). title: the chart's name, as screen readers announce it. percent: show values 0…1
    as 0…100 % (and shade them on one scale from 0 to 1). values: print each value in its cell (default: when the
    matrix has at most 12 rows and 12 columns). masked: what a masked cell is called, in words a learner reads (the
    legend beside the hatch, its tooltip, the table): "masked" in the course's language unless given, e.g.
    "masked: not attended to".
    """
    cells = _cells(_rows_of(matrix))
    row_labels = _labels(rows, len(cells), "row")
    col_labels = _labels(cols, len(cells[0]), "column")
    _flag(percent, "percent", WHO)
    if values is not None:
        _flag(values, "values", WHO)
    shown = values if values is not None else len(cells) <= VALUES_UP_TO and len(cells[0]) <= VALUES_UP_TO
    record({
        "type": "heatmap",
        "title": _text(title, "title", who=WHO),
        "rows": row_labels,
        "cols": col_labels,
        "row_title": _text(row_title, "row_title", who=WHO),
        "col_title": _text(col_title, "col_title", who=WHO),
        "cells": cells,
        "percent": percent,
        "values": shown,
        "masked": _text(masked, "masked", who=WHO),
    }, WHO)


def copy(chart: dict[str, Any]) -> dict[str, Any] | None:
    """A checked copy of a recorded heatmap (the run's code can reach the record), or None when it is not one."""
    try:
        rows = [_plain(label) for label in chart["rows"]]
        cols = [_plain(label) for label in chart["cols"]]
        cells = [[_masked_or_finite(v) for v in row] for row in chart["cells"]]
        out = {
            "type": "heatmap", "title": _plain(chart["title"]), "rows": rows, "cols": cols,
            "row_title": _plain(chart["row_title"]), "col_title": _plain(chart["col_title"]), "cells": cells,
            "percent": chart["percent"] is True, "values": chart["values"] is True,
            "masked": _plain(chart["masked"]),
        }
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    ok = (0 < len(rows) <= MAX_SIDE and 0 < len(cols) <= MAX_SIDE and len(cells) == len(rows)
          and all(len(row) == len(cols) for row in cells))
    return out if ok else None


def _masked_or_finite(value: object) -> float | None:
    """value when it is None or a finite float, else ValueError."""
    if value is None:
        return None
    if type(value) is not float or not math.isfinite(value):
        raise ValueError("not a cell")
    return float(value)

