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
