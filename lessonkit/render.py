"""Render one validated lesson to a full HTML page (markdown for prose, Jinja2 templates for blocks)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import jinja2
import markdown
from markupsafe import Markup

from lessonkit import blocks, media
from lessonkit.errors import Problem
from lessonkit.headers import CSP as HEADER_CSP
from lessonkit.labs import LabRun
from lessonkit.lesson import Block, Lesson
from lessonkit.markup import deep_lines, fill_figures, inline, new_inline_markdown, raw_html_lines

# <meta> cannot carry frame-ancestors (browsers ignore it there, noisily); the header has the full policy.
CSP = "; ".join(d for d in HEADER_CSP.split("; ") if not d.startswith("frame-ancestors"))
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


def render_lesson(lesson: Lesson, labs: dict[str, LabRun], env: jinja2.Environment, md: markdown.Markdown,
                  site: dict[str, Any], problems: list[Problem]) -> Page:
    """Validate and render every block, then the prose around them, then the page."""
    images: set[str] = set()
    md.image_src = _image_resolver(lesson, site["static"], images, problems)  # type: ignore[attr-defined]
    safe_inline = _inline_renderer(md, lesson, problems)
    blocks.check_ids(lesson, problems)
    rendered: list[str] = []
    widgets: dict[str, dict[str, Any]] = {}
    for block in lesson.blocks:
        safe_inline.block = block
        data = _block_data(lesson, block, labs, safe_inline, problems)
        if block.type == "widget" and data:
            widgets[block.id] = data
        rendered.append(_render_block(env, lesson, block, data) if data else "")
    prose = _prose_with_tokens(lesson, widgets, problems)
    md.reset()
    try:
        body = md.convert(prose)
    except RecursionError:  # nesting is refused line by line above; this is the last guard
        problems.append(Problem(lesson.rel, lesson.body_line, "the markdown is nested too deeply to convert — "
                                "flatten its lists and quotes"))
        body = ""
    for exc in md.math_errors:  # type: ignore[attr-defined]
        first = (exc.tex.strip().splitlines() or [""])[0]  # display math spans lines: its first names the place
        problems.append(Problem(lesson.rel, _line_of(lesson, first), str(exc)))
    toc = getattr(md, "toc_tokens", [])
    for n, block_html in enumerate(rendered):
        body = body.replace(f"<p>{_TOKEN.format(n)}</p>", block_html)
    page_data = {"lesson": lesson.slug, "version": lesson.version, "runtime": site["runtime_for"](lesson)}
    if labs:
        page_data["integrity"] = site["lazy"]  # the modules the lab imports later, checked against these
    html = env.get_template("lesson.html").render(
        lesson=lesson, body=Markup(body),  # noqa: S704 — markdown output with raw HTML refused
        toc=toc, site=site, csp=CSP, has_lab=bool(labs),
        page_data=page_data, summary=str(lesson.meta.get("summary") or ""),
    )
    page = Page(lesson, html, images=images)
    _collect_links(page)
    return page


def _image_resolver(lesson: Lesson, static: str, images: set[str], problems: list[Problem]) -> Callable[[str], str | None]:
    """md.image_src for this lesson: a checked image's site URL (noted for copying), or None and a problem."""
    shown = PurePosixPath(lesson.rel).parent.as_posix()

    def image_src(src: str) -> str | None:
        try:
            rel = media.resolve(src, lesson.path.parent, shown)
        except media.ImageError as exc:
            problems.append(Problem(lesson.rel, _line_of(lesson, src), str(exc)))
            return None
        images.add(rel)
        return media.url(static, rel)
    return image_src


def _block_data(lesson: Lesson, block: Block, labs: dict[str, LabRun], safe_inline: Any,
                problems: list[Problem]) -> dict[str, Any]:
    """Dispatch a block to its checker; an empty dict means it could not be rendered."""
    if not block.data:
        return {}
    c = blocks.Checker(lesson, block, problems)
    if block.type == "quiz":
        return blocks.quiz(c, safe_inline)
    if block.type == "explain":
        return blocks.explain(c, safe_inline)
    if block.type == "lab":
        return blocks.lab(c, labs.get(block.id), safe_inline)
    kind = block.data.get("kind")
    if kind not in blocks.WIDGET_KINDS:
        c.error(f'unknown widget kind "{kind}" — use one of: {", ".join(blocks.WIDGET_KINDS)}', "kind:")
        return {}
    lab_id = block.data.get("lab")
    lab_ids = [b.id for b in lesson.blocks if b.type == "lab"]
    if lab_id not in lab_ids:
        c.error(f'widget refers to lab "{lab_id}", but this lesson has no lab with that id — use one of: '
                f"{', '.join(lab_ids) or 'none (add a {lab} block)'}", "lab:")
        return {}
    return blocks.head_dim(c, labs.get(lab_id), safe_inline)


def _render_block(env: jinja2.Environment, lesson: Lesson, block: Block, data: dict[str, Any]) -> str:
    """A block's own template, given its data, ids and storage version."""
    name = f"blocks/{block.type}.html" if block.type != "widget" else f"blocks/{block.data['kind']}.html"
    island = {"lesson": lesson.slug, "id": block.id, "version": block.version, **_island(block, data)}
    return env.get_template(name).render(block={"id": block.id, "version": block.version, **data}, data=island)


