"""Render one validated lesson to a full HTML page: its blocks (page.blocks), the prose around them as markdown
(page.prose), its place in the course (page.nav), and the page's template."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import jinja2
import markdown
from markupsafe import Markup

from lessonkit.content import bounds, media
from lessonkit.content.lesson import Lesson
from lessonkit.core import messages
from lessonkit.core.errors import Problem
from lessonkit.labs.runner import LabRunner
from lessonkit.lms import report as lms_report
from lessonkit.page.blocks import build_blocks
from lessonkit.page.head import page_csp
from lessonkit.page.links import INDEX, collect_links, line_of
from lessonkit.page.nav import course_nav, course_sidebar, link_next_section
from lessonkit.text.figures import Figures
from lessonkit.text.prose import TOKEN, InlineRenderer, math_problems, prose_with_tokens


@dataclass
class Page:
    """A rendered lesson: its HTML and what the link check needs."""

    lesson: Lesson
    html: str
    ids: set[str] = field(default_factory=set)
    headings: set[str] = field(default_factory=set)
    links: list[str] = field(default_factory=list)
    images: set[str] = field(default_factory=set)  # paths under the lessons folder, copied into the site
    failed: bool = False  # the lesson had problems: its ids may be missing, so links to it are not checked
    progress: list[dict[str, Any]] = field(default_factory=list)  # its blocks that keep progress (the manifest's)
    wheels: list[str] = field(default_factory=list)  # site-relative URLs of the wheels its Python installs
    answers: list[dict[str, Any]] = field(default_factory=list)  # what the answer key shows of its blocks


@dataclass
class Content:
    """What a lesson's own text makes, before its place in the course: the body's HTML (blocks in place), its "##"
    headings, the modules it loads later, its images and progress blocks, and the problems found. It depends on the
    lesson's file, the labs, the templates and the static folder's URL only, so a rebuild reuses it when those are
    unchanged (lessonkit.pipeline.memo)."""

    body: str
    toc: list[dict[str, str]]
    lazy: list[str]
    images: set[str]
    progress: list[dict[str, Any]]
    problems: list[Problem]
    reported: list[dict[str, Any]]  # the interactions an LMS records of it (lessonkit.lms.report)
    answers: list[dict[str, Any]] = field(default_factory=list)  # what the answer key shows of its blocks


def render_lesson(lesson: Lesson, labs: LabRunner, env: jinja2.Environment, md: markdown.Markdown,
                  site: dict[str, Any], problems: list[Problem]) -> Page:
    """Check and build every block (figures first), then the prose around them, then the page."""
    content = render_content(lesson, labs, env, md, site)
    problems += content.problems
    return render_page(lesson, content, env, site, problems)


def render_content(lesson: Lesson, labs: LabRunner, env: jinja2.Environment, md: markdown.Markdown,
                   site: dict[str, Any]) -> Content:
    """The lesson's blocks and prose as HTML (the slow part of a page), with the problems they have."""
    with messages.using(page_messages(site, lesson)):
        return _render_content(lesson, labs, env, md, site)


def page_language(site: dict[str, Any], lesson: Lesson | None = None) -> str:
    """The language of a page: its lesson's "language:" or the course's."""
    return str(lesson.meta.get("language") or site["language"]) if lesson is not None else str(site["language"])


def page_messages(site: dict[str, Any], lesson: Lesson | None = None) -> messages.Messages:
    """The words of a page, in its language (page_language), with the course's "strings:"."""
    return messages.for_page(page_language(site, lesson), site.get("strings") or {})


def _render_content(lesson: Lesson, labs: LabRunner, env: jinja2.Environment, md: markdown.Markdown,
                    site: dict[str, Any]) -> Content:
    problems: list[Problem] = []
    images: set[str] = set()
    md.image_src = _image_resolver(lesson, site["static"], images, problems,  # type: ignore[attr-defined]
                                   site["max_image_mb"])
    figures = Figures()
    with bounds.TimeLimit() as limit:  # every conversion of this lesson's markdown spends from it
        inline = InlineRenderer(md, lesson, problems, figures, limit)
        built = build_blocks(lesson, labs, env, inline, figures, problems, site["blocks"], site["course"]["id"])
        body = _body(lesson, md, prose_with_tokens(lesson, figures, problems, site["blocks"]), limit, problems)
    toc = list(getattr(md, "toc_tokens", []))
    for n, block in enumerate(lesson.blocks):
        body = body.replace(f"<p>{TOKEN.format(n)}</p>", built.html.get(id(block), ""))
    return Content(body, toc, list(built.lazy), images, list(built.progress), problems,
                   list(built.reported), list(built.answers))


def render_page(lesson: Lesson, content: Content, env: jinja2.Environment, site: dict[str, Any],
                problems: list[Problem]) -> Page:
    """The lesson's page: its content in the page's template, with its place in the course (quick: a rebuild redoes
    it for every page whose course data changed, a title or the order, say)."""
    words = page_messages(site, lesson)
    with messages.using(words):
        return _render_page(lesson, content, env, site, problems, words)


