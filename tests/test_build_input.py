"""The build against hostile or broken lesson files: YAML bombs, encodings, links and loops, deep nesting, slugs."""

from __future__ import annotations

from pathlib import Path

import pytest
from course import LESSON, QUIZ, build, line_of, problems, write_course

BOMB = "".join(f"{a}: &{a} [{', '.join([f'*{p}'] * 9 if p else ['lol'] * 9)}]\n"
               for p, a in zip(" abcdefgh", "abcdefghi", strict=True))


# --- YAML ---------------------------------------------------------------------------------------------------------

def test_an_alias_bomb_in_the_front_matter_is_refused_before_it_expands(tmp_path: Path) -> None:
    """Nine levels of aliases (9**9 strings once expanded) used as the summary: refused at the first anchor."""
    text = f"---\ntitle: Bomb\n{BOMB}summary: *i\n---\n\n## Part\n"
    write_course(tmp_path, {"bomb.md": text})
    assert problems(tmp_path) == [
        'lesson/bomb.md:3: front matter uses the YAML anchor "&a" — lessons use no YAML anchors or aliases '
        "(&name, *name): write the value out, and quote text that starts with * or &",
    ]


def test_an_alias_bomb_in_a_quiz_is_refused(tmp_path: Path) -> None:
    """The same bomb inside a quiz block, used as an option's why."""
    text = QUIZ.replace("id: check\n", "id: check\n" + BOMB).replace("why: WHY", "why: *i")
    write_course(tmp_path, {"quiz.md": text})
    assert problems(tmp_path) == [
        f'lesson/quiz.md:{line_of(text, "a: &a")}: {{quiz}} block uses the YAML anchor "&a" — lessons use no YAML '
        "anchors or aliases (&name, *name): write the value out, and quote text that starts with * or &",
    ]


def test_an_alias_without_anchor_is_named_with_the_fix(tmp_path: Path) -> None:
    """A lone alias (text starting with * is one to YAML) gets the same message, which says to quote such text."""
    text = QUIZ.replace("why: WHY", "why: *sharper")
    write_course(tmp_path, {"quiz.md": text})
    assert problems(tmp_path) == [
        f'lesson/quiz.md:{line_of(text, "why: *sharper")}: {{quiz}} block uses the YAML alias "*sharper" — lessons '
        "use no YAML anchors or aliases (&name, *name): write the value out, and quote text that starts with * or &",
    ]


@pytest.mark.parametrize("where", ["front matter", "block", "block mappings"])
def test_yaml_nested_5000_deep_is_refused(tmp_path: Path, where: str) -> None:
    """A flow list 5,000 deep: refused where it passes 16 levels, not a RecursionError or a minute of parsing."""
    deep = "[" * 5000 + "]" * 5000
    if where == "block mappings":  # 20 levels of indentation, no brackets at all
        text = "---\ntitle: Deep\nsummary:\n" + "".join(" " * n + "a:\n" for n in range(1, 21)) + "---\n"
        expected = f"lesson/deep.md:{line_of(text, ' ' * 16 + 'a:')}: front matter nests lists and mappings more than 16 deep"
    elif where == "front matter":
        text = f"---\ntitle: Deep\nsummary: {deep}\n---\n\n## Part\n"
        expected = "lesson/deep.md:3: front matter nests lists and mappings more than 16 deep"
    else:
        text = QUIZ.replace("why: WHY", f"why: {deep}")
        expected = f"lesson/deep.md:{line_of(text, 'why: [[[')}: {{quiz}} block nests lists and mappings more than 16 deep"
    write_course(tmp_path, {"deep.md": text})
    assert problems(tmp_path) == [f"{expected} — blocks need a few levels: flatten it"]


# --- encodings and kinds of file ----------------------------------------------------------------------------------

def test_a_lesson_with_a_byte_order_mark_builds_like_one_without(tmp_path: Path) -> None:
    """Editors on Windows save UTF-8 with a BOM: the front matter is still found, and the page is the same."""
    write_course(tmp_path / "plain", {"a.md": LESSON})
    write_course(tmp_path / "bom", {"a.md": b"\xef\xbb\xbf" + LESSON.encode()})
    assert (build(tmp_path / "bom") / "a.html").read_text() == (build(tmp_path / "plain") / "a.html").read_text()


