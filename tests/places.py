"""Where the toolkit's tests find things: the repository, the package's own folders, and the course the browser tests
and the build tests of a whole course use (FIXTURE: a copy of the attention course, so that editing this repository's
course never changes what the toolkit's tests test; the course's own tests are tests/attention/)."""

from __future__ import annotations

from pathlib import Path

from lessonkit.core.places import PACKAGE, STATIC, TEMPLATES, labkit_package

ROOT = Path(__file__).resolve().parent.parent  # the toolkit's repository
LABKIT = labkit_package()
FIXTURE = ROOT / "tests" / "fixtures" / "attention"  # a course folder: course.yaml, lesson/, lab/
FIXTURES = ROOT / "tests" / "fixtures"

__all__ = ["FIXTURE", "FIXTURES", "LABKIT", "PACKAGE", "ROOT", "STATIC", "TEMPLATES"]
