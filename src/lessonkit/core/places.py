"""Where things are: the package's own data (templates, the page's modules and styles, the prebuilt bundles and
runtime), the user cache shared by every course (the runtime unpacked, downloads), and a course's own build state.

Nothing here knows a course's files: a course is a folder the caller names (lessonkit.content.course.find_course).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import platformdirs

PACKAGE = Path(__file__).resolve().parent.parent  # the installed lessonkit package
STATIC = PACKAGE / "static"  # the page's ES modules and styles, by realm (page, lab, worker, sw, course, lms)
TEMPLATES = PACKAGE / "templates"  # the page templates a course's templates/ may override
LOCALE = PACKAGE / "locale"  # the message catalogs, <language>/LC_MESSAGES/lessonkit.po (core/messages.py)
PREBUILT = PACKAGE / "_prebuilt"  # made when the wheel is made (lessonkit.prebuild): bundles, runtime, wheels

CACHE_ENV = "LESSONKIT_CACHE"  # where the user cache is, instead of the platform's cache folder
STATE = ".lessonkit"  # a course's own build state (caches of its labs, math and compressed files), never committed


def labkit_package() -> Path:
    """The folder of the labkit package (authors' labs `import labkit`; the page's Python gets it as a wheel)."""
    spec = importlib.util.find_spec("labkit")
    if spec is None or spec.origin is None:
        raise ImportError("labkit is not installed beside lessonkit — reinstall lessonkit (pip install lessonkit)")
    return Path(spec.origin).resolve().parent


def user_cache() -> Path:
    """The cache every course on this machine shares ($LESSONKIT_CACHE, else the platform's user cache folder)."""
    chosen = os.environ.get(CACHE_ENV, "").strip()
    return Path(chosen).expanduser().resolve() if chosen else Path(platformdirs.user_cache_dir("lessonkit"))


def course_state(root: Path) -> Path:
    """A course's build state folder, made on first use with a .gitignore of its own (as .pytest_cache does), so
    it is never committed whatever the course's own .gitignore says."""
    state = root / STATE
    ignore = state / ".gitignore"
    if not ignore.is_file():
        state.mkdir(parents=True, exist_ok=True)
        ignore.write_text("# Made by lessonkit: its build state for this course, safe to delete.\n*\n", encoding="utf-8")
    return state
