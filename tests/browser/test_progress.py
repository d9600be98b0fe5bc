"""A learner's progress on the course index, in Chromium: each lesson's progress and the Continue link, Download my
progress (the file and its hash), Reset with its confirmation, Load in another browser (and the lesson page shows the
answers again), every refused file changing nothing, by keyboard alone, and axe in light and dark mode.

The course is a fixture of this test (two lessons, a quiz and a draft), built and served like the real site.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from course import build, write_course
from playwright.sync_api import FileChooser, Locator, Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import assert_no_axe_violations, commit_answer, wait_until

COURSE = "title: Fixture course\nid: fixtures\n"
ONE = """---
title: Lesson one
order: 1
summary: Two questions and an explanation.
---

## Questions

```{quiz}
id: check
questions:
  - question: Is one plus one two?
    options:
      - text: "Yes"
        correct: true
        why: It is.
      - text: "No"
        why: It is two.
  - question: Is two plus two five?
    options:
      - text: "Yes"
        why: It is four.
      - text: "No"
        correct: true
        why: It is four.
```

## Explain

```{explain}
id: explain
prompt: "Explain why:"
claims:
  - text: Adding is counting on.
    verdict: correct.
```
"""
TWO = """---
title: Lesson two
order: 2
summary: One more question.
---

## Question

```{quiz}
id: recall
questions:
  - question: Is three odd?
    options:
      - text: "Yes"
        correct: true
        why: It is.
      - text: "No"
        why: It is odd.
```
"""
DRAFT = "Because counting on by one twice gives two."


@pytest.fixture(scope="module")
def course_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two-lesson fixture course, built once for this module."""
    root = write_course(tmp_path_factory.mktemp("progress"), {"course.yaml": COURSE, "one.md": ONE, "two.md": TWO})
    return build(root)


@pytest.fixture
def serve(course_site: Path, start_module_server: Callable[..., ServerHandle],
          new_page: Callable[..., Page]) -> Callable[[], Page]:
    """Factory: a page in a fresh browser context (its own storage) on the fixture course's server."""
    server = start_module_server(course_site, isolated=True)

    def make() -> Page:
        page = new_page(server.url, accept_downloads=True)
        # Listening from the start: Playwright turns on catching the file chooser without waiting for the browser
        # to confirm it, so a listener added just before a click can miss a chooser the page opens at once.
        caught: list[FileChooser] = []
        _choosers[page] = caught
        page.on("filechooser", lambda chooser: caught.append(chooser))
        return page

    return make


_choosers: weakref.WeakKeyDictionary[Page, list[FileChooser]] = weakref.WeakKeyDictionary()


def next_chooser(page: Page, open_it: Callable[[], None]) -> FileChooser:
    """The file chooser `open_it()` opens (a page made by `serve`)."""
    seen = len(_choosers[page])
    open_it()
    wait_until(lambda: len(_choosers[page]) > seen, page=page, message="the file chooser to open")
    return _choosers[page][seen]


def storage(page: Page) -> dict[str, Any]:
    """Everything the page's origin keeps in localStorage, parsed."""
    return {k: json.loads(v) for k, v in page.evaluate("Object.entries(localStorage)")}


def lesson_progress(page: Page, title: str) -> Locator:
    """A lesson's progress slot on the index: its state ("Not started", "In progress", "Done"), its meter and its
    progress in words ("1 of 2 questions answered · …"), filled in by the page's module once it has read the storage."""
    item = page.get_by_role("listitem").filter(has=page.get_by_role("link", name=title, exact=True))
    return item.locator("[data-lesson-progress]")


def work_on_lesson_one(page: Page) -> None:
    """Answer the first question and draft an explanation, as a learner does."""
    page.goto("one.html")
    commit_answer(page.get_by_role("group", name=re.compile("one plus one")).get_by_label("Yes"))
    page.get_by_label("Your explanation").fill(DRAFT)
    expect(page.get_by_text("Draft saved in this browser.")).to_be_visible()


def download(page: Page, tmp_path: Path) -> tuple[str, Path]:
    """Click Download my progress: the file's suggested name and where it was saved."""
    with page.expect_download() as info:
        page.get_by_role("button", name="Download my progress").click()
    target = tmp_path / info.value.suggested_filename
    info.value.save_as(target)
    return info.value.suggested_filename, target


