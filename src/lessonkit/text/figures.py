"""Figures: `[[widget:option:row]]` in lesson text becomes a value a widget's lab function computed at build time.

`[[steep:0.25:4:kx]]` names another column than the widget's figure column; `[[steep:4:4 = 98.2%]]` also
checks the typed value. Options are matched as numbers (`0.25` is `.25`), rows count from 1. A widget with several
parameters names a combination by its options in parameter order, comma-separated: `[[mask:3,before:2]]`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from lessonkit.content.schema import did_you_mean

FIGURE = re.compile(r"\[\[(?P<ref>[^\]=]+?)(?:\s*=\s*(?P<expect>[^\]]+?))?\s*\]\]")


class FigureError(ValueError):
    """A figure that names nothing computed, or disagrees with the computation; the message says how to fix it."""


def option_key(value: float) -> str:
    """One spelling per number, for option keys in the HTML, the JSON and messages: 4.0 → "4", .25 → "0.25"."""
    if math.isfinite(value) and float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


def parse_option(text: str) -> str | None:
    """The option key a typed option names ("0.25", ".25" and "2.5e-1" name the same), or None if not a number."""
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return option_key(value) if math.isfinite(value) else None


@dataclass
class Table:
    """One widget's values as the page shows them: option key → rows → column → text."""

    widget: str
    function: str  # the lab function, for messages
    columns: list[str]  # every column some option's table has (each table's own are its rows' keys)
    column: str | None  # the column a figure reads when it names none
    values: dict[str, list[dict[str, str]]]
    parse: Callable[[str], str | None] = parse_option  # the option (or combination) a typed key names, or None
    spell: Callable[[str], str] | None = None  # how messages write the call for a key (default "function(key)")
    hint: str = ""  # what a key is, when it is more than an option ("a combination names one option of each …: ")
    said: dict[str, list[dict[str, str]]] | None = None  # the values as the page shows them (its language's digits)

    def call(self, key: str) -> str:
        """The call that made a key's table, as messages write it: table(4), attention(heads=2, show="weights")."""
        return self.spell(key) if self.spell else f"{self.function}({key})"

    def known(self) -> str:
        """The options (or combinations), for messages: all of them, or the first 12 and how many."""
        keys = list(self.values)
        return ", ".join(keys) if len(keys) <= 12 else f"{', '.join(keys[:12])}, … ({len(keys)} in all)"


@dataclass
class Figures:
    """The lesson's tables, by widget id; widgets whose computation failed are known too (their figures stay quiet:
    the widget's own problem says what is wrong)."""

    tables: dict[str, Table] = field(default_factory=dict)
    failed: set[str] = field(default_factory=set)

    def resolve(self, ref: str, expect: str | None) -> str | None:
        """The shown value a figure names; None for a widget that could not compute; FigureError when wrong."""
        parts = [p.strip() for p in ref.split(":", 3)]
        if len(parts) < 3 or not parts[0]:
            raise FigureError(f'figure "[[{ref}]]" must be [[widget-id:option:row]] or [[widget-id:option:row:Column]]')
        widget, option, row = parts[:3]
        if widget in self.failed:
            return None
        table = self.tables.get(widget)
        if table is None:
            known = ", ".join(sorted(self.tables))
            fix = f"use one of: {known}" if known else "this lesson has no {widget} block"
            raise FigureError(f'figure "[[{ref}]]" names no widget of this lesson{did_you_mean(widget, self.tables)} '
                              f"— {fix}")
        key = table.parse(option)
        if key not in table.values:
            raise FigureError(f'figure "[[{ref}]]" names the option {option}, which the widget does not have — '
                              f"{table.hint}its options are {table.known()}")
        rows = table.values[key]
        if not row.isdigit() or not 1 <= int(row) <= len(rows):
            raise FigureError(f'figure "[[{ref}]]" names the row {row} — option {key} has rows 1 to {len(rows)}')
        column = parts[3] if len(parts) == 4 else table.column
        columns = list(rows[0])  # this option's table's own (each value's table may have its own columns)
        if column is None:
            raise FigureError(f'figure "[[{ref}]]" names no column and the widget has no "figure:" or "bar:" — name '
                              f"one: [[{widget}:{option}:{row}:Column]], with one of: {', '.join(columns)}")
        if column not in columns:
            raise FigureError(f'figure "[[{ref}]]" names the column "{column}", which {table.call(key)} does not '
                              f"return{did_you_mean(column, columns)} — use one of: {', '.join(columns)}")
        got = rows[int(row) - 1][column]
        if expect is not None and expect.strip() != got:
            raise FigureError(f'figure "[[{ref}]]" says {expect.strip()} but the lab computes {got} — correct the text')
        return table.said[key][int(row) - 1][column] if table.said else got
