"""The course manifest: one description of the course, made by the build, that the index and the progress code share.

`{"course": {"id", "title"}, "format": 1, "lessons": [{"slug", "title", "summary", "version", "href", "blocks":
[{"type", "id", "version", ...}]}], "parts": [{"id", "title", "lessons": [slug, ...]}]}`: every lesson in course
order, and each of its blocks that keeps a learner's progress, with what its type adds (lessonkit.blocks:
BlockType.progress, e.g. a quiz's "questions"); `parts` is the course config's (lessonkit.content.course), empty for a
course without parts. The index page carries it as a JSON island (`#course-manifest`); lesson pages carry only the
course's id and title.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lessonkit.page.lesson import Page

FORMAT = 1  # raised when a field changes meaning, so stored progress and files can tell


def course_manifest(course: dict[str, Any], lessons: Sequence[Page],
                    parts: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The manifest of a course (its id and title), its rendered lessons in course order, and its parts."""
    return {
        "course": {"id": course["id"], "title": course["title"]},
        "format": FORMAT,
        "lessons": [{
            "slug": page.lesson.slug,
            "title": page.lesson.title,
            "summary": str(page.lesson.meta.get("summary") or ""),
            "version": page.lesson.version,
            "href": f"{page.lesson.slug}.html",
            "blocks": [dict(block) for block in page.progress],
        } for page in lessons],
        "parts": [{"id": part["id"], "title": part["title"], "lessons": list(part["lessons"])} for part in parts],
    }
