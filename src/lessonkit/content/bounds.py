"""How much markdown may ask of the converter: limits checked before any text reaches it, and a time limit around it.

Python-Markdown's inline patterns are quadratic or worse on a few inputs: a run of backticks (each one tries every
closing run after it: cubic in the run's length), a "[" that never closes, or a "](" whose ")" never comes (each
scans the rest of its paragraph), and lists or quotes nested deep. `problems(text)` finds them line by line, in one
pass, with limits no real lesson reaches; the renderer reports them at their line and never converts that text.
`TimeLimit` is the backstop for inputs the checks do not know: each conversion of a lesson runs against the lesson's
one budget (RENDER_SECONDS), and a conversion that overruns it is stopped and reported. The budget needs the main
thread's SIGALRM (`lessonkit build` and `lessonkit serve` build there, as do the renderers forked for a large course);
elsewhere the checks alone bound the time.
"""

from __future__ import annotations

import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

MAX_NESTING = 16  # lists and quotes inside each other: Python-Markdown's time and stack grow fast with depth
MAX_BACKTICK_RUN = 16  # backticks in a row: a code span needs one to three
MAX_UNCLOSED_LINKS = 32  # "[" without "]" and "](" without ")" in one paragraph (a typo or two is fine)
RENDER_SECONDS = 10.0  # a lesson's markdown, all of it: a real lesson converts in well under a second

_NESTING = re.compile(r"[ \t]*(?:>|[-*+](?=[ \t])|\d{1,9}[.)](?=[ \t]))")
_RULE = re.compile(r"[ \t]*(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")  # "- - -" is a rule, not lists
_BACKTICKS = re.compile(f"`{{{MAX_BACKTICK_RUN + 1},}}")
_LINK_SYNTAX = re.compile(r"\\.|`+|\]\(|[\[\]()]")
# A line's depth is at most the length of its start made of indentation and list and quote markers (a level is four
# columns of indentation, so a space or a tab is at most one, or a marker, one character or more): a line nested
# deeper than MAX_NESTING starts with more than MAX_NESTING of these characters (lines as str.splitlines() makes them).
_MAY_NEST = re.compile(rf"(?:^|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029])[ \t>*+\-.)\d]{{{MAX_NESTING + 1}}}")
_MAY_NEST_LF = re.compile(rf"^[ \t>*+\-.)\d]{{{MAX_NESTING + 1}}}", re.MULTILINE)  # the same, lines broken by \n only
_BREAKS_BUT_LF = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"  # the other characters str.splitlines() breaks lines at
_TICKS = "`" * (MAX_BACKTICK_RUN + 1)


def outside_fences(text: str) -> Iterator[tuple[int, str, str]]:
    """(line offset, line, stripped line) for every line that is not in a fenced code block."""
    fence: str | None = None
    for n, line in enumerate(text.splitlines()):
        stripped = line.strip()
        if fence:
            fence = None if stripped.startswith(fence) else fence
        elif stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        else:
            yield n, line, stripped


def problems(text: str) -> list[tuple[int, str]]:
    """(line offset, what is wrong — how to fix it) for each kind of text in `text` that markdown cannot convert in
    bounded time, at its first line; [] when the whole text may be converted."""
    found = [problem for check in (_deep, _long_backtick_run) if (problem := check(text)) is not None]
    if _TICKS not in text:  # the link count reads code spans: only once every backtick run is short
        links = _unclosed_links(text)
        found += [links] if links is not None else []
    return found


def _deep(text: str) -> tuple[int, str] | None:
    """The first line nested more than MAX_NESTING lists and quotes deep."""
    lf_only = not any(c in text for c in _BREAKS_BUT_LF)  # then a search from each line start only (quicker)
    if (_MAY_NEST_LF if lf_only else _MAY_NEST).search(text) is None:
        return None  # no line starts with enough of what nesting is made of
    for n, line, _ in outside_fences(text):
        if _RULE.match(line):
            continue
        expanded = line.expandtabs(4)
        depth, pos = (len(expanded) - len(expanded.lstrip(" "))) // 4, 0
        while (marker := _NESTING.match(expanded, pos)) is not None and depth <= MAX_NESTING:
            depth, pos = depth + 1, marker.end()
        if depth > MAX_NESTING:
            return n, (f"this line is nested more than {MAX_NESTING} lists and quotes deep — lessons need a few "
                       "levels: flatten it")
    return None


def _long_backtick_run(text: str) -> tuple[int, str] | None:
    """The first line with more than MAX_BACKTICK_RUN backticks in a row (code fences included: no fence needs it)."""
    found = _BACKTICKS.search(text) if _TICKS in text else None
    if found is None:
        return None
    return text.count("\n", 0, found.start()), (
        f"a run of {len(found.group(0)):,} backticks on this line, more than the {MAX_BACKTICK_RUN} in a row a lesson "
        "may have (markdown slows to minutes on long runs) — shorten it: a code span needs one to three")


