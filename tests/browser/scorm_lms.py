"""The SCORM tests' LMS: the course's real package (built from the site, unpacked) served on 127.0.0.1 beside a host
page around scorm-again (tests/fixtures/scorm-host/), as an LMS serves a package: from its own origin, in a frame,
with no COOP/COEP, and with its own table of types (`/pkg/`: the usual ones; `/pkg-moodle/`: Moodle's, which knows
.js, .html, .css, .json, .svg and .zip and serves everything else as "document/unknown").
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from places import FIXTURE
from playwright.sync_api import Frame, Locator, Page

from lessonkit.lms import vendor
from lessonkit.scorm.pack import packages, write_zip

from .helpers import ROOT, commit_answer, wait_until

HOST = ROOT / "tests" / "fixtures" / "scorm-host"
SCORM_AGAIN = ROOT / vendor.SCORM_AGAIN_ESM
LESSON_1 = "item-scaled-dot-product-attention"
LESSON_2 = "item-mixing-values"
LESSON_3 = "item-multi-head-attention"
BOOT_S = 90

TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript",
         ".css": "text/css", ".json": "application/json", ".wasm": "application/wasm", ".zip": "application/zip",
         ".whl": "application/zip", ".svg": "image/svg+xml", ".xml": "application/xml", ".xsd": "application/xml",
         ".png": "image/png"}
# Moodle's lib/classes/filetypes.php for the extensions a package of this site has; anything else is unknown.
MOODLE_TYPES = {".html": "text/html", ".js": "application/x-javascript", ".css": "text/css",
                ".json": "application/json", ".svg": "image/svg+xml", ".xml": "application/xml", ".zip": "application/zip",
                ".png": "image/png"}
UNKNOWN = "document/unknown"


@dataclass
class Package:
    """The course's SCORM package: its zip, and the folder it was unpacked into."""

    zip: Path
    folder: Path


@pytest.fixture(scope="session")
def scorm_package(tmp_path_factory: pytest.TempPathFactory) -> Package:
    """The course's package, unpacked (once per session, whichever module asks first)."""
    return course_package(tmp_path_factory.getbasetemp() / "scorm-package")


@functools.cache
def course_package(work: Path) -> Package:
    """The real course, built and packed once per session (into `work`), and unpacked as an LMS does."""
    from lessonkit.pipeline.site import build_site

    site = work / "site"
    built = build_site(FIXTURE, site)
    (only,) = packages(site, built, None)
    zip_path = work / only.name
    write_zip(zip_path, only.members)
    folder = work / "unpacked"
    with zipfile.ZipFile(zip_path) as z:
        z.extractall(folder)
    return Package(zip_path, folder)


@dataclass
class LMSServer:
    """The test LMS's origin and what it was asked for ([path, status])."""

    url: str
    log: list[tuple[str, int]] = field(default_factory=list)

    def asked(self, part: str) -> list[str]:
        return [path for path, _ in self.log if part in path]


def serve_lms(folder: Path) -> Iterator[LMSServer]:
    """Serve the host page, scorm-again and the unpacked package (`folder`) until the generator is closed."""
    lms = LMSServer("")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = unquote(urlsplit(self.path).path)
            body, kind = None, None
            if path.startswith("/host/"):
                body, kind = _read(HOST, path[len("/host/"):], TYPES)
            elif path == "/vendor/scorm-again/scorm2004.js":
                body, kind = SCORM_AGAIN.read_bytes(), "text/javascript"
            elif path.startswith("/pkg/"):
                body, kind = _read(folder, path[len("/pkg/"):], TYPES)
            elif path.startswith("/pkg-moodle/"):
                body, kind = _read(folder, path[len("/pkg-moodle/"):], MOODLE_TYPES)
            status = 200 if body is not None else 404
            lms.log.append((self.path, status))
            if body is None:
                body, kind = b"not found", "text/plain"
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the frame navigated away mid-response (the LMS launched another SCO): as any server, go on

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    lms.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield lms
    finally:
        server.shutdown()
        server.server_close()


def _read(folder: Path, rel: str, types: dict[str, str]) -> tuple[bytes | None, str]:
    """A file under `folder` (never outside it) and its type in `types`."""
    path = (folder / rel).resolve()
    if folder.resolve() not in path.parents or not path.is_file():
        return None, ""
    return path.read_bytes(), types.get(path.suffix, UNKNOWN)


