"""What the page's scripts show after the first paint moves nothing already on screen: the search box and the
presenter button in the header, the course index's progress rows and its "Save the course for offline use" (the
stylesheet keeps their room where scripts run). Layout shifts as Chromium reports them (the layout-shift entries
that no input caused), on a phone's width and a laptop's, once each thing is shown."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Browser, Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE
from .test_lab import Lab
from .test_offline import SW_TIMEOUT

# Installed before any of the page's scripts: every layout shift, summed.
SHIFTS = """(() => {
  window.__shifts = [];
  new PerformanceObserver((list) => list.getEntries().forEach((e) => {
    if (!e.hadRecentInput) window.__shifts.push(e.value);
  })).observe({ type: "layout-shift", buffered: true });
})()"""
SHIFTED = "window.__shifts.reduce((a, b) => a + b, 0)"
NONE = 0.02  # a sum of layout shifts this small is no visible movement (Lighthouse counts 0.1 as good)


@pytest.fixture(scope="module")
def browser(full_browser: Browser) -> Browser:
    """These tests count what the browser paints, so they run in the full Chromium learners have rather than the
    suite's headless shell, whose frames are not the browser's: there the lab's editor can be painted before
    CodeMirror has measured its lines (its gutter then moves), a frame the full Chromium never paints."""
    return full_browser


@pytest.mark.parametrize("width", [412, 1350], ids=["phone", "laptop"])
def test_the_course_index_moves_nothing_as_its_scripts_fill_it(width: int, new_page: Callable[..., Page],
                                                                server: ServerHandle) -> None:
    page = new_page(server.url, service_workers="allow", viewport={"width": width, "height": 820})
    page.add_init_script(SHIFTS)
    page.goto("index.html")
    expect(page.get_by_role("search")).to_be_visible()
    expect(page.get_by_role("banner").get_by_role("button", name="Presenter mode")).to_be_visible()
    expect(page.locator("[data-lesson-progress]").first).to_be_visible()
    expect(page.get_by_role("button", name="Save the course for offline use")).to_be_visible(timeout=SW_TIMEOUT * 1000)
    assert page.evaluate(SHIFTED) < NONE


@pytest.mark.parametrize("width", [412, 1350], ids=["phone", "laptop"])
def test_a_lesson_moves_nothing_as_its_scripts_start(width: int, new_page: Callable[..., Page],
                                                     server: ServerHandle) -> None:
    page = new_page(server.url, viewport={"width": width, "height": 820})
    page.add_init_script(SHIFTS)
    page.goto(LESSON_PAGE)
    expect(page.get_by_role("search")).to_be_visible()
    expect(page.get_by_role("banner").get_by_role("button", name="Presenter mode")).to_be_visible()
    Lab(page).wait_ready()
    page.evaluate("window.scrollTo(0, 0)")  # wait_ready scrolled to the lab: the shifts counted are the load's
    assert page.evaluate(SHIFTED) < NONE
