"""The values panel's line `name = [numbers]`, read with the grammar the page uses too (panel-line.json beside this
module; the page's static/js/lab/tools/values.js imports the same file and rewrites the line it finds): the build
accepts exactly the lines the panel can rewrite."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

from lessonkit.labs.limits import IDENTIFIER

GRAMMAR = json.loads((Path(__file__).with_name("panel-line.json")).read_text(encoding="utf-8"))
_NAME = re.compile(IDENTIFIER)
_NUMBER = re.compile(GRAMMAR["number"], re.ASCII)


@dataclass(frozen=True)
class ListLine:
    """The panel's line in a program: its numbers, and where it is (index and length of the line, its comment)."""

    values: list[float]
    index: int
    length: int
    tail: str


def _pattern(key: str, name: str) -> re.Pattern[str]:
    return re.compile(GRAMMAR[key].replace("{name}", name), re.M | re.ASCII)


def assignment_lines(code: str, name: str) -> list[int]:
    """The lines (from 1) of every top-level `name =` of the program."""
    if not _NAME.fullmatch(name):
        return []
    return [code.count("\n", 0, m.start()) + 1 for m in _pattern("assignment", name).finditer(code)]


def parse(code: str, name: str) -> ListLine | None:
    """The program's one line `name = [numbers]`, or None (none, reassigned, or not plain numbers)."""
    if not _NAME.fullmatch(name) or len(assignment_lines(code, name)) != 1:
        return None
    match = _pattern("line", name).search(code)
    if not match:
        return None
    parts = [part.strip() for part in match.group(1).split(",")]
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()  # a trailing comma is valid Python
    if not all(_NUMBER.match(part) for part in parts):
        return None
    values = [float(part) for part in parts]
    if not all(math.isfinite(v) for v in values):
        return None
    return ListLine(values, match.start(), len(match.group(0)), match.group(2))
