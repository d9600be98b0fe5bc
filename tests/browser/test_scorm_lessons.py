"""The course's SCORM package in a real SCORM 2004 runtime (scorm-again, in the test LMS of scorm_lms.py): a learner
goes through each lesson in the LMS's frame, and the test reads what the runtime recorded: interactions, score,
success, completion, progress, location, suspend_data, session time; then resumes in a fresh browser context, whose
LMS is given the first session's record (loadFromJSON), as an LMS gives a returning learner their attempt.

These read the real lessons (like test_lesson_exercises.py): the answers and solutions are the lessons' own.
"""

from __future__ import annotations

import base64
import json
import re
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from .scorm_lms import (
    LESSON_1,
    Host,
    InFrame,
    LMSServer,
    Package,
    choose,
    interactions,
    lesson_plans,
    option_checked,
    scorm_package,
    serve_lms,
)
from .test_exercise import Exercise

PLANS = lesson_plans()
__all__ = ["scorm_package"]  # the session's package, a fixture
DRAFT = "Dividing by √d_k keeps the scores' spread the same as heads widen — ü€😀 \"quoted\"."

# Moodle's own formats (mod/scorm/datamodels/scorm_13.js), stricter than the standard in places.
MOODLE = {
    "time": r"^(19[7-9]{1}[0-9]{1}|20[0-2]{1}[0-9]{1}|203[0-8]{1})((-(0[1-9]{1}|1[0-2]{1}))((-(0[1-9]{1}|[1-2]{1}[0-9]"
            r"{1}|3[0-1]{1}))(T([0-1]{1}[0-9]{1}|2[0-3]{1})((:[0-5]{1}[0-9]{1})((:[0-5]{1}[0-9]{1})((\.[0-9]{1,2})((Z|"
            r"([+|-]([0-1]{1}[0-9]{1}|2[0-3]{1})))(:[0-5]{1}[0-9]{1})?)?)?)?)?)?)?)?$",
    "timespan": r"^P(\d+Y)?(\d+M)?(\d+D)?(T(((\d+H)(\d+M)?(\d+(\.\d{1,2})?S)?)|((\d+M)(\d+(\.\d{1,2})?S)?)|"
                r"((\d+(\.\d{1,2})?S))))?$",
    "decimal": r"^-?([0-9]{1,5})(\.[0-9]{1,18})?$",
    "short_id": r"^[\w\.]{1,250}$",
    "long_id": r"^(?:(?!urn:)\S{1,4000}|urn:[A-Za-z0-9-]{1,31}:\S{1,4000})$",
    "lang250": r"^(\{lang=([a-zA-Z]{2,3}|i|x)(\-[a-zA-Z0-9\-]{2,8})?\})?([^\{].{0,250}$)?",
    "string4000": r"^[\u0000-\uFFFF]{0,4000}$",
    "string1000": r"^[\u0000-\uFFFF]{0,1000}$",
    "string64000": r"^[\u0000-\uFFFF]{0,64000}$",
}


def moodle_refuses(cmi: dict[str, Any]) -> list[str]:
    """The recorded values Moodle's runtime would refuse (empty when it takes them all)."""
    checks = [("session_time", cmi["session_time"], "timespan"), ("location", cmi["location"], "string1000"),
              ("progress_measure", cmi["progress_measure"], "decimal"), ("suspend_data", cmi["suspend_data"], "string64000")]
    checks += [(f"score.{k}", v, "decimal") for k, v in cmi["score"].items() if v != ""]
    for n, i in enumerate(interactions(cmi)):
        checks += [(f"{n}.id", i["id"], "long_id"), (f"{n}.timestamp", i["timestamp"], "time"),
                   (f"{n}.weighting", i["weighting"], "decimal"), (f"{n}.description", i["description"], "lang250")]
        fmt = "short_id" if i["type"] == "choice" else "string4000"
        checks.append((f"{n}.learner_response", i["learner_response"], fmt))
        checks += [(f"{n}.pattern", p["pattern"], fmt) for p in i["correct_responses"].values()]
    return [f"{name}={value!r}" for name, value, fmt in checks if not _matches(fmt, value)]


def _matches(fmt: str, value: str) -> bool:
    """Whether Moodle's pattern matches the whole value, as JavaScript reads it (UTF-16 code units)."""
    data = value.encode("utf-16-le")
    units = "".join(chr(int.from_bytes(data[i:i + 2], "little")) for i in range(0, len(data), 2))
    found = re.match(MOODLE[fmt], units, re.S)
    return found is not None and found.group(0) == units


