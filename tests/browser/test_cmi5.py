"""The cmi5 package in an LMS, end to end: `lessonkit cmi5` packs a fixture course, the test LMS
(tests/browser/cmi5_lms.py) serves it and launches its lessons as cmi5 AUs, and what the lesson page sends lands in a
real LRS (Ralph, tests/browser/ralph.py) through the LMS's endpoint, on an origin of its own that only
`--endpoint-origin` lets the lessons reach. A learner answers a question wrong then right, fails then passes an
exercise and returns to the LMS; Ralph then holds initialized, answered (with the first attempt), passed, completed
and terminated, with the launch's actor and registration and the LMS's context, and the class's tally reads them.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from course import write_course
from playwright.sync_api import Page, expect

from lessonkit.lms import classroom

from .cmi5_lms import LMS, running_lms
from .helpers import commit_answer, wait_until
from .ralph import free_port, running_ralph
from .test_class import LESSON
from .test_exercise import Exercise

VERBS = "http://adlnet.gov/expapi/verbs/"
WORK = "urn:lessonkit:cmi5:work"  # the lesson's own state document (lms/cmi5-statements.js)
CMI5 = "https://w3id.org/xapi/cmi5/context/categories/cmi5"
MOVEON = "https://w3id.org/xapi/cmi5/context/categories/moveon"
SESSION = "https://w3id.org/xapi/cmi5/context/extensions/sessionid"
FIRST = "urn:lessonkit:xapi:first-response"
OTHER = "---\ntitle: Another lesson\nslug: another\n---\n\n## Part\n\nNothing to answer here.\n"
BOOT_S = 90


@pytest.fixture(scope="module")
def lms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LMS]:
    """Ralph, the test LMS in front of it, and the course's cmi5 package made by the command for the LMS's endpoint."""
    tmp = tmp_path_factory.mktemp("cmi5-lms")
    port = free_port()
    ralph = f"http://127.0.0.1:{port}/xAPI/"
    key = "lms:the-lms-key-1234"
    auth = ["ralph", "auth", "-u", "lms", "-p", "the-lms-key-1234", "-s", "statements/write", "-s", "statements/read",
            "-t", "lms", "-A", "lms", "http://127.0.0.1/", "-w"]
    with running_ralph(tmp / "lrs", port, [auth], []), running_lms(ralph, key) as found:
        course = write_course(tmp / "course", {"course.yaml": "id: classy\ntitle: A cmi5 course\n",
                                               "class-lesson.md": LESSON, "another.md": OTHER})
        origin = found.endpoint.split("/xapi/")[0]
        proc = subprocess.run([sys.executable, "-m", "lessonkit", "cmi5", "--course", str(course), "--endpoint-origin",
                               origin], capture_output=True, text=True, timeout=300, check=False)
        assert proc.returncode == 0, proc.stderr
        with zipfile.ZipFile(course / "dist" / "classy-cmi5.zip") as z:
            z.extractall(tmp / "unpacked")
        found.folder = tmp / "unpacked"
        yield found


def lms_page(lms: LMS, new_page: Callable[..., Page], page_errors: Any) -> Page:
    """A learner's window on the LMS. The LMS answers 404 to a first launch's read of the lesson's own state document
    (the xAPI State API's answer for a document not written yet), which the browser logs as an error."""
    page_errors.expect(f"status of 404 (Not Found) ({lms.endpoint}activities/state?")
    return new_page(lms.content)


def launched(page: Page, state: str = "open") -> None:
    """Wait for the lesson's cmi5 session to be in `state` (<html data-lms>)."""
    expect(page.locator("html")).to_have_attribute("data-lms", state, timeout=BOOT_S * 1000)


def by_verb(statements: list[dict[str, Any]], verb: str) -> list[dict[str, Any]]:
    return [s for s in statements if s["verb"]["id"] == f"{VERBS}{verb}"]


def categories(statement: dict[str, Any]) -> set[str]:
    return {a["id"] for a in statement["context"].get("contextActivities", {}).get("category", [])}


def test_a_launched_lessons_statements_land_in_the_lrs_in_cmi5s_order_and_context(
        lms: LMS, new_page: Callable[..., Page], page_errors: Any) -> None:
    page = lms_page(lms, new_page, page_errors)
    to_lms: list[str] = []
    page.on("request", lambda r: to_lms.append(r.url) if r.url.startswith(lms.endpoint) else None)
    page.goto("/launch/class-lesson.html?learner=ada")
    launched(page)
    launch = dict(re.findall(r"[?&]([A-Za-z]+)=([^&]*)", page.url))
    session = next(s for s in lms.sessions.values() if s.actor["account"]["name"] == "ada")
    order = page.get_by_role("group", name=re.compile("keep their order"))
    commit_answer(order.get_by_role("radio", name="No"))  # wrong first…
    # The learner reads the feedback before answering again: each answer is a statement of its own (two answers
    # within one report would be one, the last, with the first attempt in its extensions).
    wait_until(lambda: by_verb(lms.statements(session.registration), "answered"), page=page, timeout=30,
               message="the first answer's statement in the LRS")
    commit_answer(order.get_by_role("radio", name="Yes"))  # …then right
    commit_answer(page.get_by_role("group", name=re.compile("uniform")).get_by_role("radio", name="Yes"))
    exercise = Exercise(page)
    exercise.ready()
    assert exercise.check() == "0 of 1 check passed."
    # The learner reads the failed check before fixing the code: its statement is sent meanwhile (two checks within
    # one report would be one "passed" whose extension counts the failed check before it).
    wait_until(lambda: by_verb(lms.statements(session.registration), "attempted"), page=page, timeout=30,
               message="the failed check's attempted statement in the LRS")
    assert exercise.check("def double(x):\n    return 2 * x\n") == "All 1 check passed. Well done!"
    wait_until(lambda: by_verb(lms.statements(session.registration), "completed"), page=page, timeout=30,
               message="the lesson's completed statement in the LRS")
    # The course's other lessons are the LMS's to launch: no link leads there from inside this AU.
    expect(page.locator(".lesson-pager a")).to_have_count(0)
    page.get_by_role("button", name="Back to your LMS").click()
    expect(page.get_by_role("heading", name="Back in the LMS")).to_be_visible()
    stored = wait_until(lambda: (found := lms.statements(session.registration)) and by_verb(found, "terminated") and found,
                        page=page, timeout=30, message="the session's terminated statement in the LRS")

    verbs = [s["verb"]["id"].removeprefix(VERBS) for s in stored]
    assert verbs[0] == "launched" and verbs[1] == "initialized" and verbs[-1] == "terminated", verbs  # the LMS's, then the AU's
    assert sorted(verbs[2:-1]) == sorted(["answered"] * 3 + ["attempted", "passed", "passed", "completed"]), verbs
    mine = stored[1:]
    assert all(s["actor"] == session.actor for s in mine)  # the learner the LMS launched
    assert session.actor["account"]["name"] == "ada" and launch["registration"] == session.registration
    assert all(s["context"]["registration"] == session.registration for s in mine)
    assert all(s["context"]["extensions"][SESSION] == session.session_id for s in mine)  # the LMS's template
    publisher = [{"objectType": "Activity", "id": "urn:lessonkit:classy:class-lesson"}]  # cmi5.xml's AU id
    assert all(s["context"]["contextActivities"]["grouping"] == publisher for s in mine)
    defined = [s for s in mine if s["object"]["id"] == session.activity_id]
    assert [s["verb"]["id"].removeprefix(VERBS) for s in defined] == ["initialized", "completed", "passed", "terminated"]
    assert all(CMI5 in categories(s) for s in defined)
    assert [MOVEON in categories(s) for s in defined] == [False, True, True, False]
    (passed,) = [s for s in defined if s["verb"]["id"] == f"{VERBS}passed"]
    assert passed["result"]["success"] is True and passed["result"]["score"] == {"raw": 3, "min": 0, "max": 3, "scaled": 1}
    assert passed["context"]["extensions"]["https://w3id.org/xapi/cmi5/context/extensions/masteryscore"] == 0.8
    assert by_verb(mine, "terminated")[0]["result"]["duration"].startswith("PT")
    answers = by_verb(mine, "answered")
    assert {a["object"]["id"] for a in answers} == {"urn:lessonkit:classy:class-lesson:check:1",
                                                    "urn:lessonkit:classy:class-lesson:check:2"}
    wrong, right = (a for a in answers if a["object"]["id"].endswith("check:1"))
    assert (wrong["result"]["response"], wrong["result"]["success"], wrong["result"]["extensions"][FIRST]) == ("1", False, "1")
    assert (right["result"]["response"], right["result"]["extensions"][FIRST]) == ("2", "1")  # right now; "No" first
    assert all(CMI5 not in categories(a) and a["context"]["contextActivities"]["parent"][0]["id"] == session.activity_id
               for a in [*answers, *by_verb(mine, "attempted")])
    assert all(u.startswith(lms.endpoint) for u in to_lms) and any(u.endswith("/statements") for u in to_lms)

    # The class's tally reads the launch's statements as it reads a class's.
    lines = classroom.tally_lines(classroom.tally(stored), "LMS")
    question = lines.index(next(line for line in lines if "keep their order" in line))
    assert lines[question + 1:question + 4] == ["  1 answered · first attempts:", "    option 1 “No”: 1",
                                                "    option 2 “Yes” ✓: 0"], lines
    assert "  1 passed of 1 who checked it" in lines and "Lesson class-lesson: 1 passed, 1 completed" in lines, lines


def test_a_relaunch_gets_the_work_back_and_sends_nothing_twice_and_a_reload_cannot_reuse_the_token(
        lms: LMS, new_page: Callable[..., Page], page_errors: Any) -> None:
    page = lms_page(lms, new_page, page_errors)
    page.goto("/launch/class-lesson.html?learner=ben")
    launched(page)
    order = page.get_by_role("group", name=re.compile("keep their order"))
    commit_answer(order.get_by_role("radio", name="Yes"))
    registration = lms.registrations["ben"]
    wait_until(lambda: by_verb(lms.statements(registration), "answered"), page=page, timeout=30,
               message="the answer in the LRS")
    page.close()  # the learner closes the window: the session ends
    stored = wait_until(lambda: (found := lms.statements(registration)) and by_verb(found, "terminated") and found,
                        timeout=30, message="terminated, sent as the page went away")
    assert len(by_verb(stored, "answered")) == 1
    # The lesson's work reaches the LMS's State API in a request of its own as the page goes: the LMS has it before
    # it launches the lesson again.
    wait_until(lambda: _kept_work(lms, registration), timeout=30, message="the lesson's work in the LMS's State API")

    again = new_page(lms.content)
    again.goto("/launch/class-lesson.html?learner=ben")  # the LMS launches the AU again: a new session
    launched(again)
    order = again.get_by_role("group", name=re.compile("keep their order"))
    expect(order.get_by_role("radio", name="Yes")).to_be_checked()  # the work, from the LMS's State API
    launch_url = again.url
    again.get_by_role("button", name="Back to your LMS").click()
    expect(again.get_by_role("heading", name="Back in the LMS")).to_be_visible()
    stored = wait_until(lambda: (found := lms.statements(registration)) and len(by_verb(found, "terminated")) == 2
                        and found, page=again, timeout=30, message="the second session's end")
    assert len(by_verb(stored, "initialized")) == 2 and len(by_verb(stored, "answered")) == 1  # nothing sent twice
    assert not by_verb(stored, "passed") and not by_verb(stored, "completed")  # a question left: neither

    # The launch URL again (a reload, a bookmark): its fetch URL gave its token once, so the page records nothing.
    again.goto(launch_url)
    launched(again, "refused")
    expect(again.get_by_role("status").filter(has_text="Your LMS did not open a session for this lesson")).to_be_visible()


def _kept_work(lms: LMS, registration: str) -> bool:
    """The LMS holds the lesson's work document (its entries, with the question's answer) for `registration`."""
    return any(key[2] == registration and key[3] == WORK and json.loads(body).get("entries")
               for key, body in list(lms.state.items()))


def test_the_package_opened_without_a_launch_sends_nothing(lms: LMS, new_page: Callable[..., Page]) -> None:
    page = new_page(lms.content)
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.startswith(lms.endpoint) else None)
    page.goto("/pkg/class-lesson.html")
    commit_answer(page.get_by_role("group", name=re.compile("keep their order")).get_by_role("radio", name="Yes"))
    expect(page.get_by_role("group", name=re.compile("keep their order"))).to_contain_text("Correct")
    page.wait_for_timeout(1000)  # past the page's half-second debounce: a report would have left by now
    assert sent == []
    expect(page.locator("html")).not_to_have_attribute("data-lms", re.compile(".*"))
