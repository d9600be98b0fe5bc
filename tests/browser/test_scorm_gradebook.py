"""What a gradebook shows for each way a learner goes through a lesson, played in two real SCORM players (scorm-again
in the test LMS of scorm_lms.py, and PyPI scormhost): an optional exercise left out of score and completion unless
the course counts it, success decided once every counted item is answered, and a score by final or first answers.

The course is this test's own: one lesson with a one-question Predict quiz, a three-question Quick Check, an optional
exercise and an "Explain it back", built three times (course.yaml's default rule, `scoring: first-attempt`, and
`optional: counted`). The table in docs/lesson/lms.md ("What a gradebook shows") is these cases.
"""

from __future__ import annotations

import socket
import threading
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from course import write_course
from playwright.sync_api import Frame, Page
from required import require

from lessonkit.pipeline.site import build_site
from lessonkit.scorm.pack import packages, write_zip

from .helpers import wait_until
from .scorm_lms import BOOT_S, Host, LMSServer, Package, choose, interactions, serve_lms

pytestmark = pytest.mark.browser

LESSON = """---
title: Gradebook
slug: gradebook
---

## Predict

```{quiz}
id: predict
questions:
  - question: Will doubling every score sharpen the weights?
    options:
      - text: "Yes"
        correct: true
        why: Wider gaps, a sharper softmax.
      - text: "No"
        why: The gaps widen.
```

## Quick Check

```{quiz}
id: check
questions:
  - question: Is one plus one two?
    options:
      - text: "Yes"
        correct: true
        why: It is.
      - text: "No"
        why: It is two.
  - question: Is two plus two four?
    options:
      - text: "Yes"
        correct: true
        why: It is.
      - text: "No"
        why: It is four.
  - question: Is three even?
    options:
      - text: "Yes"
        why: It is odd.
      - text: "No"
        correct: true
        why: It is odd.
```

## Optional exercise

```{exercise}
id: double
title: "Optional exercise: double it"
optional: true
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

## Explain it back

```{explain}
id: say
prompt: "Why does the scale matter?"
claims:
  - text: It keeps the softmax from saturating.
    verdict: correct.
```
"""
COURSE = "id: gradebook\ntitle: Gradebook course\nscorm:\n  passing: 0.8\n"
RULES = {"final": "", "first-attempt": "  scoring: first-attempt\n", "counted": "  optional: counted\n"}
ITEM = "item-gradebook"
DRAFT = "Dividing keeps the gaps from growing with the width."


def play(frame: Frame, steps: list[tuple[str, int, int] | str]) -> None:
    """A learner's steps: (quiz, question, option) checked answers, and "explain" (a draft written)."""
    for step in steps:
        if step == "explain":
            frame.get_by_role("textbox", name="Your explanation").fill(DRAFT)
        else:
            choose(frame, *step)


@dataclass(frozen=True)
class Case:
    """One way through the lesson, under one course rule, and what the LMS then records."""

    rule: str
    steps: list[tuple[str, int, int] | str]
    score: dict[str, str]  # cmi.score: raw, min, max, scaled ("" when the lesson gives none)
    success: str
    completion: str
    progress: str


ALL_RIGHT = [("predict", 1, 1), ("check", 1, 1), ("check", 2, 1), ("check", 3, 2), "explain"]
# The instructor's lesson 1: Predict wrong then right, Quick Check 2 of 3, explanation written; the exercise skipped.
WRONG_THEN_RIGHT = [("predict", 1, 2), ("predict", 1, 1), ("check", 1, 1), ("check", 2, 1), ("check", 3, 1), "explain"]
HALF_WAY = [("predict", 1, 1), ("check", 1, 1)]
CASES = {
    "everything but the optional exercise": Case("final", ALL_RIGHT, {"raw": "4", "min": "0", "max": "4", "scaled": "1"},
                                                 "passed", "completed", "1"),
    "one wrong, the rest right": Case("final", WRONG_THEN_RIGHT, {"raw": "3", "min": "0", "max": "4", "scaled": "0.75"},
                                      "failed", "completed", "1"),
    "half way": Case("final", HALF_WAY, {"raw": "2", "min": "0", "max": "4", "scaled": ""}, "unknown", "incomplete",
                     "0.4"),
    "first attempts scored": Case("first-attempt", WRONG_THEN_RIGHT,
                                  {"raw": "2", "min": "0", "max": "4", "scaled": "0.5"}, "failed", "completed", "1"),
    "optional counted, skipped": Case("counted", ALL_RIGHT, {"raw": "4", "min": "0", "max": "5", "scaled": ""},
                                      "unknown", "incomplete", "0.8333"),
}


