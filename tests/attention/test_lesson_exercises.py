"""The course's own exercises in Chromium: each lesson's starter fails a named check, its solution passes them all.

These read the real lessons (like test_lesson.py): the solution a learner would type is the one the lesson declares.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from browser.test_exercise import Exercise
from playwright.sync_api import Page, expect

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```\{exercise\}\n(.*?)^```$", re.S | re.M)


def lesson_exercises() -> list[tuple[str, dict]]:
    """(page, exercise block) for every exercise in lesson/."""
    found = []
    for md in sorted((ROOT / "lesson").glob("*.md")):
        text = md.read_text(encoding="utf-8")
        slug = re.search(r"^slug:\s*(\S+)", text, re.M)
        page = f"{slug.group(1) if slug else md.stem}.html"
        found += [(page, yaml.safe_load(body)) for body in FENCE.findall(text)]
    return found


EXERCISES = lesson_exercises()


def test_every_lesson_of_the_course_has_an_exercise() -> None:
    assert {page for page, _ in EXERCISES} == {"scaled-dot-product-attention.html", "mixing-values.html",
                                               "multi-head-attention.html", "attention-in-matrix-form.html"}


@pytest.mark.parametrize(("page_name", "block"), EXERCISES, ids=[b["id"] for _, b in EXERCISES])
def test_the_starter_fails_and_the_solution_passes(page: Page, page_name: str, block: dict) -> None:
    page.goto(page_name)
    ex = Exercise(page)
    ex.ready()
    total = len(block["checks"])
    summary = ex.check()  # the starter, as the page gives it
    passed = int(re.match(r"(\d+) of (\d+) checks passed", summary).group(1))
    assert passed < total and summary.startswith(f"{passed} of {total} checks passed")
    failed = [line for line in ex.results() if line.startswith("✗")]
    assert failed and all(any(c["name"] in line for c in block["checks"]) for line in failed)
    assert ex.check(block["solution"]) == f"All {total} checks passed. Well done!"
    expect(ex.status).to_have_text(f"Checked: All {total} checks passed. Well done! The results are below. The remarks "
                                   "and a solution to compare with are below.")  # the live status says the count too
    expect(ex.root.get_by_text(f"All {total} checks passed. Well done!", exact=True)).to_have_count(1)  # the report's