def suspended(cmi: dict[str, Any]) -> dict[str, Any]:
    """cmi.suspend_data decoded as the README says."""
    value = cmi["suspend_data"]
    assert value.startswith(("lk1:", "lk0:")), value[:20]
    data = base64.b64decode(value[4:])
    return json.loads(zlib.decompress(data, -15) if value.startswith("lk1:") else data)


@pytest.fixture(scope="module")
def lms(scorm_package: Package) -> Iterator[LMSServer]:
    yield from serve_lms(scorm_package.folder)


@pytest.fixture
def host(new_page: Callable[..., Page], lms: LMSServer) -> Callable[..., Host]:
    """Factory: a test LMS page in a fresh browser context (service workers allowed, as in a real browser)."""
    return lambda: Host(new_page(service_workers="allow"), lms)


def do_everything(frame: Any, plan: Any) -> None:
    """Answer every question right, solve the exercise, write the explanation."""
    for quiz in plan.quizzes:
        for n, correct in enumerate(quiz.correct, 1):
            choose(frame, quiz.id, n, correct)
    if plan.exercise:
        ex = Exercise(InFrame(frame))
        ex.ready()
        assert ex.check(plan.exercise).startswith("All ")
    if plan.explain:
        frame.get_by_role("textbox", name="Your explanation").fill(DRAFT)


def test_lesson_1_as_a_learner_goes_through_it_and_comes_back(host: Callable[..., Host],
                                                               record_property: Callable[[str, object], None]) -> None:
    plan = PLANS[0]
    lms = host().open()
    frame = lms.lesson()
    choose(frame, "predict", 1, 2)  # wrong first…
    choose(frame, "predict", 1, 1)  # …then right: the same interaction, updated
    choose(frame, "quick-check", 1, 2)
    choose(frame, "quick-check", 2, 2)
    choose(frame, "quick-check", 3, 1)  # wrong
    ex = Exercise(InFrame(frame))
    ex.ready()
    assert not ex.check().startswith("All ")  # the starter
    assert ex.check(plan.exercise).startswith("All ")
    frame.get_by_role("textbox", name="Your explanation").fill(DRAFT)
    lms.wait_commit("count(cmi) === 10 && cmi.interactions['9'].learner_response.includes('ü€😀')",
                    "a Commit with the draft")
    record = lms.end()
    cmi = record["cmi"]
    record_property("cmi", json.dumps(cmi, ensure_ascii=False))  # what the LMS recorded, for a JUnit report
    got = interactions(cmi)
    own = "urn:lessonkit:attention:scaled-dot-product-attention:"
    assert [(i["id"].removeprefix(own), i["type"], i["learner_response"], i["result"]) for i in got] == [
        ("predict:1", "choice", "1", "correct"),
        ("predict:1:first", "choice", "2", "incorrect"),  # the first answer checked, beside the final one
        ("quick-check:1", "choice", "2", "correct"),
        ("quick-check:1:first", "choice", "2", "correct"),
        ("quick-check:2", "choice", "2", "correct"),
        ("quick-check:2:first", "choice", "2", "correct"),
        ("quick-check:3", "choice", "1", "incorrect"),
        ("quick-check:3:first", "choice", "1", "incorrect"),
        ("write-scaled-softmax", "other", "passed, 1 failed check", "correct"),
        ("explain-it-back", "other", DRAFT, "neutral"),
    ]
    assert got[0]["id"] == "urn:lessonkit:attention:scaled-dot-product-attention:predict:1"
    assert [i["correct_responses"]["0"]["pattern"] for i in got[:9]] == ["1", "1", "2", "2", "2", "2", "2", "2", "passed"]
    assert got[9]["correct_responses"] == {}
    assert got[0]["description"].startswith("Question (predict): If every logit is multiplied")
    assert got[1]["description"].startswith("Question (predict), first attempt: If every logit is multiplied")
    assert got[2]["description"].startswith("Question 1 (quick-check): Why does the standard attention denominator")
    assert got[8]["description"] == "Exercise: Optional exercise: write scaled_softmax"
    assert {i["weighting"] for i in got} == {"1"}
    # The exercise is optional: 3 of the 4 questions right, every counted item answered: failed, and complete.
    assert (cmi["completion_status"], cmi["success_status"], cmi["progress_measure"]) == ("completed", "failed", "1")
    assert cmi["score"] == {"raw": "3", "min": "0", "max": "4", "scaled": "0.75"}
    assert (cmi["exit"], cmi["entry"], cmi["scaled_passing_score"]) == ("suspend", "ab-initio", "0.8")
    assert re.fullmatch(r"PT(\d+M)?\d+(\.\d{1,2})?S", cmi["session_time"]), cmi["session_time"]
    assert re.fullmatch(r"[a-z0-9-]+", cmi["location"])  # the id of the part last read (its ## heading)
    assert moodle_refuses(cmi) == []
    part = suspended(cmi)["lessons"][plan.slug]
    names = {name.split(":")[0]: value for name, value in part["entries"].items()}
    assert names["predict"] == {"1": {"answer": "1", "first": "2", "tries": 2}}
    assert names["quick-check"] == {n: {"answer": a, "first": a, "tries": 1} for n, a in (("1", "2"), ("2", "2"), ("3", "1"))}
    assert names["write-scaled-softmax"] in ({"passed": True, "attempts": 1, "hints": 0, "solution": False},
                                             {"base": names["write-scaled-softmax"].get("base"), "code": plan.exercise})
    assert names["explain-it-back"]["text"] == DRAFT and part["local"] == []
    assert len(cmi["suspend_data"]) < 2000
    commits = lms.commits()
    # How many commits a session makes depends on how its saves fall together (a busy machine joins them); each is
    # this lesson's, and the last holds the finished attempt.
    assert commits and all(c["item"] == LESSON_1 for c in commits)
    assert commits[-1]["cmi"]["completion_status"] == "completed"

    # A fresh browser context: the LMS gives the learner their attempt back (loadFromJSON of the record).
    back = host().open(saved={LESSON_1: record})
    frame = back.lesson()
    assert back.lms_state()["launches"] == [{"item": LESSON_1, "entry": "resume"}]
    assert option_checked(frame, "predict", 1, 1) and option_checked(frame, "quick-check", 3, 1)
    expect(frame.get_by_role("textbox", name="Your explanation")).to_have_value(DRAFT)
    expect(frame.locator('[data-block="exercise"]').get_by_role("status")).to_have_text(
        "Solved: your code passed every check.")
    expect(frame.locator("#quiz-quick-check").get_by_text("3 of 3 questions answered")).to_be_visible()
    choose(frame, "quick-check", 3, 2)  # the learner corrects an answer: the same interaction, updated in place
    now = back.wait_commit("cmi.interactions['6'].result === 'correct'", "the corrected answer")
    assert len(interactions(now)) == 10 and now["score"]["scaled"] == "1"
    assert interactions(now)[7]["learner_response"] == "1"  # its first attempt stays the wrong one
    assert back.end()["cmi"]["success_status"] == "passed"


