"""The instructor tools' logic under Node: the values panel's line (any declared variable) and predict-then-run's verdict."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from modules import english, module_tree

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")

# argv: the module tree, then a JSON list of [function, args]; prints the JSON list of answers.
_CALL_JS = r"""
import { pathToFileURL } from "node:url";
const [folder, calls] = process.argv.slice(1);
const panel = await import(pathToFileURL(`${folder}/blocks/lab/tools/values.js`).href);
panel.useLabkit((await import(pathToFileURL(`${folder}/static/js/generated/labkit.js`).href)).LABKIT);
const predict = await import(pathToFileURL(`${folder}/blocks/lab/tools/predict.js`).href);
const fns = {
  parse: (name, code) => panel.listLine(name).parse(code),
  rewrite: (name, code, values) => panel.listLine(name).rewrite(code, values),
  answers: (declaration) => predict.answersOf(declaration),
  compare: (before, after, how) => predict.compareCharts(before, after, how),
  verdict: (answer, before, after, declaration) => predict.verdictText(answer, predict.compareCharts(before, after, declaration),
    { chart: before, outcomes: declaration.outcomes, format: (v) => `${(100 * v).toFixed(1)}%`, cell: declaration.cell }),
  matching: (charts, reference) => predict.matchingChart(charts, reference),
};
console.log(JSON.stringify(JSON.parse(calls).map(([fn, args]) => fns[fn](...args))));
"""


def call(*calls: tuple[str, list[Any]]) -> list[Any]:
    """Each (function, args) as Node answers it."""
    js = module_tree()
    result = subprocess.run(["node", *english(), "--input-type=module", "-e", _CALL_JS, str(js), json.dumps(calls)],
                            capture_output=True, text=True, check=True)
    return list(json.loads(result.stdout))


def chart(title: str = "Softmax probability per position", **series: list[float]) -> dict[str, Any]:
    """A percent chart with these series (name -> values)."""
    labels = [str(i + 1) for i in range(len(next(iter(series.values()))))]
    return {"type": "bars", "title": title, "labels": labels, "series_title": "head_dim",
            "series": [{"name": n, "legend": n, "values": v} for n, v in series.items()],
            "x": {"title": "", "item": "position"}, "y": {"title": "", "percent": True}}


SEED = {
    "answers": [{"text": "sharper", "move": "up"}, {"text": "flatter", "move": "down"},
                {"text": "unchanged", "move": "same"}],
    "outcomes": {"up": "every distribution got sharper", "down": "every distribution got flatter",
                 "same": "every distribution stayed the same", "mixed": "the distributions did not all move the same way"},
    "measure": "largest", "tolerance": 0.0005,
}
BEFORE = chart(**{"1": [0.016, 0.867, 0.117], "4": [0.09, 0.665, 0.245], "16": [0.186, 0.506, 0.307]})
AFTER = chart(**{"1": [0.0, 0.982, 0.018], "4": [0.016, 0.867, 0.117], "16": [0.09, 0.665, 0.245]})


def test_the_panel_reads_and_writes_the_declared_variable_only() -> None:
    code = "k = [0.25, 1, 4]  # steepness\nks = [9]\nprint(k)\n"
    parsed, none, twice, clever, rewritten, other = call(
        ("parse", ["k", code]),
        ("parse", ["steep", code]),
        ("parse", ["k", code + "k = [1]\n"]),
        ("parse", ["k", "k = [1, x]\n"]),
        ("rewrite", ["k", code, [0.5, 2, -3]]),
        ("parse", ["not a name", "not a name = [1]"]),
    )
    assert parsed == {"values": [0.25, 1, 4], "index": 0, "length": 29, "tail": "  # steepness", "matrix": False,
                      "layout": "[0.25, 1, 4]"}
    assert none is None and twice is None and clever is None and other is None
    assert rewritten == "k = [0.5, 2.0, -3.0]  # steepness\nks = [9]\nprint(k)\n"


def test_answers_keep_the_authors_order_in_every_form() -> None:
    listed, pairs, mapping = call(
        ("answers", [SEED]),
        ("answers", [{"answers": [["sharper", "up"], ["flatter", "down"], ["wrong", "sideways"]]}]),
        ("answers", [{"answers": {"sharper": "up", "unchanged": "same"}}]),
    )
    assert [a["text"] for a in listed] == ["sharper", "flatter", "unchanged"]
    assert pairs == [{"text": "sharper", "move": "up"}, {"text": "flatter", "move": "down"}]
    assert mapping == [{"text": "sharper", "move": "up"}, {"text": "unchanged", "move": "same"}]


def test_the_verdict_pairs_series_by_name_with_the_declared_measure() -> None:
    held, missed, same, mixed, nothing = call(
        ("verdict", [{"text": "sharper", "move": "up"}, BEFORE, AFTER, SEED]),
        ("verdict", [{"text": "flatter", "move": "down"}, BEFORE, AFTER, SEED]),
        ("verdict", [{"text": "unchanged", "move": "same"}, BEFORE, {**BEFORE, "series": BEFORE["series"][::-1]}, SEED]),
        ("verdict", [{"text": "sharper", "move": "up"}, BEFORE, chart(**{"1": [0.8, 0.2], "16": [0.4, 0.6]}), SEED]),
        ("verdict", [{"text": "sharper", "move": "up"}, BEFORE, chart(**{"64": [0.5, 0.5]}), SEED]),
    )
    assert held == ("Your prediction held: every distribution got sharper "
                    "(head_dim 1: 86.7% → 98.2%, 4: 66.5% → 86.7%, 16: 50.6% → 66.5%).")
    assert missed.startswith("Your prediction (flatter) did not hold: every distribution got sharper (head_dim 1: ")
    assert same.startswith("Your prediction held: every distribution stayed the same (head_dim 1: 86.7% → 86.7%")
    assert mixed == ("Your prediction (sharper) did not hold: the distributions did not all move the same way "
                     "(head_dim 1: 86.7% → 80.0%, 16: 50.6% → 60.0%).")
    assert nothing == "Your prediction can’t be checked: this run drew no chart to compare with the lesson’s output."


@pytest.mark.parametrize(("measure", "outcome"), [("largest", "up"), ("smallest", "down"), ("sum", "same"),
                                                  ("first", "down"), ("last", "up")])
def test_each_measure(measure: str, outcome: str) -> None:
    before = chart(a=[0.2, 0.3, 0.5])
    after = chart(a=[0.1, 0.3, 0.6])
    (answer,) = call(("compare", [before, after, {"measure": measure, "tolerance": 0.0005}]))
    assert answer["outcome"] == outcome


def test_moves_within_the_tolerance_are_the_same_and_charts_are_matched_by_title() -> None:
    tiny, exact, by_title, first = call(
        ("compare", [chart(a=[0.5, 0.5]), chart(a=[0.5004, 0.4996]), {"measure": "largest", "tolerance": 0.0005}]),
        ("compare", [chart(a=[0.5, 0.5]), chart(a=[0.5004, 0.4996]), {"measure": "largest"}]),
        ("matching", [[chart("other", a=[1]), chart("mine", a=[2])], chart("mine", a=[0])]),
        ("matching", [[chart("other", a=[1])], chart("mine", a=[0])]),
    )
    assert tiny["outcome"] == "same" and exact["outcome"] == "up"
    assert by_title["title"] == "mine" and first["title"] == "other"


def heatmap(cells: list[list[float | None]], title: str = "Causal attention weights") -> dict[str, Any]:
    """A percent heatmap of queries The, cat (and sat) by keys The, cat, sat."""
    names = ["The", "cat", "sat"]
    return {"type": "heatmap", "title": title, "rows": names[:len(cells)], "cols": names, "row_title": "Query",
            "col_title": "Key", "cells": cells, "percent": True, "values": True, "masked": "masked"}


def test_a_heatmap_is_compared_row_by_row_without_its_masked_cells() -> None:
    """Each row is a series named by its label, its masked cells left out: the row's largest, its first, its sum."""
    before = heatmap([[0.6, 0.4, None], [0.3, 0.7, None]])
    after = heatmap([[0.8, 0.2, None], [0.1, 0.9, None]])
    held, first, total = call(
        ("verdict", [{"text": "sharper", "move": "up"}, before, after, SEED]),
        ("compare", [before, after, {"measure": "first"}]),
        ("compare", [before, after, {"measure": "sum", "tolerance": 0.0005}]),
    )
    assert held == ("Your prediction held: every distribution got sharper (Query The: 60.0% → 80.0%, cat: 70.0% → "
                    "90.0%).")
    assert first["outcome"] == "mixed" and total["outcome"] == "same"


def test_one_cell_of_a_heatmap_is_compared_by_its_labels() -> None:
    """`cell: [cat, cat]`: that cell alone, named by its row and column; a cell the run masked cannot be compared."""
    before = heatmap([[1.0, None, None], [0.182, 0.818, None], [0.245, 0.09, 0.665]])
    after = heatmap([[1.0, None, None], [0.1, 0.9, None], [0.3, 0.2, 0.5]])
    declaration = {**SEED, "cell": ["cat", "cat"], "outcomes": {"up": "cat attends more to itself"}}
    held, masked, matched = call(
        ("verdict", [{"text": "more", "move": "up"}, before, after, declaration]),
        ("verdict", [{"text": "more", "move": "up"}, before, after, {**declaration, "cell": ["cat", "sat"]}]),
        ("matching", [[chart("Bars", a=[1]), heatmap([[1.0]], "Other"), after], before]),
    )
    assert held == "Your prediction held: cat attends more to itself (cat, cat: 81.8% → 90.0%)."
    assert masked == "Your prediction can’t be checked: this run drew no chart to compare with the lesson’s output."
    assert matched["title"] == "Causal attention weights"  # the one of the same title, not the first heatmap
