"""A lesson's prose and its authors' texts as markdown sees them: each block a placeholder paragraph, figures filled in
(`[[widget:option:row]]`), and every problem (raw HTML, math, figures, text markdown cannot convert in bounded time)
at its own file line."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import markdown
from markupsafe import Markup, escape

from lessonkit.content import bounds
from lessonkit.content.lesson import Block, Lesson
from lessonkit.content.schema import Src
from lessonkit.core.errors import Problem
from lessonkit.text.figures import FigureError, Figures
from lessonkit.text.markup import (
    fill_figures,
    fill_figures_outside_code,
    inline,
    inline_markdown_for,
    literal,
    plain,
    raw_html_lines,
)
from lessonkit.text.mathml import MathError

TOKEN = "LESSONKITBLOCK{}X"  # noqa: S105 — a placeholder paragraph, not a secret


def prose_with_tokens(lesson: Lesson, figures: Figures, problems: list[Problem], kinds: Iterable[str]) -> str:
    """Prose with figures filled in and each block replaced by a placeholder paragraph."""
    parts: list[str] = []
    line = lesson.body_line
    n = 0
    for seg in lesson.segments:
        if isinstance(seg, Block):
            parts.append(f"\n\n{TOKEN.format(n)}\n\n")
            n += 1
            line = seg.line + seg.source.count("\n") + 2
            continue
        for offset, tag in raw_html_lines(seg):
            problems.append(Problem(lesson.rel, line + offset, f'raw HTML "{tag}" is not allowed in lessons — use '
                                    f"markdown, or a block: {', '.join('{' + t + '}' for t in kinds)}"))
        slow = bounds.problems(seg)
        if slow:  # never handed to markdown, which takes minutes (or all the stack) on such text
            problems += [Problem(lesson.rel, line + offset, message) for offset, message in slow]
        else:
            parts.append(_figures(seg, lesson, line, figures, problems))
        line += seg.count("\n") + 1
    return "\n".join(parts)


def _figures(text: str, lesson: Lesson, first_line: int, figures: Figures, problems: list[Problem]) -> str:
    """Fill `[[widget:option:row]]` figures, reporting wrong ones at their line; code (fenced blocks and `code
    spans`) is left as written, so a lesson can show the notation, or Python's `[[1, 2]]`, as code."""
    if "[[" not in text:
        return text
    out = []
    fence: str | None = None
    for n, line in enumerate(text.split("\n")):
        stripped = line.strip()
        if fence:
            fence = None if stripped.startswith(fence) else fence
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif "[[" in line:
            line = fill_figures_outside_code(line, _resolver(figures, lesson, first_line + n, problems))
        out.append(line)
    return "\n".join(out)


def _resolver(figures: Figures, lesson: Lesson, line: int, problems: list[Problem]) -> Callable[[str, str | None], str]:
    """fill_figures' callback: the figure's value, or "?" and a problem at `line`."""
    def resolve(ref: str, expect: str | None) -> str:
        try:
            value = figures.resolve(ref, expect)
        except FigureError as exc:
            problems.append(Problem(lesson.rel, line, str(exc)))
            return "?"
        return "?" if value is None else literal(value)
    return resolve


def math_problems(lesson: Lesson, errors: list[MathError], problems: list[Problem]) -> None:
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


class InlineRenderer:
    """Inline markdown for author strings inside blocks: figures filled, math converted, problems at their line."""

    def __init__(self, md: markdown.Markdown, lesson: Lesson, problems: list[Problem], figures: Figures,
                 limit: bounds.TimeLimit) -> None:
        self.lesson, self.problems, self.figures = lesson, problems, figures
        self.limit = limit
        self.image_src = md.image_src  # type: ignore[attr-defined]  # the lesson's, set just before
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
        if self.limit.spent:
            return Markup("")  # the lesson's problem is reported already
        if not markdown and plain(filled):
            return escape(filled)  # what inline() gives it, with no conversion to bound
        md = inline_markdown_for(filled)  # the inline converter, less what cannot apply to this text
        md.image_src = self.image_src  # type: ignore[attr-defined]
        md.math_errors = []  # type: ignore[attr-defined]
        try:
            if markdown:
                md.reset()
                html = self.limit.run(md.convert, filled)
            else:
                html = self.limit.run(inline, md, filled)
        except bounds.TooSlowError:
            self.problems.append(Problem(self.lesson.rel, line, bounds.too_slow(self.limit.seconds)))
            return Markup("")
        for exc in md.math_errors:  # type: ignore[attr-defined]
            needle = f"${exc.tex.strip()}$" if not exc.display else exc.tex.strip().splitlines()[0]
            self._report(line, end, needle, str(exc))
        return Markup(html)  # noqa: S704 — raw HTML in author text is refused above

    def _figure(self, ref: str, expect: str | None, line: int, end: int) -> str:
        try:
            value = self.figures.resolve(ref, expect)
        except FigureError as exc:
            self._report(line, end, f"[[{ref}", str(exc))
            return "?"
        return "?" if value is None else literal(value)

    def _report(self, line: int, end: int, needle: str, message: str) -> None:
        """A problem at the first line from `line` to the block's end that holds `needle` (else at `line`)."""
        at = next((n for n in range(line, min(end, len(self.lines)) + 1) if needle in self.lines[n - 1]), line)
        self.problems.append(Problem(self.lesson.rel, at, message))
