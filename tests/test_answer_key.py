"""`lessonkit key`, as an instructor runs it in a course `lessonkit new` made: one printable page with every
question's right answer and why each option is right or wrong, and every exercise's verified solution, written into
dist/ and linked from nowhere in the site."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import pytest
from test_cli import TITLE, lessonkit_

from lessonkit.blocks import types
from lessonkit.content.lesson import load_lesson


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course made by `lessonkit new`, keyed and built once."""
    where = tmp_path_factory.mktemp("key")
    done = lessonkit_("new", "course", "--title", TITLE, cwd=where)
    assert done.returncode == 0, done.stderr
    return where / "course"


def blocks_of(course: Path, kind: str) -> list[dict]:
    """The YAML of the first lesson's blocks of `kind`, as the author wrote them."""
    path = next((course / "lesson").glob("*.md"))
    lesson = load_lesson(path, path.name, [], types())
    assert lesson is not None
    return [b.data for b in lesson.blocks if b.type == kind]


def text(fragment: str) -> str:
    """An HTML fragment's words."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", fragment)).split())


def pieces(markdown: str) -> list[str]:
    """The plain words of an author's inline markdown, between its math and marks (the key shows them typeset)."""
    return [" ".join(p.split()) for p in re.split(r"\$[^$]*\$|[*_`]", markdown) if p.strip(" .,;:?!")]


def shows(words: str, markdown: str) -> bool:
    """Whether the key's words show the author's text."""
    return all(piece in words for piece in pieces(markdown))


def test_key_writes_every_right_answer_and_solution_outside_the_site(made: Path, tmp_path: Path) -> None:
    course = tmp_path / "course"
    shutil.copytree(made, course, symlinks=True)
    done = lessonkit_("key", cwd=course)
    key = course / "dist" / "answer-key.html"
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"wrote the answer key ({done.stdout.split('(')[1].split(' ')[0]} blocks) to {key}\n"
    page = key.read_text(encoding="utf-8")
    words = text(page)
    assert f"Answer key: {TITLE}" in words
    assert "<script" not in page  # a page of its own, for paper

    quizzes = blocks_of(course, "quiz")
    assert quizzes, "the first lesson shows a quiz"
    for quiz in quizzes:
        for question in quiz["questions"]:
            right = next(o for o in question["options"] if o.get("correct"))
            assert shows(words, question["question"]), question["question"]
            # The right option, marked, and why every option is right or wrong.
            marked = re.findall(r'<li class="right">(.*?)</li>', page, re.S)
            assert any(shows(text(m), right["text"]) for m in marked), right["text"]
            for option in question["options"]:
                assert shows(words, option["why"]), option["why"]
    for exercise in blocks_of(course, "exercise"):
        solution = exercise["solution"]
        if not solution.endswith(".py") or "\n" in solution:
            assert html.escape(solution.strip()) in page
        else:  # the solution kept in lab/
            assert html.escape((course / "lab" / solution).read_text(encoding="utf-8").strip()) in page

    # The site knows nothing of it.
    built = lessonkit_("build", cwd=course)
    assert built.returncode == 0, built.stderr
    site = course / "site"
    assert not list(site.rglob("answer-key*"))
    for published in site.rglob("*.html"):
        assert "answer-key.html" not in published.read_text(encoding="utf-8")


def test_key_refuses_to_write_into_the_site(made: Path, tmp_path: Path) -> None:
    course = tmp_path / "course"
    shutil.copytree(made, course, symlinks=True)
    target = course / "site" / "key.html"
    done = lessonkit_("key", "--out", str(target), cwd=course)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"lessonkit key: {target.resolve()} is in the site's folder, which is published — write the "
                           "key elsewhere (--out FILE)\n")
    assert not target.exists()


def test_the_key_is_in_the_courses_language(made: Path, tmp_path: Path) -> None:
    course = tmp_path / "course"
    shutil.copytree(made, course, symlinks=True)
    config = course / "course.yaml"
    config.write_text(re.sub(r"^language: .*$", "language: de", config.read_text(encoding="utf-8"), flags=re.M),
                      encoding="utf-8")
    done = lessonkit_("key", cwd=course)
    assert done.returncode == 0, done.stderr
    page = (course / "dist" / "answer-key.html").read_text(encoding="utf-8")
    words = text(page)
    assert '<html lang="de" dir="ltr">' in page
    assert f"Lösungsschlüssel: {TITLE}" in words
    assert "Für die Lehrkraft: jede Frage mit ihrer richtigen Antwort" in words
    assert re.search(r"<h3>Frage( \d+)? <small>", page)
    assert re.search(r'<li class="right">.*?<span class="mark"> ✓ richtige Antwort</span>', page, re.S)
    assert "<strong>Lösung</strong>" in page
    for english in ("Answer key", "Question", "right answer", "Solution", "For the instructor"):
        assert english not in words, english
