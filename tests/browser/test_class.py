"""A class's answers in a real Learning Record Store: Ralph, run as the manual says (tests/browser/ralph.py), with
the keys `lessonkit class new` made, registered by the `ralph auth` commands it printed. Learners on phones join by
the link or by its code, answer and check an exercise, and the instructor's `lessonkit class show` (the read key from
its environment variable) shows the tally of first attempts by option text, once and `--watch`ing. Two classes share
the one Ralph and neither's keys reach the other's statements.

The class path is plain xAPI to the course's record store; an LMS's cmi5 launch is tests/browser/test_cmi5.py's.
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from course import write_course
from playwright.sync_api import Page, expect
from terminal import ctrl_c_as_a_terminal_has_it

from lessonkit.pipeline.site import build_site
from lessonkit.serve.server import ServerHandle

from .helpers import assert_no_axe_violations, commit_answer, wait_until
from .ralph import free_port, running_ralph
from .test_exercise import Exercise

pytestmark = pytest.mark.browser
PHONE = {"width": 390, "height": 844}
NAME = "Gruppe Ä – Montag"  # a class name beyond ASCII, as the join code carries it (UTF-8)
LESSON = """---
title: Class lesson
slug: class-lesson
---

## Check

```{quiz}
id: check
questions:
  - question: Does dividing every score by the same positive number keep their order?
    options:
      - text: "No"
        why: Every gap shrinks by the same factor.
      - text: "Yes"
        correct: true
        why: The same factor keeps every comparison.
  - question: Is softmax of equal scores uniform?
    options:
      - text: "Yes"
        correct: true
        why: Equal exponentials.
      - text: "No"
        why: Equal exponentials share equally.
```

## Exercise

```{exercise}
id: double
title: Double it
prompt: Make `double(x)` return twice `x`.
starter: |
  def double(x):
      return x
solution: |
  def double(x):
      return 2 * x
checks:
  - name: doubles 2
    code: assert double(2) == 4
```
"""


@dataclass
class Classroom:
    site: ServerHandle
    lrs: str
    made: dict[str, Any]  # the class a phone joins by its link
    other: dict[str, Any]  # a second class on the same record store, joined by its code
    course: Path

    def show_command(self, *options: str, made: dict[str, Any] | None = None) -> list[str]:
        """`lessonkit class show <id>` as the instructor types it."""
        made = made or self.made
        return [sys.executable, "-m", "lessonkit", "class", "show", str(made["id"]), "--course", str(self.course),
                "--name", str(made["name"]), *options]

    def show(self, key: str, made: dict[str, Any] | None = None) -> str:
        """The instructor's view, the read key given."""
        proc = subprocess.run(self.show_command(made=made), capture_output=True, text=True, timeout=60,
                              env={**os.environ, "LESSONKIT_CLASS_READ_KEY": key}, check=False)
        return proc.stdout + proc.stderr

    def show_until(self, key: str, done: Callable[[str], bool], page: Page, timeout: float = 30,
                   made: dict[str, Any] | None = None) -> str:
        """The instructor's view, shown again until `done` says it holds what the learner sent. It waits through
        `page` (the learner's): the sync API delivers the page's events (and serves a route) only while a Playwright
        call runs."""
        deadline = time.monotonic() + timeout
        while True:
            out = self.show(key, made)
            if done(out):
                return out
            if time.monotonic() > deadline:
                raise AssertionError(f"the tally after {timeout} s:\n{out}")
            page.wait_for_timeout(500)

    def request(self, key: str, *, registration: str, body: Any = None) -> tuple[int, Any]:
        """GET the statements of `registration`, or POST `body`, with `key`: the status and the answer's JSON."""
        auth = {"Authorization": "Basic " + base64.b64encode(key.encode()).decode(), "X-Experience-API-Version": "1.0.3"}
        if body is None:
            request = urllib.request.Request(f"{self.lrs}statements?registration={registration}", headers=auth)
        else:
            request = urllib.request.Request(f"{self.lrs}statements", data=json.dumps(body).encode(), method="POST",
                                             headers={**auth, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return int(response.status), json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, None


@pytest.fixture(scope="module")
def classroom(tmp_path_factory: pytest.TempPathFactory,
              start_module_server: Callable[..., ServerHandle]) -> Iterator[Classroom]:
    """The course served, one Ralph, and two classes registered with it: each test reads only its own class's
    tally, so neither depends on the other having run."""
    tmp_path = tmp_path_factory.mktemp("classroom")
    port = free_port()
    lrs = f"http://127.0.0.1:{port}/xAPI/"
    course = write_course(tmp_path / "course", {"course.yaml": f"id: classy\ntitle: A class course\nclass:\n  lrs: {lrs}\n",
                                                "class-lesson.md": LESSON})
    build_site(course, course / "site")
    site = start_module_server(course / "site", isolated=True)

    def new_class(name: str) -> dict[str, Any]:
        return dict(json.loads(subprocess.run(
            [sys.executable, "-m", "lessonkit", "class", "new", name, "--site", site.url, "--json", "--course",
             str(course)], capture_output=True, text=True, check=True, timeout=60).stdout))

    made, other = new_class(NAME), new_class("Gruppe Ö – Dienstag")
    with running_ralph(tmp_path / "lrs", port, made["ralph"] + other["ralph"], [site.url.rstrip("/")]):
        yield Classroom(site, lrs, made, other, course)


class Watch:
    """`lessonkit class show --watch 1` running, its output collected as it comes."""

    def __init__(self, command: list[str], key: str) -> None:
        # faulthandler: a watch that does not end on Ctrl+C is made to say where each of its threads is (stop()).
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, "LESSONKIT_CLASS_READ_KEY": key, "PYTHONFAULTHANDLER": "1"},
                                     preexec_fn=ctrl_c_as_a_terminal_has_it)
        self.out: list[str] = []
        self.reader = threading.Thread(target=lambda: self.out.extend(iter(self.proc.stdout.readline, "")),  # type: ignore[union-attr]
                                       daemon=True)
        self.reader.start()

    def tallies(self) -> list[str]:
        """Each tally shown so far (the watch prints them one after another, a blank line between)."""
        return [t.strip("\n") for t in "".join(self.out).split("\n\n") if t.strip()]

    def wait_for(self, line: str, page: Page, timeout: float = 30) -> str:
        """The first tally with `line`, waited for through `page` (see Classroom.show_until)."""
        return str(wait_until(lambda: next((t for t in self.tallies() if line in t.splitlines()), None), page=page,
                              timeout=timeout, message=f"the watch to show {line!r}:\n{''.join(self.out)}"))

    def stop(self) -> tuple[int, str]:
        """Ctrl+C, as the instructor ends it: its exit status and what it said on stderr."""
        self.proc.send_signal(signal.SIGINT)
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGABRT)  # faulthandler prints every thread's stack to stderr
            self.proc.wait(timeout=30)
            stuck = self.proc.stderr.read()  # type: ignore[union-attr]
            raise AssertionError(f"the watch did not end on Ctrl+C within 30 s; where it was:\n{stuck}\n"
                                 f"what it printed:\n{''.join(self.out)}") from None
        finally:
            self.proc.kill()
        return code, self.proc.stderr.read()  # type: ignore[union-attr]


