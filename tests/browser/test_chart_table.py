"""A lab chart's data table in Chromium: at 320 px it scrolls sideways in a box the keyboard can focus, and each
chart's disclosure and scroller has a name of its own (its chart and its run)."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE, assert_no_axe_violations
from .test_instructor import Tools


def test_the_chart_tables_are_named_focusable_scrollers(new_page: Callable[..., Page], server: ServerHandle) -> None:
    page = new_page(server.url, viewport={"width": 320, "height": 640})
    page.goto(LESSON_PAGE)
    tools = Tools(page)
    tools.wait_ready()
    tools.run()
    tools.run()
    expect(tools.previous).to_be_visible()
    for summary in tools.output.locator(".lab-chart-table > summary").all():
        summary.click()
    scrollers = tools.output.get_by_role("group", name="Data of Softmax probability per position", exact=False)
    expect(scrollers).to_have_count(2)
    names = [s.get_attribute("aria-label") for s in scrollers.all()]
    assert names == ["Data of Softmax probability per position, this run (scrolls sideways on narrow screens)",
                     "Data of Softmax probability per position, the previous run (scrolls sideways on narrow screens)"]
    first = scrollers.first
    assert first.evaluate("(el) => el.scrollWidth > el.clientWidth"), "at 320 px the table should scroll in its box"
    first.focus()
    expect(first).to_be_focused()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("(el) => el.scrollLeft > 0", arg=first.element_handle())
    summaries = [s.text_content() for s in tools.output.locator(".lab-chart-table > summary").all()]
    assert len(set(summaries)) == len(summaries), summaries
    assert_no_axe_violations(page)
