"""Upgrading lessonkit under a course: a course made by `lessonkit new` of an earlier version (a frozen copy of
each in tests/fixtures/courses/new-<version>/, made by that version's command) checks and builds unchanged with this
one; and a key renamed in course.yaml, a lesson's front matter or a block type's schema keeps working under its old
name, with a note at its path:line naming the new one (on stderr, failing nothing)."""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from course import LESSON, build, edit, line_of, write_course
from places import FIXTURES
from test_cli import PROGRESS

import lessonkit
from lessonkit.content import yamlsrc
from lessonkit.content.course import SCHEMA as COURSE_SCHEMA
from lessonkit.content.lesson import FRONT_MATTER
from lessonkit.content.schema import Fields, Key, Note, Text, is_note, split_notes
from lessonkit.core.errors import BuildError, Problem
from lessonkit.pipeline.site import build_site

COURSES = FIXTURES / "courses"
COPIES = sorted(p for p in COURSES.iterdir() if p.is_dir())
BUILT = {".lessonkit", "site", "dist"}  # what lessonkit writes in a course folder (its .gitignore lists them)
# Each released version's copy, as its `lessonkit new` wrote it (_digest: its files' paths and bytes). A copy is never
# edited; the current version's is pinned by what `lessonkit new` writes now, and joins these once it is released.
RELEASED = {
    "new-0.2.0": "b9268c34fb0f7493e8e66609344dbdc1b6ba4d0764457b8c3df415baf06a8ee7",
}


def _lessonkit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`lessonkit ARGS` in `cwd`, its stderr without a first step's progress lines (test_cli.PROGRESS)."""
    done = subprocess.run([sys.executable, "-m", "lessonkit", *args], capture_output=True, text=True, timeout=300,
                          check=False, cwd=cwd)
    done.stderr = PROGRESS.sub("", done.stderr)
    return done


def _digest(folder: Path) -> str:
    """The sha256 of a course folder's files: each one's path and bytes."""
    found = hashlib.sha256()
    for rel, data in _sources(folder).items():
        found.update(f"{rel}\0{hashlib.sha256(data).hexdigest()}\n".encode())
    return found.hexdigest()


def _sources(folder: Path) -> dict[str, bytes]:
    """The author's files of a course folder (not what lessonkit builds into it)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.relative_to(folder).parts[0] not in BUILT and "__pycache__" not in p.parts}


def test_this_version_has_its_frozen_copy(tmp_path: Path) -> None:
    """tests/fixtures/courses/new-<this version>/ is what `lessonkit new` of this version writes, byte for byte."""
    name = f"new-{lessonkit.__version__}"
    copy = COURSES / name
    remake = (f"make it with this version's command: cd tests/fixtures/courses && rm -rf {name} && lessonkit new {name}"
              " (a released version's copy is never remade)")
    assert copy.is_dir(), f"no frozen copy of this version's new course: {remake}"
    done = _lessonkit("new", name, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert _sources(tmp_path / name) == _sources(copy), f"{copy} is not what `lessonkit new` writes now: {remake}"


def test_the_released_versions_copies_are_as_they_were_made() -> None:
    """Every copy but the current version's is pinned, and holds the files its version's `lessonkit new` wrote."""
    released = {p.name: _digest(p) for p in COPIES if p.name != f"new-{lessonkit.__version__}"}
    unpinned = {name: digest for name, digest in sorted(released.items()) if name not in RELEASED}
    assert unpinned == {}, f"{unpinned}: released, so frozen — pin each in RELEASED with this digest"
    edited = sorted(name for name, digest in released.items() if digest != RELEASED.get(name))
    assert edited == [], (f"{edited}: not what their version's `lessonkit new` wrote — restore the files from the "
                          "commit that added the copy (git log tests/fixtures/courses/<copy>)")


@pytest.mark.parametrize("copy", COPIES, ids=[p.name for p in COPIES])
def test_a_course_made_by_lessonkit_new_builds_unchanged(copy: Path, tmp_path: Path) -> None:
    """Every frozen copy, as its author left it: `lessonkit check` and `lessonkit build` succeed (notes of renamed keys
    allowed, nothing else on stderr), every lesson is a page, and no file of the author's is changed."""
    course = tmp_path / copy.name
    shutil.copytree(copy, course)
    before = _sources(course)
    lessons = sorted(p.stem for p in (course / "lesson").glob("*.md"))
    checked = _lessonkit("check", cwd=course)
    assert checked.returncode == 0, checked.stderr
    assert re.fullmatch(rf"checked {len(lessons)} lessons?: no problems \(\d+ ms\)\n", checked.stdout)
    assert all(": note: " in line for line in checked.stderr.splitlines()), checked.stderr
    built = _lessonkit("build", cwd=course)
    assert built.returncode == 0, built.stderr
    assert re.fullmatch(rf"built {len(lessons)} lesson pages? into site/ in \d+ ms\n", built.stdout)
    assert built.stderr == checked.stderr
    assert {p.stem for p in (course / "site").glob("*.html")} - {"404"} == {"index", *lessons}
    assert _sources(course) == before