def test_a_phones_answers_appear_in_the_instructors_tally_live(classroom: Classroom,
                                                                new_page: Callable[..., Page]) -> None:
    made = classroom.made
    key = str(made["instructor_key"])
    assert made["learner_key"] not in made["link"].split("#")[0]  # the key is in the fragment alone
    assert made["instructor_key"] not in made["link"] and made["instructor_key"] not in made["code"]
    assert classroom.request(str(made["learner_key"]), registration=made["id"])[0] == 401  # it reads nothing
    assert classroom.request(key, registration=made["id"])[0] == 200

    # A learner who has not joined sends nothing; their page offers the way in, closed.
    stranger = new_page(classroom.site.url, viewport=PHONE, is_mobile=True, has_touch=True)
    sent: list[str] = []
    stranger.on("request", lambda r: sent.append(r.url) if r.url.startswith(classroom.lrs) else None)
    stranger.goto("class-lesson.html")
    commit_answer(stranger.get_by_role("group", name=re.compile("keep their order")).get_by_role("radio", name="Yes"))
    panel = stranger.get_by_role("region", name="Your class")
    expect(panel.get_by_role("button", name="Join with a code")).to_be_hidden()
    expect(panel).not_to_contain_text("You are in the class")

    watch = Watch(classroom.show_command("--watch", "1"), key)
    phone = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        watch.wait_for(f"Class “{NAME}”: 0 learners sent answers", phone)
        phone.goto(str(made["link"]))
        offer = phone.get_by_role("region", name="Your class")
        expect(offer.get_by_role("heading")).to_have_text(f"Join the class “{NAME}”")
        expect(offer).to_contain_text(f"sends the class's record store at 127.0.0.1:{classroom.lrs.split(':')[2].split('/')[0]}")
        expect(offer).to_contain_text("the first option you checked")
        assert "class=" not in phone.url  # the key leaves the address bar
        offer.get_by_role("button", name="Join the class").click()
        expect(offer).to_contain_text("Type the name your instructor will see first.")
        offer.get_by_role("textbox", name="Your name in this class").fill("Ada")
        offer.get_by_role("button", name="Join the class").click()
        expect(offer).to_contain_text(f"You are in the class “{NAME}” as Ada")

        phone.get_by_role("link", name="Class lesson").first.click()
        expect(phone.get_by_role("region", name="Your class")).to_contain_text(f"You are in the class “{NAME}” as Ada")
        order = phone.get_by_role("group", name=re.compile("keep their order"))
        commit_answer(order.get_by_role("radio", name="No"))  # wrong first…
        expect(phone.get_by_role("region", name="Your class").get_by_role("status")).to_contain_text("Sent to your class")
        shown = watch.wait_for("    option 1 “No”: 1", phone)  # the watching view shows it, unasked
        assert f"Class “{NAME}”: 1 learner sent answers" in shown, shown

        commit_answer(order.get_by_role("radio", name="Yes"))  # …then right: the first attempt stays "No"
        commit_answer(phone.get_by_role("group", name=re.compile("uniform")).get_by_role("radio", name="Yes"))
        exercise = Exercise(phone)
        exercise.ready()
        assert exercise.check() == "0 of 1 check passed."  # the starter, checked once: attempted
        assert exercise.check("def double(x):\n    return 2 * x\n") == "All 1 check passed. Well done!"
        shown = watch.wait_for("Lesson class-lesson: 1 passed, 1 completed", phone)
    finally:
        code, errors = watch.stop()
    assert (code, errors) == (0, ""), errors
    lines = shown.splitlines()
    first = lines.index(next(line for line in lines if "keep their order" in line))
    assert lines[first + 1:first + 4] == ["  1 answered · first attempts:", "    option 1 “No”: 1",
                                          "    option 2 “Yes” ✓: 0"], shown
    second = lines.index(next(line for line in lines if "uniform" in line))
    assert lines[second + 1:second + 4] == ["  1 answered · first attempts:", "    option 1 “Yes” ✓: 1",
                                            "    option 2 “No”: 0"], shown
    exercise_line = lines.index("Exercise: Double it")
    assert lines[exercise_line + 1] == "  1 passed of 1 who checked it", shown  # one learner, checked twice
    assert classroom.show(key) == shown + "\n"  # the same tally read once
    assert sent == []  # the learner who never joined sent nothing

    wrong = classroom.show("class-x-instructor:not-the-key")
    assert "answered 401" in wrong


