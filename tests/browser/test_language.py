"""A German build of the fixture course (its lessons left in English) in Chromium: no word of the English catalog
anywhere the toolkit speaks — the index and its counts, a lesson's chrome and its presenter button, its blocks (the
quiz's Check answer), the lab's statuses and instructor tools after a run, the class's join prompt and its way in by
code, the search box and its results — found by role and visible text as a learner meets them. And search stems the
course's language: a German inflected form finds its lesson."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from course import build, write_course
from places import FIXTURE
from playwright.sync_api import Page, expect

from lessonkit.core.messages import PLACEHOLDER, Messages
from lessonkit.lms.classroom import new_class

from .helpers import site_opener

BOOT_TIMEOUT = 120_000
LRS = "http://127.0.0.1:9/xAPI/"  # a port nothing listens on: the tests join no class
SEARCH_TIMEOUT = 30_000  # Pagefind's first load, on a busy machine


def english_patterns() -> list[tuple[str, re.Pattern[str]]]:
    """Each English message the German catalog says otherwise, as a pattern of a whole text (placeholders: any)."""
    english, german = Messages("en"), Messages("de")
    out = []
    for key, entry in english.source.entries.items():
        theirs, ours = entry.forms or (entry.text,), german.entry(key).forms or (german.entry(key).text,)
        for text in theirs:
            if text in ours or len(re.findall(r"[A-Za-z]", PLACEHOLDER.sub("", text))) < 6:
                continue  # the same words in German, or too few letters of its own to tell it (“{a} and {b}”)
            parts = [re.escape(p.strip()) for p in PLACEHOLDER.split(text)]
            body = ".+?".join(p for p in parts[::2])  # split keeps the names at odd places
            out.append((key, re.compile(rf"^{body}$", re.S)))
    return out


# Every element's own text, its whole text, and its accessible words (aria-label, title, placeholder).
TEXTS_JS = """() => {
  const out = [];
  const squash = (s) => (s || "").replace(/\\s+/g, " ").trim();
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest("script, style, template, [data-lab-pre], .lab-pre, .cm-content, textarea")) continue;
    const own = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join(" ");
    // An element's whole text only where it is short (a button, a status): a lesson's English prose is its own.
    const whole = el.innerText && el.innerText.length <= 240 ? el.innerText : "";
    for (const text of [own, whole, el.getAttribute("aria-label"), el.getAttribute("title"),
                        el.getAttribute("placeholder")]) {
      const s = squash(text);
      if (s) out.push(s);
    }
  }
  return [...new Set(out)];
}"""


def english_on(page: Page) -> list[str]:
    """The English catalog messages the page shows (key: text), but for the course's own words: a text its lessons
    or course.yaml say themselves (a "## Explain it back" heading) is the author's English, not the toolkit's."""
    sources = [*FIXTURE.glob("lesson/*.md"), *FIXTURE.glob("lab/*.py"), FIXTURE / "course.yaml"]
    authored = " ".join(" ".join(p.read_text(encoding="utf-8").split()) for p in sources)
    texts = [text for text in page.evaluate(TEXTS_JS) if text not in authored]
    return sorted({f"{key}: {text}" for text in texts for key, pattern in english_patterns() if pattern.match(text)})


@pytest.fixture(scope="module")
def german_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("german") / "course"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("site", ".lessonkit"))
    config = root / "course.yaml"
    # A class configured (its record store never reached: nobody joins), so a join link offers the class's panel.
    config.write_text(config.read_text(encoding="utf-8") + "language: de\nclass:\n  lrs: " + LRS + "\n",
                      encoding="utf-8")
    return build(root)


@pytest.fixture
def open_german(german_site: Path, start_test_server: Callable[..., object],
                new_page: Callable[..., Page]) -> Callable[..., Page]:
    return site_opener(german_site, start_test_server, new_page)


def test_the_german_index_and_its_counts_say_no_english_word(open_german: Callable[..., Page]) -> None:
    page = open_german("index.html")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.get_by_role("heading", name="Lektionen")).to_be_visible()
    tools = page.get_by_role("region", name="Dein Fortschritt")
    expect(tools.get_by_role("button", name="Meinen Fortschritt herunterladen")).to_be_visible()
    expect(page.locator("[data-lesson-progress]").first).to_contain_text("Nicht begonnen")
    expect(page.get_by_role("banner").get_by_role("button", name="Präsentationsmodus")).to_be_visible()
    expect(page.locator("[data-offline-save] button")).to_have_text("Den Kurs für die Offline-Nutzung speichern")
    assert english_on(page) == []


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
    assert english_on(page) == []
    # Not now: the way in by code stays, in German too.
    panel.get_by_role("button", name="Nicht jetzt").click()
    panel.get_by_text("Einer Klasse mit einem Code beitreten").click()
    panel.get_by_role("textbox", name="Der Code deiner Klasse").fill("kein Code")
    panel.get_by_role("button", name="Mit einem Code beitreten").click()
    expect(panel.get_by_role("status")).to_contain_text("Das ist kein Klassencode")
    assert english_on(page) == []


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
    assert english_on(page) == []


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
    assert english_on(page) == []


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