@pytest.mark.parametrize("plan", PLANS, ids=[p.slug for p in PLANS])
def test_each_lesson_passes_completes_and_resumes(host: Callable[..., Host], plan: Any) -> None:
    lms = host().open(f"item={plan.item}")
    frame = lms.lesson()
    do_everything(frame, plan)
    count = 2 * plan.questions + bool(plan.exercise) + plan.explain  # a question's first answer and its last
    scored = plan.questions + bool(plan.exercise and not plan.optional)
    lms.wait_commit(f"count(cmi) === {count} && cmi.progress_measure === '1'", "everything reported")
    cmi = lms.end()["cmi"]
    assert (cmi["completion_status"], cmi["success_status"]) == ("completed", "passed")
    assert cmi["score"] == {"raw": str(scored), "min": "0", "max": str(scored), "scaled": "1"}
    assert {i["result"] for i in interactions(cmi)} == ({"correct", "neutral"} if plan.explain else {"correct"})
    assert moodle_refuses(cmi) == []
    record = lms.records()[plan.item]
    back = host().open(f"item={plan.item}", saved={plan.item: record})
    frame = back.lesson()
    for quiz in plan.quizzes:
        for n, correct in enumerate(quiz.correct, 1):
            assert option_checked(frame, quiz.id, n, correct), (quiz.id, n)
    if plan.explain:
        expect(frame.get_by_role("textbox", name="Your explanation")).to_have_value(DRAFT)
    if plan.exercise:
        expect(frame.locator('[data-block="exercise"]').get_by_role("status")).to_have_text(
            "Solved: your code passed every check.")
    assert back.cmi()["entry"] == "resume"


def test_a_first_launch_clears_what_another_learner_left_in_this_browser(host: Callable[..., Host]) -> None:
    """The LMS's record is the learner's; this browser's copy (a shared computer's) is only its cache."""
    first = host().open()
    frame = first.lesson()
    choose(frame, "predict", 1, 2)
    first.wait_commit("count(cmi) === 2", "the answer")
    first.end()
    # The same browser (same localStorage), another learner, a first launch.
    first.page.goto(f"{first.lms.url}/host/host.html?learner=learner-2")
    first.page.wait_for_function("window.__lms && window.__lms.ready")
    frame = first.lesson()
    assert not option_checked(frame, "predict", 1, 2)
    assert frame.evaluate("Object.keys(localStorage).filter((k) => k.includes(':predict:'))") == []