# ---- renamed keys -------------------------------------------------------------------------------------------

DEMO = Fields({
    "label": Key(Text(), required=True, hint="naming it", renamed_from="title"),
    "size": Key(Text(), renamed_from=("width", "length")),
})


def _validate(source: str, schema: Fields = DEMO) -> tuple[Any, list[tuple[int, str]]]:
    found: list[tuple[int, str]] = []
    data = schema.validate(yamlsrc.load(source, 10), "the {demo} block", lambda line, msg: found.append((line, msg)), 9)
    return data, found


def test_an_old_name_still_works_with_a_note_at_its_line() -> None:
    data, reported = _validate("title: Scores\nlength: 3\n")
    assert data == {"label": "Scores", "size": "3"} and (data.lines["label"], data.lines["size"]) == (10, 11)
    assert reported == [
        (10, 'note: "title:" in the {demo} block is now called "label:" — rename it "label:" (the old name still works, '
             "but a later lessonkit may drop it)"),
        (11, 'note: "length:" in the {demo} block is now called "size:" — rename it "size:" (the old name still works, '
             "but a later lessonkit may drop it)")]
    assert all(isinstance(message, Note) for _, message in reported)
    assert _validate("label: Scores\nsize: 3\n") == ({"label": "Scores", "size": "3"}, [])


def test_an_old_name_beside_the_new_one_is_a_problem() -> None:
    data, reported = _validate("label: Scores\ntitle: Old scores\n")
    assert data is None
    assert reported == [(11, '"title:" is the old name of "label:", which the {demo} block has too (line 10) — remove '
                             "this line")]
    assert not any(isinstance(message, Note) for _, message in reported)


def test_old_names_are_not_offered_for_a_typo() -> None:
    _, reported = _validate("label: x\nsiez: 3\n")
    assert reported == [(11, 'unknown key "siez" in the {demo} block (did you mean "size"?) — use one of: label, size')]


def test_a_note_stays_a_note_through_a_forked_renderer() -> None:
    """Problems come back from forked renderers by pickle: a note is still told from a problem there."""
    note = Problem("lesson/a.md", 3, Note('note: "x:" … is now called "y:"'))
    back = pickle.loads(pickle.dumps([note, Problem("lesson/a.md", 4, "wrong")]))
    assert [is_note(p) for p in back] == [True, False]
    assert split_notes(back) == ([back[1]], [back[0]])
    error = BuildError([back[1]], [back[0]])
    assert (error.problems, error.notes) == (["lesson/a.md:4: wrong"], ['lesson/a.md:3: note: "x:" … is now called "y:"'])


