"""The build verifies every exercise with labkit's check runner: each bad exercise is a `path:line` problem with its
exact message, and nothing is written to site/."""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path

import pytest
from course import EXERCISE, build, edit, island, line_of, problems, write_exercise

CHECKS = EXERCISE[EXERCISE.index("checks:"):EXERCISE.index("hints:")]
RIGHT = "      return sum(xs) / len(xs)"


def at(needle: str, lesson: str = EXERCISE) -> str:
    """`path:line` of the line holding needle in the fixture lesson."""
    return f"lesson/averages.md:{line_of(lesson, needle)}"


def test_a_good_exercise_builds_with_its_checks_and_solution_packed(tmp_path: Path) -> None:
    site = build(write_exercise(tmp_path))
    html = (site / "averages.html").read_text(encoding="utf-8")
    data = island(html, "exercise")
    packed = json.loads(zlib.decompress(base64.b64decode(data["packed"])))
    assert packed["solution"] == "def mean(xs):\n    return sum(xs) / len(xs)\n"
    assert [c["name"] for c in packed["checks"]] == ["averages the lab's values", "one value", "negative numbers"]
    assert packed["modules"] == {"stats": (tmp_path / "lab" / "stats.py").read_text(encoding="utf-8")}
    assert {k: data[k] for k in ("attempts", "timeout", "hints", "filename")} == {
        "attempts": 2, "timeout": 2.0, "hints": 2, "filename": "mean.py"}
    # Neither the solution nor a check's code is in the page as text; the public checks' names are.
    assert "sum(xs) / len(xs)" not in html and "mean([-1, -3])" not in html
    assert "Checks: averages the lab&#39;s values; one value; 1 hidden check." in html


BAD = {
    "no checks": (edit(EXERCISE, CHECKS, "checks: []\n"), "checks: []",
                  "the {exercise} block's \"checks:\" needs at least 1 item"),
    "a starter that passes": (edit(EXERCISE, "      return 0\n", RIGHT + "\n"), "starter: |",
                              'the starter of the {exercise} block "mean" passes every check — leave the task undone '
                              "in it, or add a check it fails"),
    "a check with a syntax error": (edit(EXERCISE, "code: assert mean([7]) == 7", "code: assert mean([7]) =="),
                                    "code: assert mean([7]) ==",
                                    'check "one value" has a syntax error: invalid syntax — fix its "code:"'),
    "an unknown key": (edit(EXERCISE, "attempts: 2", "atempts: 2"), "atempts: 2",
                       'unknown key "atempts" in the {exercise} block (did you mean "attempts"?) — use one of: '
                       "attempts, checks, hints, id, optional, prompt, remarks, solution, starter, timeout, title"),
    "duplicate check names": (edit(EXERCISE, "  - name: one value", "  - name: negative numbers"),
                              "  - name: negative numbers\n    code: assert close",
                              'duplicate check name "negative numbers" (first used at lesson/averages.md:22) — give '
                              "each check its own name"),
    "a check that raises on the solution": (edit(EXERCISE, "code: assert mean([7]) == 7", "code: assert mean([7]) == sevn"),
                                            "  - name: one value",
                                            "check \"one value\" raises NameError: name 'sevn' is not defined on the "
                                            "solution — a check fails only by assert: fix the check (or the solution)"),
    "a check that takes too long on the solution": (edit(EXERCISE, "code: assert mean([7]) == 7",
                                                         "code: |\n      while mean([7]):\n          pass"),
                                                    "  - name: one value",
                                                    'check "one value" takes more than 2 s on the solution — make it '
                                                    'faster, or allow more time with "timeout:"'),
}


@pytest.mark.parametrize("case", BAD)
def test_a_bad_exercise_is_a_problem_at_its_line(tmp_path: Path, case: str) -> None:
    lesson, needle, message = BAD[case]
    assert problems(write_exercise(tmp_path, lesson)) == [f"{at(needle, lesson)}: {message}"]


def test_a_solution_that_fails_a_check_is_named_at_each_check(tmp_path: Path) -> None:
    lesson = edit(EXERCISE, RIGHT, "      return sum(xs)")
    assert problems(write_exercise(tmp_path, lesson)) == [
        f"{at('  - name: averages', lesson)}: the solution of the {{exercise}} block \"mean\" fails check \"averages the "
        "lab's values\": expected 5.0 (within 1e-06), got 15.0 — fix the solution or the check",
        f"{at('  - name: negative', lesson)}: the solution of the {{exercise}} block \"mean\" fails check \"negative "
        "numbers\": expected -2 (within 1e-06), got -4 — fix the solution or the check",
    ]


def test_a_solution_that_raises_is_named_with_its_error(tmp_path: Path) -> None:
    lesson = edit(EXERCISE, RIGHT, "      return sum(xs) / 0")
    found = problems(write_exercise(tmp_path, lesson))
    assert found[0] == (f"{at('  - name: averages', lesson)}: the solution of the {{exercise}} block \"mean\" raises "
                        "ZeroDivisionError: float division by zero in check \"averages the lab's values\" — fix the "
                        "solution")
    assert len(found) == 3


def test_a_solution_file_that_is_missing(tmp_path: Path) -> None:
    lesson = edit(EXERCISE, "solution: |\n  def mean(xs):\n" + RIGHT + "\n", "solution:\n  file: nope.py\n")
    assert problems(write_exercise(tmp_path, lesson)) == [
        f"{at('file: nope.py', lesson)}: lab file \"lab/nope.py\" not found — create it or fix \"file:\" (Python files "
        "in lab/: stats.py)"]


def test_starter_and_solution_may_be_lab_files(tmp_path: Path) -> None:
    lesson = edit(EXERCISE, "starter: |\n  def mean(xs):\n      return 0\n", "starter:\n  file: mean_start.py\n")
    site = build(write_exercise(tmp_path, lesson, mean_start="def mean(xs):\n    return None\n"))
    html = (site / "averages.html").read_text(encoding="utf-8")
    assert "    return None\n</textarea>" in html
