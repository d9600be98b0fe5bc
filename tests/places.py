"""Where the toolkit's tests find things: the repository, the package's own folders, and the course the browser tests
and the build tests of a whole course use (FIXTURE: a copy of the attention course, so that editing this repository's
course never changes what the toolkit's tests test; the course's own tests are tests/attention/)."""

from __future__ import annotations

from pathlib import Path

from lessonkit.core.places import PACKAGE, STATE, STATIC, TEMPLATES, labkit_package
from lessonkit.hosting.offline import DIGEST_CACHE

ROOT = Path(__file__).resolve().parent.parent  # the toolkit's repository
LABKIT = labkit_package()
FIXTURE = ROOT / "tests" / "fixtures" / "attention"  # a course folder: course.yaml, lesson/, lab/
FIXTURES = ROOT / "tests" / "fixtures"
# What a build keeps in a course's build state folder (STATE, .lessonkit/): its service worker's digests, converted
# math, compressed files, labs' answers. Found at a course's root, it was written by something handed the root itself
# as that folder (a test's build state belongs in a tmp folder).
BUILD_STATE = (DIGEST_CACHE, "mathml", "br", "labs")

__all__ = ["BUILD_STATE", "FIXTURE", "FIXTURES", "LABKIT", "PACKAGE", "ROOT", "STATE", "STATIC", "TEMPLATES"]
