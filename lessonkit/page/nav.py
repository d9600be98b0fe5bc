"""Where a lesson stands in its course: the lessons around it, and the section that leads on to the next one."""

from __future__ import annotations

from typing import Any

from markupsafe import escape

from lessonkit.content.errors import Problem
from lessonkit.content.lesson import Lesson
from lessonkit.content.schema import did_you_mean

NEXT_SECTION = "next lesson"  # a "## Next Lesson" heading (any case) is the section that leads to the next lesson


def course_nav(lessons: list[dict[str, str]], slug: str, parts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Where a lesson stands in the course: every lesson (the current one marked), its position, previous and next;
    with parts, each part with its lessons (the current lesson's part marked)."""
    at = next(n for n, les in enumerate(lessons) if les["slug"] == slug)
    marked = [{**les, "current": n == at} for n, les in enumerate(lessons)]
    by_slug = {les["slug"]: les for les in marked}
    grouped = [{**part, "lessons": [by_slug[s] for s in part["lessons"] if s in by_slug],
                "current": slug in part["lessons"]} for part in parts or []]
    return {"lessons": marked, "position": at + 1, "parts": grouped,
            "previous": lessons[at - 1] if at > 0 else None, "next": lessons[at + 1] if at + 1 < len(lessons) else None}


def link_next_section(body: str, toc: list[dict[str, str]], lesson: Lesson, following: dict[str, str] | None,
                       problems: list[Problem]) -> str:
    """The section that leads on (front matter "next_section:", else the last "## Next Lesson") ends with a link to
    the next lesson; the author's text stays as written."""
    declared = lesson.meta.get("next_section")
    ids = [item["id"] for item in toc]
    if declared is not None:
        if str(declared) not in ids:
            problems.append(Problem(lesson.rel, lesson.meta.lines["next_section"], f'"next_section:" names '
                                    f'"{declared}", which is no "##" heading of this lesson{did_you_mean(declared, ids)}'
                                    f" — use one of: {', '.join(ids) or '(no headings yet)'}"))
            return body
        heading = str(declared)
    else:
        heading = next((item["id"] for item in reversed(toc)
                        if " ".join(item["name"].split()).lower() == NEXT_SECTION), "")
    if not heading or following is None:
        return body
    start = body.find(f'<h2 id="{heading}">')
    if start < 0:
        return body
    # Parts are top-level <section class="part"> elements, one after the other (lessonkit.page.markup._Parts): this one
    # ends at the last </section> before the next part, or the body's last one.
    after = body.find('<section class="part">', start)
    end = body.rfind("</section>", start, after if after >= 0 else len(body))
    if end < 0:
        return body
    link = (f'<p class="next-lesson-link"><a href="{escape(following["href"])}">Continue with the next lesson: '
            f"{escape(following['title'])}</a></p>\n")
    return body[:end] + link + body[end:]
