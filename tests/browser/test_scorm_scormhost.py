"""A second real SCORM player: PyPI scormhost (FastAPI and SQLite; its launch page has a SCORM 2004 API of its own,
which keeps every cmi.* value and stores them on its server at each Commit). The course's zip is uploaded as a
teacher uploads it, lesson 1 is launched, answered and drafted, and what scormhost stored is read back over its HTTP
API; a fresh browser context, logged in as the same learner, resumes the lesson from it.

scormhost's API is permissive (it stores any cmi.* string, GetLastError is always "0", there is no _count): what it
shows is that the package uploads, launches, finds the API, reports and resumes through a real server's store.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Frame, Page, expect
from required import require

from .helpers import wait_until
from .scorm_lms import BOOT_S, Package, choose, lesson_plans, option_checked, scorm_package

__all__ = ["scorm_package"]
uvicorn = require("uvicorn")
scormhost = require("scormhost")

PLAN = lesson_plans()[0]
TEACHER = {"email": "teacher@example.com", "username": "teacher", "password": "correct-horse-1",
           "display_name": "Ada Teacher"}
DRAFT = "Dividing by √d_k keeps the spread of the scores the same — ü€😀."


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """scormhost on 127.0.0.1, its data (SQLite, unpacked packages) in a folder of this test's."""
    app = scormhost.create_scorm_app(data_dir=tmp_path_factory.mktemp("scormhost"), title="lessonkit test LMS",
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


def launch(page: Page, base: str, package: str, href: str) -> Frame:
    """Open scormhost's launch page of one SCO; the lesson in its frame, once connected to scormhost's API."""
    page.goto(f"{base}/launch/{package}?launch={href}")
    page.wait_for_function("() => document.getElementById('scormhost-content').contentDocument?.documentElement"
                           "?.dataset.lms === 'open'", timeout=BOOT_S * 1000)
    frame = page.query_selector("#scormhost-content").content_frame()  # type: ignore[union-attr]
    assert frame is not None
    return frame


def stored(context: BrowserContext, base: str, package: str, href: str) -> dict[str, Any]:
    response = context.request.get(f"{base}/api/scorm/{package}/cmi?launch={href}")
    assert response.ok, response.status
    return dict(response.json()["elements"])


def test_scormhost_takes_the_zip_records_lesson_1_and_resumes_it(
        host: str, scorm_package: Package, new_page: Callable[..., Page]) -> None:
    page = new_page()
    context = page.context
    assert context.request.post(f"{host}/api/auth/register", data=TEACHER).ok  # the first user: its admin
    upload = context.request.post(f"{host}/api/packages", multipart={"file": {
        "name": scorm_package.zip.name, "mimeType": "application/zip", "buffer": scorm_package.zip.read_bytes()}})
    assert upload.status == 201, upload.text()
    made = upload.json()
    manifest = made["manifest"]
    assert manifest["schema_version"] == "2004 4th Edition"
    assert [launch["title"] for launch in manifest["launches"]] == [plan.title for plan in lesson_plans()]
    package, href = made["id"], manifest["launches"][0]["href"]
    assert href == f"{PLAN.slug}.html"

    frame = launch(page, host, package, href)
    choose(frame, "predict", 1, 1)  # right
    choose(frame, "quick-check", 1, 2)  # right
    choose(frame, "quick-check", 3, 1)  # wrong
    frame.get_by_role("textbox", name="Your explanation").fill(DRAFT)
    cmi = wait_until(lambda: (lambda s: s if "cmi.interactions.6.id" in s and DRAFT in s.get(
        "cmi.interactions.6.learner_response", "") else None)(stored(context, host, package, href)),
        page=page, timeout=30, message="scormhost to store the draft")
    own = f"urn:lessonkit:attention:{PLAN.slug}:"
    rows = [(cmi[f"cmi.interactions.{n}.id"].removeprefix(own), cmi[f"cmi.interactions.{n}.type"],
             cmi[f"cmi.interactions.{n}.learner_response"], cmi[f"cmi.interactions.{n}.result"]) for n in range(7)]
    assert rows == [("predict:1", "choice", "1", "correct"), ("predict:1:first", "choice", "1", "correct"),
                    ("quick-check:1", "choice", "2", "correct"), ("quick-check:1:first", "choice", "2", "correct"),
                    ("quick-check:3", "choice", "1", "incorrect"), ("quick-check:3:first", "choice", "1", "incorrect"),
                    ("explain-it-back", "other", DRAFT, "neutral")]
    # 2 of 4 (the 4 questions; the exercise is optional); 4 of 5 done (questions, the draft) — not all answered yet,
    # so no scaled score: an LMS would judge success by it.
    score = {k: cmi.get(f"cmi.score.{k}", "") for k in ("raw", "min", "max", "scaled")}
    assert score == {"raw": "2", "min": "0", "max": "4", "scaled": ""}
    assert (cmi["cmi.success_status"], cmi["cmi.completion_status"]) == ("unknown", "incomplete")
    assert cmi["cmi.progress_measure"] == "0.8"
    assert cmi["cmi.suspend_data"].startswith("lk1:") and cmi["cmi.learner_name"] == "Ada Teacher"
    # The learner leaves the lesson within the player (it swaps its content frame): pagehide, exit suspend, Terminate,
    # and scormhost stores again. Not by closing the player itself: scormhost's player queues each save behind the one
    # before, so a save still in flight when its own page goes away takes the Terminate's with it.
    page.evaluate("document.getElementById('scormhost-content').src = 'about:blank'")
    wait_until(lambda: stored(context, host, package, href).get("cmi.exit") == "suspend", page=page,
               message="scormhost to store the session's end")

    # Another browser, the same learner logged in: scormhost gives the lesson its record back.
    other = new_page()
    assert other.context.request.post(f"{host}/api/auth/login", data={
        "email": TEACHER["email"], "password": TEACHER["password"]}).ok
    frame = launch(other, host, package, href)
    assert option_checked(frame, "predict", 1, 1) and option_checked(frame, "quick-check", 3, 1)
    expect(frame.get_by_role("textbox", name="Your explanation")).to_have_value(DRAFT)
    choose(frame, "quick-check", 3, 2)  # corrected: the same interaction (found by its id), now right
    wait_until(lambda: stored(other.context, host, package, href).get("cmi.interactions.4.result") == "correct",
               page=other, message="the corrected answer stored")
    again = stored(other.context, host, package, href)
    assert "cmi.interactions.7.id" not in again and again["cmi.score.raw"] == "3"
    assert again["cmi.interactions.5.learner_response"] == "1"  # the first attempt stays
