"""Finding the toolkit's English on a page of another language, as a learner meets it: every element's own text,
its whole text and its accessible words (aria-label, title, placeholder), but for what the course's author wrote
and what a run printed (the output panes, the code).

Two ways, so that a word left English is seen whether or not the catalog knows it:
- every English message the page's catalog says otherwise (`catalog`), as a pattern of a whole text (its
  placeholders any text, its words whole words), unless the author wrote the text; a short one ("Run", "Stop",
  "Hint", "Ready") as the whole text of an element, unless the author wrote that very text (a heading "Run");
- English prose the catalog may not know (`prose`): an element's own text with three or more of English's most
  common small words ("the", "your", "could", …) that the course's sources do not hold.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from playwright.sync_api import Page

from lessonkit.core.messages import PLACEHOLDER, Messages

SHORT = 6  # letters of its own below which a message is matched only as an element's whole text
SMALL_WORDS = frozenset({"the", "your", "you", "could", "not", "was", "were", "this", "that", "with", "from", "has",
                         "have", "is", "are", "of", "to", "and", "or", "it", "be", "been", "its", "by", "into"})
ENOUGH_SMALL_WORDS = 3

# Every element's own text, its whole text, and its accessible words, each with whether it is one piece of text
# (a text node, an attribute: the prose check reads those alone, as a block's whole text holds the author's words
# beside its own).
TEXTS_JS = """() => {
  const out = [];
  const squash = (s) => (s || "").replace(/\\s+/g, " ").trim();
  for (const el of document.querySelectorAll("body *")) {
    if (el.closest("script, style, template, [data-lab-pre], .lab-pre, .cm-content, textarea")) continue;
    const nodes = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent);
    // An element's whole text only where it is short (a button, a status): a lesson's English prose is its own.
    const whole = el.innerText && el.innerText.length <= 240 ? el.innerText : "";
    const add = (text, piece) => { const s = squash(text); if (s) out.push([s, piece]); };
    add(nodes.join(" "), false);
    for (const node of nodes) add(node, true);
    add(whole, false);
    for (const name of ["aria-label", "title", "placeholder"]) add(el.getAttribute(name), true);
  }
  return out;
}"""


def _plain(text: str) -> str:
    """Text as its source and its page both can be compared: straight quotes, one space."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return " ".join(text.split())


def _pattern(text: str) -> re.Pattern[str]:
    """A whole text the message makes, its placeholders any text, its words whole words."""
    parts = []
    for n, part in enumerate(PLACEHOLDER.split(text.strip())):
        if n % 2:
            parts.append(".+?")  # split keeps the placeholders' names at odd places
        elif part:
            lead = r"\b" if re.match(r"\w", part) and n else ""
            tail = r"\b" if re.search(r"\w$", part) and n < len(PLACEHOLDER.split(text.strip())) - 1 else ""
            parts.append(lead + re.escape(part) + tail)
    return re.compile(rf"^{''.join(parts)}$", re.S)


@cache
def _patterns(language: str) -> tuple[tuple[str, re.Pattern[str], bool], ...]:
    """(key, pattern of a whole text, exact) for each English message `language`'s catalog says otherwise. exact: a
    short message without placeholders ("Run"), which is the author's only where they wrote that very text."""
    english, other = Messages("en"), Messages(language)
    out = []
    for key, entry in english.source.entries.items():
        theirs = entry.forms or (entry.text,)
        ours = other.entry(key).forms or (other.entry(key).text,)
        for text in theirs:
            if text in ours or not text.strip():
                continue  # the same words in both languages
            letters = len(re.findall(r"[A-Za-z]", PLACEHOLDER.sub("", text)))
            ends = PLACEHOLDER.split(text.strip())
            if not letters or (letters < SHORT and PLACEHOLDER.search(text) and not (ends[0] or ends[-1])):
                continue  # no words of its own to tell it by (", ", "{a} and {b}")
            out.append((key, _pattern(text), letters < SHORT and not PLACEHOLDER.search(text)))
    return tuple(out)


class Authored:
    """What the course's author wrote (its lessons, labs and course.yaml): its text, and its lines' own words (a
    markdown or YAML line without its markup), for telling the author's English from the toolkit's."""

    def __init__(self, sources: Iterable[Path]) -> None:
        texts = [p.read_text(encoding="utf-8") for p in sources]
        self.text = _plain(" ".join(texts))
        self.segments: set[str] = set()
        whole = "\n".join(texts)
        for line in whole.splitlines():
            bare = re.sub(r"^\s*(?:#+|[-*>]|\d+\.|[\w-]+:)?\s*", "", line)
            bare = _plain(bare.strip().strip("\"'`*_"))
            if bare:
                self.segments.add(bare)
        # What inline markup sets apart: "Click **Run**" shows "Run" as an element's whole text.
        inline = r"\*\*([^*]+)\*\*|(?<![*\w])\*([^*\s][^*]*)\*(?![*\w])|`([^`]+)`|\[([^\]]+)\]\("
        for line in whole.splitlines():
            for found in re.finditer(inline, line):
                self.segments.add(_plain(next(g for g in found.groups() if g is not None)))

    def wrote(self, text: str, *, whole: bool = False) -> bool:
        """Whether the author wrote `text`: anywhere in their sources, or (whole) as a line's own words."""
        plain = _plain(text)
        return plain in self.segments if whole else plain in self.text


def catalog(page: Page, authored: Authored, language: str = "de") -> list[str]:
    """The English catalog messages the page shows ("key: text"), but for the author's own words."""
    found = set()
    for text, _own in page.evaluate(TEXTS_JS):
        for key, pattern, exact in _patterns(language):
            if pattern.match(text) and not authored.wrote(text, whole=exact):
                found.add(f"{key}: {text}")
    return sorted(found)


# Where a piece of text is cut into the runs the prose check reads: the page's own joints (";", ":", a dash before
# feedback, brackets) and numbers (a figure the build computed into the author's sentence: "9,0 %").
JOINTS = re.compile(r"[;:]\s|\s?[\u2014\u2013]\s?|[\[\]()]|[-\u2212]?\d+(?:[.,\u00a0\u202f]\d+)*(?:\s?%)?")


def prose(page: Page, authored: Authored) -> list[str]:
    """Runs of text (a text node or an attribute, cut at the page's joints and at numbers, where the page joins the
    author's words to its own) that read as English prose — three of its small words — the author did not write."""
    found = set()
    for text, piece in page.evaluate(TEXTS_JS):
        if not piece:
            continue
        for run in JOINTS.split(text):
            run = run.strip(" ,.\"'\u201c\u201d\u2018\u2019")
            words = {w.lower() for w in re.findall(r"[A-Za-z]+", run)}
            if len(words & SMALL_WORDS) >= ENOUGH_SMALL_WORDS and not authored.wrote(run):
                found.add(run)
    return sorted(found)


def english_on(page: Page, authored: Authored, language: str = "de") -> list[str]:
    """Every English toolkit word the page shows, either way (an empty list when there is none)."""
    return catalog(page, authored, language) + [f"prose: {text}" for text in prose(page, authored)]
