"""Where a lesson stands in its course: the lessons around it, and the section that leads on to the next one."""

from __future__ import annotations

import re
from typing import Any

import jinja2
from markupsafe import escape

from lessonkit.content.lesson import Lesson
from lessonkit.content.schema import did_you_mean
from lessonkit.core.errors import Problem

NEXT_SECTION = "next lesson"  # a "## Next Lesson" heading (any case) is the section that leads to the next lesson


def course_nav(lessons: list[dict[str, str]], slug: str, parts: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Where a lesson stands in the course: every lesson (the current one marked), its position, previous and next;
    with parts, each part with its lessons (the current lesson's part marked)."""
    at = next(n for n, les in enumerate(lessons) if les["slug"] == slug)
    marked = _unmarked(lessons)[:]
    marked[at] = {**lessons[at], "current": True}
    by_slug = {les["slug"]: les for les in marked}
    grouped = [{**part, "lessons": [by_slug[s] for s in part["lessons"] if s in by_slug],
                "current": slug in part["lessons"]} for part in parts or []]
    return {"lessons": marked, "position": at + 1, "parts": grouped,
            "previous": lessons[at - 1] if at > 0 else None, "next": lessons[at + 1] if at + 1 < len(lessons) else None}


_copies: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]] = []  # this process's last: (lessons, unmarked)


def _unmarked(lessons: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lessons, each marked not current: made once per build (and process), shared by every page's nav, which
    puts its own lesson's marked copy in its place (templates only read them)."""
    if not _copies or _copies[0][0] is not lessons:
        _copies[:] = [(lessons, [{**les, "current": False} for les in lessons])]
    return _copies[0][1]


SIDEBAR = "course-nav.html"  # the sidebar's list of lessons, rendered by itself
_CURRENT = ' aria-current="page"'  # what the sidebar's template writes in the link to the current lesson
_PART = '<details class="course-nav-part"'  # and what it writes for each part, ` open` on the current lesson's
_MARKS = re.compile(f"({re.escape(_CURRENT)}|{re.escape(_PART)} open>)")


def render_sidebar(env: jinja2.Environment, nav: dict[str, Any]) -> str:
    """The sidebar's list of lessons for one page, by its template."""
    return env.get_template(SIDEBAR).render(nav=nav)


class _Sidebar:
    """The sidebar's list rendered once with every lesson and every part marked current: a page's is that HTML with
    the marks of the other lessons and parts taken out (escaped titles cannot hold a mark's text). None when the
    template writes its marks otherwise (a page's is then rendered by itself)."""

    def __init__(self, env: jinja2.Environment, lessons: list[dict[str, Any]], parts: list[dict[str, Any]] | None):
        marked = [{**les, "current": True} for les in lessons]
        by_slug = {les["slug"]: les for les in marked}
        grouped = [{**part, "lessons": [by_slug[s] for s in part["lessons"] if s in by_slug], "current": True}
                   for part in parts or []]
        pieces = _MARKS.split(render_sidebar(env, {"lessons": marked, "parts": grouped}))
        order = [les["slug"] for part in grouped for les in part["lessons"]] if grouped else list(by_slug)
        marks = pieces[1::2]
        lessons_marked = [mark for mark in marks if mark == _CURRENT]
        self.pieces: list[str] | None = None
        self.owners: list[str | frozenset[str]] = []  # per mark: its lesson's slug, or its part's lessons' slugs
        if len(lessons_marked) != len(order) or len(marks) - len(lessons_marked) != len(grouped):
            return  # the template marks them otherwise
        slugs, part_slugs = iter(order), iter([frozenset(les["slug"] for les in part["lessons"]) for part in grouped])
        self.owners = [next(slugs) if mark == _CURRENT else next(part_slugs) for mark in marks]
        self.pieces = pieces

    def page(self, slug: str) -> str | None:
        """The list with `slug` marked current (None: rendered by itself)."""
        if self.pieces is None:
            return None
        out = self.pieces[:]
        for n, owner in enumerate(self.owners):
            if isinstance(owner, str):
                out[2 * n + 1] = _CURRENT if owner == slug else ""
            else:
                out[2 * n + 1] = f"{_PART} open>" if slug in owner else f"{_PART}>"
        return "".join(out)


_made: list[tuple[Any, Any, _Sidebar]] = []  # this process's last: (the site's lessons, the environment, its list)


def course_sidebar(env: jinja2.Environment, site: dict[str, Any], nav: dict[str, Any], slug: str) -> str:
    """The sidebar's list of lessons for the page of `slug`, as render_sidebar gives it: made once per build (and
    process) and marked per page, where rendering it for each page would cost every page the whole course."""
    if not _made or _made[0][0] is not site["lessons"] or _made[0][1] is not env:
        _made[:] = [(site["lessons"], env, _Sidebar(env, site["lessons"], site.get("parts")))]
    made = _made[0][2].page(slug)
    return made if made is not None else render_sidebar(env, nav)


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
    # Parts are top-level <section class="part"> elements, one after the other (lessonkit.text.markup._Parts): this one
    # ends at the last </section> before the next part, or the body's last one.
    after = body.find('<section class="part">', start)
    end = body.rfind("</section>", start, after if after >= 0 else len(body))
    if end < 0:
        return body
    link = (f'<p class="next-lesson-link"><a href="{escape(following["href"])}">Continue with the next lesson: '
            f"{escape(following['title'])}</a></p>\n")
    return body[:end] + link + body[end:]
