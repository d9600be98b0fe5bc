"""Step 1 of the build: every lesson file read and parsed (lessonkit.content.lesson), collecting problems rather than
stopping; with serve's memo, only the files an edit changed."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import TYPE_CHECKING

from lessonkit.content.lesson import RESERVED_SLUGS, Lesson, load_lesson
from lessonkit.content.sources import outside, shown
from lessonkit.core.errors import Problem
from lessonkit.core.files import stat_stamp
from lessonkit.pipeline.memo import Memo, digest

if TYPE_CHECKING:
    from lessonkit.pipeline.site import Project


def load_all(project: Project, problems: list[Problem], memo: Memo | None = None) -> list[Lesson]:
    """Step 1: read every lesson file (in file order), collecting problems rather than stopping; with a memo, a file
    whose bytes are those it was loaded from last time is not parsed again (nor read, when the watcher saw no change
    to it and its stat is the same)."""
    # Hidden files are editors' (".#x.md" locks, ".x.md.swp"), never lessons.
    files = sorted(f for f in project.lessons.glob("*.md") if not f.name.startswith("."))
    if not files:
        problems.append(Problem(shown(project.lessons, project.root), 1, "no lessons found: add a .md file here"))
    jobs = []
    folder = shown(project.lessons / "_", project.root)[:-1]  # the lessons' folder as authors see it, resolved once
    for file in files:
        rel = folder + file.name
        if file.is_symlink() and outside(file, project.lessons):
            folder = shown(project.lessons, project.root)
            problems.append(Problem(rel, 1, f"{rel} is a symbolic link to a file outside {folder}/ — the build "
                                    f"publishes only what is in {folder}/: copy the file there instead"))
        else:
            jobs.append((file, rel))
    kinds = tuple(project.kinds)
    loaded: dict[str, tuple[Lesson | None, list[Problem]]] = {}
    stamps: dict[str, str] = {}
    stats: dict[str, tuple[int, ...] | None] = {}
    if memo is not None:
        for file, rel in jobs:
            known = memo.lessons.get(rel)
            if known is not None and known[1] == kinds and memo.unchanged(file, rel):
                stamps[rel], stats[rel], loaded[rel] = known[0], memo.stats[rel], (known[2], known[3])
                continue
            stats[rel] = stat_stamp(file)  # before the bytes: a save in between is seen by the next build
            try:
                stamps[rel] = digest(file.read_bytes())
            except OSError:
                continue  # loading it says why
            if known is not None and known[:2] == (stamps[rel], kinds):
                loaded[rel] = (known[2], known[3])
    todo = [job for job in jobs if job[1] not in loaded]
    for job, result in zip(todo, _load_files(list(kinds), todo), strict=True):
        loaded[job[1]] = result
    lessons: list[Lesson] = []
    for _, rel in jobs:
        lesson, found = loaded[rel]
        if lesson is not None:
            lessons.append(lesson)
        problems += found
    if memo is not None:
        memo.lessons = {rel: (stamps[rel], kinds, *loaded[rel]) for _, rel in jobs if rel in stamps}
        memo.stats = {rel: stats[rel] for rel in memo.lessons}
    lessons.sort(key=lambda les: les.rel)
    by_slug: dict[str, list[Lesson]] = {}
    for lesson in lessons:
        if lesson.slug not in RESERVED_SLUGS:  # those are refused already
            by_slug.setdefault(lesson.slug, []).append(lesson)
    for slug, same in by_slug.items():
        for lesson in same if len(same) > 1 else ():
            others = "; ".join(_slug_source(other) for other in same if other is not lesson)
            named = "" if all("slug" in other.meta for other in same) else (
                ' (a lesson without "slug:" is named by its file: add a "slug:" line to it, or rename it)')
            problems.append(Problem(lesson.rel, _slug_line(lesson), f'slug "{slug}" is also the slug of {others} — give '
                                    f"each lesson its own slug{named}"))
    return lessons


def _slug_line(lesson: Lesson) -> int:
    """The line of a lesson's "slug:", or 1 when its file name is its slug."""
    lines = getattr(lesson.meta, "lines", {})
    return lines.get("slug", 1) if "slug" in lesson.meta else 1


def _slug_source(lesson: Lesson) -> str:
    """Where a lesson's slug comes from, for a message: its "slug:" line, or its file name."""
    if "slug" in lesson.meta:
        return f'{lesson.rel} (line {_slug_line(lesson)}: "slug: {lesson.slug}")'
    return f"{lesson.rel} (its file name)"


def _load_files(kinds: list[str], jobs: list[tuple[Path, str]]) -> list[tuple[Lesson | None, list[Problem]]]:
    """Load lesson files in this process, one after the other.

    Not in forked children: a loaded lesson is mostly its text (the file, its prose and blocks, their YAML's values),
    and pickling it back to this process costs about what loading it does. The collector is paused meanwhile: every
    container the YAML makes lives on in a lesson, so its passes over them would free nothing.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return [_load_one(kinds, job) for job in jobs]
    finally:
        if enabled:
            gc.enable()


def _load_one(kinds: list[str], job: tuple[Path, str]) -> tuple[Lesson | None, list[Problem]]:
    """Load one lesson file (with the block types it may use); its problems come back beside it."""
    found: list[Problem] = []
    return load_lesson(job[0], job[1], found, kinds), found
