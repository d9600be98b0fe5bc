"""A page framed by another origin on a host that sends no headers (a <meta> policy cannot carry frame-ancestors)
starts nothing and offers to open itself in its own tab (static/js/page/frame.js); the SCORM package's pages keep
working in their LMS's frame (its API found around them), even where another origin's page frames the LMS, and are
refused like any page in another site's frame without one.

The site is served by a plain static server (python's http.server, no header of ours), the framing page by another
127.0.0.1 port: another origin.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Frame, Page, expect

from .helpers import LESSON_PAGE, HeaderlessHost, wait_until
from .scorm_lms import LMSServer, Package, scorm_package, serve_lms
from .test_lab import BOOT_TIMEOUT, Lab

__all__ = ["scorm_package"]  # the session's package, a fixture

NOTICE = "This lesson is shown inside another site’s page, so nothing on it works here."


def _start(handler: Callable[..., http.server.BaseHTTPRequestHandler]) -> tuple[http.server.ThreadingHTTPServer, str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def framer() -> Iterator[Callable[[str], str]]:
    """Another origin whose page /frame?src=URL frames URL (a clickjacking page): framer(url) -> its address."""
    target: dict[str, str] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = f'<!doctype html><title>Another site</title><iframe src="{target["src"]}" width="900" ' \
                   'height="700"></iframe>'.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server, origin = _start(Handler)

    def frame(src: str) -> str:
        target["src"] = src
        return f"{origin}/frame"

    yield frame
    server.shutdown()
    server.server_close()


def framed(page: Page, url: str) -> Frame:
    """Open the framing page and return the lesson's frame once it has loaded."""
    page.goto(url)
    wait_until(lambda: len(page.frames) > 1 and page.frames[1].url != "about:blank", page=page,
               message="the framed page")
    frame = page.frames[1]
    frame.wait_for_load_state("load")
    return frame


def test_a_page_framed_by_another_origin_starts_nothing_and_opens_in_its_own_tab(
    new_page: Callable[..., Page], headerless: HeaderlessHost, framer: Callable[[str], str]
) -> None:
    page = new_page()
    frame = framed(page, framer(headerless.url + LESSON_PAGE))
    notice = frame.get_by_role("alert")
    expect(notice).to_contain_text(NOTICE)
    link = notice.get_by_role("link", name="Open the lesson in its own tab")
    assert link.get_attribute("href") == headerless.url + LESSON_PAGE
    assert link.get_attribute("target") == "_blank"
    # Nothing started: the lab has no controller, its Run button does nothing, no quiz answer is kept.
    assert frame.evaluate("document.querySelector('[data-lab]').labController") is None
    assert frame.evaluate("Object.keys(localStorage).length") == 0
    with page.context.expect_page() as opened:
        link.click()
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url == headerless.url + LESSON_PAGE
    expect(tab.get_by_role("alert").filter(has_text=NOTICE)).to_have_count(0)
    Lab(tab).wait_ready()


def test_the_course_index_framed_by_another_origin_starts_nothing(
    new_page: Callable[..., Page], headerless: HeaderlessHost, framer: Callable[[str], str]
) -> None:
    page = new_page()
    frame = framed(page, framer(headerless.url + "index.html"))
    expect(frame.get_by_role("alert")).to_contain_text(NOTICE)
    expect(frame.get_by_role("button", name="Reset progress")).to_have_count(0)


@pytest.fixture
def package_host(scorm_package: Package) -> Iterator[str]:
    """The SCORM package's files on a plain static server (an LMS's content origin)."""
    server, origin = _start(functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(scorm_package.folder)))
    yield origin + "/"
    server.shutdown()
    server.server_close()


def test_the_scorm_package_framed_by_another_site_without_an_lms_starts_nothing(
    new_page: Callable[..., Page], package_host: str, framer: Callable[[str], str]
) -> None:
    """A package's page is marked as living in its LMS's frame; in another site's frame with no LMS's API around it,
    it is any page framed by another site."""
    page = new_page()
    frame = framed(page, framer(package_host + LESSON_PAGE))
    expect(frame.get_by_role("alert")).to_contain_text(NOTICE, timeout=BOOT_TIMEOUT)
    assert frame.evaluate("document.querySelector('[data-lab]').labController") is None
    assert frame.evaluate("Object.keys(localStorage).length") == 0


@pytest.fixture
def lms(scorm_package: Package) -> Iterator[LMSServer]:
    yield from serve_lms(scorm_package.folder)


def test_the_scorm_package_works_in_its_lms_inside_another_sites_page(
    new_page: Callable[..., Page], lms: LMSServer, framer: Callable[[str], str]
) -> None:
    """An LMS's player, itself in another origin's page (a portal that frames the LMS): the lesson, in the player's
    frame of the package's origin, finds the LMS's API there and starts."""
    page = new_page()
    player = framed(page, framer(f"{lms.url}/host/host.html"))
    player.wait_for_function("window.__lms && window.__lms.ready")
    lesson = wait_until(lambda: next((f for f in player.child_frames if f.url.startswith(f"{lms.url}/pkg/")), None),
                        page=page, message="the lesson in the LMS's frame")
    wait_until(lambda: lesson.evaluate("document.documentElement.dataset.lms === 'open' && "
                                       "Boolean(document.querySelector('[data-lab]').labController)"),
               page=page, timeout=BOOT_TIMEOUT / 1000, message="the lesson connected to its LMS, its lab started")
    expect(lesson.get_by_role("alert").filter(has_text=NOTICE)).to_have_count(0)


def test_pages_of_the_package_say_they_live_in_an_lms_frame(scorm_package: Package) -> None:
    for name in (LESSON_PAGE, "index.html"):
        html = (Path(scorm_package.folder) / name).read_text(encoding="utf-8")
        assert '"framed": "lms"' in html, name