def _render_page(lesson: Lesson, content: Content, env: jinja2.Environment, site: dict[str, Any],
                 problems: list[Problem], words: messages.Messages) -> Page:
    nav = course_nav(site["lessons"], lesson.slug, site.get("parts"))
    body = link_next_section(content.body, content.toc, lesson, nav["next"], problems)
    page_data = _page_data(lesson, site, content)
    html = env.get_template("lesson.html").render(
        lang=words.page_info(), page_messages=words.page_catalog(),
        lesson=lesson, body=Markup(body),  # noqa: S704 — markdown output with raw HTML refused
        toc=content.toc, site=site, course=site["course"], csp=page_csp(site["importmap"], site["connect"]),
        page_data=page_data, nav=nav, index=INDEX,
        sidebar=Markup(course_sidebar(env, site, nav, lesson.slug)),  # noqa: S704 — rendered with autoescape
        lazy_modules=[f"{site['static']}/js/{name}" for name in with_chunks(content.lazy, site["chunks"])],
        summary=str(lesson.meta.get("summary") or ""),
    )
    page = Page(lesson, html, images=set(content.images), progress=content.progress,
                wheels=_wheels(page_data["runtime"]), answers=content.answers)
    collect_links(page)
    return page


def _body(lesson: Lesson, md: markdown.Markdown, prose: str, limit: bounds.TimeLimit, problems: list[Problem]) -> str:
    """The prose as HTML, converted within the lesson's time (its math problems each at its line)."""
    md.reset()
    try:
        body = limit.run(md.convert, prose) if not limit.spent else ""
    except RecursionError:  # nesting is refused line by line above; this is the last guard
        problems.append(Problem(lesson.rel, lesson.body_line, "the markdown is nested too deeply to convert — "
                                "flatten its lists and quotes"))
        body = ""
    except bounds.TooSlowError:
        problems.append(Problem(lesson.rel, lesson.body_line, bounds.too_slow(limit.seconds)))
        body = ""
    math_problems(lesson, md.math_errors, problems)  # type: ignore[attr-defined]
    return body


def _page_data(lesson: Lesson, site: dict[str, Any], built: Content) -> dict[str, Any]:
    """The page's JSON island (#lesson-data) its modules read."""
    course = site["course"]
    page_data = {"page": "lesson", "lesson": lesson.slug, "version": lesson.version,
                 "course": {"id": course["id"], "title": course["title"], "index": INDEX},
                 "runtime": site["runtime_for"](lesson),
                 "lms": lms_report.page_data(site["scorm"], built.progress, built.reported, {
                     "id": lms_report.lesson_id(course["id"], lesson.slug), "title": lesson.title,
                     "lang": page_language(site, lesson)})}  # the language of the statements' names
    if site["classroom"]:  # course.yaml's class: where a learner who joined sends their answers
        page_data["class"] = {"lrs": site["classroom"]["lrs"]}
    if built.lazy:
        page_data["integrity"] = site["lazy"]  # the modules the lab imports later, checked against these
    if site["block_modules"]:
        page_data["blockModules"] = site["block_modules"]  # the course's own block types' modules, by type
    return page_data


def _wheels(runtime: dict[str, Any]) -> list[str]:
    """The wheels a page's Python installs (its runtime config's labkit, micropip and requirements), site-relative,
    and the stdlib it boots with (a page with packages boots with the full one, which other pages fetch only on a
    left-out import), and the Pyodide packages it loads with what they depend on (their files beside the runtime,
    named by its lock): what the service worker keeps for it."""
    lock = (runtime.get("lock") or {}).get("packages") or {}
    files: list[str] = []
    todo = list(runtime.get("packages") or [])
    seen: set[str] = set()
    while todo:
        name = todo.pop(0)
        entry = lock.get(name)
        if name in seen or entry is None:
            continue
        seen.add(name)
        files.append(runtime["indexURL"] + entry["file_name"])
        todo += entry.get("depends") or []
    return [runtime["labkit"], *runtime["micropip"], *runtime["requirements"], runtime["stdLibURL"], *files]


def with_chunks(modules: list[str], chunks: dict[str, tuple[str, ...]]) -> list[str]:
    """The modules' file names (a lazy block's, the course index's), each after the chunks it imports (once each)."""
    names: list[str] = []
    for module in modules:
        name = PurePosixPath(module).name
        names += [n for n in (*chunks.get(name, ()), name) if n not in names]
    return names


def _image_resolver(lesson: Lesson, static: str, images: set[str], problems: list[Problem],
                    max_mb: float) -> Callable[[str], str | None]:
    """md.image_src for this lesson: a checked image's site URL (noted for copying), or None and a problem."""
    shown = PurePosixPath(lesson.rel).parent.as_posix()

    def image_src(src: str) -> str | None:
        try:
            rel = media.resolve(src, lesson.path.parent, shown, max_mb)
        except media.ImageError as exc:
            problems.append(Problem(lesson.rel, line_of(lesson, src), str(exc)))
            return None
        images.add(rel)
        return media.url(static, rel)
    return image_src