class Host:
    """The test LMS page: its frame, what scorm-again recorded, and the lesson inside as a learner meets it."""

    def __init__(self, page: Page, lms: LMSServer) -> None:
        self.page = page
        self.lms = lms

    def open(self, query: str = "", saved: dict[str, Any] | None = None) -> Host:
        """Load the host (query: its URL parameters); `saved`: the CMI records a resumed learner has."""
        if saved is not None:
            self.page.add_init_script(f"window.__savedCMI = {json.dumps(saved)};")
        self.page.goto(f"{self.lms.url}/host/host.html?{query}")
        self.page.wait_for_function("window.__lms && window.__lms.ready")
        return self

    @property
    def frame(self) -> Frame:
        frame = self.page.query_selector("#content").content_frame()  # type: ignore[union-attr]
        assert frame is not None
        return frame

    def lesson(self, state: str = "open") -> Frame:
        """The lesson in the frame, once its LMS connection is in `state` (<html data-lms>: open, refused)."""
        self.page.wait_for_function("(state) => { const d = document.getElementById('content').contentDocument;"
                                    " return d?.documentElement?.dataset.lms === state; }", arg=state,
                                    timeout=BOOT_S * 1000)
        return self.frame

    def reload_lesson(self, state: str) -> Frame:
        """Reload the page in the frame (as a learner's F5 does) and wait for its connection's `state`."""
        self.frame.evaluate("window.__reloading = true; location.reload()")
        self.page.wait_for_function("(state) => { const w = document.getElementById('content').contentWindow;"
                                    " return !w.__reloading && w.document.documentElement?.dataset.lms === state; }",
                                    arg=state, timeout=BOOT_S * 1000)
        return self.frame

    def lms_state(self) -> dict[str, Any]:
        return self.page.evaluate("({current: __lms.current, launches: __lms.launches, log: __lms.log,"
                                  " records: __lms.records})")

    def cmi(self) -> dict[str, Any]:
        """What scorm-again holds now for the running SCO (renderCMIToJSONObject)."""
        return self.page.evaluate("__lms.api.renderCMIToJSONObject().cmi")

    def commits(self) -> list[dict[str, Any]]:
        return self.page.evaluate("__lms.commits")

    def wait_commit(self, predicate: str, message: str, timeout: float = 30) -> dict[str, Any]:
        """The CMI of the first Commit since the host opened for which `predicate` (JS over `cmi`, with `count`: its
        number of interactions, `count(cmi)`) holds."""
        js = ("() => { const count = (c) => Object.keys(c.interactions || {}).filter((k) => /^\\d+$/.test(k)).length;"
              " return __lms.commits.map((c) => c.cmi).find((cmi) => { try { return " + predicate + "; }"
              " catch { return false; } }); }")
        return wait_until(lambda: self.page.evaluate(js), page=self.page, timeout=timeout, message=message)

    def end(self) -> dict[str, Any]:
        """Exit the activity (the frame goes blank: pagehide, Terminate); the session's record."""
        current = self.page.evaluate("__lms.current")
        self.page.get_by_role("button", name="Exit activity").click()
        return wait_until(lambda: self.page.evaluate(f"__lms.records[{json.dumps(current)}]"), page=self.page,
                          message="the session's record at Terminate")

    def records(self) -> dict[str, Any]:
        return self.page.evaluate("__lms.records")


def interactions(cmi: dict[str, Any]) -> list[dict[str, Any]]:
    """cmi.interactions as a list, in index order."""
    found = cmi.get("interactions") or {}
    return [found[k] for k in sorted((k for k in found if k.isdigit()), key=int)]


def answer(frame: Frame, question: Locator | None, option: str) -> None:
    """Choose a quiz option by its label (within `question`, a fieldset, when given)."""
    where = question if question is not None else frame
    commit_answer(where.get_by_role("radio", name=option))


class InFrame:
    """A lesson in the LMS's frame, for the lab's and the exercise's test helpers (written for a page)."""

    def __init__(self, frame: Frame) -> None:
        self._frame = frame

    def __getattr__(self, name: str) -> Any:
        return getattr(self._frame, name)

    @property
    def keyboard(self) -> Any:
        return self._frame.page.keyboard


@dataclass
class Quiz:
    """One quiz of a lesson: its id, and for each question its correct option's place (1, 2, …) and option count."""

    id: str
    correct: list[int]
    options: list[int]


@dataclass
class LessonPlan:
    """What a learner who does everything right does in a lesson, read from the lesson's source."""

    slug: str
    item: str
    title: str
    quizzes: list[Quiz]
    exercise: str | None  # the exercise's solution
    explain: bool
    optional: bool = False  # its exercise is marked optional: it counts toward neither score nor completion

    @property
    def questions(self) -> int:
        return sum(len(q.correct) for q in self.quizzes)


def lesson_plans() -> list[LessonPlan]:
    """Every lesson of the course, in course order."""
    import re

    import yaml

    order = yaml.safe_load((FIXTURE / "course.yaml").read_text()).get("lessons")
    plans = []
    for md in (FIXTURE / "lesson").glob("*.md"):
        text = md.read_text(encoding="utf-8")
        meta = yaml.safe_load(text.split("---\n", 2)[1])
        slug = meta.get("slug", md.stem)
        blocks = re.findall(r"^```\{(\w+)\}\n(.*?)^```$", text, re.S | re.M)
        quizzes = [Quiz(b["id"], [next(n for n, o in enumerate(q["options"], 1) if o.get("correct"))
                                  for q in b["questions"]], [len(q["options"]) for q in b["questions"]])
                   for kind, body in blocks if kind == "quiz" for b in [yaml.safe_load(body)]]
        exercises = [yaml.safe_load(body) for kind, body in blocks if kind == "exercise"]
        exercise = exercises[0]["solution"] if exercises else None
        plans.append((order.index(slug) if order else meta.get("order", 0), LessonPlan(
            slug, f"item-{slug}", meta["title"], quizzes, exercise, any(kind == "explain" for kind, _ in blocks),
            bool(exercises and exercises[0].get("optional")))))
    return [plan for _, plan in sorted(plans, key=lambda p: p[0])]


def choose(frame: Frame, quiz: str, question: int, option: int) -> None:
    """Choose option `option` (1, 2, …) of question `question` (1, 2, …) of a quiz, as a learner does."""
    group = frame.locator(f"#quiz-{quiz}").get_by_role("group").nth(question - 1)
    commit_answer(group.get_by_role("radio").nth(option - 1))


def option_checked(frame: Frame, quiz: str, question: int, option: int) -> bool:
    group = frame.locator(f"#quiz-{quiz}").get_by_role("group").nth(question - 1)
    return group.get_by_role("radio").nth(option - 1).is_checked()
