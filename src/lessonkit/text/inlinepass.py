"""Python-Markdown's passes less the searches that find nothing: each inline pattern's characters (NEEDS), and the
inline pass that tries a pattern on a text only when the text holds one of them (lessonkit.text.markup registers it
in every converter, and leaves whole patterns out of the converters for author strings that lack their characters);
the block tests that search a whole block for a character first (BLOCK_NEEDS); and the raw HTML pass that puts the
stashed HTML back, its pattern tried only where a placeholder is (RawHtml)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from xml.etree.ElementTree import Element

from markdown import treeprocessors, util
from markdown.postprocessors import RawHtmlPostprocessor
from markdown.util import AtomicString

# What a match of each of Python-Markdown's inline patterns must contain (the delimiter processor's: its delimiters,
# "*" and "_"; lessons' math: "$", or the "`" of a code span it leaves to the backtick pattern). A pattern none of whose
# characters is in a text cannot match it, nor what the patterns before it leave of it (their placeholders are STX,
# letters, digits, ":" and ETX), so the text converts to the same HTML without it.
NEEDS = {"inline_math": "$`", "backtick": "`", "escape": "\\", "reference": "[", "link": "[", "image_link": "[",
          "image_reference": "[", "short_reference": "[", "short_image_ref": "[", "autolink": "<", "automail": "<",
          "linebreak": "\n", "entity": "&", "em_strong": "*_"}


@lru_cache(maxsize=64)
def _any_of(chars: str) -> re.Pattern[str]:
    """A search for any one of these characters."""
    return re.compile("[" + re.escape(chars) + "]")


class InlinePass(treeprocessors.InlineProcessor):
    """Python-Markdown's inline pass, which tries every pattern on every text of the document, less the tries that
    cannot match: a pattern none of whose characters (NEEDS) is in a text is not searched for in it.

    Its loop over the patterns is Python-Markdown's own, over a list made once per set of patterns (the registry's
    lookup by position, and a call per pattern, were most of the pass's time on a short text).
    """

    _patterns: tuple[Any, ...] = ()  # the patterns the tries were made for, in their order
    _tries: list[tuple[Any, re.Pattern[str] | None]] | tuple[()] = ()  # each pattern with the search for its characters

    def run(self, tree: Element, ancestors: list[str] | None = None) -> Element:
        patterns = tuple(self.inlinePatterns)
        if patterns != self._patterns:
            self._patterns, self._tries = patterns, self._tries_for(patterns)
        return super().run(tree, ancestors)

    def _tries_for(self, patterns: tuple[Any, ...]) -> list[tuple[Any, re.Pattern[str] | None]]:
        delimiters = getattr(self.md, "delimiters", None)  # the em_strong pattern, with the delimiters it has
        needs = {id(self.inlinePatterns[name]): chars for name, chars in NEEDS.items()
                 if name in self.inlinePatterns}
        if delimiters is not None and id(delimiters) in needs:
            needs[id(delimiters)] = "".join(delimiters.tokens)
        return [(pattern, _any_of(needs[id(pattern)]) if id(pattern) in needs else None) for pattern in patterns]

    # Python-Markdown's own loop (private to its class: renamed in a later version, this is never called and every
    # pattern is tried by its own, as before), with a pattern whose characters are not in the text passed over as a
    # try that found nothing: the text is left as it was and the next pattern starts from its beginning.
    def _InlineProcessor__handleInline(self, data: str, patternIndex: int = 0) -> str:  # noqa: N802, N803
        if isinstance(data, AtomicString):
            return data
        tries, start = self._tries, 0
        apply = self._InlineProcessor__applyPattern  # type: ignore[attr-defined]
        while patternIndex < len(tries):
            pattern, needs = tries[patternIndex]
            if needs is not None and needs.search(data) is None:
                matched, start = False, 0
            else:
                data, matched, start = apply(pattern, data, patternIndex, start)
            if not matched:
                patternIndex += 1  # noqa: N806
        return data


# What a block must hold for the block processor's test to find it (each test searches the whole block, from every
# line's start: ATX headings for a "#", quotes for a ">").
BLOCK_NEEDS = {"hashheader": "#", "quote": ">"}


def guard_block_tests(md: Any) -> None:
    """Each BLOCK_NEEDS processor of md tested only on a block that holds its character (else: not this block)."""
    for name, char in BLOCK_NEEDS.items():
        if name in md.parser.blockprocessors:
            processor = md.parser.blockprocessors[name]
            processor.test = _only_with(char, processor.test)


def _only_with(char: str, test: Any) -> Any:
    return lambda parent, block: char in block and test(parent, block)


_PLACEHOLDER = util.HTML_PLACEHOLDER.split("%s")[0]  # how a stashed HTML placeholder starts


class RawHtml(RawHtmlPostprocessor):
    """Python-Markdown's raw HTML pass, its pattern (a placeholder, or one alone in a paragraph) tried at each
    placeholder and the "<p>" before it, not at every position of the document: only there can it match."""

    def run(self, text: str) -> str:
        if not self.md.htmlStash.html_counter:
            return text
        base = util.HTML_PLACEHOLDER % r"([0-9]+)"
        pattern = re.compile(f"<p>{base}</p>|{base}")
        out, at, look = [], 0, 0
        while (place := text.find(_PLACEHOLDER, look)) >= 0:
            m = (pattern.match(text, place - 3) if place - 3 >= at else None) or pattern.match(text, place)
            if m is None:
                look = place + 1
                continue
            out += [text[at:m.start()], self._substitute(pattern, m)]
            at = look = m.end()
        return "".join(out) + text[at:]

    def _substitute(self, pattern: re.Pattern[str], m: re.Match[str]) -> str:
        """Python-Markdown's substitute_match: the stashed HTML (its own placeholders filled), in a paragraph when
        it stood alone in one and is not a block."""
        if key := m.group(1):
            wrapped = True
        else:
            key, wrapped = m.group(2), False
        if (index := int(key)) >= self.md.htmlStash.html_counter:
            return m.group(0)
        html = self.stash_to_string(self.md.htmlStash.rawHtmlBlocks[index])
        def inner(found: re.Match[str]) -> str:
            return self._substitute(pattern, found)
        if not wrapped or self.isblocklevel(html):
            return pattern.sub(inner, html)
        return pattern.sub(inner, f"<p>{html}</p>")