def test_a_latin1_lesson_names_the_line_of_the_first_bad_byte(tmp_path: Path) -> None:
    """Not UTF-8: the line of the first byte that does not decode, not a traceback."""
    write_course(tmp_path, {"a.md": (LESSON + "\nCaf\xe9 au lait.\n").encode("latin-1")})
    assert problems(tmp_path) == [
        "lesson/a.md:9: this file is not UTF-8 text (byte 0xE9 on this line; Latin-1, UTF-16 or a binary file?) "
        "— save it as UTF-8",
    ]


def test_a_binary_file_and_a_nul_byte(tmp_path: Path) -> None:
    """A PNG named .md, and text with a NUL in it."""
    write_course(tmp_path, {"image.md": b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "nul.md": LESSON + "a\0b\n"})
    assert problems(tmp_path) == [
        "lesson/image.md:1: this file is not UTF-8 text (byte 0x89 on this line; Latin-1, UTF-16 or a binary "
        "file?) — save it as UTF-8",
        "lesson/nul.md:8: this file has a NUL character on this line (a binary file?) — save it as UTF-8 text",
    ]


def test_symlink_loops_and_folders_named_md(tmp_path: Path) -> None:
    """A link to itself, a broken link and a folder ending in .md are named, not followed."""
    write_course(tmp_path, {"a.md": LESSON})
    (tmp_path / "lesson" / "loop.md").symlink_to("loop.md")
    (tmp_path / "lesson" / "gone.md").symlink_to("nowhere.md")
    (tmp_path / "lesson" / "folder.md").mkdir()
    assert problems(tmp_path) == [
        "lesson/folder.md:1: this file is a folder, not a text file — replace it with a UTF-8 text file",
        "lesson/gone.md:1: this file is a broken symbolic link, not a text file — replace it with a UTF-8 text file",
        "lesson/loop.md:1: this file is a symbolic link that loops, not a text file — replace it with a UTF-8 text "
        "file",
    ]


@pytest.mark.parametrize("kind", ["list on one line", "indented list", "quotes"])
def test_markdown_nested_5000_deep_is_refused_at_its_line(tmp_path: Path, kind: str) -> None:
    """Python-Markdown takes minutes or overflows the stack on such nesting: the build names the line instead."""
    deep = {"list on one line": "- " * 5000 + "x",
            "indented list": "\n".join("    " * i + "- x" for i in range(5000)),
            "quotes": "> " * 5000 + "x"}[kind]
    rule = "- " * 40  # a horizontal rule, however long, is not nesting
    text = f"{LESSON}\n{rule}\n\n{deep}\n"
    write_course(tmp_path, {"a.md": text})
    line = line_of(text, deep) + (16 if kind == "indented list" else 0)
    assert problems(tmp_path) == [
        f"lesson/a.md:{line}: this line is nested more than 16 lists and quotes deep — lessons need a few levels: "
        "flatten it",
    ]


# --- paths --------------------------------------------------------------------------------------------------------

def test_a_lesson_linked_from_outside_the_lesson_folder_is_refused(tmp_path: Path) -> None:
    """lesson/x.md -> /elsewhere/secret.md would publish a file the author never put in the course."""
    write_course(tmp_path, {"drafts/a.md": LESSON})
    (tmp_path / "lesson" / "a.md").symlink_to("drafts/a.md")  # a link that stays inside lessons/ is fine
    (tmp_path / "secret.md").write_text(LESSON.replace("Some text.", "Private notes."))
    (tmp_path / "lesson" / "x.md").symlink_to(tmp_path / "secret.md")
    assert problems(tmp_path) == [
        "lesson/x.md:1: lesson/x.md is a symbolic link to a file outside lesson/ — the build publishes only what "
        "is in lesson/: copy the file there instead",
    ]


