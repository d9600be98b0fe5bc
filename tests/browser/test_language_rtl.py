"""A right-to-left course (the fixture course in Arabic: `language: ar`, a few words given in `strings:`) in
Chromium lays out from the right, measured where a learner sees it: the sidebar on the right of the lesson, the
lab's buttons from the right, a table's first column on the right, and a chart drawn mirrored (its first group of
bars on the right, its value axis on the right), as on the English page each is on the left."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Locator, Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE

BOOT_TIMEOUT = 120_000
WIDE = {"width": 1280, "height": 900}


def box(locator: Locator) -> dict[str, float]:
    found = locator.bounding_box()
    assert found, locator
    return found


def centre(locator: Locator) -> float:
    b = box(locator)
    return b["x"] + b["width"] / 2


def layout(page: Page, names: dict[str, str]) -> dict[str, bool]:
    """Which side each part of the lesson page starts from: True where it is laid out from the right."""
    heading = page.get_by_role("heading", level=1)
    sidebar = page.get_by_role("navigation", name=names["on_this_page"])
    lab = page.get_by_role("region", name=re.compile(r"^Python lab"))
    run = lab.get_by_role("button", name=names["run"], exact=True)
    stop = lab.get_by_role("button", name=names["stop"], exact=True)
    expect(run).to_be_enabled(timeout=BOOT_TIMEOUT)
    table = page.get_by_role("table").filter(has=page.get_by_role("columnheader", name="Softmax probability"))
    headers = table.get_by_role("columnheader")
    chart = lab.get_by_role("img").first
    expect(chart).to_be_visible()
    first, last = (chart.locator("text").filter(has_text=re.compile(f"^{n}$")) for n in ("1", "3"))
    tick = chart.locator("text").filter(has_text=re.compile(r"^\W*100\W*$"))  # "100 %" in any language's signs
    chart_box = box(chart)
    return {
        "sidebar": centre(sidebar) > centre(heading),
        "lab buttons": centre(run) > centre(stop),
        "table": centre(headers.first) > centre(headers.last),
        "chart groups": centre(first) > centre(last),
        "value axis": centre(tick) > chart_box["x"] + chart_box["width"] / 2,
    }


def test_a_right_to_left_lesson_lays_out_from_the_right(open_rtl: Callable[..., Page]) -> None:
    page = open_rtl(LESSON_PAGE, viewport=WIDE)
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    sides = layout(page, {"on_this_page": "في هذه الصفحة", "run": "تشغيل", "stop": "إيقاف"})
    assert sides == dict.fromkeys(sides, True)


def test_a_left_to_right_lesson_lays_out_from_the_left(new_page: Callable[..., Page], server: ServerHandle) -> None:
    """The same measures on the English page: each part from the left (what the test above tells apart)."""
    page = new_page(server.url, viewport=WIDE)
    page.goto(LESSON_PAGE)
    sides = layout(page, {"on_this_page": "On this page", "run": "Run", "stop": "Stop"})
    assert sides == dict.fromkeys(sides, False)
