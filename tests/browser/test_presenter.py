"""Presenter mode in Chromium, as an instructor projects a lesson: at 1920×1080 and 1280×720 the values panel and the
run's chart on one screen, the previous run beside the current one on the wide screen, heatmaps scaled to the room;
the setting kept across the lessons and the index until turned off, by its button or its shortcut, with the focused
control kept in view."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Locator, Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE, assert_no_axe_violations
from .test_instructor import Tools

PRESENTER_KEY = "lessonkit:v1:course:presenter"
HEATMAP_PAGE = "multi-head-attention.html"


def box(locator: Locator) -> dict[str, float]:
    """The element's bounding box (it must be laid out)."""
    found = locator.bounding_box()
    assert found is not None, f"{locator} is not laid out"
    return found


def in_viewport(page: Page, locator: Locator) -> bool:
    """Whether the element's whole box is on the screen."""
    b = box(locator)
    size = page.viewport_size
    assert size is not None
    right, bottom = b["x"] + b["width"], b["y"] + b["height"]
    return b["x"] >= 0 and b["y"] >= 0 and right <= size["width"] + 0.5 and bottom <= size["height"] + 0.5


def header_button(page: Page) -> Locator:
    """The page header's presenter-mode button."""
    return page.get_by_role("banner").get_by_role("button", name="Presenter mode")


def presenting(page: Page) -> bool:
    """Whether the page is in presenter mode."""
    return bool(page.evaluate("document.documentElement.classList.contains('presenting')"))


def run_twice(tools: Tools) -> None:
    """Two runs, so that the previous run's panel shows too."""
    tools.run()  # the lesson's own values: no prediction asked
    tools.run()
    expect(tools.previous).to_be_visible()
    expect(tools.current.locator(".lab-chart svg").first).to_be_visible()


def values_panel(tools: Tools) -> Locator:
    """The lab's values panel (lesson 1's raw scores, lesson 3's tokens)."""
    return tools.root.get_by_role("group", name=re.compile(r"^(Raw scores|The tokens)"))


def edit_a_value(tools: Tools) -> Locator:
    """Focus the values panel's first field, as the instructor does to edit it: the browser scrolls it into view."""
    field = values_panel(tools).get_by_role("spinbutton").first
    field.focus()
    field.scroll_into_view_if_needed()
    return field


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)], ids=["1920x1080", "1280x720"])
def test_the_values_panel_and_the_runs_chart_are_on_one_screen(open_tools: Callable[..., Tools], size: tuple[int, int]) -> None:
    width, height = size
    tools = open_tools(viewport={"width": width, "height": height})
    page = tools.page
    header_button(page).click()
    expect(header_button(page)).to_have_attribute("aria-pressed", "true")
    run_twice(tools)
    panel = tools.logits
    chart = tools.current.locator(".lab-chart svg").first
    edit_a_value(tools)
    page.keyboard.press("End")
    assert in_viewport(page, panel), f"values panel {box(panel)} is off a {width}×{height} screen"
    assert in_viewport(page, chart), f"the run's chart {box(chart)} is off a {width}×{height} screen with the values panel"
    # Side by side: the output to the right of the edit, not below it.
    assert box(tools.output)["x"] >= box(panel)["x"] + box(panel)["width"]
    # No sidebar beside the lesson: the lab takes the screen's width.
    assert box(tools.root)["width"] >= 0.9 * width
    if width >= 1600:
        current, previous = box(tools.current), box(tools.previous)
        assert previous["x"] >= current["x"] + current["width"], "the previous run should stand beside this run"
        assert previous["y"] == pytest.approx(current["y"], abs=2)
        assert in_viewport(page, tools.previous.locator(".lab-chart svg").first)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px in presenter mode"
    assert_no_axe_violations(page)


def drawn_width(svg: Locator) -> float:
    """The width a heatmap's drawing takes in its box: its viewBox scaled to fit the box (as "meet" fits it)."""
    return float(svg.evaluate("(s) => { const v = s.viewBox.baseVal, b = s.getBoundingClientRect(); "
                              "return v.width * Math.min(b.width / v.width, b.height / v.height); }"))


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)], ids=["1920x1080", "1280x720"])
def test_heatmaps_grow_to_the_room_they_have(open_tools: Callable[..., Tools], size: tuple[int, int]) -> None:
    width, height = size
    tools = open_tools(HEATMAP_PAGE, viewport={"width": width, "height": height})
    figure = tools.current.locator("figure.lab-heatmap-figure").first
    heatmap = figure.locator("svg.lab-heatmap-svg")
    expect(heatmap).to_be_visible()
    drawn = float(heatmap.evaluate("(svg) => svg.viewBox.baseVal.width"))
    assert drawn_width(heatmap) == pytest.approx(drawn, abs=1), "outside presenter mode a heatmap is as drawn"
    tools.page.keyboard.press("Alt+Shift+P")
    assert presenting(tools.page)
    grown = drawn_width(heatmap)
    # As wide as its room allows: on the short screen its height (a third of the screen) is what stops it.
    assert grown >= (1.5 if width >= 1600 else 1.15) * drawn, f"a heatmap drawn {drawn}px wide is {grown}px wide"
    # The instructor runs, then edits a value: the whole heatmap of this run, its colour scale too, is on the screen
    # with the values panel (and the previous run beside it on the wide screen), no taller than about half the screen.
    tools.run()
    expect(tools.previous).to_be_visible()
    edit_a_value(tools)
    panel = values_panel(tools)
    assert in_viewport(tools.page, panel), f"the values panel {box(panel)} is off a {width}×{height} screen"
    assert in_viewport(tools.page, figure.locator("svg.lab-heatmap-svg")), \
        f"the heatmap {box(heatmap)} is off a {width}×{height} screen while a value is edited"
    scale = figure.locator(".lab-heat-legend").first
    assert in_viewport(tools.page, scale), f"the heatmap's scale {box(scale)} is off a {width}×{height} screen"
    assert box(heatmap)["height"] <= 0.56 * height


