"""The values panel's statement in a lab file, as the build reads it: the grammar of panel-line.json beside this module,
which the page's tools/values.js beside it imports and parses and rewrites with too (tests run both on
tests/fixtures/panel-line-cases.json): the build accepts exactly the statements the panel can rewrite.

`name = [numbers]` or `name = [[numbers], [numbers], ...]` at the start of a line, once in the file; the list on one
line or over several; inside it only numbers, commas, brackets and white space; a comment may follow it.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from lessonkit.labs.limits import IDENTIFIER

SPEC = json.loads((Path(__file__).with_name("panel-line.json")).read_text(encoding="utf-8"))
_NAME = re.compile(IDENTIFIER)
_TOKEN = re.compile(rf"{SPEC['space']}(?:(\[)|(\])|(,)|({SPEC['number']}))", re.ASCII)
_TAIL = re.compile(rf"{SPEC['tail']}(?=\n|\Z)")


@dataclass(frozen=True)
class ListLine:
    """The panel's list: its numbers (a list, or a list of rows), where the statement stands, and what follows it."""

    values: list
    line: int  # 1-based line of `name =`
    index: int  # offsets of the statement in the code: from `name` to the end of its comment
    length: int
    tail: str

    @property
    def matrix(self) -> bool:
        return bool(self.values) and isinstance(self.values[0], list)


class NotAListError(ValueError):
    """Why the code has no panel line for a name (a sentence to finish a message with)."""


def _starts(code: str, name: str) -> list[re.Match[str]]:
    return list(re.finditer(SPEC["assignment"].replace("{name}", name), code, re.M | re.ASCII))


def assignment_lines(code: str, name: str) -> list[int]:
    """The lines (from 1) of every top-level `name =` of the program."""
    if not _NAME.fullmatch(name):
        return []
    return [code.count("\n", 0, m.start()) + 1 for m in _starts(code, name)]


def parse(code: str, name: str) -> ListLine | None:
    """The program's one `name = [...]` statement, or None (none, reassigned, or not plain numbers)."""
    try:
        return read(code, name)
    except NotAListError:
        return None


def read(code: str, name: str) -> ListLine:
    """The one `name = [...]` statement of `code`, or NotAListError saying why there is none."""
    if not _NAME.fullmatch(name):
        raise NotAListError("none")
    starts = _starts(code, name)
    if not starts:
        raise NotAListError("none")
    if len(starts) > 1:
        raise NotAListError("assigned on lines " + ", ".join(map(str, assignment_lines(code, name))))
    start = starts[0]
    pos = start.end()
    while pos < len(code) and code[pos] in " \t":
        pos += 1
    values, pos = _list(code, pos, 1)
    tail = _TAIL.match(code, pos)
    if tail is None:
        raise NotAListError("something other than a comment follows the list")
    _shape(values)
    return ListLine(values, code.count("\n", 0, start.start()) + 1, start.start(), tail.end() - start.start(),
                    tail.group(0))


def _list(code: str, pos: int, depth: int) -> tuple[list, int]:
    """The list display opening at `pos` (a `[`) and the offset after its `]`."""
    if not code.startswith("[", pos):
        raise NotAListError("not a list")
    pos += 1
    items: list = []
    expect_item = True
    while True:
        token = _TOKEN.match(code, pos)
        if token is None:
            raise NotAListError("something other than numbers in it")
        opening, closing, comma, number = token.groups()
        if closing:
            if not items:
                raise NotAListError("an empty list")
            return items, token.end()
        if comma:
            if expect_item:
                raise NotAListError("something other than numbers in it")
            expect_item, pos = True, token.end()
            continue
        if not expect_item:
            raise NotAListError("something other than numbers in it")
        if opening:
            if depth >= SPEC["depth"]:
                raise NotAListError("lists nested more than two deep")
            row, pos = _list(code, token.end() - 1, depth + 1)
            items.append(row)
        else:
            value = float(number)
            if not math.isfinite(value):
                raise NotAListError("a number too large for a float")
            items.append(value)
            pos = token.end()
        expect_item = False


def _shape(values: list) -> None:
    """A list of numbers, or of rows of numbers all as long."""
    rows = [v for v in values if isinstance(v, list)]
    if rows and len(rows) != len(values):
        raise NotAListError("numbers and rows mixed")
    for i, row in enumerate(rows[1:], start=2):
        if len(row) != len(rows[0]):
            raise NotAListError(f"row {i} has {len(row)} numbers where row 1 has {len(rows[0])}")
