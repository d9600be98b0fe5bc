"""A class's answers in a real Learning Record Store: Ralph (PyPI ralph-malph, in .venv-lrs: `make lrs`) on its
file-system backend, started by the test on 127.0.0.1 with the two keys `lessonkit class new` made, registered by the
`ralph auth` commands it printed. A learner on a phone joins by the link, answers, and the instructor's
`lessonkit class show` (the read key typed in, here from its environment variable) shows the tally of first attempts.

Ralph has no xAPI State API (its routers are statements and health only), so cmi5, whose launch needs State, cannot
be played against it: the class path is plain xAPI.
"""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from course import write_course
from playwright.sync_api import Page, expect

from lessonkit.pipeline.site import build_site
from lessonkit.serve.server import ServerHandle

from .helpers import ROOT, commit_answer, wait_until

pytestmark = pytest.mark.browser
LRS_VENV = ROOT / ".venv-lrs"
PHONE = {"width": 390, "height": 844}
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
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Classroom:
    site: ServerHandle
    lrs: str
    made: dict[str, object]
    course: Path

    def show(self, key: str) -> str:
        """`lessonkit class show <id>` as the instructor runs it, the read key given."""
        proc = subprocess.run([sys.executable, "-m", "lessonkit", "class", "show", str(self.made["id"]), "--course",
                               str(self.course), "--name", "Monday"], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "LESSONKIT_CLASS_READ_KEY": key}, check=False)
        return proc.stdout + proc.stderr

    def show_until(self, key: str, done: Callable[[str], bool], page: Page, timeout: float = 30) -> str:
        """The instructor's view, shown again until `done` says it holds what the learner sent. It waits through
        `page` (the learner's): the suite's network guard routes the page's requests, and the sync API serves a
        route only while a Playwright call runs."""
        deadline = time.monotonic() + timeout
        while True:
            out = self.show(key)
            if done(out):
                return out
            if time.monotonic() > deadline:
                raise AssertionError(f"the tally after {timeout} s:\n{out}")
            page.wait_for_timeout(500)

    def get(self, key: str) -> int:
        """The status of reading the class's statements with `key`."""
        request = urllib.request.Request(f"{self.lrs}statements?registration={self.made['id']}", headers={
            "Authorization": "Basic " + base64.b64encode(key.encode()).decode(), "X-Experience-API-Version": "1.0.3"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return int(response.status)
        except urllib.error.HTTPError as exc:
            return exc.code


@pytest.fixture
def classroom(tmp_path: Path, start_test_server: Callable[..., ServerHandle]) -> Iterator[Classroom]:
    if not (LRS_VENV / "bin" / "python").is_file():
        pytest.fail("Ralph is not installed: `make lrs` makes .venv-lrs", pytrace=False)
    port = free_port()
    lrs = f"http://127.0.0.1:{port}/xAPI/"
    course = write_course(tmp_path / "course", {"course.yaml": f"id: classy\ntitle: A class course\nclass:\n  lrs: {lrs}\n",
                                                "class-lesson.md": LESSON})
    build_site(course, course / "site")
    site = start_test_server(course / "site", isolated=True)
    made = json.loads(subprocess.run([sys.executable, "-m", "lessonkit", "class", "new", "Monday", "--site", site.url,
                                      "--json", "--course", str(course)], capture_output=True, text=True, check=True,
                                     timeout=60).stdout)
    data = tmp_path / "lrs"
    env = {**os.environ, "RALPH_RUNSERVER_BACKEND": "fs", "RALPH_AUTH_FILE": str(data / "auth.json"),
           "RALPH_APP_DIR": str(data / "app"), "RALPH_BACKENDS__LRS__FS__DEFAULT_DIRECTORY_PATH": str(data / "store"),
           "RALPH_LRS_RESTRICT_BY_SCOPES": "true", "RALPH_LRS_RESTRICT_BY_AUTHORITY": "true",
           "RALPH_RUNSERVER_CORS_ALLOW_ORIGINS": json.dumps([site.url.rstrip("/")])}
    data.mkdir()
    for cmd in made["ralph"]:  # as the LRS's administrator types them
        subprocess.run([str(LRS_VENV / "bin" / cmd[0]), *cmd[1:]], env=env, check=True, capture_output=True,
                       timeout=120)
    ralph = subprocess.Popen([str(LRS_VENV / "bin" / "python"), "-m", "uvicorn", "ralph_fs:app", "--host",
                              "127.0.0.1", "--port", str(port)], cwd=ROOT / "tests" / "lrs", env=env,
                             stdout=(data / "ralph.log").open("wb"), stderr=subprocess.STDOUT)

    def up() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/__lbheartbeat__", timeout=2):
                return True
        except OSError:
            return ralph.poll() is not None and pytest.fail("Ralph stopped before it answered", pytrace=False)

    try:
        wait_until(up, timeout=120, message="Ralph to answer")
        yield Classroom(site, lrs, made, course)
    finally:
        ralph.terminate()
        ralph.wait(timeout=20)


def test_a_phones_answer_appears_in_the_instructors_tally(classroom: Classroom, new_page: Callable[..., Page]) -> None:
    made = classroom.made
    assert made["learner_key"] not in made["link"].split("#")[0]  # the key is in the fragment alone
    assert made["instructor_key"] not in made["link"]
    assert classroom.get(str(made["learner_key"])) == 401  # the learners' key reads nothing, not even its own
    assert classroom.get(str(made["instructor_key"])) == 200

    # A learner who has not joined sends nothing.
    stranger = new_page(classroom.site.url, viewport=PHONE, is_mobile=True, has_touch=True)
    sent: list[str] = []
    stranger.on("request", lambda r: sent.append(r.url) if r.url.startswith(classroom.lrs) else None)
    stranger.goto("class-lesson.html")
    commit_answer(stranger.get_by_role("group", name=re.compile("keep their order")).get_by_role("radio", name="Yes"))
    expect(stranger.get_by_role("region", name="Your class")).to_have_count(0)

    phone = new_page(viewport=PHONE, is_mobile=True, has_touch=True)
    phone.goto(str(made["link"]))
    offer = phone.get_by_role("region", name="Your class")
    expect(offer.get_by_role("heading")).to_have_text("Join the class “Monday”")
    expect(offer).to_contain_text(f"sends the class's record store at 127.0.0.1:{classroom.lrs.split(':')[2].split('/')[0]}")
    expect(offer).to_contain_text("the first option you checked")
    assert "class=" not in phone.url  # the key leaves the address bar
    offer.get_by_role("button", name="Join the class").click()
    expect(offer).to_contain_text("Type the name your instructor will see first.")
    offer.get_by_role("textbox", name="Your name in this class").fill("Ada")
    offer.get_by_role("button", name="Join the class").click()
    expect(offer).to_contain_text("You are in the class “Monday” as Ada")

    phone.get_by_role("link", name="Class lesson").first.click()
    expect(phone.get_by_role("region", name="Your class")).to_contain_text("You are in the class “Monday” as Ada")
    order = phone.get_by_role("group", name=re.compile("keep their order"))
    commit_answer(order.get_by_role("radio", name="No"))  # wrong first…
    expect(phone.get_by_role("region", name="Your class").get_by_role("status")).to_contain_text("Sent to your class")
    shown = classroom.show_until(str(made["instructor_key"]), lambda out: "1 answered" in out, phone)
    assert "Class “Monday”: 1 learner sent answers" in shown
    assert "option 1: 1" in shown, shown

    commit_answer(order.get_by_role("radio", name="Yes"))  # …then right: the first attempt stays "No"
    commit_answer(phone.get_by_role("group", name=re.compile("uniform")).get_by_role("radio", name="Yes"))
    shown = classroom.show_until(str(made["instructor_key"]), lambda out: out.count("1 answered") == 2 and "passed" in out,
                                  phone)
    lines = shown.splitlines()
    first = lines.index(next(line for line in lines if "keep their order" in line))
    assert lines[first + 1].strip() == "1 answered · first attempts: option 1: 1", shown
    second = lines.index(next(line for line in lines if "uniform" in line))
    assert lines[second + 1].strip() == "1 answered · first attempts: option 1 ✓: 1", shown
    assert "Lesson class-lesson: 1 passed, 1 completed" in shown, shown
    assert sent == []  # the learner who never joined sent nothing

    wrong = classroom.show("class-x-instructor:not-the-key")
    assert "answered 401" in wrong
