"""A course's own block type and overrides in Chromium, as its learners meet them: the {tick} block of the course's
blocks/tick/ is started by its page module (init(element, island, page), loaded unbundled by main.js from the page's
data and checked by the import map), keeps its state, and its progress.js counts it on the course index beside the
toolkit's quiz; the course's logo (static/) and stylesheet (static/css/) are in its overridden templates."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from course import build
from playwright.sync_api import Page, expect
from test_overrides import write_overrides

from lessonkit.serve.server import ServerHandle

from .helpers import assert_no_axe_violations, commit_answer, requested


@pytest.fixture(scope="module")
def branded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The override fixture course (test_overrides), built once for this module."""
    return build(write_overrides(tmp_path_factory.mktemp("branded")))


def test_a_course_block_starts_and_counts_on_the_index(branded: Path, new_page: Callable[..., Page],
                                                       start_test_server: Callable[..., ServerHandle]) -> None:
    server = start_test_server(branded, isolated=True)
    page = new_page(server.url)
    page.goto("index.html")
    lesson = page.get_by_role("listitem").filter(has=page.get_by_role("link", name="Ticking boxes", exact=True))
    expect(lesson.locator("[data-lesson-progress]")).to_have_text("Not started")

    lesson.get_by_role("link", name="Ticking boxes").click()
    tick = page.locator("[data-block=tick]")
    # init(el, island, page) ran: it read the island and the page's store.
    expect(tick).to_have_attribute("data-tick-started", "I read the <em>whole</em> lesson.")
    status = tick.get_by_role("status")
    expect(status).to_have_text("Tick module started. Not yet.")
    box = page.get_by_role("checkbox", name="I read the whole lesson.")
    box.check()
    expect(status).to_have_text("Tick module started. Done.")
    page.reload()
    expect(page.get_by_role("checkbox", name="I read the whole lesson.")).to_be_checked()  # kept in the store
    assert requested(server.log, "/blocks/tick/tick.js", 200) and requested(server.log, "/blocks/tick/shape.js", 200)

    # The overrides: the course's logo in its lesson template, its stylesheet's rules, its quiz template's line.
    logo = page.locator("header img.course-logo")
    expect(logo).to_be_visible()
    assert logo.evaluate("img => img.complete && img.naturalWidth > 0")
    brand = page.get_by_text("Checked by the Branded course")
    expect(brand).to_have_css("font-style", "italic")
    assert_no_axe_violations(page)

    # The course index counts the tick with the course's own words, and the meter measures it beside the quiz.
    page.get_by_role("link", name="All lessons").click()
    progress = lesson.locator("[data-lesson-progress]")
    expect(progress).to_contain_text("In progress")
    expect(progress).to_contain_text("1 of 1 box ticked")
    meter = progress.get_by_role("meter")
    expect(meter).to_have_attribute("max", "2")
    expect(meter).to_have_attribute("value", "1")
    assert requested(server.log, "/blocks/tick/progress.js", 200)

    lesson.get_by_role("link", name="Ticking boxes").click()
    commit_answer(page.get_by_role("group", name=re.compile("Is this course branded")).get_by_label("Yes"))
    page.get_by_role("link", name="All lessons").click()
    expect(progress.locator("[data-state]")).to_have_text("Done")
    expect(meter).to_have_attribute("value", "2")
