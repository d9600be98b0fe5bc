"""A {lab} block's `predict:` at build time: the chart it compares (by `chart:`'s title, else the lab's first), a
heatmap's rows or one `cell:` of it, and every author error at its `path:line` — on the causal-masking course
(tests/course.py CAUSAL), whose lab draws two heatmaps and a bar chart."""

from __future__ import annotations

from pathlib import Path

import pytest
from course import CAUSAL, build, edit, island, line_of, problems, write_causal

CHART = "  chart: Causal attention weights (masked cells hatched)\n"
CELL = "  cell: [cat, cat]\n"


def test_a_prediction_about_a_heatmaps_cell_reaches_the_page(tmp_path: Path) -> None:
    predict = island((build(write_causal(tmp_path)) / "causal.html").read_text(encoding="utf-8"), "lab")["predict"]
    assert (predict["chart"], predict["cell"], predict["measure"]) == (
        "Causal attention weights (masked cells hatched)", ["cat", "cat"], "largest")
    assert [a["text"] for a in predict["answers"]] == ["more", "less", "unchanged"]


@pytest.mark.parametrize(("old", "new", "needle", "message"), [
    (CHART, "  chart: Causal attention weight\n", "chart: Causal attention weight",
     '"chart:" names "Causal attention weight", which causal.py does not draw at build time (did you mean "Causal '
     'attention weights (masked cells hatched)"?) — name one of its charts by its title: "Masked scores", "Causal '
     'attention weights (masked cells hatched)", "Each query\'s weights"'),
    (CHART, "  chart: Each query's weights\n", "cell: [cat, cat]",
     '"cell:" names a cell of a heatmap, but the chart "Each query\'s weights" is a bar chart — name a heatmap with '
     '"chart:", or leave "cell:" out to compare each series'),
    (CELL, "  cell: [cat, dog]\n", "cell: [cat, dog]",
     '"cell:" names the column "dog", which the heatmap "Causal attention weights (masked cells hatched)" does not '
     "have — its columns are The, cat, sat, on, mats"),
    (CELL, "  cell: [cat, sat]\n", "cell: [cat, sat]",
     '"cell:" names the cell (cat, sat) of "Causal attention weights (masked cells hatched)", which is masked in the '
     "lesson's run — a masked cell has no value to compare: name one that has"),
    (CELL, "  cell: [cat]\n", "cell: [cat]",
     '"cell:" names one cell of a heatmap by its row and its column, e.g. "cell: [The, The]", not 1 label'),
    (CELL, "  cell: [cat, cat, cat]\n", "cell: [cat, cat, cat]",
     '"cell:" names one cell of a heatmap by its row and its column, e.g. "cell: [The, The]", not 3 labels'),
])
def test_what_a_prediction_compares_is_checked_at_its_line(tmp_path: Path, old: str, new: str, needle: str,
                                                         message: str) -> None:
    text = edit(CAUSAL, old, new)
    write_causal(tmp_path, text)
    assert problems(tmp_path) == [f"lesson/causal.md:{line_of(text, needle)}: {message}"]