def _island(block: Block, data: dict[str, Any]) -> dict[str, Any]:
    """What the block's script needs, as plain JSON (the page reads everything else from the HTML)."""
    if block.type == "lab":
        # The code and the build output are in the HTML already (the textarea's default value, the output panel).
        return {"filename": data["filename"], "codeHash": data["code_hash"], "title": data["title"],
                "charts": data["charts"], "panel": data["panel"], "predict": data["predict"]}
    if block.type == "widget":
        return {"states": data["states"], "default": data["default"]}
    if block.type == "quiz":
        return {"questions": len(data["questions"])}
    return {}


def _prose_with_tokens(lesson: Lesson, widgets: dict[str, dict[str, Any]], problems: list[Problem]) -> str:
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
            problems.append(Problem(lesson.rel, line + offset, f'raw HTML "{tag}" is not allowed in lessons — '
                                    "use markdown, or a {quiz}, {lab}, {widget} or {explain} block"))
        deep = deep_lines(seg)
        if deep:  # never handed to markdown, which takes minutes (or all the stack) on such nesting
            problems.append(Problem(lesson.rel, line + deep[0][0], deep[0][1]))
        else:
            parts.append(_figures(seg, lesson, line, widgets, problems))
        line += seg.count("\n") + 1
    return "\n".join(parts)


def _figures(text: str, lesson: Lesson, first_line: int, widgets: dict[str, dict[str, Any]],
             problems: list[Problem]) -> str:
    """Fill `[[widget:option:position]]` figures, reporting wrong ones at their line."""
    out = []
    for n, line in enumerate(text.split("\n")):
        def resolve(ref: str, expect: str | None, at: int = first_line + n) -> str:
            try:
                return blocks.figure(ref, expect, widgets)
            except ValueError as exc:
                problems.append(Problem(lesson.rel, at, str(exc)))
                return "?"
        out.append(fill_figures(line, resolve))
    return "\n".join(out)


class _InlineRenderer:
    """Inline markdown for author strings inside blocks; math errors are reported at the block."""

    _md: markdown.Markdown | None = None  # one lighter converter shared by every lesson of the build

    def __init__(self, md: markdown.Markdown, lesson: Lesson, problems: list[Problem]) -> None:
        if _InlineRenderer._md is None:
            _InlineRenderer._md = new_inline_markdown()
        self.md, self.lesson, self.problems = _InlineRenderer._md, lesson, problems
        self.md.image_src = md.image_src  # type: ignore[attr-defined]  # the lesson's, set just before
        self.block: Block | None = None

    def __call__(self, text: str) -> str:
        line = self.block.line if self.block else 1
        tags = raw_html_lines(text)
        if tags:
            self.problems.append(Problem(self.lesson.rel, line, f'raw HTML "{tags[0][1]}" is not allowed '
                                         "in lessons — use markdown"))
        deep = deep_lines(text)
        if deep:
            self.problems.append(Problem(self.lesson.rel, line, deep[0][1]))
            return Markup("")
        self.md.math_errors = []  # type: ignore[attr-defined]  # inline() may skip the converter's reset
        html = inline(self.md, text)
        for exc in self.md.math_errors:  # type: ignore[attr-defined]
            self.problems.append(Problem(self.lesson.rel, line, str(exc)))
        return Markup(html)  # noqa: S704 — raw HTML in author text is refused above


def _inline_renderer(md: markdown.Markdown, lesson: Lesson, problems: list[Problem]) -> _InlineRenderer:
    """One inline renderer per lesson."""
    return _InlineRenderer(md, lesson, problems)


_ID = re.compile(r"<(\w+)\b[^>]*?\sid=\"([^\"]+)\"")
_HREF = re.compile(r"<a\b[^>]*?\shref=\"([^\"]+)\"")


def _collect_links(page: Page) -> None:
    """Record the page's ids, heading ids and links (our own escaped output, so a regex reads it exactly)."""
    for tag, ident in _ID.findall(page.html):
        page.ids.add(html.unescape(ident))
        if tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
            page.headings.add(html.unescape(ident))
    page.links = [html.unescape(h) for h in _HREF.findall(page.html)]


def check_links(pages: list[Page], problems: list[Problem]) -> None:
    """Every internal link must reach a page and an id that exist; `javascript:` links are refused."""
    by_file = {f"{p.lesson.slug}.html": p for p in pages}
    if pages:
        by_file["index.html"] = pages[0]
    for page in pages:
        for href in page.links:
            if href.lower().startswith(("javascript:", "data:", "vbscript:")):
                problems.append(Problem(page.lesson.rel, _line_of(page.lesson, href), f'link "{href}" uses a '
                                        "script URL — link to a page or a section instead"))
                continue
            if "://" in href or href.startswith(("mailto:", "//")):
                continue  # external links are not fetched: the build has no network
            target, _, frag = href.partition("#")
            dest = by_file.get(target) if target else page
            if dest is None:
                problems.append(Problem(page.lesson.rel, _line_of(page.lesson, href), f'link "{href}" points to '
                                        f"no page — link to one of: {', '.join(sorted(by_file))}"))
            elif frag and frag not in dest.ids:
                problems.append(Problem(page.lesson.rel, _line_of(page.lesson, href), f'link "{href}" points to no '
                                        f"heading or block on the page — link to one of: "
                                        f"{', '.join('#' + h for h in sorted(dest.headings))}"))


def _line_of(lesson: Lesson, needle: str) -> int:
    """First file line containing `needle` (the text the author wrote)."""
    for n, text in enumerate(lesson.source.splitlines(), 1):
        if needle in text:
            return n
    return 1


def dumps(data: Any) -> str:
    """Compact JSON for build outputs."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)