@pytest.fixture(scope="module")
def packs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Package]:
    """The lesson's package under each rule, zipped and unpacked."""
    made = {}
    for rule, extra in RULES.items():
        work = tmp_path_factory.mktemp(f"gradebook-{rule}")
        root = write_course(work / "course", {"course.yaml": COURSE + extra, "gradebook.md": LESSON})
        site = work / "site"
        built = build_site(root, site)
        (only,) = packages(site, built, None)
        zip_path = work / only.name
        write_zip(zip_path, only.members)
        with zipfile.ZipFile(zip_path) as z:
            z.extractall(work / "unpacked")
        made[rule] = Package(zip_path, work / "unpacked")
    return made


@pytest.fixture(scope="module")
def lmss(packs: dict[str, Package]) -> Iterator[dict[str, LMSServer]]:
    servers = {rule: serve_lms(pack.folder) for rule, pack in packs.items()}
    try:
        yield {rule: next(gen) for rule, gen in servers.items()}
    finally:
        for gen in servers.values():
            gen.close()


@pytest.mark.parametrize("name", CASES)
def test_scorm_again_records_what_the_rule_says(name: str, lmss: dict[str, LMSServer],
                                                new_page: Callable[..., Page]) -> None:
    case = CASES[name]
    lms = Host(new_page(lmss[case.rule].url), lmss[case.rule]).open(f"item={ITEM}")
    play(lms.lesson(), case.steps)
    try:
        lms.wait_commit(f"cmi.score.raw === '{case.score['raw']}' && cmi.progress_measure === '{case.progress}'",
                        "the last step reported")
    except AssertionError:
        last = lms.commits()[-1]["cmi"] if lms.commits() else {}
        raise AssertionError(f"last commit: {last.get('score')}, {last.get('progress_measure')}") from None
    cmi = lms.end()["cmi"]
    assert cmi["score"] == case.score
    assert (cmi["success_status"], cmi["completion_status"], cmi["progress_measure"]) == (
        case.success, case.completion, case.progress)
    if case.steps is WRONG_THEN_RIGHT:  # the first attempt beside the final answer
        own = "urn:lessonkit:gradebook:gradebook:"
        found = {i["id"].removeprefix(own): (i["learner_response"], i["result"]) for i in interactions(cmi)}
        assert (found["predict:1"], found["predict:1:first"]) == (("1", "correct"), ("2", "incorrect")), found


TEACHER = {"email": "teacher@example.com", "username": "teacher", "password": "correct-horse-1",
           "display_name": "Ada Teacher"}


@pytest.fixture(scope="module")
def scormhost_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """scormhost on 127.0.0.1 (the test extra's; missing, its cases skip, and fail under CI)."""
    scormhost = require("scormhost")
    uvicorn = require("uvicorn")
    app = scormhost.create_scorm_app(data_dir=tmp_path_factory.mktemp("scormhost-gradebook"), title="gradebook",
                                     secret_key="a test's own key, never a secret")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_until(lambda: server.started, timeout=30, message="scormhost to start")
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@pytest.mark.parametrize("name", CASES)
def test_scormhost_stores_what_the_rule_says(name: str, scormhost_url: str, packs: dict[str, Package],
                                             new_page: Callable[..., Page]) -> None:
    case = CASES[name]
    page = new_page()
    request = page.context.request
    registered = request.post(f"{scormhost_url}/api/auth/register", data=TEACHER)
    if not registered.ok:  # the teacher registered for an earlier case
        assert request.post(f"{scormhost_url}/api/auth/login", data={
            "email": TEACHER["email"], "password": TEACHER["password"]}).ok
    # The package uploaded for this case alone: a fresh activity, with no record of an earlier case's.
    pack = packs[case.rule]
    upload = request.post(f"{scormhost_url}/api/packages", multipart={"file": {
        "name": pack.zip.name, "mimeType": "application/zip", "buffer": pack.zip.read_bytes()}})
    assert upload.status == 201, upload.text()
    package, href = upload.json()["id"], upload.json()["manifest"]["launches"][0]["href"]
    page.goto(f"{scormhost_url}/launch/{package}?launch={href}")
    page.wait_for_function("() => document.getElementById('scormhost-content').contentDocument?.documentElement"
                           "?.dataset.lms === 'open'", timeout=BOOT_S * 1000)
    frame = page.query_selector("#scormhost-content").content_frame()  # type: ignore[union-attr]
    assert frame is not None
    play(frame, case.steps)

    def stored() -> dict[str, Any] | None:
        response = page.context.request.get(f"{scormhost_url}/api/scorm/{package}/cmi?launch={href}")
        cmi = dict(response.json()["elements"]) if response.ok else {}
        return cmi if (cmi.get("cmi.score.raw") == case.score["raw"]
                       and cmi.get("cmi.progress_measure") == case.progress) else None

    cmi = wait_until(stored, page=page, timeout=30, message="scormhost to store the last step")
    assert {k: cmi.get(f"cmi.score.{k}", "") for k in case.score} == case.score
    assert (cmi["cmi.success_status"], cmi["cmi.completion_status"]) == (case.success, case.completion)
