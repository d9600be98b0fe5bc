"""A German build of the fixture course (its lessons left in English) in Chromium: no English toolkit word
(tests/browser/english.py: a catalog message, short ones as whole texts, or English prose the catalog does not
know) anywhere the toolkit speaks — the index and its counts, a lesson's chrome and its presenter button, its blocks
(the quiz's Check answer), the lab's statuses and instructor tools after a run, the class's join prompt and its way
in by code, the search box and its results — found by role and visible text as a learner meets them. And search
stems the course's language: a German inflected form finds its lesson. An exercise, a learner's error and a crash
in German: test_language_lab.py."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from course import build, write_course
from places import FIXTURE
from playwright.sync_api import Page, expect

from lessonkit.lms.classroom import new_class

from .english import Authored
from .english import english_on as find_english
from .helpers import site_opener

BOOT_TIMEOUT = 120_000
SEARCH_TIMEOUT = 30_000  # Pagefind's first load, on a busy machine


AUTHORED = Authored([*FIXTURE.glob("lesson/*.md"), *FIXTURE.glob("lab/*.py"), *FIXTURE.glob("templates/*.html"),
                     FIXTURE / "course.yaml"])


def english_on(page: Page) -> list[str]:
    """The toolkit's English the page shows (tests/browser/english.py), but for the course's own words."""
    return find_english(page, AUTHORED)


def assert_no_english(page: Page) -> None:
    """No English toolkit word on the page (each one found listed when there is)."""
    found = english_on(page)
    assert found == [], "English on a German page:\n" + "\n".join(found)


def test_the_german_index_and_its_counts_say_no_english_word(open_german: Callable[..., Page]) -> None:
    page = open_german("index.html")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.get_by_role("heading", name="Lektionen")).to_be_visible()
    tools = page.get_by_role("region", name="Dein Fortschritt")
    expect(tools.get_by_role("button", name="Meinen Fortschritt herunterladen")).to_be_visible()
    expect(page.locator("[data-lesson-progress]").first).to_contain_text("Nicht begonnen")
    expect(page.get_by_role("banner").get_by_role("button", name="Präsentationsmodus")).to_be_visible()
    expect(page.locator("[data-offline-save] button")).to_have_text("Den Kurs für die Offline-Nutzung speichern")
    assert_no_english(page)


def test_the_german_class_join_prompt(open_german: Callable[..., Page]) -> None:
    """A join link's prompt, what it says is sent and its buttons, and the note for a missing name, in German."""
    page = open_german(f"index.html#class={new_class('Montag').code}")
    panel = page.get_by_role("region", name="Deine Klasse")
    expect(panel.get_by_role("heading")).to_have_text("Der Klasse „Montag“ beitreten")
    expect(panel).to_contain_text("sendet dieser Browser an den Lernspeicher der Klasse auf 127.0.0.1:9 jede Antwort")
    expect(panel.get_by_role("textbox", name="Dein Name in dieser Klasse")).to_be_visible()
    panel.get_by_role("textbox", name="Dein Name in dieser Klasse").fill("")
    panel.get_by_role("button", name="Klasse beitreten").click()
    expect(panel.get_by_role("status")).to_have_text("Gib zuerst den Namen ein, den deine Lehrkraft sehen wird.")
    expect(panel.get_by_role("button", name="Nicht jetzt")).to_be_visible()
    assert_no_english(page)
    # Not now: the way in by code stays, in German too.
    panel.get_by_role("button", name="Nicht jetzt").click()
    panel.get_by_text("Einer Klasse mit einem Code beitreten").click()
    panel.get_by_role("textbox", name="Der Code deiner Klasse").fill("kein Code")
    panel.get_by_role("button", name="Mit einem Code beitreten").click()
    expect(panel.get_by_role("status")).to_contain_text("Das ist kein Klassencode")
    assert_no_english(page)


