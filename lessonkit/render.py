"""Render one validated lesson to a full HTML page (markdown for prose, Jinja2 templates for blocks), and the course's
index page."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import jinja2
import markdown
from markupsafe import Markup, escape

from lessonkit import blocks, bounds, media
from lessonkit.assets import INDEX_MODULE
from lessonkit.errors import Problem
from lessonkit.figures import FigureError, Figures
from lessonkit.headers import csp_hash, meta_csp
from lessonkit.labs import LabRunner
from lessonkit.lesson import Block, Lesson
from lessonkit.links import INDEX, collect_links, line_of
from lessonkit.lms import report as lms_report
from lessonkit.markup import MathError, fill_figures, inline, new_inline_markdown, raw_html_lines
from lessonkit.schema import Src, did_you_mean

_TOKEN = "LESSONKITBLOCK{}X"  # noqa: S105 — a placeholder paragraph, not a secret


def environment(templates: Path) -> jinja2.Environment:
    """Jinja2 with autoescape and StrictUndefined: a missing variable is a build error, never blank."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates), autoescape=True, undefined=jinja2.StrictUndefined,
        trim_blocks=True, lstrip_blocks=True,
    )


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


def render_lesson(lesson: Lesson, labs: LabRunner, env: jinja2.Environment, md: markdown.Markdown,
                  site: dict[str, Any], problems: list[Problem]) -> Page:
    """Check and build every block (figures first), then the prose around them, then the page."""
    images: set[str] = set()
    md.image_src = _image_resolver(lesson, site["static"], images, problems,  # type: ignore[attr-defined]
                                   site["max_image_mb"])
    figures = Figures()
    limit = bounds.TimeLimit()  # every conversion of this lesson's markdown spends from it
    inline = _InlineRenderer(md, lesson, problems, figures, limit)
    blocks.check_ids(lesson, problems)
    contexts = _contexts(lesson, labs, inline, figures, problems)
    for ctx in contexts:  # first the values other blocks' text may cite
        kind = blocks.types()[ctx.block.type]
        if kind.compute is not None:
            ctx.computed = kind.compute(ctx)
            if ctx.computed is None:
                figures.failed.add(ctx.block.id)
    rendered: dict[int, str] = {}
    lazy: list[str] = []
    progress: list[dict[str, Any]] = []
    reported: list[dict[str, Any]] = []  # the interactions an LMS records of this page (lessonkit.lms.report)
    for ctx in contexts:
        kind = blocks.types()[ctx.block.type]
        if kind.compute is not None and ctx.computed is None:
            continue
        data = kind.build(ctx)
        if data is None or ctx.failed:
            continue
        rendered[id(ctx.block)] = _render_block(env, lesson, ctx.block, kind, data)
        keeps = kind.progress(data) if kind.progress is not None else None
        if keeps is not None:
            progress.append({"type": kind.name, "id": ctx.block.id, "version": ctx.block.version, **keeps})
            reported += lms_report.block_items(kind.name, site["course"]["id"], lesson.slug, ctx.block.id, data)
        if kind.lazy and kind.page_module not in lazy:
            lazy.append(kind.page_module)
    prose = _prose_with_tokens(lesson, figures, problems)
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
    _math_problems(lesson, md.math_errors, problems)  # type: ignore[attr-defined]
    toc = getattr(md, "toc_tokens", [])
    for n, block in enumerate(lesson.blocks):
        body = body.replace(f"<p>{_TOKEN.format(n)}</p>", rendered.get(id(block), ""))
    nav = course_nav(site["lessons"], lesson.slug)
    body = _link_next_section(body, toc, lesson, nav["next"], problems)
    course = site["course"]
    page_data = {"page": "lesson", "lesson": lesson.slug, "version": lesson.version,
                 "course": {"id": course["id"], "title": course["title"], "index": INDEX},
                 "runtime": site["runtime_for"](lesson), "lms": lms_report.page_data(site["scorm"], progress, reported)}
    if lazy:
        page_data["integrity"] = site["lazy"]  # the modules the lab imports later, checked against these
    html = env.get_template("lesson.html").render(
        lesson=lesson, body=Markup(body),  # noqa: S704 — markdown output with raw HTML refused
        toc=toc, site=site, course=course, csp=_csp(site), page_data=page_data, nav=nav, index=INDEX,
        lazy_modules=[f"{site['static']}/js/{name}" for name in _with_chunks(lazy, site["chunks"])],
        summary=str(lesson.meta.get("summary") or ""),
    )
    page = Page(lesson, html, images=images, progress=progress)
    collect_links(page)
    return page


NEXT_SECTION = "next lesson"  # a "## Next Lesson" heading (any case) is the section that leads to the next lesson