# --- slugs and pages ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "suggestion"), [("My Lesson.md", "my-lesson"), ("über.md", "uber")])
def test_file_names_make_valid_slugs_or_are_refused(tmp_path: Path, name: str, suggestion: str) -> None:
    """A lesson without "slug:" takes its file name, which must be a valid slug too."""
    write_course(tmp_path, {name: LESSON})
    assert problems(tmp_path) == [
        f'lesson/{name}:1: the file name "{name}" makes the slug "{name[:-3]}", which must be lowercase letters, '
        f'digits and single dashes — rename the file to "{suggestion}.md" or add "slug: {suggestion}" to its front '
        "matter",
    ]


def test_the_slugs_of_the_storage_layout_are_the_site_s(tmp_path: Path) -> None:
    """A lesson "course" would share the keys of the Continue link (its Reset would remove another course's): the
    storage layout's names are refused like the site's pages, from "slug:" and from a file's name."""
    write_course(tmp_path, {"a.md": LESSON.replace("title: A lesson", "title: A lesson\nslug: course"),
                            "probe.md": LESSON})
    last = ('the browser keeps the lesson a learner opened last (the course index\'s Continue link) at '
            '"lessonkit:v1:course:last", among the names of the lessons\' saved progress ("lessonkit:v1:<slug>:…")')
    probe = ('the browser keeps the page\'s test entry (written and removed at once, to see whether it can save '
             'progress) at "lessonkit:v1:probe", among the names of the lessons\' saved progress '
             '("lessonkit:v1:<slug>:…")')
    assert problems(tmp_path) == [
        f'lesson/a.md:3: slug "course" is taken by the site: {last} — give this lesson another slug, e.g. '
        '"introduction"',
        f'lesson/probe.md:1: the file name "probe.md" makes the slug "probe", which the site uses: {probe} — rename '
        'the file or add a "slug: …" line to its front matter',
    ]


def test_a_slug_longer_than_the_limit_is_refused(tmp_path: Path) -> None:
    """101 characters, from "slug:" or from the file's name: the limit, at the line that makes the slug."""
    long = "a" * 101
    write_course(tmp_path, {"a.md": LESSON.replace("title: A lesson", f"title: A lesson\nslug: {long}"),
                            f"{'b' * 101}.md": LESSON, f"{'c' * 100}.md": LESSON.replace("A lesson", "C")})
    assert problems(tmp_path) == [
        f'lesson/a.md:3: slug "{"a" * 59}…" has 101 characters, more than the 100 a slug may have (it names the '
        "lesson's page, files and saved progress) — give this lesson a shorter slug",
        f'lesson/{"b" * 101}.md:1: the file name "{"b" * 59}…" makes a slug of 101 characters, more than the 100 '
        "a slug may have (it names the lesson's page, files and saved progress) — rename the file, or add a shorter "
        '"slug: …" to its front matter',
    ]


def test_hidden_files_are_skipped(tmp_path: Path) -> None:
    """`.hidden.md` (an editor's, or a draft) is not a lesson: it never becomes a page, let alone index.html."""
    write_course(tmp_path, {"a.md": LESSON, ".hidden.md": LESSON.replace("A lesson", "Hidden")})
    site = build(tmp_path)
    assert sorted(p.name for p in site.glob("*.html")) == ["a.html", "index.html"]
    assert "Hidden" not in (site / "index.html").read_text()


def test_the_slug_index_is_the_course_s(tmp_path: Path) -> None:
    """index.html is the course's front page: neither index.md nor "slug: index" may overwrite it; nor 404."""
    write_course(tmp_path, {"a.md": LESSON, "index.md": LESSON,
                            "b.md": LESSON.replace("title: A lesson", "title: B\nslug: index"),
                            "c.md": LESSON.replace("title: A lesson", "title: C\nslug: 404")})
    assert problems(tmp_path) == [
        'lesson/b.md:3: slug "index" is taken by the site: index.html is the course\'s index page (its title '
        'and every lesson) — give this lesson another slug, e.g. "introduction"',
        'lesson/c.md:3: slug "404" is taken by the site: 404.html is the page the site shows for a missing address '
        '— give this lesson another slug, e.g. "introduction"',
        'lesson/index.md:1: the file name "index.md" makes the slug "index", which the site uses: index.html is the '
        'course\'s index page (its title and every lesson) — rename the file or add a "slug: …" line to its front '
        "matter",
    ]
