"""A course of many lessons in parts, in Chromium: the phone's first screen, the sidebar's parts, the wide sidebar
scrolling on its own, and the index's meters, states and part totals with saved progress.

The course is a fixture of this test (30 short lessons with a quiz each, in three parts), built and served like the
real site; the exercise meter is checked on the real course, whose lessons have exercises.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from course import build, write_course, yes_no_quiz
from playwright.sync_api import Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import assert_no_axe_violations, site_opener

PARTS = ("Foundations", "Attention", "Transformers")
PER_PART = 10


def slug(n: int) -> str:
    return f"lesson-{n:02d}"


def lesson(n: int) -> str:
    """A lesson whose first paragraph is long enough to matter on a phone, with many parts and a quiz."""
    sections = "".join(f"## Section {k}\n\nSome text of section {k}.\n\n" for k in range(2, 12))
    quiz = yes_no_quiz(f"Is lesson {n} read?", f"Is lesson {n} understood?")
    return (f"---\ntitle: Lesson {n} of the course\nslug: {slug(n)}\nsummary: What lesson {n} is about.\n---\n\n"
            f"## Goal\n\nThe first paragraph of lesson {n}: what it sets out to explain, in a sentence or two that a "
            f"learner reads before anything else on the page.\n\n{sections}## Check\n\n{quiz}")


def course_config() -> str:
    parts = "".join(f"  - title: {title}\n    lessons: [{', '.join(slug(p * PER_PART + k + 1) for k in range(PER_PART))}]\n"
                    for p, title in enumerate(PARTS))
    return f"id: scale-course\ntitle: A course in parts\ndescription: Thirty short lessons.\nparts:\n{parts}"


@pytest.fixture(scope="module")
def parts_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    lessons = {f"{slug(n)}.md": lesson(n) for n in range(1, len(PARTS) * PER_PART + 1)}
    return build(write_course(tmp_path_factory.mktemp("parts"), lessons, course=course_config()))


@pytest.fixture
def open_site(parts_site: Path, start_module_server: Callable[..., ServerHandle],
              new_page: Callable[..., Page]) -> Callable[..., Page]:
    """open_site(path="index.html", **context options) -> a page of the fixture course."""
    return site_opener(parts_site, start_module_server, new_page)


def screenshot(page: Page, tmp_path: Path, name: str) -> Path:
    """Keep a screenshot (in LESSONKIT_SCREENSHOTS when set, for a person to look at; else the test's folder)."""
    folder = Path(os.environ.get("LESSONKIT_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def in_first_viewport(page: Page, locator_box: dict[str, float] | None) -> bool:
    height = page.viewport_size["height"] if page.viewport_size else 0
    return locator_box is not None and locator_box["y"] >= 0 and locator_box["y"] + locator_box["height"] <= height


@pytest.mark.parametrize("width", [390, 320])
def test_the_phone_s_first_screen_is_the_lesson(open_site: Callable[..., Page], tmp_path: Path, width: int) -> None:
    page = open_site(f"{slug(15)}.html", viewport={"width": width, "height": 800})
    screenshot(page, tmp_path, f"lesson-{width}x800")
    h1 = page.get_by_role("heading", level=1)
    expect(h1).to_have_text("Lesson 15 of the course")
    assert in_first_viewport(page, h1.bounding_box()), h1.bounding_box()
    first = page.get_by_text(re.compile(r"^The first paragraph of lesson 15"))
    box = first.bounding_box()
    assert box is not None and box["y"] < 800, box  # it starts on the first screen
    # Both lists are closed disclosures there; each opens with a click.
    toc = page.get_by_role("navigation", name="On this page")
    expect(toc.get_by_role("link", name="Section 2")).to_be_hidden()
    page.get_by_text("On this page").click()
    expect(toc.get_by_role("link", name="Section 2")).to_be_visible()
    lessons = page.get_by_role("navigation", name="Lessons in this course")
    expect(lessons.get_by_role("link", name="Lesson 15 of the course")).to_be_hidden()
    page.get_by_text("Lessons (15 of 30)").click()
    expect(lessons.get_by_role("link", name="Lesson 15 of the course")).to_be_visible()
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")


def test_the_sidebar_has_a_disclosure_per_part_the_current_one_open(open_site: Callable[..., Page]) -> None:
    page = open_site(f"{slug(15)}.html", viewport={"width": 1280, "height": 800})
    nav = page.get_by_role("navigation", name="Lessons in this course")
    expect(nav.get_by_role("link", name="Lesson 15 of the course")).to_have_attribute("aria-current", "page")
    expect(nav.get_by_text("Attention (10)")).to_be_visible()
    expect(nav.get_by_role("link", name="Lesson 11 of the course")).to_be_visible()
    expect(nav.get_by_role("link", name="1. Lesson 1 of the course", exact=True)).to_be_hidden()  # another part: closed
    expect(nav.get_by_role("link", name="Lesson 21 of the course")).to_be_hidden()
    nav.get_by_text("Foundations (10)").click()
    expect(nav.get_by_role("link", name="1. Lesson 1 of the course", exact=True)).to_be_visible()
    nav.get_by_text("Attention (10)").click()  # a part closes as well
    expect(nav.get_by_role("link", name="Lesson 11 of the course")).to_be_hidden()
    # prev/next cross the parts as the course's order does
    page.goto(f"{slug(10)}.html")
    expect(page.get_by_role("link", name="Next lesson Lesson 11 of the course")).to_be_visible()


def test_the_wide_sidebar_scrolls_on_its_own_with_the_current_lesson_in_view(open_site: Callable[..., Page]) -> None:
    page = open_site(f"{slug(30)}.html", viewport={"width": 1280, "height": 600})
    sidebar = page.locator("[data-sidebar]")
    assert sidebar.evaluate("s => getComputedStyle(s).overflowY") == "auto"
    assert sidebar.evaluate("s => s.scrollHeight > s.clientHeight"), "the sidebar is longer than the screen here"
    current = page.get_by_role("navigation", name="Lessons in this course").get_by_role(
        "link", name="Lesson 30 of the course")
    expect(current).to_have_attribute("aria-current", "page")
    box, side = current.bounding_box(), sidebar.bounding_box()
    assert box is not None and side is not None
    assert side["y"] <= box["y"] and box["y"] + box["height"] <= side["y"] + side["height"], (box, side)
    assert page.evaluate("scrollY") == 0  # the sidebar scrolled, not the page
    assert sidebar.evaluate("s => s.scrollTop") > 0


def save_progress(page: Page, entries: dict[str, Any]) -> None:
    page.evaluate("e => Object.entries(e).forEach(([k, v]) => localStorage.setItem(k, JSON.stringify(v)))", entries)


def manifest_of(page: Page) -> dict[str, Any]:
    return json.loads(str(page.locator("#course-manifest").text_content()))


def quiz_key(manifest: dict[str, Any], n: int) -> str:
    lesson = next(les for les in manifest["lessons"] if les["slug"] == slug(n))
    block = next(b for b in lesson["blocks"] if b["type"] == "quiz")
    return f"lessonkit:v1:{slug(n)}:{block['id']}:{block['version']}"


def item(page: Page, n: int) -> Any:
    return page.locator(f'[data-lesson="{slug(n)}"] [data-lesson-progress]')


def test_the_index_shows_each_lesson_s_meter_state_and_each_part_s_total(open_site: Callable[..., Page],
                                                                          tmp_path: Path) -> None:
    page = open_site(viewport={"width": 1280, "height": 900})
    manifest = manifest_of(page)
    save_progress(page, {quiz_key(manifest, 1): {"1": "1", "2": "2"}, quiz_key(manifest, 2): {"1": "1"},
                         "lessonkit:v1:course:last": {"lesson": slug(2), "course": "scale-course",
                                                      "at": "2026-12-01T10:00:00Z"}})
    page.reload()
    expect(item(page, 1).locator(".progress-state")).to_have_text("Done")
    expect(item(page, 2).locator(".progress-state")).to_have_text("In progress")
    expect(item(page, 3).locator(".progress-state")).to_have_text("Not started")
    expect(item(page, 2).locator(".progress-words")).to_have_text("1 of 2 questions answered")
    meter = item(page, 2).get_by_role("meter")
    expect(meter).to_have_attribute("value", "1")
    expect(meter).to_have_attribute("max", "2")
    expect(meter).to_have_accessible_name("Lesson 2 of the course: questions answered and exercises passed")
    part = page.locator('[data-part="foundations"] [data-part-progress]')
    expect(part).to_contain_text("1 of 10 lessons done")
    expect(part).to_contain_text("3 of 20 answered or passed")
    expect(part.get_by_role("meter")).to_have_attribute("value", "3")
    expect(page.locator('[data-part="attention"] [data-part-progress]')).to_contain_text("0 of 10 lessons done")
    # Continue comes first: before the description and the lessons.
    cont = page.locator("[data-course-continue]")
    expect(cont).to_have_text("Continue: Lesson 2 of the course")
    assert page.evaluate("""() => {
      const c = document.querySelector('[data-course-continue]');
      return [...document.querySelectorAll('.course-description, #lessons')].every(
        (e) => c.compareDocumentPosition(e) & Node.DOCUMENT_POSITION_FOLLOWING);
    }""")
    parts = page.get_by_role("region")
    expect(parts.filter(has=page.get_by_role("heading", name="Foundations", exact=True))).to_have_count(1)
    screenshot(page, tmp_path, "index-1280-progress")
    phone = open_site(viewport={"width": 390, "height": 800})
    save_progress(phone, {quiz_key(manifest, 1): {"1": "1", "2": "2"}})
    phone.reload()
    expect(item(phone, 1).locator(".progress-state")).to_have_text("Done")
    assert phone.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    screenshot(phone, tmp_path, "index-390-progress")


def test_the_index_reads_without_javascript(open_site: Callable[..., Page]) -> None:
    page = open_site(java_script_enabled=False)
    expect(page.get_by_role("heading", name="Transformers")).to_be_visible()
    expect(page.get_by_role("link", name="Lesson 21 of the course")).to_be_visible()
    expect(page.get_by_text("What lesson 21 is about.")).to_be_visible()
    expect(page.locator("[data-lesson-progress]").first).to_be_hidden()


@pytest.mark.parametrize("path", ["index.html", f"{slug(15)}.html"])
def test_320_px_never_scrolls_sideways(open_site: Callable[..., Page], path: str) -> None:
    page = open_site(path, viewport={"width": 320, "height": 640})
    for summary in page.locator("summary").all():
        if summary.is_visible():
            summary.click()  # every disclosure open, too
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth"), page.evaluate(
        "[document.scrollingElement.scrollWidth, innerWidth]")


@pytest.mark.parametrize("width", [320, 390, 768, 1280])
@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("path", ["index.html", f"{slug(15)}.html"])
def test_axe_finds_no_violations(open_site: Callable[..., Page], path: str, scheme: str, width: int) -> None:
    page = open_site(path, color_scheme=scheme, viewport={"width": width, "height": 900})
    if path == "index.html":
        manifest = manifest_of(page)
        save_progress(page, {quiz_key(manifest, 1): {"1": "1", "2": "2"}, quiz_key(manifest, 2): {"1": "1"}})
        page.reload()
        expect(item(page, 1).locator(".progress-state")).to_have_text("Done")
    assert_no_axe_violations(page)


def test_the_real_course_s_meter_counts_exercises_passed(built_site: Path, start_test_server: Callable[..., ServerHandle],
                                                        new_page: Callable[..., Page]) -> None:
    page = new_page(start_test_server(built_site, isolated=True).url)
    page.goto("index.html")
    manifest = manifest_of(page)
    lesson = manifest["lessons"][0]
    saved: dict[str, Any] = {}
    questions = 0
    for block in lesson["blocks"]:
        key = f"lessonkit:v1:{lesson['slug']}:{block['id']}:{block['version']}"
        if block["type"] == "exercise":
            saved[key] = {"passed": True, "attempts": 1, "hints": 0, "solution": False}
        elif block["type"] == "quiz":
            questions += block["questions"]
    exercises = len(saved)
    assert exercises, "the first lesson has an exercise"
    save_progress(page, saved)
    page.reload()
    slot = page.locator(f'[data-lesson="{lesson["slug"]}"] [data-lesson-progress]')
    expect(slot.locator(".progress-state")).to_have_text("In progress")  # its questions are not answered yet
    expect(slot.get_by_role("meter")).to_have_attribute("value", str(exercises))
    expect(slot.get_by_role("meter")).to_have_attribute("max", str(exercises + questions))
    expect(slot.locator(".progress-words")).to_contain_text(f"{exercises} of {exercises} exercise")