def _unclosed_links(text: str) -> tuple[int, str] | None:
    """The first paragraph with more than MAX_UNCLOSED_LINKS link openings that never close, at its first one.

    Counted as Python-Markdown reads them: a "[" closes at its matching "]", a "](" at the ")" that matches it
    (parentheses nest inside); a backslash escapes the next character, and a code span (a run of backticks up to the
    next run as long) holds no links. A paragraph ends at a blank line.
    """
    if _openings(text) <= MAX_UNCLOSED_LINKS:
        return None  # too few openings in all of it for one paragraph to leave too many unclosed
    lines = text.splitlines()
    start = 0
    for end in [*(n for n, line in enumerate(lines) if not line.strip()), len(lines)]:
        if end > start:
            found = _count_unclosed("\n".join(lines[start:end]))
            if found is not None:
                line, count = found
                return start + line, (
                    f"{count:,} link openings from this line to the end of its paragraph never close (a \"[\" "
                    f"without its \"]\", or a \"](\" without its \")\"), more than the {MAX_UNCLOSED_LINKS} a "
                    "paragraph may have (markdown slows to minutes on them) — close each link, or write a bracket "
                    "that is only text as \\[")
        start = end + 1
    return None


def _openings(text: str) -> int:
    """At most how many link openings text leaves unclosed: each began at a "[" (a "](" takes the place of its "[")."""
    return text.count("[")


def _count_unclosed(paragraph: str) -> tuple[int, int] | None:
    """(line offset of the first, count) of the paragraph's unclosed link openings, when there are too many."""
    if _openings(paragraph) <= MAX_UNCLOSED_LINKS:
        return None
    brackets: list[int] = []  # where each open "[" is
    parens: list[int | None] = []  # where each open "](" is, None for a plain "(" inside one
    unmatched: set[int] = set()  # lengths of backtick runs with no run as long after them
    pos = 0
    while (token := _LINK_SYNTAX.search(paragraph, pos)) is not None:
        kind, pos = token.group(0), token.end()
        if kind.startswith("`"):
            ticks = len(kind)
            if ticks not in unmatched:
                close = re.compile(rf"(?<!`)`{{{ticks}}}(?!`)").search(paragraph, pos)
                if close is None:
                    unmatched.add(ticks)  # no later run closes it, nor any run of this length after it
                else:
                    pos = close.end()  # the code span's text is not markdown
        elif kind == "[":
            brackets.append(token.start())
        elif kind == "]" and brackets:
            brackets.pop()
        elif kind == "](" and brackets:  # "[text](": the link's target runs to its ")"
            brackets.pop()
            parens.append(token.start())
        elif kind in ("(", "](") and parens:
            parens.append(None)
        elif kind == ")" and parens:
            parens.pop()
    unclosed = sorted(brackets + [at for at in parens if at is not None])
    if len(unclosed) <= MAX_UNCLOSED_LINKS:
        return None
    return paragraph.count("\n", 0, unclosed[0]), len(unclosed)


# --- the time limit ----------------------------------------------------------------------------------------------

T = TypeVar("T")


class TooSlowError(Exception):
    """A conversion ran past its lesson's RENDER_SECONDS (or came after the budget ran out)."""


class _Expired(BaseException):
    """Raised by the alarm into the conversion; a BaseException so no `except Exception` in a library swallows it."""


class TimeLimit:
    """One lesson's markdown time: every conversion `run` makes spends from it, and one that overruns it raises
    TooSlowError (as does every later one: the lesson's problem is reported once).

    Within `with`, its alarm's handler is installed once for all the lesson's conversions (each then only sets and
    clears the timer), and the handler it replaced is put back at the end; without, each conversion installs it.
    """

    def __init__(self, seconds: float | None = None) -> None:
        self.seconds = RENDER_SECONDS if seconds is None else seconds
        self.left = self.seconds
        self._armed = False
        self._replaced: list[Any] | None = None  # within `with`: the SIGALRM handler it holds the place of

    def __enter__(self) -> TimeLimit:
        if self._ours():
            self._replaced = [signal.signal(signal.SIGALRM, self._alarm)]
        return self

    def __exit__(self, *exc: object) -> None:
        if self._replaced is not None:
            signal.signal(signal.SIGALRM, self._replaced[0])
            self._replaced = None

    @property
    def spent(self) -> bool:
        """The budget ran out: nothing more of this lesson is converted."""
        return self.left <= 0

    def _ours(self) -> bool:
        """Whether the alarm is this limit's to set: on the main thread, with no timer of its own or anyone's running."""
        return (threading.current_thread() is threading.main_thread() and not self._armed
                and signal.getitimer(signal.ITIMER_REAL)[0] == 0)

    def run(self, convert: Callable[..., T], *args: object) -> T:
        """convert(*args), stopped with TooSlowError once the budget is spent."""
        if self.spent:
            raise TooSlowError
        if not self._ours():
            return convert(*args)  # no alarm of ours here (another thread, or someone else's timer): the checks bound it
        held = self._replaced is not None
        previous = None if held else signal.signal(signal.SIGALRM, self._alarm)
        started = time.monotonic()
        self._armed = True
        try:
            signal.setitimer(signal.ITIMER_REAL, self.left)
            result = convert(*args)
            self._armed = False  # from here the alarm does nothing: the conversion finished in time
        except _Expired:
            self.left = 0
            raise TooSlowError from None
        finally:
            self._armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            if not held:
                signal.signal(signal.SIGALRM, previous)
            self.left = max(0.0, self.left - (time.monotonic() - started)) if self.left > 0 else 0
        return result

    def _alarm(self, signum: int, frame: object) -> None:
        if self._armed:
            raise _Expired


def too_slow(seconds: float, what: str = "this lesson's markdown") -> str:
    """The problem of markdown that ran out of time (at the first line of what was being converted)."""
    return (f"converting {what} took more than {seconds:g} s, so the build stopped it (a whole lesson converts in "
            "well under a second) — look from this line on for text markdown chokes on, such as a long run of one "
            "punctuation character, and shorten it")
