"""Search across the course in Chromium: the box in the header finds a lesson's section by a word in its text.

The course is a fixture of this test (two lessons with no lab), built and served like the real site.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from course import build, write_course
from playwright.sync_api import Locator, Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import PageErrors, assert_no_axe_violations
from .test_offline import FAVICON, SW_TIMEOUT, wait_controlled

FIRST = """---
title: Counting sheep
order: 1
summary: How many sheep are in the meadow.
---

## The meadow

Count the sheep in the meadow, one at a time. Sheep & lambs `<count>` alike.

## Counting by twos

Pairs of sheep go faster.
"""

SECOND = """---
title: Painting fences
order: 2
summary: A fence needs paint.
---

## Brushes

Choose a wide brush for long boards.

## Drying in the sun

Whitewash dries quickly on a warm afternoon; the zeppelin overhead casts no shadow on it.
"""

COURSE = "title: Farm chores\n"


@pytest.fixture(scope="module")
def search_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two-lesson fixture course, built once for this module."""
    root = write_course(tmp_path_factory.mktemp("search"),
                        {"counting-sheep.md": FIRST, "painting-fences.md": SECOND, "course.yaml": COURSE})
    return build(root)


@pytest.fixture
def search_server(search_site: Path, start_module_server: Callable[..., ServerHandle]) -> ServerHandle:
    """The fixture course with production headers, cross-origin isolated."""
    return start_module_server(search_site, isolated=True)


def search_box(page: Page) -> tuple[Locator, Locator, Locator]:
    """The box's input, its live status and its result list."""
    box = page.get_by_role("search", name="Course")
    return (box.get_by_role("searchbox", name="Search the course"), box.get_by_role("status"),
            box.get_by_role("list", name="Search results"))


def test_a_word_only_lesson_two_has_finds_its_section_and_the_keyboard_gets_there(
        new_page: Callable[..., Page], search_server: ServerHandle) -> None:
    page = new_page(search_server.url)
    asked_before = len(search_server.log)  # the module's server: earlier tests' pages searched
    page.goto("counting-sheep.html")
    field, status, results = search_box(page)
    expect(field).to_be_visible()
    # Nothing of Pagefind is fetched before the learner reaches the box.
    page.wait_for_load_state("networkidle")
    assert not [p for _, p, _ in search_server.log[asked_before:] if "/pagefind/" in p]

    heading = page.get_by_role("heading", level=1)
    top = heading.bounding_box()
    field.focus()
    field.press_sequentially("zeppelin")
    expect(status).to_have_text("1 result for “zeppelin”.")
    links = results.get_by_role("link")
    expect(links).to_have_count(1)
    expect(results).to_be_in_viewport()
    assert heading.bounding_box() == top  # the results open over the page: the lesson does not move
    link = links.first
    expect(link).to_have_accessible_name("Drying in the sun — Painting fences")
    assert link.get_attribute("href") == "/painting-fences.html#drying-in-the-sun"
    expect(results.locator("mark")).to_have_text(["zeppelin"])
    expect(results).to_contain_text("the zeppelin overhead casts no shadow")

    field.press("ArrowDown")
    expect(link).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(field).to_be_focused()
    # Focus leaving the box closes the results; coming back opens them again.
    panel = page.locator("[data-search-panel]")
    expect(panel).to_have_class(re.compile(r"\bopen\b"))
    page.get_by_role("navigation", name="On this page").get_by_role("link").first.focus()
    expect(panel).not_to_have_class(re.compile(r"\bopen\b"))
    field.focus()
    expect(panel).to_have_class(re.compile(r"\bopen\b"))
    page.keyboard.press("ArrowDown")
    expect(link).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/painting-fences\.html#drying-in-the-sun$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Painting fences")


def test_the_course_index_searches_too(new_page: Callable[..., Page], search_server: ServerHandle) -> None:
    page = new_page(search_server.url)
    page.goto("index.html")
    field, status, results = search_box(page)
    field.fill("whitewash")
    expect(status).to_have_text("1 result for “whitewash”.")
    results.get_by_role("link", name="Drying in the sun — Painting fences").click()
    page.wait_for_url(re.compile(r"/painting-fences\.html#drying-in-the-sun$"))


