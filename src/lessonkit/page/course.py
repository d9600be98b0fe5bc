"""What every page shows of the course config: its id and title, its tagline and description as markdown, its accent.

The text is checked the way a lesson's is (no raw HTML, bounded markdown) and converted once per build.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from lessonkit.content import bounds
from lessonkit.content.course import Course
from lessonkit.content.lesson import Lesson
from lessonkit.core.errors import Problem
from lessonkit.text.markup import inline, new_inline_markdown, new_markdown, raw_html_lines

TEXTS = ("tagline", "description")


def course_data(course: Course | None, problems: list[Problem]) -> dict[str, Any]:
    """What every page shows of the course config (a placeholder title when it could not be read: the build fails)."""
    if course is None:
        return {"id": "", "title": "", "tagline": "", "description": "", "style": ""}
    found = _refused(course)
    if found:  # raw HTML, or text markdown would take minutes over: never converted
        problems += found
        return _without_texts(course)
    converted = _converted(course, problems)
    if converted is None:
        return _without_texts(course)
    tagline, description = converted
    return {"id": course.id, "title": course.title,
            "tagline": Markup(tagline),  # noqa: S704 — inline markdown with raw HTML refused above
            "description": Markup(description),  # noqa: S704 — markdown output with raw HTML refused above
            "style": course.style()}


def _without_texts(course: Course) -> dict[str, Any]:
    return {"id": course.id, "title": course.title, "tagline": "", "description": "", "style": course.style()}


def _refused(course: Course) -> list[Problem]:
    """Raw HTML in the tagline or the description, and text markdown cannot convert in bounded time."""
    found: list[Problem] = []
    for key in TEXTS:
        tags = raw_html_lines(getattr(course, key))
        if tags:
            found.append(Problem(course.rel, course.lines[key], f'raw HTML "{tags[0][1]}" is not allowed in the '
                                 "course config — use markdown"))
        found += [Problem(course.rel, course.lines[key], message) for _, message in bounds.problems(getattr(course, key))]
    return found


def _converted(course: Course, problems: list[Problem]) -> tuple[str, str] | None:
    """The tagline (inline) and the description (the index's) as HTML; None when they took too long (reported)."""
    md = new_inline_markdown()
    limit = bounds.TimeLimit()
    md.math_errors = []  # type: ignore[attr-defined]
    full = new_markdown()
    try:
        tagline = limit.run(inline, md, course.tagline) if course.tagline else ""
        description = limit.run(full.convert, course.description) if course.description else ""
    except bounds.TooSlowError:
        problems.append(Problem(course.rel, course.lines.get("description", course.lines.get("tagline", 1)),
                                bounds.too_slow(limit.seconds, "the course config's markdown")))
        return None
    problems += [Problem(course.rel, course.lines.get("tagline", 1), str(exc))
                 for exc in md.math_errors]  # type: ignore[attr-defined]
    problems += [Problem(course.rel, course.lines.get("description", 1), str(exc))
                 for exc in full.math_errors]  # type: ignore[attr-defined]
    return tagline, description


def course_parts(course: Course | None, lessons: list[Lesson]) -> list[dict[str, Any]]:
    """The course's parts in order, each {"id", "title", "lessons": [slugs]} of the lessons that are there ([] for a
    course without parts)."""
    if course is None or course.parts is None:
        return []
    present = {lesson.slug for lesson in lessons}
    return [{"id": part.id, "title": part.title, "lessons": [slug for slug in part.lessons if slug in present]}
            for part in course.parts]
