"""The pages' links: what each page links to and which ids it has, and the check across pages that every internal
link lands on a page and an id that exist, and that no link runs script; each problem at the line the link is on."""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from lessonkit.core.errors import Problem

if TYPE_CHECKING:
    from lessonkit.content.lesson import Lesson
    from lessonkit.page.lesson import Page

INDEX = "index.html"  # the course's index page; each lesson is <slug>.html beside it


_ID = re.compile(r"<(\w+)\b[^>]*?\sid=\"([^\"]+)\"")
_HREF = re.compile(r"<a\b[^>]*?\shref=\"([^\"]+)\"")


def ids_in(html: str) -> list[tuple[str, str]]:
    """(tag, id) of each element with an id: what _ID.findall(html) gives, its search started only where a match
    can begin. A match holds a whitespace character then `id="` and no ">" before them, so none starts before the
    last ">" ahead of the next such place (the search there, in a page's sidebar and head, is most of the work)."""
    found: list[tuple[str, str]] = []
    at = 0
    while True:
        place = html.find('id="', at + 1)
        while place > 0 and not html[place - 1].isspace():
            place = html.find('id="', place + 1)
        if place < 0:
            return found
        m = _ID.search(html, max(at, html.rfind(">", at, place - 1) + 1))
        if m is None:
            return found
        found.append((m.group(1), m.group(2)))
        at = m.end()


def collect_links(page: Page) -> None:
    """Record the page's ids, heading ids and links (our own escaped output, so a regex reads it exactly)."""
    for tag, ident in ids_in(page.html):
        page.ids.add(html.unescape(ident))
        if tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
            page.headings.add(html.unescape(ident))
    page.links = [html.unescape(h) for h in _HREF.findall(page.html)]


def check_links(pages: list[Page], problems: list[Problem], index: str = "") -> None:
    """Every internal link must reach a page and an id that exist; `javascript:` links are refused. `index` is the
    course index's HTML (a lesson may link to it, and to its ids)."""
    by_file: dict[str, Page | None] = {f"{p.lesson.slug}.html": p for p in pages}
    index_ids = {html.unescape(ident) for _, ident in ids_in(index)}
    index_headings = sorted(html.unescape(i) for tag, i in ids_in(index) if tag in {"h1", "h2", "h3"})
    by_file[INDEX] = None
    # Links to a page itself, with no section, are good from any page: checked once (every sidebar has one per lesson).
    good = {name for name, page in by_file.items() if page is not None or name == INDEX}
    for page in pages:
        line = _link_lines(page.lesson)
        for href in page.links:
            if href in good:
                continue
            script = _as_browsers_read(href)
            if script.lower().startswith(("javascript:", "data:", "vbscript:")):
                problems.append(Problem(page.lesson.rel, line(href), f'link "{script}" uses a script URL — link to a '
                                        "page or a section instead"))
                continue
            if "://" in href or href.startswith(("mailto:", "//")):
                continue  # external links are not fetched: the build has no network
            target, _, frag = href.partition("#")
            if target == INDEX:
                if frag and frag not in index_ids:
                    problems.append(Problem(page.lesson.rel, line(href), f'link "{href}" points to '
                                            f"nothing on the course's index — link to one of: "
                                            f"{', '.join('#' + i for i in index_headings)}"))
                continue
            dest = by_file.get(target) if target else page
            if dest is None:
                problems.append(Problem(page.lesson.rel, line(href), f'link "{href}" points to '
                                        f"no page — link to one of: {', '.join(sorted(by_file))}"))
            elif frag and frag not in dest.ids and not dest.failed:
                problems.append(Problem(page.lesson.rel, line(href), f'link "{href}" points to no '
                                        f"heading or block on the page — link to one of: "
                                        f"{', '.join('#' + h for h in sorted(dest.headings))}"))


def line_of(lesson: Lesson, needle: str) -> int:
    """First file line containing `needle` (the text the author wrote)."""
    for n, text in enumerate(lesson.source.splitlines(), 1):
        if needle in text:
            return n
    return 1


_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_URL_CONTROLS = "".join(map(chr, range(0x21)))  # C0 controls and space: browsers trim them from a URL's ends


def _link_lines(lesson: Lesson) -> Callable[[str], int]:
    """The file line of each link reported in turn: the n-th report of one href is at the n-th line holding it."""
    reported: dict[str, int] = {}

    def line(href: str) -> int:
        nth = reported.get(href, 0)
        reported[href] = nth + 1
        lines = _lines_of(lesson, href)
        return lines[min(nth, len(lines) - 1)] if lines else 1
    return line


def _lines_of(lesson: Lesson, href: str) -> list[int]:
    """The file lines holding a link to `href` as the page has it: written so, or with character references
    (`&#106;avascript:`) or markdown's backslash escapes that decode to it."""
    found = []
    for n, text in enumerate(lesson.source.splitlines(), 1):
        if href in text or (("&" in text or "\\" in text) and (
                href in html.unescape(text) or href in html.unescape(_MARKDOWN_ESCAPE.sub(r"\1", text)))):
            found.append(n)
    return found


@functools.lru_cache(maxsize=4096)  # every page links every lesson (its sidebar): the same hrefs, page after page
def _as_browsers_read(href: str) -> str:
    """A link's URL as a browser parses it: tabs and newlines dropped anywhere, controls and spaces at its ends."""
    return re.sub(r"[\t\n\r]", "", href).strip(_URL_CONTROLS)
