"""A lesson's Python, as the build decides it: the Pyodide release its lab boots, and its `requires:` resolved and
verified (pure-Python wheels from PyPI, Pyodide packages against the release's lock), each problem at the lesson's
`requires:` line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from lessonkit import runtime
from lessonkit.content.course import Course
from lessonkit.content.lesson import Lesson
from lessonkit.core.errors import Problem
from lessonkit.core.places import user_cache


def lesson_release(lesson: Lesson | None, course: Course | None) -> runtime.Release:
    """The Pyodide release a lesson's lab boots: its own "pyodide:", else the course's (else the default one). A value
    the front matter's schema refused is reported there; the lesson then builds on the course's."""
    own = lesson.meta.get("pyodide") if lesson is not None else None
    if isinstance(own, str) and own in runtime.RELEASES:
        return runtime.get_release(own)
    return runtime.get_release(course.pyodide if course is not None else None)


def first_steps(lessons: list[Lesson], releases: dict[str, runtime.Release], unpacking: list[runtime.Release]) -> None:
    """Count the first steps this build will take on this machine (`unpacking`: the releases whose runtime it writes;
    `releases`: each lesson's, by slug), so that each one's progress line says which of them it is."""
    requires = [(releases[les.slug], wanted) for les in lessons
                if isinstance(wanted := les.meta.get("requires"), list) and wanted]
    runtime.first_steps(runtime.pending_steps(user_cache(), unpacking, requires))


def requirements(lesson: Lesson, release: runtime.Release, problems: list[Problem],
                  same: dict[str, Any] | None = None) -> tuple[list[Path], runtime.Packages | None]:
    """The lesson's `requires:`: wheels of its pure-Python packages (downloaded once into the cache), and its Pyodide
    packages, verified against the release's lock (None when it names none). `same`: what this build found for each
    release and list of requirements, shared by every lesson that names them."""
    wanted = list(lesson.meta.get("requires") or [])
    if not wanted or not isinstance(wanted, list):
        return [], None
    line = 1 + next((n for n, t in enumerate(lesson.source.splitlines()) if t.startswith("requires:")), 0)
    key = json.dumps([release.version, wanted], default=str)
    if same is None or key not in same:
        found = _verify(user_cache(), release, wanted)
        if same is not None:
            same[key] = found
    else:
        found = same[key]
    wheels, packages, messages, notes = found
    for note in notes:
        print(f"{lesson.rel}:{line}: {note}", file=sys.stderr)
    problems += [Problem(lesson.rel, line, f"requires: {message}") for message in messages]
    return wheels, packages


def _verify(root: Path, release: runtime.Release,
            wanted: list[Any]) -> tuple[list[Path], runtime.Packages | None, list[str], list[str]]:
    """A `requires:` list of a release: (its pure-Python wheels, its verified Pyodide packages, the problems with
    it, notes on the build's own Python). `root`: the user cache, where downloads and verified copies are kept."""
    found: list[str] = []
    notes: list[str] = []
    wheels: list[Path] = []
    packages = None
    keys: list[str] = []
    try:
        lock = runtime.load_lock(release)
        keys, pure, found = runtime.split_requires(wanted, lock, release.version)
        if pure and not release.micropip_wheel:
            keys.append("micropip")  # the release's own, from its lock like its other packages
        if pure and not found:
            wheels = runtime.fetch_requirements(pure, root, python=release.python)
        if keys and not found:
            packages = runtime.fetch_packages(root, release, keys)
            notes = runtime.build_versions(packages.lock)
    except (RuntimeError, ValueError, OSError) as exc:
        found += str(exc).splitlines()
        if packages is None and keys:
            found += runtime.carried_elsewhere(release, [k for k in keys if k != "micropip"])
    return wheels, packages, found, notes