def test_no_results_punctuation_and_escape(new_page: Callable[..., Page], search_server: ServerHandle) -> None:
    page = new_page(search_server.url)
    page.goto("painting-fences.html")
    field, status, results = search_box(page)
    field.fill("sheep")
    expect(status).to_have_text("1 result for “sheep”.")
    # One lesson, its sections with the most matches first (the title's part: its title and summary).
    expect(results.get_by_role("link")).to_have_text(["Counting sheep", "The meadow — Counting sheep",
                                                      "Counting by twos — Counting sheep"])
    # A lesson's text keeps its own characters: "&" and "<count>" come back as text, not markup.
    field.fill("lambs")
    expect(results.get_by_role("link")).to_have_text(["The meadow — Counting sheep"])
    expect(results).to_contain_text("Sheep & lambs <count> alike")
    assert results.locator("count").count() == 0

    field.fill("xylophone")
    expect(status).to_have_text("No results for “xylophone”.")
    expect(results).to_be_hidden()
    field.fill("?!…")
    expect(status).to_have_text("“?!…” has no letters or digits to search for.")
    expect(results).to_be_hidden()

    field.fill("brush")
    expect(results.get_by_role("link")).to_have_count(1)
    field.press("Escape")
    expect(field).to_have_value("")
    expect(results).to_be_hidden()
    expect(status).to_have_text("")


def test_a_long_query_is_cut_and_the_status_repeats_only_its_start(new_page: Callable[..., Page],
                                                                   search_server: ServerHandle) -> None:
    """100,000 characters: the box keeps 100 (typed or pasted), a script's longer value is cut to 100 before the
    search, and the polite status repeats 40 of them at most."""
    page = new_page(search_server.url)
    page.goto("counting-sheep.html")
    field, status, results = search_box(page)
    expect(field).to_have_attribute("maxlength", "100")
    field.fill("x" * 100_000)
    assert field.input_value() == "x" * 100
    expect(status).to_have_text(f"No results for “{'x' * 39}…”.")
    page.evaluate("""el => { el.value = "sheep" + " ".repeat(95) + "zeppelin".repeat(12500);
                             el.dispatchEvent(new Event("input")); }""", field.element_handle())
    expect(status).to_have_text("1 result for “sheep”.")  # the zeppelin is past the 100th character
    expect(results.get_by_role("link")).to_have_count(3)
    page.evaluate("""el => { el.value = "?".repeat(100000); el.dispatchEvent(new Event("input")); }""",
                  field.element_handle())
    expect(status).to_have_text(f"“{'?' * 39}…” has no letters or digits to search for.")


def test_the_box_is_hidden_without_javascript(new_page: Callable[..., Page], search_server: ServerHandle) -> None:
    page = new_page(search_server.url, java_script_enabled=False)
    page.goto("counting-sheep.html")
    expect(page.get_by_role("heading", level=1)).to_have_text("Counting sheep")
    assert page.get_by_role("search").count() == 0
    assert page.get_by_role("searchbox").count() == 0


def test_search_is_accessible(new_page: Callable[..., Page], search_server: ServerHandle) -> None:
    page = new_page(search_server.url)
    page.goto("counting-sheep.html")
    field, _status, results = search_box(page)
    field.fill("sheep")
    expect(results.get_by_role("link").first).to_be_visible()
    assert_no_axe_violations(page)
    page.emulate_media(color_scheme="dark")
    assert_no_axe_violations(page, context="[data-search]")


def test_search_works_offline_after_a_first_visit(new_page: Callable[..., Page], page_errors: PageErrors,
                                                 search_server: ServerHandle) -> None:
    page_errors.expect(FAVICON)
    page = new_page(search_server.url, service_workers="allow")
    page.goto("counting-sheep.html")
    wait_controlled(page)
    # The lesson says it works offline once its own Python is kept (page/offline.js), then the learner goes offline.
    expect(page.locator("html")).to_have_attribute("data-offline", re.compile("^(lesson|course)$"),
                                                   timeout=SW_TIMEOUT * 1000)
    page.context.set_offline(True)
    served = len(search_server.log)
    page.reload()
    field, status, results = search_box(page)
    field.fill("whitewash")
    expect(status).to_have_text("1 result for “whitewash”.")
    expect(results.get_by_role("link")).to_have_accessible_name("Drying in the sun — Painting fences")
    # Everything came from the service worker (the browser's own update check of sw.js aside).
    assert [entry for entry in search_server.log[served:] if entry[1] != "/sw.js"] == []


def test_results_link_into_the_sites_folder_under_a_sub_path(new_page: Callable[..., Page],
                                                             search_server: ServerHandle) -> None:
    page = new_page(search_server.url)
    # The site served at /course/ (as a GitHub Pages project site is): each request is answered by the server's
    # file for the path without the prefix.
    page.context.route("**/course/**", lambda route: route.fulfill(
        response=route.fetch(url=route.request.url.replace("/course/", "/", 1))))
    page.goto("course/counting-sheep.html")
    field, status, results = search_box(page)
    field.fill("whitewash")
    expect(status).to_have_text("1 result for “whitewash”.")
    link = results.get_by_role("link")
    assert link.get_attribute("href") == "/course/painting-fences.html#drying-in-the-sun"
    link.click()
    page.wait_for_url(re.compile(r"/course/painting-fences\.html#drying-in-the-sun$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Painting fences")
