"""labkit.heatmap and labkit.lines in CPython: the charts they record, what they refuse at the learner's line (and
why), masked cells, arrays without NumPy, and what an unknown labkit name says."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest
from labkit_runs import charts_of, refusal, run
from places import FIXTURE

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(FIXTURE / "lab"))


import labkit  # noqa: E402


def test_a_heatmap_with_every_option_and_masked_cells() -> None:
    (chart,) = charts_of(
        "import labkit\n"
        "labkit.heatmap([[0.5, None], (float('-inf'), 1)], rows=['t=1', 't=2 '], cols=['k1', 'k2'],"
        " row_title='Query', col_title='Key', title='Attention weights, head 1', percent=True, values=False,"
        " masked='masked: not attended to')\n"
    )
    assert chart == {
        "type": "heatmap", "title": "Attention weights, head 1", "rows": ["t=1", "t=2"], "cols": ["k1", "k2"],
        "row_title": "Query", "col_title": "Key", "cells": [[0.5, None], [None, 1.0]], "percent": True,
        "values": False, "masked": "masked: not attended to",
    }


def test_heatmap_defaults_values_shown_up_to_twelve_by_twelve() -> None:
    (small, wide) = charts_of("import labkit\nlabkit.heatmap([[1, -2, 3]] * 12)\nlabkit.heatmap([[0] * 13])\n")
    assert small["rows"] == [str(i) for i in range(1, 13)] and small["cols"] == ["1", "2", "3"]
    assert small["title"] == "" and small["values"] is True and small["percent"] is False  # the page: "Heatmap"
    assert small["masked"] == ""  # unless the lab words it, the page calls a masked cell "masked" in its language
    assert wide["values"] is False
    (forced,) = charts_of("import labkit\nlabkit.heatmap([[0] * 13], values=True)\n")
    assert forced["values"] is True


class Array:
    """What a NumPy array offers labkit: tolist() (labkit never imports NumPy)."""

    def __init__(self, rows: list) -> None:
        self.rows = rows

    def tolist(self) -> list:
        return self.rows


def test_anything_with_tolist_is_a_matrix_and_a_series() -> None:
    code = (
        "import labkit\n"
        "labkit.heatmap(Array([[1, 2], [3, float('-inf')]]), rows=['a', 'b'])\n"
        "labkit.heatmap([Array([1, 2])])\n"
        "labkit.lines({'a': Array([0.5, 1])}, x=Array([0, 1]))\n"
    )
    module = types.ModuleType("__main__")
    module.Array = Array  # type: ignore[attr-defined]
    out: list[str] = []
    result = labkit.run_code(code, "lab.py", write_out=out.append, write_err=out.append, module=module)
    assert result["ok"], "".join(out)
    heat, row, line = result["charts"]
    assert heat["cells"] == [[1.0, 2.0], [3.0, None]] and row["cells"] == [[1.0, 2.0]]
    assert line["x"]["values"] == [0.0, 1.0] and line["series"][0]["values"] == [0.5, 1.0]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("labkit.heatmap([])", "ChartError: labkit.heatmap: the matrix has no rows; give at least one row of numbers"),
        ("labkit.heatmap('abc')",
         "TypeError: labkit.heatmap: the matrix must be a list of rows, each a list of numbers, not str"),
        ("labkit.heatmap(5)", "TypeError: labkit.heatmap: the matrix must be a list of rows, each a list of numbers, "
         "not int"),
        ("labkit.heatmap([1, 2])", "TypeError: labkit.heatmap: row 1 must be a list of numbers, not int"),
        ("labkit.heatmap([[1, 2], [3]])",
         "ChartError: labkit.heatmap: row 2 has 1 values but row 1 has 2; give every row the same number of values"),
        ("labkit.heatmap([[]])", "ChartError: labkit.heatmap: row 1 has no values; give every row at least one"),
        ("labkit.heatmap([[1, '2']])",
         "TypeError: labkit.heatmap: row 1, column 2 is str, not a number (or None for a masked cell)"),
        ("labkit.heatmap([[True]])",
         "TypeError: labkit.heatmap: row 1, column 1 is bool, not a number (or None for a masked cell)"),
        ("labkit.heatmap([[1], [float('nan')]])",
         "ChartError: labkit.heatmap: row 2, column 1 is nan; a cell is a finite number, or None or -inf for a "
         "masked cell"),
        ("labkit.heatmap([[float('inf')]])",
         "ChartError: labkit.heatmap: row 1, column 1 is inf; a cell is a finite number, or None or -inf for a "
         "masked cell"),
        ("labkit.heatmap([[0]] * 65)",
         "ChartError: labkit.heatmap: the matrix has more than 64 rows; a heatmap has at most 64 × 64 cells"),
        ("labkit.heatmap([[0] * 65])",
         "ChartError: labkit.heatmap: row 1 has more than 64 values; a heatmap has at most 64 × 64 cells"),
        ("labkit.heatmap([[0, 1]], rows=['a', 'b'])",
         "ChartError: labkit.heatmap: 2 row labels for 1 rows; give one per row"),
        ("labkit.heatmap([[0, 1]], cols=['a'])",
         "ChartError: labkit.heatmap: 1 column labels for 2 columns; give one per column"),
        ("labkit.heatmap([[0]], rows='a')", "TypeError: labkit.heatmap: rows must be a list, one label per row"),
        ("labkit.heatmap([[0]], cols=['k' * 201])",
         "ChartError: labkit.heatmap: column label 1 is 201 characters long; at most 200 fit on a chart"),
        ("labkit.heatmap([[0]], rows=[['a']])", "TypeError: labkit.heatmap: row label 1 must be text, not list"),
        ("labkit.heatmap([[0]], title='x' * 201)",
         "ChartError: labkit.heatmap: title is 201 characters long; at most 200 fit on a chart"),
        ("labkit.heatmap([[0]], percent=1)", "TypeError: labkit.heatmap: percent must be True or False"),
        ("labkit.heatmap([[0]], values='yes')", "TypeError: labkit.heatmap: values must be True or False"),
        ("labkit.heatmap([[None]], masked=['no'])", "TypeError: labkit.heatmap: masked must be text, not list"),
        ("labkit.heatmap([[None]], masked='m' * 201)",
         "ChartError: labkit.heatmap: masked is 201 characters long; at most 200 fit on a chart"),
        ("labkit.heatmap([[0]], colour='red')", "TypeError: heatmap() got an unexpected keyword argument 'colour'"),
        ("labkit.lines({})", "ChartError: labkit.lines: there are no series to draw"),
        ("labkit.lines({'a': []})",
         "ChartError: labkit.lines: there are no points to draw; give every series at least one value"),
        ("labkit.lines({'a': [1, 2], 'b': [1]})",
         "ChartError: labkit.lines: series 'b' has 1 values but x has 2; give every series one value per x"),
        ("labkit.lines({'a': [1, 2]}, x=[0, 0])",
         "ChartError: labkit.lines: x goes from 0 to 0 at value 2; x must increase from one value to the next"),
        ("labkit.lines({'a': [1, float('nan')]})",
         "ChartError: labkit.lines: value 2 of series 'a' is nan; a point needs a finite number"),
        ("labkit.lines({'a': [1]}, x=[float('inf')])",
         "ChartError: labkit.lines: value 1 of x is inf; a point needs a finite number"),
        ("labkit.lines({'a': [0] * 501})",
         "ChartError: labkit.lines: series 'a' has more than 500 values; a curve has at most 500 points"),
        ("labkit.lines({'a': 3})", "TypeError: labkit.lines: series 'a' must be a list of numbers, not int"),
        ("labkit.lines([('a', [1]), ('a', [2])])",
         "ChartError: labkit.lines: two series are named 'a'; give each series its own name"),
        ("labkit.lines({'a': [1]}, legend=['x', 'y'])",
         "ChartError: labkit.lines: 2 legend texts for 1 series; give one per series"),
        ("labkit.lines({str(i): [1] for i in range(13)})",
         "ChartError: labkit.lines: 13 series; at most 12 fit on one chart"),
    ],
)
def test_what_heatmap_and_lines_refuse_and_why(call: str, message: str) -> None:
    assert refusal(call).endswith(message)


def test_lines_like_bars() -> None:
    (chart,) = charts_of(
        "import labkit\n"
        "labkit.lines({'1': [0.1, 0.5, 0.9], 4: [0, 0.5, 1]}, x=[-2, 0, 2.5], series_title='k', x_title='x',"
        " y_title='σ(kx)', percent=True)\n"
    )
    assert chart == {
        "type": "lines", "title": "σ(kx)", "x": {"title": "x", "values": [-2.0, 0.0, 2.5]}, "series_title": "k",
        "series": [{"name": "1", "legend": "k = 1", "values": [0.1, 0.5, 0.9]},
                   {"name": "4", "legend": "k = 4", "values": [0.0, 0.5, 1.0]}],
        "y": {"title": "σ(kx)", "percent": True},
    }
    (default,) = charts_of("import labkit\nlabkit.lines({'loss': [3, 2, 1.5]})\n")
    assert default["x"]["values"] == [1.0, 2.0, 3.0] and default["title"] == ""


def test_every_kind_counts_towards_one_cap_of_sixteen() -> None:
    code = ("import labkit\nfor n in range(6):\n    labkit.bars({'a': [n]})\n    labkit.heatmap([[n]])\n"
            "    labkit.lines({'a': [n]})\n")
    result, out = run(code)
    assert result["error"]["line"] == 4
    assert out.rstrip().splitlines()[-1] == "labkit._chart.ChartError: labkit.heatmap: a run draws at most 16 charts"
    assert [c["type"] for c in result["charts"]][:3] == ["bars", "heatmap", "lines"]
    assert len(result["charts"]) == 16


def test_only_heatmaps_and_lines_the_functions_could_make_reach_the_result() -> None:
    code = (
        "import labkit, labkit._chart as c\n"
        "labkit.heatmap([[1, None]])\n"
        "labkit.lines({'a': [1]})\n"
        "h, l = c._drawn\n"
        "c._drawn.append({**h, 'cells': [[float('inf'), 1.0]]})\n"
        "c._drawn.append({**h, 'cells': [[1.0]]})\n"  # not one per column
        "c._drawn.append({**h, 'rows': ['x' * 201]})\n"
        "c._drawn.append({**l, 'x': {'title': '', 'values': [1.0, 2.0]}})\n"
        "c._drawn.append({**h, 'masked': None})\n"  # what a masked cell is called is text
        "c._drawn.append({**h, 'title': 'copied'})\n"
        "c._drawn.append({'type': str})\n"
    )
    assert [c["title"] for c in charts_of(code)] == ["", "", "copied"]


@pytest.mark.parametrize("name", ["heatmapp", "Bars", "plot"])
def test_an_unknown_labkit_name_says_what_labkit_offers(name: str) -> None:
    result, out = run(f"import labkit\nlabkit.{name}([[1]])\n")
    assert result["error"]["line"] == 2
    assert out.rstrip().splitlines()[-1].startswith(
        f"AttributeError: module 'labkit' has no attribute {name!r}; a lab can use labkit.bars, labkit.heatmap, "
        "labkit.lines and labkit.close")
    assert not hasattr(labkit, name)