def test_a_german_lesson_its_blocks_and_a_lab_run_say_no_english_word(open_german: Callable[..., Page]) -> None:
    page = open_german("scaled-dot-product-attention.html")
    expect(page.get_by_role("navigation", name="Auf dieser Seite")).to_be_attached()
    lab = page.get_by_role("region", name=re.compile(r"^Python-Labor"))
    status = lab.get_by_role("status")
    expect(status).to_contain_text("Bereit", timeout=BOOT_TIMEOUT)
    expect(page.get_by_role("banner").get_by_role("button", name="Präsentationsmodus")).to_be_visible()
    # A quiz answered, as a learner does: its Check answer, its feedback and count are German.
    quiz = page.locator("[data-block=quiz]").first
    check = quiz.get_by_role("button", name="Antwort prüfen").first
    check.click()
    expect(quiz.locator("[data-feedback]").first).to_have_text("Wähle zuerst eine Option.")
    quiz.get_by_role("radio").first.check()
    check.click()
    expect(quiz.locator("[data-feedback]").first).to_contain_text(re.compile(r"^(Richtig|Nicht ganz)\."))
    run = lab.get_by_role("button", name="Ausführen", exact=True)
    run.click()
    skip = lab.get_by_role("button", name="Überspringen und ausführen")
    if skip.count():
        skip.click()
    expect(status).to_have_text(re.compile(r"^Lauf beendet nach \d+ ms$"), timeout=BOOT_TIMEOUT)
    expect(lab.get_by_role("group", name="Dieser Lauf")).to_be_visible()
    expect(lab.get_by_role("group", name=re.compile(r"^Vorheriger Lauf"))).to_be_attached()
    pin = lab.get_by_role("button", name="Als Vergleichsbasis festhalten")
    pin.click()
    expect(pin).to_have_attribute("aria-pressed", "true")
    expect(lab).to_contain_text("Dieser Lauf ist die Vergleichsbasis")
    assert_no_english(page)


def test_the_german_search_box_and_its_results(open_german: Callable[..., Page]) -> None:
    page = open_german("mixing-values.html")
    box = page.get_by_role("search", name="Kurs")
    field = box.get_by_role("searchbox", name="Im Kurs suchen")
    field.fill("softmax")
    expect(box.get_by_role("status")).to_have_text(re.compile(r"^\d+ Treffer für „softmax“\."), timeout=SEARCH_TIMEOUT)
    expect(box.get_by_role("list", name="Suchergebnisse").get_by_role("link").first).to_be_visible()
    field.fill("?!…")
    expect(box.get_by_role("status")).to_have_text("„?!…“ enthält keine Buchstaben oder Ziffern, nach denen gesucht "
                                                   "werden kann.", timeout=SEARCH_TIMEOUT)
    assert_no_english(page)


GERMAN = """---
title: Hunde im Park
summary: Wo die Hunde spielen.
---

## Im Park

Die kleinen Hunde spielen mit den Bällen, während die Katze schläft.
"""


def test_search_stems_the_courses_language(tmp_path: Path, start_test_server: Callable[..., object],
                                           new_page: Callable[..., Page]) -> None:
    """Pagefind indexes the pages in their <html lang> (German stemming): "Hund" finds "Hunde", "Ball" "Bällen"."""
    site = build(write_course(tmp_path, {"hunde.md": GERMAN}, course="title: Tiere\nlanguage: de\n"))
    page = site_opener(site, start_test_server, new_page)("hunde.html")
    box = page.get_by_role("search", name="Kurs")
    field = box.get_by_role("searchbox", name="Im Kurs suchen")
    for word in ("Hund", "spielt"):
        field.fill(word)
        expect(box.get_by_role("status")).to_have_text(f"1 Treffer für „{word}“.", timeout=SEARCH_TIMEOUT)
        expect(box.get_by_role("list", name="Suchergebnisse")).to_contain_text("Hunde im Park")