def _renamed(schema: Fields, key: str, old: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """`key` of a toolkit schema as if it had been renamed from `old` (no key of this version has been)."""
    monkeypatch.setitem(schema.keys, key, dataclasses.replace(schema.keys[key], renamed_from=old))


def test_course_yaml_and_front_matter_keys_renamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """course.yaml's "tagline:" and a lesson's "summary:" as if renamed: the old names build the same site, with one
    note each at its line; the new names build without notes."""
    _renamed(COURSE_SCHEMA, "tagline", "subtitle", monkeypatch)
    _renamed(FRONT_MATTER, "summary", "abstract", monkeypatch)
    lesson = edit(LESSON, "title: A lesson\n", "title: A lesson\nabstract: What it is about.\n")
    write_course(tmp_path, {"course.yaml": "title: A course\nsubtitle: Short and *sweet*\n", "first.md": lesson})
    built = build_site(tmp_path, tmp_path / "site")
    assert built.notes == [
        'course.yaml:2: note: "subtitle:" in the course config is now called "tagline:" — rename it "tagline:" (the '
        "old name still works, but a later lessonkit may drop it)",
        f'lesson/first.md:{line_of(lesson, "abstract:")}: note: "abstract:" in the front matter is now called '
        '"summary:" — rename it "summary:" (the old name still works, but a later lessonkit may drop it)']
    page = (tmp_path / "site" / "first.html").read_text(encoding="utf-8")
    assert '<p class="tagline">Short and <em>sweet</em></p>' in page
    assert '<meta name="description" content="What it is about.">' in page
    write_course(tmp_path, {"course.yaml": "title: A course\ntagline: Short and *sweet*\n",
                            "first.md": lesson.replace("abstract:", "summary:")})
    again = build_site(tmp_path, tmp_path / "site")
    assert again.notes == []
    renamed = (tmp_path / "site" / "first.html").read_text(encoding="utf-8")
    assert '<p class="tagline">Short and <em>sweet</em></p>' in renamed
    assert '<meta name="description" content="What it is about.">' in renamed


def test_a_note_does_not_hide_a_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A build that fails keeps its notes apart from its problems: the problems fail it, the notes are told."""
    _renamed(COURSE_SCHEMA, "tagline", "subtitle", monkeypatch)
    write_course(tmp_path, {"course.yaml": "title: A course\nsubtitle: Sweet\n",
                            "first.md": edit(LESSON, "title: A lesson\n", "title: A lesson\norder: one\n")})
    with pytest.raises(BuildError) as info:
        build(tmp_path)
    assert info.value.notes == [
        'course.yaml:2: note: "subtitle:" in the course config is now called "tagline:" — rename it "tagline:" (the '
        "old name still works, but a later lessonkit may drop it)"]
    assert info.value.problems == ['lesson/first.md:3: "order:" in the front matter must be a whole number, e.g. '
                                   '"order: 2"']


RENAMED_BLOCK = '''"""{badge}: a label beside the text; its "text:" was called "caption:" before."""

from lessonkit.blocks import BlockType
from lessonkit.content.schema import Fields, Inline, Key

SCHEMA = Fields({"text": Key(Inline(), required=True, hint="with the badge's words", renamed_from="caption")})

BLOCK = BlockType("badge", "a label", SCHEMA, lambda ctx: {"text": ctx.inline(ctx.data["text"])})
'''
BADGE_LESSON = """---
title: Badges
---

## Badge

```{badge}
id: new
caption: New *here*
```
"""


def test_a_renamed_block_key_through_the_command(tmp_path: Path) -> None:
    """A course block type whose key was renamed: `lessonkit check` and `lessonkit build` print the note at the
    lesson's line (stderr) and succeed, and the page shows the value."""
    write_course(tmp_path, {"badges.md": BADGE_LESSON})
    (tmp_path / "blocks" / "badge").mkdir(parents=True)
    (tmp_path / "blocks" / "badge" / "__init__.py").write_text(RENAMED_BLOCK, encoding="utf-8")
    (tmp_path / "blocks" / "badge" / "badge.html").write_text('<span class="badge" data-block="badge">{{ block.text }}'
                                                              "</span>\n", encoding="utf-8")
    note = (f'lesson/badges.md:{line_of(BADGE_LESSON, "caption:")}: note: "caption:" in the {{badge}} block is now '
            'called "text:" — rename it "text:" (the old name still works, but a later lessonkit may drop it)\n')
    checked = _lessonkit("check", cwd=tmp_path / "lesson")
    assert (checked.returncode, checked.stderr) == (0, note)
    assert re.fullmatch(r"checked 1 lesson: no problems \(\d+ ms\)\n", checked.stdout)
    built = _lessonkit("build", cwd=tmp_path)
    assert (built.returncode, built.stderr) == (0, note)
    assert '<span class="badge" data-block="badge">New <em>here</em></span>' in (
        tmp_path / "site" / "badges.html").read_text(encoding="utf-8")
