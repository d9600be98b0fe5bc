"""The course's language: "language:" in course.yaml (a BCP 47 tag, default en) and in a lesson's front matter, and
the `<html lang dir>` it gives every page (right to left for Arabic, Hebrew …)."""

from __future__ import annotations

import re

from course import LESSON, build, problems, write_course


def html_tag(html: str) -> str:
    found = re.search(r"<html[^>]*>", html)
    assert found
    return found.group(0)


def test_a_course_is_english_without_language(tmp_path):
    site = build(write_course(tmp_path, {"a.md": LESSON}))
    assert html_tag((site / "a.html").read_text()) == '<html lang="en" dir="ltr">'
    assert html_tag((site / "index.html").read_text()) == '<html lang="en" dir="ltr">'


def test_language_sets_every_pages_lang_and_a_lesson_may_set_its_own(tmp_path):
    other = LESSON.replace("title: A lesson\n", "title: Another\nslug: another\nlanguage: ar\n")
    site = build(write_course(tmp_path, {"a.md": LESSON, "b.md": other}, course="title: C\nlanguage: de-AT\n"))
    assert html_tag((site / "a.html").read_text()) == '<html lang="de-AT" dir="ltr">'
    assert html_tag((site / "index.html").read_text()) == '<html lang="de-AT" dir="ltr">'
    assert html_tag((site / "another.html").read_text()) == '<html lang="ar" dir="rtl">'


def test_an_unknown_language_is_a_problem_at_its_line(tmp_path):
    write_course(tmp_path, {"a.md": LESSON}, course="title: C\nlanguage: qq\n")
    assert problems(tmp_path) == ['course.yaml:2: "language: qq" is no language lessonkit knows — use a BCP 47 '
                                  'tag such as "de", "fr", "es", "pt-BR" or "ar"']


def test_a_lesson_language_is_checked_at_its_line(tmp_path):
    bad = LESSON.replace("title: A lesson\n", "title: A lesson\nlanguage: english\n")
    write_course(tmp_path, {"a.md": bad})
    assert problems(tmp_path) == ['lesson/a.md:3: "language:" in the front matter must be a BCP 47 language tag, '
                                  'e.g. "language: de"']


STRINGS = """title: C
language: de
strings:
  lab.run: Los
  index.lessons:
    one: "{n} Kapitel"
    other: "{n} Kapitel"
"""


def test_strings_override_a_toolkit_message_in_the_page_and_the_templates(tmp_path):
    import json

    site = build(write_course(tmp_path, {"a.md": LESSON}, course=STRINGS))
    html = (site / "a.html").read_text()
    found = re.search(r'<script type="application/json" id="lesson-messages">(.*?)</script>', html, re.S)
    assert found
    words = json.loads(found.group(1))
    assert words["lab.run"] == "Los"
    assert words["index.lessons"] == {"one": "{n} Kapitel", "other": "{n} Kapitel"}
    assert words["lab.stop"] == "Stopp"  # the rest: the German catalog's


def test_strings_keys_and_forms_are_checked_at_their_lines(tmp_path):
    write_course(tmp_path, {"a.md": LESSON}, course="""title: C
language: de
strings:
  lab.rnu: Los
  lab.stop:
    one: Halt
    other: Halt
  index.lessons:
    one: "{n} Kapitel"
    few: "{n} Kapitel"
  lab.finished: "Fertig nach {sekunden} ms"
""")
    assert problems(tmp_path) == [
        'course.yaml:4: "strings:" names "lab.rnu", which is no message of lessonkit (did you mean "lab.run"?) — use a '
        'key the manual lists (Course config: "strings:"), e.g. "lab.run"',
        'course.yaml:5: "lab.stop" has one form ("Stop"): give it one text, not plural forms',
        'course.yaml:8: "index.lessons" needs "other:", the form for any count',
        'course.yaml:10: "few:" is no plural category of "de" — use one, other',
        'course.yaml:11: "lab.finished" uses {sekunden}, which the message does not fill in — use {ms}',
    ]


def test_new_language_de_writes_a_german_starter_course_that_builds(tmp_path):
    from lessonkit.scaffold import ScaffoldError, new_course

    folder = tmp_path / "kurs"
    new_course(folder, "Aufmerksamkeit", "de")
    config = (folder / "course.yaml").read_text(encoding="utf-8")
    assert "\nlanguage: de  #" in config and "Eine Zeile unter dem Titel." in config
    lesson = (folder / "lesson" / "first-lesson.md").read_text(encoding="utf-8")
    assert "title: \"Deine erste Lektion\"" in lesson and "## Ziel" in lesson and "## Prüfe dich selbst" in lesson
    site = build(folder)
    page = (site / "first-lesson.html").read_text(encoding="utf-8")
    assert html_tag(page) == '<html lang="de" dir="ltr">'
    assert "Prüfen</button>" in page and "Ausführen</button>" in page
    try:
        new_course(tmp_path / "other", "X", "qq")
    except ScaffoldError as exc:
        assert exc.problems == ['--language: "language: qq" is no language lessonkit knows — use a BCP 47 tag such as '
                                '"de", "fr", "es", "pt-BR" or "ar": nothing was written']
    else:
        raise AssertionError("an unknown language is refused")
    assert not (tmp_path / "other").exists()


def test_what_labkit_writes_into_a_labs_build_output_is_in_the_pages_language(tmp_path):
    """The build's lab host words labkit's own text with the page's catalog: a German page's lab output shows it in
    German (and an English one in English), as the page's Python writes it."""
    from course import LAB_LESSON

    lab = "try:\n    input()\nexcept EOFError as exc:\n    print(exc)\n"
    german = build(write_course(tmp_path / "de", {"a.md": LAB_LESSON}, {"demo.py": lab}, course="title: C\nlanguage: de\n"))
    english = build(write_course(tmp_path / "en", {"a.md": LAB_LESSON}, {"demo.py": lab}))
    assert "Dieses Labor hat keine Tastatureingabe: Schreib die Werte stattdessen in den Code" in (
        german / "a.html").read_text()
    assert "This lab has no keyboard input: put the values in the code instead" in (english / "a.html").read_text()