def rehash(file: dict[str, Any]) -> dict[str, Any]:
    """`file` with its sha256 recomputed as the README says anyone can."""
    body = {k: v for k, v in file.items() if k != "sha256"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {**body, "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}


def choose_file(page: Page, path: Path) -> None:
    """Load progress… then pick `path` in the file chooser."""
    next_chooser(page, page.get_by_role("button", name="Load progress…").click).set_files(str(path))


def message(page: Page) -> Any:
    """The progress tools' live region."""
    return page.locator("[data-progress-tools] [role=status]")


def test_progress_download_reset_and_load_in_another_browser(serve: Callable[[], Page], tmp_path: Path) -> None:
    page = serve()
    page.goto("index.html")
    expect(page.locator("[data-lesson-progress]").first).to_have_text("Not started")
    expect(page.locator("[data-course-continue]")).to_be_hidden()

    work_on_lesson_one(page)
    page.goto("index.html")
    expect(lesson_progress(page, "Lesson one")).to_contain_text("1 of 2 questions answered · explanation drafted")
    expect(lesson_progress(page, "Lesson two")).to_have_text("Not started")
    cont = page.locator("[data-course-continue]")
    expect(cont).to_have_text("Continue: Lesson one")
    expect(cont.get_by_role("link", name="Lesson one")).to_have_attribute("href", "one.html")

    # Download: the file's name, content and hash.
    name, saved = download(page, tmp_path)
    assert re.fullmatch(r"fixtures-progress-\d{4}-\d{2}-\d{2}\.json", name)
    file = json.loads(saved.read_text(encoding="utf-8"))
    assert file["format"] == "lessonkit-progress" and file["version"] == 1
    assert file["course"] == {"id": "fixtures", "title": "Fixture course"}
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", file["exported"])
    one = file["lessons"]["one"]
    assert one["title"] == "Lesson one" and re.fullmatch(r"[0-9a-f]{12}", one["version"])
    entries = {k.split(":")[0]: v for k, v in one["entries"].items()}
    assert entries["check"] == {"1": {"answer": "1", "first": "1", "tries": 1}} and entries["explain"]["text"] == DRAFT
    assert file["lessons"]["two"]["entries"] == {}
    assert rehash(file)["sha256"] == file["sha256"]
    expect(message(page)).to_have_text(f"Downloaded “{name}”: your progress in 1 lesson of 2.")

    # Reset asks first; Cancel keeps everything.
    before = storage(page)
    page.get_by_role("button", name="Reset progress…").click()
    confirm = page.get_by_role("group", name=re.compile("^Remove every answer"))
    expect(confirm).to_be_visible()
    confirm.get_by_role("button", name="Cancel").click()
    expect(message(page)).to_have_text("Progress kept. Nothing was changed.")
    assert storage(page) == before
    page.get_by_role("button", name="Reset progress…").click()
    page.get_by_role("button", name="Remove my progress").click()
    expect(message(page)).to_have_text("Progress reset: removed 2 saved entries of 1 lesson from this browser.")
    expect(lesson_progress(page, "Lesson one")).to_have_text("Not started")
    expect(cont).to_be_hidden()
    assert storage(page) == {}

    # Another browser (a fresh context): Load shows what it restores, then restores it.
    other = serve()
    other.goto("index.html")
    choose_file(other, saved)
    confirm = other.get_by_role("group", name=re.compile(f"^Load “{re.escape(name)}” \\(saved "))
    expect(confirm.get_by_role("listitem")).to_have_text(["Lesson one: 1 of 2 questions answered · explanation drafted"])
    confirm.get_by_role("button", name="Restore progress").click()
    expect(message(other)).to_have_text(f"Restored your progress in 1 lesson (2 entries) from “{name}”.")
    expect(lesson_progress(other, "Lesson one")).to_contain_text("1 of 2 questions answered · explanation drafted")
    other.goto("one.html")
    expect(other.get_by_role("group", name=re.compile("one plus one")).get_by_label("Yes")).to_be_checked()
    expect(other.get_by_label("Your explanation")).to_have_value(DRAFT)
    expect(other.get_by_text("Your saved draft is back.")).to_be_visible()


def test_refused_files_say_why_and_change_nothing(serve: Callable[[], Page], tmp_path: Path) -> None:
    page = serve()
    work_on_lesson_one(page)
    page.goto("index.html")
    _, saved = download(page, tmp_path)
    good = json.loads(saved.read_text(encoding="utf-8"))
    tampered = copy.deepcopy(good)
    first = next(iter(tampered["lessons"]["one"]["entries"]))
    tampered["lessons"]["one"]["entries"][first] = {"1": "1", "2": "2"}
    files = {
        "tampered.json": (json.dumps(tampered), "The file was changed or damaged after it was saved: its sha256 does "
                                                "not match its content."),
        "foreign.json": (json.dumps(rehash({**good, "course": {"id": "other", "title": "Another course"}})),
                         "This file is for the course “\u2068Another course\u2069”, not this one."),
        "long-title.json": (json.dumps(rehash({**good, "course": {"id": "other", "title": "T" * 100_000}})),
                            f"This file is for the course “\u2068{'T' * 79}…\u2069”, not this one."),
        "newer.json": (json.dumps(rehash({**good, "version": 2})),
                       "This file was made by a newer version of this course site. Reload the page to get the newest "
                       "version, then try again."),
        "notes.txt": ("These are my notes, not JSON.", "This is not a progress file: it is not JSON."),
        "deep.json": (json.dumps(good)[:-1] + ', "note": ' + "[" * 100_000 + "]" * 100_000 + "}",
                      "This is not a progress file: its data is nested more than 16 levels deep (a progress file’s "
                      "is a few levels deep)."),
    }
    before = storage(page)
    for name, (text, why) in files.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        choose_file(page, path)
        expect(message(page)).to_have_text(f"Not loaded: {why} Nothing was changed.")
        expect(page.get_by_role("button", name="Restore progress")).to_have_count(0)
        assert storage(page) == before
    expect(lesson_progress(page, "Lesson one")).to_contain_text("1 of 2 questions answered · explanation drafted")


def tab_to(page: Page, name: str, *, limit: int = 40) -> None:
    """Press Tab until the focused element is the button called `name`."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement && document.activeElement.textContent") == name:
            return
    raise AssertionError(f"Tab never reached {name!r}")


def test_the_tools_work_by_keyboard_alone(serve: Callable[[], Page], tmp_path: Path) -> None:
    page = serve()
    work_on_lesson_one(page)
    page.goto("index.html")
    _, saved = download(page, tmp_path)

    tab_to(page, "Reset progress…")
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Cancel")).to_be_focused()  # the safe choice first
    page.keyboard.press("Escape")
    expect(message(page)).to_have_text("Progress kept. Nothing was changed.")
    expect(page.get_by_role("button", name="Reset progress…")).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("Shift+Tab")
    expect(page.get_by_role("button", name="Remove my progress")).to_be_focused()
    page.keyboard.press("Enter")
    expect(message(page)).to_have_text(re.compile("^Progress reset: removed 2 saved entries"))
    expect(page.get_by_role("button", name="Reset progress…")).to_be_focused()

    page.keyboard.press("Shift+Tab")
    expect(page.get_by_role("button", name="Load progress…")).to_be_focused()
    next_chooser(page, lambda: page.keyboard.press("Enter")).set_files(str(saved))
    expect(page.get_by_role("button", name="Restore progress")).to_be_focused()
    page.keyboard.press("Enter")
    expect(message(page)).to_have_text(re.compile("^Restored your progress in 1 lesson"))
    expect(lesson_progress(page, "Lesson one")).not_to_have_text(re.compile("^(Not started)?$"))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_index_with_progress_passes_axe(serve: Callable[[], Page], scheme: str, tmp_path: Path) -> None:
    page = serve()
    page.emulate_media(color_scheme=scheme)
    work_on_lesson_one(page)
    page.goto("index.html")
    download(page, tmp_path)
    expect(page.locator("[data-course-continue]")).to_be_visible()
    assert_no_axe_violations(page)
    page.get_by_role("button", name="Reset progress…").click()
    expect(page.get_by_role("button", name="Remove my progress")).to_be_visible()
    assert_no_axe_violations(page)


def test_a_lesson_removed_from_the_course_is_ignored_and_kept(serve: Callable[[], Page], tmp_path: Path) -> None:
    page = serve()
    page.goto("index.html")
    kept = {"lessonkit:v1:removed:check:aaaaaaaaaaaa": {"1": "1"},
            "lessonkit:v1:course:last": {"lesson": "removed", "at": "2026-12-01T10:00:00Z"}}
    page.evaluate("kept => Object.entries(kept).forEach(([k, v]) => localStorage.setItem(k, JSON.stringify(v)))", kept)
    page.reload()
    expect(page.locator("[data-lesson-progress]")).to_have_text(["Not started", "Not started"])
    expect(page.locator("[data-course-continue]")).to_be_hidden()
    _, saved = download(page, tmp_path)
    assert list(json.loads(saved.read_text(encoding="utf-8"))["lessons"]) == ["one", "two"]
    page.get_by_role("button", name="Reset progress…").click()
    page.get_by_role("button", name="Remove my progress").click()
    expect(message(page)).to_have_text("There was no saved progress to remove.")
    assert storage(page) == kept


def test_reset_removes_this_courses_continue_link_only(serve: Callable[[], Page]) -> None:
    """The Continue entry is the origin's: opening a lesson writes it with this course's id. Another course of the
    origin, with a lesson of the same slug, opened last: the index shows no Continue for it and Reset leaves it; this
    course's own entry goes with its progress."""
    page = serve()
    work_on_lesson_one(page)
    assert storage(page)["lessonkit:v1:course:last"]["course"] == "fixtures"
    page.goto("index.html")
    cont = page.locator("[data-course-continue]")
    expect(cont).to_have_text("Continue: Lesson one")
    theirs = {"lesson": "one", "course": "another-course", "at": "2026-12-01T10:00:00Z"}
    page.evaluate("v => localStorage.setItem('lessonkit:v1:course:last', JSON.stringify(v))", theirs)
    page.reload()
    expect(cont).to_be_hidden()
    page.get_by_role("button", name="Reset progress…").click()
    page.get_by_role("button", name="Remove my progress").click()
    expect(message(page)).to_have_text("Progress reset: removed 2 saved entries of 1 lesson from this browser.")
    assert storage(page) == {"lessonkit:v1:course:last": theirs}
    page.goto("two.html")
    page.goto("index.html")
    expect(cont).to_have_text("Continue: Lesson two")
    page.get_by_role("button", name="Reset progress…").click()
    page.get_by_role("button", name="Remove my progress").click()
    expect(message(page)).to_have_text("There was no saved progress to remove.")
    expect(cont).to_be_hidden()
    assert storage(page) == {}


def test_storage_that_cannot_save_refuses_the_load_and_says_so(serve: Callable[[], Page], tmp_path: Path) -> None:
    page = serve()
    work_on_lesson_one(page)
    page.goto("index.html")
    _, saved = download(page, tmp_path)
    full = serve()
    full.context.add_init_script("Storage.prototype.setItem = () => { throw new DOMException('full', 'QuotaExceededError'); };")
    full.goto("index.html")
    expect(full.get_by_text(re.compile("^Progress can’t be saved in this browser"))).to_be_visible()
    choose_file(full, saved)
    full.get_by_role("button", name="Restore progress").click()
    expect(message(full)).to_have_text("Not loaded: this browser could not save it (storage is off or full). Nothing "
                                       "was changed.")
    expect(full.locator("[data-lesson-progress]").first).to_have_text("Not started")
    assert storage(full) == {}


def test_the_index_follows_work_done_in_another_tab(serve: Callable[[], Page]) -> None:
    index = serve()
    index.goto("index.html")
    expect(index.locator("[data-lesson-progress]").first).to_have_text("Not started")
    lesson = index.context.new_page()
    work_on_lesson_one(lesson)
    expect(index.locator("[data-lesson-progress] .progress-words").first).to_have_text(
        "1 of 2 questions answered · explanation drafted")
    expect(index.locator("[data-course-continue]")).to_have_text("Continue: Lesson one")
