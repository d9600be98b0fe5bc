"""What a {widget}'s cells show: number formats per column (`formats:`), shaded columns (`heat:`) and masked cells.

Formats: `number` (the default: whole numbers as they are, `1.0` too, others with 3 decimals), `percent` (0.665 →
66.5%), `text` (the number as Python writes it) or a format in braces (`"{:.2f}"`, `"{:+.1f} s"`). A negative
number is written with the real minus sign (U+2212), and a number shown as zero never has one. Text cells are
shown as they are. `heat:` names the columns whose numbers are shaded on one colour scale (lessonkit.text.heat), or
`all` for every column of numbers; a None or -inf there is a masked cell, hatched and written as `masked:` says
("masked" by default, e.g. "−∞"), never shaded like a small number.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Callable
from typing import Any

from lessonkit.content.schema import INVALID, At, ListOf, Text, Type, did_you_mean
from lessonkit.core import messages
from lessonkit.text import heat

FORMAT_WORDS = ("number", "percent", "text")
MASKED = "masked"
_FORMATTER = string.Formatter()


class Columns(Type):
    """`heat:`: `all`, one column's name, or a list of them."""

    what = 'a list of column names, or "all"'
    example = "[Key 1, Key 2] or all"
    doc = "list of text, or all"

    def check(self, value: Any, at: At) -> Any:
        if isinstance(value, list):
            return ListOf(Text()).check(value, at)
        text = Text().check(value, at)
        return text if text is INVALID or not text else [text] if text != "all" else text


def formatter(spec: str) -> Callable[[float], str] | str:
    """A number's text in this format, or what is wrong with the format."""
    spec = spec.strip()
    if spec in FORMAT_WORDS:
        return {"number": _number, "percent": _percent, "text": _as_written}[spec]
    try:
        fields = [f for f in _FORMATTER.parse(spec) if f[1] is not None]
    except ValueError as exc:
        return f"({exc})"
    if len(fields) != 1 or fields[0][1] or fields[0][3]:
        return ""
    problems = []
    for sample in (-1.5, -1):
        try:
            spec.format(sample)
        except (ValueError, TypeError, IndexError, KeyError) as exc:
            problems.append(f"({exc})")
    return problems[0] if len(problems) == 2 else lambda value: spec.format(value)


def _number(value: float) -> str:
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.3f}"


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _as_written(value: float) -> str:
    return str(value)


_MINUS_ZERO = re.compile(r"(?<![\w.])-(?=0*(?:\.0*)?(?![\d.]))")
_MINUS = re.compile(r"(?<![\w.])-(?=\.?\d)")


def signed(text: str) -> str:
    """text with the real minus sign, and none before a number shown as zero ("-0.000" → "0.000")."""
    if "-" not in text:
        return text
    return _MINUS.sub("\u2212", _MINUS_ZERO.sub("", text))


def masked_value(value: Any) -> bool:
    """Whether a value stands for a masked cell: None, or minus infinity."""
    return value is None or (isinstance(value, float) and value == -math.inf)


def cell_text(value: Any, fmt: Callable[[float], str]) -> str:
    """What a cell of text or a number says as the author writes it (`check:` and a figure's stated value compare
    with this): Python's digits, "." for the decimal point."""
    return value if isinstance(value, str) else signed(fmt(value))


def shown_text(value: Any, fmt: Callable[[float], str]) -> str:
    """What a cell of text or a number shows in the page's language (lessonkit.core.messages): `number` and
    `percent` in the language's decimal and percent formats (66.5 % in German: "66,5 %"), a format in braces with
    the language's decimal sign, `text` as Python writes it."""
    if isinstance(value, str):
        return value
    words = messages.current()
    if fmt is _number:
        whole = float(value).is_integer() and abs(value) < 1e15
        return signed(words.number(value, 0 if whole else 3, grouping=False))
    if fmt is _percent:
        return signed(words.percent(value, 1, grouping=False))
    if fmt is _as_written:
        return str(value)
    return signed(words.localize(fmt(value)))


def heat_columns(given: Any, columns: list[str], tables: list[list[dict[str, Any]]]) -> list[str] | str:
    """The shaded columns (`all`: every column after the first with a number or a masked cell in every row), or
    the name `heat:` gives that is not a column."""
    if given == "all":
        return [c for c in columns[1:] if all(not isinstance(row[c], str) for rows in tables for row in rows)]
    for name in given:
        if str(name) not in columns:
            return str(name)
    return [str(name) for name in given]


def unknown_column(name: str, columns: list[str]) -> str:
    """The end of a message about a column name that is not one."""
    return f"{did_you_mean(name, columns)} — use one of: {', '.join(columns)}"


def shade(rows: list[dict[str, Any]], shaded: list[str], formats: dict[str, Callable[[float], str]],
          percent: bool) -> tuple[heat.Scale | None, dict[str, Any] | None]:
    """The scale for one table's shaded cells and its legend ({gradient, low, high, masked}); (None, None)
    without shaded columns."""
    if not shaded:
        return None, None
    values = [row[c] for row in rows for c in shaded if not masked_value(row[c])]
    scale = heat.scale_for(values, percent=percent)
    fmt = formats[shaded[0]]
    legend = {"gradient": scale.gradient(), "low": shown_text(scale.low, fmt), "high": shown_text(scale.high, fmt),
              "kind": scale.kind, "zero": shown_text(0, fmt),
              "masked": any(masked_value(row[c]) for row in rows for c in shaded)}
    return scale, legend
