"""Moving through a course in Chromium: the index, each lesson's list of lessons, previous/next and the "Next Lesson"
link, with the mouse, the keyboard, at 320 px and without JavaScript.

The course is a fixture of this test (two short lessons with a quiz each), built and served like the real site.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from course import build, write_course, yes_no_quiz
from playwright.sync_api import Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import assert_no_axe_violations, site_opener

COURSE = "id: fixture-course\ntitle: A fixture course\ntagline: Two short lessons\ndescription: About *nothing*.\n"


def lesson(title: str, order: int) -> str:
    """A lesson with a few parts, a quiz and a "Next Lesson" section."""
    quiz = yes_no_quiz(f"Is {title} first?")
    return (f"---\ntitle: {title}\norder: {order}\nsummary: What {title.lower()} is about.\n---\n\n## Goal\n\n"
            f"Read about {title.lower()}.\n\n## Check\n\n{quiz}\n## Next Lesson\n\n"
            "Then on to something else.\n\n## References\n\n- A book.\n")


@pytest.fixture(scope="module")
def course_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two-lesson fixture course, built once for this module."""
    root = write_course(tmp_path_factory.mktemp("course"), {"first.md": lesson("Alpha steps", 1),
                                                            "second.md": lesson("Beta steps", 2)}, course=COURSE)
    return build(root)


@pytest.fixture
def open_site(course_site: Path, start_module_server: Callable[..., ServerHandle],
              new_page: Callable[..., Page]) -> Callable[..., Page]:
    """open_site(path="index.html", **context options) -> a page of the fixture course."""
    return site_opener(course_site, start_module_server, new_page)


def title(page: Page) -> str:
    return page.get_by_role("heading", level=1).inner_text()


def test_index_to_lesson_to_next_and_back(open_site: Callable[..., Page]) -> None:
    page = open_site()
    expect(page.get_by_role("heading", level=1)).to_have_text("A fixture course")
    lessons = page.get_by_role("list").filter(has=page.get_by_role("link", name="Alpha steps"))
    expect(lessons.get_by_role("listitem")).to_have_count(2)
    expect(lessons.get_by_role("listitem").nth(1)).to_contain_text("What beta steps is about.")
    page.get_by_role("link", name="Alpha steps").click()
    expect(page).to_have_url(re.compile(r"/first\.html$"))
    assert title(page) == "Alpha steps"
    nav = page.get_by_role("navigation", name="Lessons in this course")
    expect(nav.get_by_role("link", name="Alpha steps")).to_have_attribute("aria-current", "page")
    expect(nav.get_by_role("link", name="Beta steps")).not_to_have_attribute("aria-current", "page")
    expect(page.get_by_role("link", name="Previous lesson")).to_have_count(0)  # the first lesson

    page.get_by_role("link", name="Next lesson Beta steps").click()
    expect(page).to_have_url(re.compile(r"/second\.html$"))
    assert title(page) == "Beta steps"
    expect(page.get_by_role("link", name=re.compile("^Next lesson"))).to_have_count(0)  # the last lesson
    expect(page.get_by_role("link", name=re.compile("Continue with the next lesson"))).to_have_count(0)
    page.get_by_role("link", name="Previous lesson Alpha steps").click()
    expect(page).to_have_url(re.compile(r"/first\.html$"))

    # The "Next Lesson" section leads on too, its own text as written.
    section = page.locator("section.part").filter(has=page.get_by_role("heading", name="Next Lesson"))
    expect(section).to_contain_text("Then on to something else.")
    section.get_by_role("link", name="Continue with the next lesson: Beta steps").click()
    expect(page).to_have_url(re.compile(r"/second\.html$"))

    page.get_by_role("banner").get_by_role("link", name="A fixture course").click()
    expect(page).to_have_url(re.compile(r"/index\.html$"))


def test_the_keyboard_reaches_every_link(open_site: Callable[..., Page]) -> None:
    """Tab to the next lesson and press Enter; at 320 px, the lessons list opens with the keyboard."""
    page = open_site("first.html")
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.getAttribute('rel')") == "next":
            break
    else:
        pytest.fail("Tab never reached the next lesson's link")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/second\.html$"))

    narrow = open_site("second.html", viewport={"width": 320, "height": 640})
    beta = narrow.get_by_role("navigation", name="Lessons in this course").get_by_role("link", name="Alpha steps")
    expect(beta).to_be_hidden()
    summary = narrow.get_by_text("Lessons (2 of 2)")
    summary.focus()
    narrow.keyboard.press("Enter")
    expect(beta).to_be_visible()
    beta.focus()
    narrow.keyboard.press("Enter")
    expect(narrow).to_have_url(re.compile(r"/first\.html$"))


@pytest.mark.parametrize("path", ["index.html", "first.html", "second.html"])
def test_320_px_never_scrolls_sideways(open_site: Callable[..., Page], path: str) -> None:
    page = open_site(path, viewport={"width": 320, "height": 640})
    if path != "index.html":
        page.get_by_text(re.compile(r"^Lessons \(\d of 2\)$")).click()  # the lessons list open, too
        expect(page.get_by_role("navigation", name="Lessons in this course").get_by_role("link").first).to_be_visible()
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth"), page.evaluate(
        "[document.scrollingElement.scrollWidth, innerWidth]")


def test_wide_screens_list_the_lessons_open(open_site: Callable[..., Page]) -> None:
    """Beside "On this page", without a click; the summary that opens it on narrow screens is not shown."""
    page = open_site("second.html", viewport={"width": 1280, "height": 800})
    nav = page.get_by_role("navigation", name="Lessons in this course")
    expect(nav.get_by_role("link", name="Alpha steps")).to_be_visible()
    expect(page.get_by_text("Lessons (2 of 2)")).to_be_hidden()
    expect(page.get_by_role("navigation", name="On this page")).to_be_visible()


@pytest.mark.parametrize(("scheme", "width"), [("light", 1280), ("dark", 1280), ("light", 320), ("dark", 320)])
@pytest.mark.parametrize("path", ["index.html", "first.html"])
def test_axe_finds_no_violations(open_site: Callable[..., Page], path: str, scheme: str, width: int) -> None:
    page = open_site(path, color_scheme=scheme, viewport={"width": width, "height": 900})
    assert_no_axe_violations(page)


def test_the_course_reads_without_javascript(open_site: Callable[..., Page]) -> None:
    page = open_site(java_script_enabled=False)
    expect(page.get_by_role("link", name="Beta steps")).to_be_visible()
    expect(page.locator("[data-lesson-progress]").first).to_be_hidden()
    page.get_by_role("link", name="Beta steps").click()
    page.get_by_role("link", name="Previous lesson Alpha steps").click()
    assert title(page) == "Alpha steps"