def test_the_output_keeps_its_lines_whole_when_there_is_room(open_tools: Callable[..., Tools]) -> None:
    """At 1920×1080 the output's box holds the lesson's lines whole; at 1280×720 they keep their lines too, and
    scroll in their box instead of wrapping."""
    for width, height, room in ((1920, 1080, True), (1280, 720, False)):
        tools = open_tools(viewport={"width": width, "height": height})
        tools.page.keyboard.press("Alt+Shift+P")
        assert presenting(tools.page)
        pre = tools.current.locator("pre")
        printed = len(tools.lines())
        shown = pre.evaluate("""(pre) => {
          const style = getComputedStyle(pre);
          const inner = pre.scrollHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
          return { lines: Math.round(inner / parseFloat(style.lineHeight)), wide: pre.scrollWidth > pre.clientWidth };
        }""")
        assert shown["lines"] == printed, f"{printed} printed lines take {shown['lines']} at {width}×{height}"
        assert shown["wide"] is not room, f"at {width}×{height} the lines {'scroll' if shown['wide'] else 'fit'}"


def test_the_sidebar_folds_into_closed_lists_above_the_lesson(open_tools: Callable[..., Tools]) -> None:
    """On a wide screen the sidebar's lists are open beside the lesson; presenter mode folds them into closed lists
    above it, so the first screen is the lesson's, whether it is turned on there or the page opens in it."""
    tools = open_tools(viewport={"width": 1920, "height": 1080}, ready=False)
    page = tools.page
    toc = page.get_by_role("navigation", name="On this page")
    lessons = page.get_by_role("navigation", name="Lessons in this course")
    expect(toc).to_be_visible()
    expect(lessons).to_be_visible()
    page.keyboard.press("Alt+Shift+P")
    assert presenting(page)
    expect(toc).to_be_hidden()
    expect(lessons).to_be_hidden()
    title = page.get_by_role("heading", level=1)
    assert in_viewport(page, title), f"the lesson's title {box(title)} is below the first screen"
    page.reload()
    assert presenting(page)
    expect(toc).to_be_hidden()
    assert in_viewport(page, title)
    page.get_by_text("On this page", exact=True).click()  # opened by the instructor, as any disclosure
    expect(toc).to_be_visible()
    page.keyboard.press("Alt+Shift+P")  # off: beside the lesson and open again
    assert not presenting(page)
    expect(toc).to_be_visible()
    expect(lessons).to_be_visible()


def test_presenter_mode_stays_on_across_lessons_and_the_index_until_turned_off(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    page = tools.page
    expect(header_button(page)).to_have_attribute("aria-pressed", "false")
    expect(header_button(page)).to_have_attribute("aria-keyshortcuts", "Alt+Shift+P")
    page.keyboard.press("Alt+Shift+P")
    expect(header_button(page)).to_have_attribute("aria-pressed", "true")
    expect(tools.presenter).to_have_attribute("aria-pressed", "true")  # the lab's own button follows
    assert page.evaluate(f"localStorage.getItem({PRESENTER_KEY!r})") == "true"
    assert "present" not in page.url  # the browser's setting, never the address's

    page.get_by_text("Lessons", exact=True).click()  # the lessons' list, folded above the lesson on a wide screen
    page.get_by_role("link", name="All lessons").first.click()
    page.wait_for_load_state()
    assert page.evaluate("document.body.querySelector('.course-index') !== null")
    assert presenting(page)
    expect(header_button(page)).to_have_attribute("aria-pressed", "true")
    page.get_by_role("link", name="Mixing Values").first.click()
    page.wait_for_load_state()
    assert presenting(page)

    header_button(page).click()  # turned off here: off everywhere
    assert not presenting(page)
    assert page.evaluate(f"localStorage.getItem({PRESENTER_KEY!r})") is None
    page.goto(LESSON_PAGE)
    assert not presenting(page)
    expect(header_button(page)).to_have_attribute("aria-pressed", "false")


def test_turning_it_on_keeps_the_focused_control_in_view(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools(viewport={"width": 1920, "height": 1080})
    page = tools.page
    tools.presenter.scroll_into_view_if_needed()
    tools.presenter.focus()
    before = box(tools.presenter)["y"]
    page.keyboard.press("Enter")
    expect(tools.presenter).to_have_attribute("aria-pressed", "true")
    assert in_viewport(page, tools.presenter), f"the toggle moved from y={before} to {box(tools.presenter)}"
    assert box(tools.presenter)["y"] == pytest.approx(before, abs=40)
    page.keyboard.press("Enter")
    expect(tools.presenter).to_have_attribute("aria-pressed", "false")
    assert in_viewport(page, tools.presenter)


NO_STORAGE = "Object.defineProperty(window, 'localStorage', { get() { throw new DOMException('off', 'SecurityError'); } });"


def test_presenter_mode_without_storage_lasts_for_the_page(open_tools: Callable[..., Tools], new_page: Callable[..., Page],
                                                           server: ServerHandle) -> None:
    page = new_page(server.url)
    page.add_init_script(NO_STORAGE)
    tools = open_tools(page=page)
    header_button(page).click()
    assert presenting(page)
    expect(tools.presenter).to_have_attribute("aria-pressed", "true")