def course_nav(lessons: list[dict[str, str]], slug: str) -> dict[str, Any]:
    """Where a lesson stands in the course: every lesson (the current one marked), its position, previous and next."""
    at = next(n for n, les in enumerate(lessons) if les["slug"] == slug)
    return {"lessons": [{**les, "current": n == at} for n, les in enumerate(lessons)], "position": at + 1,
            "previous": lessons[at - 1] if at > 0 else None, "next": lessons[at + 1] if at + 1 < len(lessons) else None}


def _link_next_section(body: str, toc: list[dict[str, str]], lesson: Lesson, following: dict[str, str] | None,
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
    # Parts are top-level <section class="part"> elements, one after the other (lessonkit.markup._Parts): this one
    # ends at the last </section> before the next part, or the body's last one.
    after = body.find('<section class="part">', start)
    end = body.rfind("</section>", start, after if after >= 0 else len(body))
    if end < 0:
        return body
    link = (f'<p class="next-lesson-link"><a href="{escape(following["href"])}">Continue with the next lesson: '
            f"{escape(following['title'])}</a></p>\n")
    return body[:end] + link + body[end:]


def _csp(site: dict[str, Any]) -> str:
    """The page's <meta> policy, allowing its import map."""
    return meta_csp([csp_hash(site["importmap"])])


def render_index(env: jinja2.Environment, site: dict[str, Any], manifest: dict[str, Any]) -> str:
    """The course's index page: its title, tagline and description, and every lesson in order with its summary."""
    course = site["course"]
    page_data = {"page": "index", "course": {"id": course["id"], "title": course["title"], "index": INDEX}}
    # main.js imports the progress view here: fetched beside it (after the chunks it imports), checked
    progress_modules = [f"{site['static']}/js/{name}" for name in _with_chunks([INDEX_MODULE], site["chunks"])]
    return env.get_template("index.html").render(site=site, course=course, csp=_csp(site), lessons=site["lessons"],
                                                 manifest=manifest, page_data=page_data,
                                                 progress_modules=progress_modules)


def _contexts(lesson: Lesson, labs: LabRunner, inline: _InlineRenderer, figures: Figures,
              problems: list[Problem]) -> list[blocks.Context]:
    """Each block whose YAML passes its type's schema, ready to compute and build."""
    contexts = []
    for block in lesson.blocks:
        kind = blocks.types()[block.type]
        data = None
        if block.data:
            def report(line: int, message: str) -> None:
                problems.append(Problem(lesson.rel, line, message))
            data = kind.schema.validate(block.data, f"the {{{block.type}}} block", report, block.line)
        if data is None:
            if kind.compute is not None:
                figures.failed.add(block.id)  # its figures stay quiet: the block's own problem says why
            continue
        contexts.append(blocks.Context(lesson, block, data, problems, labs, inline.for_block(block),
                                       inline.for_block(block, markdown=True), figures))
    return contexts


def _with_chunks(modules: list[str], chunks: dict[str, tuple[str, ...]]) -> list[str]:
    """The lazy modules' file names, each after the chunks it imports (once each)."""
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


def _render_block(env: jinja2.Environment, lesson: Lesson, block: Block, kind: blocks.BlockType,
                  data: dict[str, Any]) -> str:
    """A block's own template, given its data, ids and storage version, with its JSON island."""
    island = {"lesson": lesson.slug, "id": block.id, "version": block.version, **kind.island(data)}
    return env.get_template(kind.template_name).render(
        block={"id": block.id, "version": block.version, "type": block.type, **data}, data=island)


def _prose_with_tokens(lesson: Lesson, figures: Figures, problems: list[Problem]) -> str:
    """Prose with figures filled in and each block replaced by a placeholder paragraph."""
    parts: list[str] = []
    line = lesson.body_line
    n = 0
    for seg in lesson.segments:
        if isinstance(seg, Block):
            parts.append(f"\n\n{_TOKEN.format(n)}\n\n")
            n += 1
            line = seg.line + seg.source.count("\n") + 2
            continue
        for offset, tag in raw_html_lines(seg):
            problems.append(Problem(lesson.rel, line + offset, f'raw HTML "{tag}" is not allowed in lessons — use '
                                    f"markdown, or a block: {', '.join('{' + t + '}' for t in blocks.types())}"))
        slow = bounds.problems(seg)
        if slow:  # never handed to markdown, which takes minutes (or all the stack) on such text
            problems += [Problem(lesson.rel, line + offset, message) for offset, message in slow]
        else:
            parts.append(_figures(seg, lesson, line, figures, problems))
        line += seg.count("\n") + 1
    return "\n".join(parts)


def _figures(text: str, lesson: Lesson, first_line: int, figures: Figures, problems: list[Problem]) -> str:
    """Fill `[[widget:option:row]]` figures, reporting wrong ones at their line."""
    out = []
    for n, line in enumerate(text.split("\n")):
        out.append(fill_figures(line, _resolver(figures, lesson, first_line + n, problems)))
    return "\n".join(out)


def _resolver(figures: Figures, lesson: Lesson, line: int, problems: list[Problem]) -> Callable[[str, str | None], str]:
    """fill_figures' callback: the figure's value, or "?" and a problem at `line`."""
    def resolve(ref: str, expect: str | None) -> str:
        try:
            value = figures.resolve(ref, expect)
        except FigureError as exc:
            problems.append(Problem(lesson.rel, line, str(exc)))
            return "?"
        return "?" if value is None else _literal(value)
    return resolve


def _literal(value: str) -> str:
    """A computed figure as literal text inside markdown (the lab's words are never markup)."""
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace("$", "&#36;")
    return re.sub(r"([\\`*_\[\]{}()#+!-])", r"\\\1", value)


def _math_problems(lesson: Lesson, errors: list[MathError], problems: list[Problem]) -> None:
    """Each math error at its own line: the n-th error for some LaTeX at the n-th place it is written."""
    seen: dict[str, int] = {}
    for exc in errors:
        tex = exc.tex.strip()
        display = "\n" in tex or exc.display
        needle = (tex.splitlines() or [""])[0].strip() if display else f"${tex}$"
        places = [n for n, text in enumerate(lesson.source.splitlines(), 1) if needle in text]
        nth = seen.get(needle, 0)
        seen[needle] = nth + 1
        line = places[min(nth, len(places) - 1)] if places else lesson.body_line
        problems.append(Problem(lesson.rel, line, str(exc)))


class _InlineRenderer:
    """Inline markdown for author strings inside blocks: figures filled, math converted, problems at their line."""

    _md: markdown.Markdown | None = None  # one lighter converter shared by every lesson of the build

    def __init__(self, md: markdown.Markdown, lesson: Lesson, problems: list[Problem], figures: Figures,
                 limit: bounds.TimeLimit) -> None:
        if _InlineRenderer._md is None:
            _InlineRenderer._md = new_inline_markdown()
        self.md, self.lesson, self.problems, self.figures = _InlineRenderer._md, lesson, problems, figures
        self.limit = limit
        self.md.image_src = md.image_src  # type: ignore[attr-defined]  # the lesson's, set just before
        self.lines = lesson.source.splitlines()

    def for_block(self, block: Block, *, markdown: bool = False) -> Callable[[str], Markup]:
        """The renderer for one block's strings (problems without a line of their own go to the block's)."""
        return lambda text: self.render(text, block, markdown=markdown)

    def render(self, text: str, block: Block, *, markdown: bool = False) -> Markup:
        """Safe HTML for an author string: one paragraph (inline) or several."""
        line = text.line if isinstance(text, Src) else block.line
        end = block.line + block.source.count("\n") + 1
        tags = raw_html_lines(text)
        if tags:
            self._report(line, end, tags[0][1], f'raw HTML "{tags[0][1]}" is not allowed in lessons — use markdown')
        slow = bounds.problems(text)
        if slow:
            shown = text.splitlines()
            for offset, message in slow:  # at the file line that holds the string's line, when one does
                self._report(line, end, shown[offset].strip()[:60] if offset < len(shown) else text, message)
            return Markup("")
        errors_before = len(self.problems)
        filled = fill_figures(text, lambda ref, expect: self._figure(ref, expect, line, end))
        if len(self.problems) > errors_before:
            return Markup("")
        self.md.math_errors = []  # type: ignore[attr-defined]  # inline() may skip the converter's reset
        if self.limit.spent:
            return Markup("")  # the lesson's problem is reported already
        try:
            if markdown:
                self.md.reset()
                html = self.limit.run(self.md.convert, filled)
            else:
                html = self.limit.run(inline, self.md, filled)
        except bounds.TooSlowError:
            self.problems.append(Problem(self.lesson.rel, line, bounds.too_slow(self.limit.seconds)))
            return Markup("")
        for exc in self.md.math_errors:  # type: ignore[attr-defined]
            needle = f"${exc.tex.strip()}$" if not exc.display else exc.tex.strip().splitlines()[0]
            self._report(line, end, needle, str(exc))
        return Markup(html)  # noqa: S704 — raw HTML in author text is refused above

    def _figure(self, ref: str, expect: str | None, line: int, end: int) -> str:
        try:
            value = self.figures.resolve(ref, expect)
        except FigureError as exc:
            self._report(line, end, f"[[{ref}", str(exc))
            return "?"
        return "?" if value is None else _literal(value)

    def _report(self, line: int, end: int, needle: str, message: str) -> None:
        """A problem at the first line from `line` to the block's end that holds `needle` (else at `line`)."""
        at = next((n for n in range(line, min(end, len(self.lines)) + 1) if needle in self.lines[n - 1]), line)
        self.problems.append(Problem(self.lesson.rel, at, message))