def test_a_learner_joins_with_the_code_and_each_class_keeps_to_its_own(classroom: Classroom,
                                                                        new_page: Callable[..., Page]) -> None:
    joined, foreign = classroom.other, classroom.made  # the class joined by code; another on the same Ralph
    name = str(joined["name"])
    phone = new_page(classroom.site.url, viewport=PHONE, is_mobile=True, has_touch=True)
    phone.goto("index.html")
    panel = phone.get_by_role("region", name="Your class")
    panel.get_by_text("Join a class with a code").click()
    field = panel.get_by_role("textbox", name="Your class's code")
    field.fill("not a code")
    panel.get_by_role("button", name="Join with a code").click()
    expect(panel.get_by_role("status")).to_contain_text("This is not a class code")
    assert_no_axe_violations(phone)
    field.fill(str(joined["code"]))
    field.press("Enter")
    expect(panel.get_by_role("heading")).to_have_text(f"Join the class “{name}”")
    panel.get_by_role("textbox", name="Your name in this class").fill("Ben")
    panel.get_by_role("button", name="Join the class").click()
    expect(panel).to_contain_text(f"You are in the class “{name}” as Ben")
    phone.get_by_role("link", name="Class lesson").first.click()
    commit_answer(phone.get_by_role("group", name=re.compile("keep their order")).get_by_role("radio", name="Yes"))
    key = str(joined["instructor_key"])
    shown = classroom.show_until(key, lambda out: "1 answered" in out, phone, made=joined)
    assert f"Class “{name}”: 1 learner sent answers" in shown and "    option 2 “Yes” ✓: 1" in shown, shown

    # The other class's keys reach none of it: its read key finds no statement of this class's, and what its
    # learners' key writes under this class's registration stays out of this class's tally.
    status, found = classroom.request(str(foreign["instructor_key"]), registration=joined["id"])
    assert (status, found["statements"]) == (200, [])
    stray = {"id": str(uuid.uuid4()), "actor": {"objectType": "Agent", "account": {"homePage": classroom.site.url,
                                                                                    "name": "mallory"}},
             "verb": {"id": "http://adlnet.gov/expapi/verbs/answered"},
             "object": {"objectType": "Activity", "id": "urn:lessonkit:classy:class-lesson:check:1"},
             "result": {"response": "1", "extensions": {"urn:lessonkit:xapi:first-response": "1"}},
             "context": {"registration": joined["id"]}, "timestamp": "2030-01-01T00:00:00Z"}
    assert classroom.request(str(foreign["learner_key"]), registration=joined["id"], body=[stray])[0] == 200
    status, found = classroom.request(str(foreign["instructor_key"]), registration=joined["id"])
    assert [s["id"] for s in found["statements"]] == [stray["id"]]  # stored, in the other class's own place
    assert classroom.show(key, joined) == shown
