"""In an LMS, the course's lessons count what they ask of every learner: an exercise the lesson calls optional is
marked optional, so it counts toward neither the score nor completion (course.yaml leaves `scorm: optional` at its
default)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

COURSE = Path(__file__).resolve().parents[2]


def test_exercises_the_lessons_call_optional_are_marked_optional() -> None:
    assert (yaml.safe_load((COURSE / "course.yaml").read_text()).get("scorm") or {}).get("optional", "ignored") == "ignored"
    found = {}
    for md in sorted((COURSE / "lesson").glob("*.md")):
        for body in re.findall(r"^```\{exercise\}\n(.*?)^```$", md.read_text(encoding="utf-8"), re.S | re.M):
            block = yaml.safe_load(body)
            found[block["id"]] = ("optional" in block.get("title", "").lower(), bool(block.get("optional")))
    assert found and all(said == marked for said, marked in found.values()), found
    assert found["write-scaled-softmax"] == (True, True)


def test_lesson_1_reports_its_optional_exercise_as_optional(site_dir: Path) -> None:
    page = (site_dir / "scaled-dot-product-attention.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="lesson-data">(.*?)</script>', page, re.S)[1])
    exercise = next(i for i in data["lms"]["items"] if i["kind"] == "exercise")
    assert exercise.get("optional") is True and data["lms"]["optional"] == "ignored"
