"""The {lab} block's values panel at build time: a list or a matrix, checked with the grammar the page rewrites it with
(tests/test_panel_line.py holds the grammar's cases), every author error pinned at its path:line."""

from __future__ import annotations

from pathlib import Path

import pytest
from course import MASK_LAB, MASK_WIDGET, build, edit, island, line_of, mask_with_panel, problems, write_course

LESSON = mask_with_panel(1, 6)


def _write(tmp_path: Path, lesson: str = LESSON, lab: str = MASK_LAB) -> Path:
    return write_course(tmp_path, {"masking.md": lesson}, {"masking.py": lab, "masking_widget.py": MASK_WIDGET})


def test_a_matrix_panel_reaches_the_page_with_its_labels(tmp_path: Path) -> None:
    site = build(_write(tmp_path))
    panel = island((site / "masking.html").read_text(encoding="utf-8"), "lab")["panel"]
    assert panel == {"variable": "scores", "legend": "Scores: one row per query", "item": "Item {n}", "min": 1, "max": 6,
                     "matrix": True, "rows": ["The", "cat", "sat", "down"], "cols": ["The", "cat", "sat", "down"]}


def test_a_one_dimensional_panel_keeps_working(tmp_path: Path) -> None:
    lesson = edit(LESSON, "  variable: scores\n", "  variable: temperatures\n")
    lesson = edit(lesson, "  rows: [The, cat, sat, down]\n  cols: [The, cat, sat, down]\n", "")
    site = build(_write(tmp_path, lesson, MASK_LAB.replace("tokens = [", "temperatures = [0.5, 1, 2]\ntokens = [")))
    panel = island((site / "masking.html").read_text(encoding="utf-8"), "lab")["panel"]
    assert (panel["matrix"], panel["rows"], panel["cols"], panel["legend"]) == (
        False, [], [], "Scores: one row per query")


EXTRA = edit(LESSON, "variable: scores", "variable: extra")
EXTRA = edit(EXTRA, "  rows: [The, cat, sat, down]\n  cols: [The, cat, sat, down]\n", "")
AT = MASK_LAB.count("\n") + 1  # the line a case adds after the lab's own
SHAPE = ("is not a list of numbers or a rectangular list of lists of numbers ({}) — write only numbers in brackets, "
         'e.g. "extra = [[1.0, 0.0], [0.0, 1.0]]"')
CASES = {
    "ragged": (EXTRA, MASK_LAB + "extra = [[1, 2], [3]]\n", "variable:",
               f'"panel:" edits "extra", but lab/masking.py line {AT} '
               + SHAPE.format("row 2 has 1 numbers where row 1 has 2")),
    "not numbers": (EXTRA, MASK_LAB + "extra = [[1, 2], [3, math.pi]]\n", "variable:",
                    f'"panel:" edits "extra", but lab/masking.py line {AT} '
                    + SHAPE.format("something other than numbers in it")),
    "twice": (EXTRA, MASK_LAB + "extra = [[1.0]]\nextra = [[2.0]]\n", "variable:",
              f'"panel:" edits "extra", which lab/masking.py assigns on lines {AT}, {AT + 1} — the panel edits one '
              "statement: keep one"),
    "none": (edit(LESSON, "variable: scores", "variable: score"), MASK_LAB, "variable:",
             '"panel:" edits "score", but lab/masking.py has no top-level line "score = [numbers]" — add one, e.g. '
             '"score = [0.0, 4.0, 2.0]" (or "score = [[1.0, 0.0], [0.0, 1.0]]" for a matrix), or name the list it '
             "should edit"),
    "too big": (edit(LESSON, "max: 6", "max: 3"), MASK_LAB, "panel:",
                '"scores" in lab/masking.py line 8 has 4 rows of 4 numbers, outside the panel\'s "min:" 1 and "max:" 3 '
                "(for its rows and its columns) — widen the range"),
    "row labels": (edit(LESSON, "rows: [The, cat, sat, down]", "rows: [The, cat, sat]"), MASK_LAB, "rows:",
                   '"rows:" has 3 labels, but "scores" in lab/masking.py line 8 has 4 rows — give one label each'),
    "labels of a list": (edit(edit(LESSON, "variable: scores", "variable: temperatures"),
                              "  cols: [The, cat, sat, down]\n", ""),
                         MASK_LAB.replace("tokens = [", "temperatures = [0.5, 1, 2]\ntokens = ["), "rows:",
                         '"rows:" labels a matrix\'s rows, but "temperatures" in lab/masking.py line 7 is one list of '
                         'numbers — remove "rows:" ("item:" labels its values), or make it a list of lists'),
}


@pytest.mark.parametrize("case", list(CASES))
def test_panel_errors_are_pinned_at_their_line(tmp_path: Path, case: str) -> None:
    lesson, lab, at, message = CASES[case]
    _write(tmp_path, lesson, lab)
    assert problems(tmp_path) == [f"lesson/masking.md:{line_of(lesson, at)}: {message}"]
