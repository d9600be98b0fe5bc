"""A {widget} table's columns as the block names them — `bar:`, `figure:`, `heat:`, `formats:` (the widget's and
each option's) checked against the columns the function returns — and what each cell shows (text, a bar, a shade,
masked), a problem with a column reported once."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from lessonkit.blocks import Context
from lessonkit.blocks.widget.cells import (
    FORMAT_WORDS,
    MASKED,
    cell_text,
    formatter,
    heat_columns,
    masked_value,
    shown_text,
    unknown_column,
)
from lessonkit.blocks.widget.parameters import Controls
from lessonkit.blocks.widget.returns import _kind
from lessonkit.content.schema import did_you_mean
from lessonkit.core import messages
from lessonkit.text.heat import text_on


def _heat(ctx: Context, shapes: dict[str, list[str]], tables: dict[str, list[dict[str, Any]]], bar: str | None,
          function: str, spell: Callable[[str], str]) -> dict[str, list[str]] | None:
    """The columns `heat:` shades in each table (none without it); None after reporting a name that is not a column,
    or a cell of text in a column it shades."""
    given = ctx.data.get("heat")
    if given is None:
        return {key: [] for key in shapes}
    columns = list(dict.fromkeys(c for shape in shapes.values() for c in shape))
    unknown = heat_columns(given, columns, [])
    if isinstance(unknown, str):
        ctx.error(f'"heat:" names the column "{unknown}", which {function}() does not return'
                  f"{unknown_column(unknown, columns)}", ctx.line("heat"))
        return None
    # Each table shades the columns it has of those named (`all`: its own columns of numbers).
    shaded = {key: heat_columns(given, shape, [tables[key]]) if given == "all" else [c for c in unknown if c in shape]
              for key, shape in shapes.items()}
    for key, names in shaded.items():
        for name in names:  # type: ignore[union-attr]
            if name == shapes[key][0] or name == bar:
                what = "the row header" if name == shapes[key][0] else 'the "bar:" column'
                ctx.error(f'"heat:" names "{name}", {what} — shade other columns', ctx.line("heat"))
                return None
    if not any(shaded.values()):
        ctx.error(f'"heat: all" shades every column of numbers, but {function}() returns none besides the row header '
                  "— return numbers, or leave heat: out", ctx.line("heat"))
        return None
    for key, names in shaded.items():
        for name in names:  # type: ignore[union-attr]
            text = next(((n, row[name]) for n, row in enumerate(tables[key], 1) if isinstance(row[name], str)), None)
            if text is not None:
                ctx.error(f'"heat:" shades "{name}", but row {text[0]} of {spell(key)} has "{name}": text '
                          f"({json.dumps(text[1], ensure_ascii=False)}) — a shaded cell holds a number, or None or -inf "
                          f'for a masked cell (hatched, and written as "masked:" says): return one there, or leave '
                          f'"{name}" out of "heat:"', ctx.line("heat"))
                return None
    return shaded  # type: ignore[return-value]


def _formats(ctx: Context, given: Any, columns: list[str], line: int, function: str,
             where: str) -> dict[str, str] | None:
    """A `formats:` mapping, checked: real columns, known formats."""
    out: dict[str, str] = {}
    for column, spec in (given or {}).items():
        at = getattr(given, "lines", {}).get(column, line)
        if str(column) not in columns:
            ctx.error(f'{where} names the column "{column}", which {function}() does not return'
                      f"{unknown_column(str(column), columns)}", at)
            continue
        made = formatter(str(spec))
        if isinstance(made, str):
            ctx.error(f'{where} gives "{column}" the format "{spec}" {made} — write {", ".join(FORMAT_WORDS[:-1])} '
                      f'or {FORMAT_WORDS[-1]}, or one format in braces like "{{:.2f}}"'.replace("  ", " "), at)
            continue
        out[str(column)] = str(spec).strip()
    return None if ctx.failed else out


def _effective(formats: dict[str, str], found: Controls, key: str, columns: list[str],
               line: int) -> tuple[dict[str, str], dict[str, int]]:
    """Each column's format for one combination (the widget's, then the chosen options': later parameters win), and
    the line it was given on."""
    spelled = {c: formats.get(c, "number") for c in columns}
    lines = dict.fromkeys(columns, line)
    for option in found.combination(key):
        spelled.update(option.formats)
        lines.update(dict.fromkeys(option.formats, option.formats_line))
    return spelled, lines


def _column(ctx: Context, key: str, shapes: dict[str, list[str]], function: str,
            spell: Callable[[str], str]) -> str | None:
    """The column `bar:` or `figure:` names (None when not given); a problem when the function has no such column,
    or a table without it (every value's table has the column it names)."""
    name = ctx.data.get(key)
    if name is None:
        return None
    columns = list(dict.fromkeys(c for shape in shapes.values() for c in shape))
    if str(name) not in columns:
        ctx.error(f'"{key}:" names the column "{name}", which {function}() does not return'
                  f"{did_you_mean(str(name), columns)} — use one of: {', '.join(columns)}", ctx.line(key))
        return None
    lacking = next((k for k, shape in shapes.items() if str(name) not in shape), None)
    if lacking is not None:
        ctx.error(f'"{key}:" names the column "{name}", which {spell(lacking)} does not return — "{key}:" reads it '
                  f"in every value's table: return it for every value, or name a column every table has", ctx.line(key))
        return None
    return str(name)


_AS_PERCENT = formatter("percent")  # how a bar column of plain numbers is written
_BLANK: dict[str, Any] = {"text": "", "width": None, "heat": None, "masked": False, "hidden": ""}  # what a cell has


def _cell(ctx: Context, value: Any, column: str, call: str, row: int, *, bar: bool, fmt: Any, spelled: str,
          scale: Any, line: int, reported: set[str]) -> dict[str, Any]:
    """What a cell shows: text, a bar width in percent for the bar column, a shaded cell's colours, or masked. A
    problem with a column is reported once (at its first cell), not for every row and option."""
    cell = _BLANK
    if masked_value(value):
        if scale is None and column not in reported:
            reported.add(column)
            ctx.error(f'row {row} of {call} has "{column}": {_kind(value)} — None and -inf are masked cells, shown only '
                      'in a "heat:" column: name the column in "heat:", or return a number', ctx.line("function"))
        word = messages.t("widget.masked")
        masked = word if str(ctx.data["masked"]) == MASKED else str(ctx.data["masked"])
        return {**cell, "text": masked, "masked": True, "hidden": "" if masked == word else f" ({word})"}
    if isinstance(value, str):
        return {**cell, "text": value}
    if bar and not 0 <= value <= 1:
        ctx.error(f'row {row} of {call} has {value} in the bar column "{ctx.data["bar"]}" — bars show numbers '
                  "from 0 to 1 (as 0 % to 100 %)", ctx.line("bar"))
    try:
        written = _AS_PERCENT if bar and spelled == "number" else fmt
        plain, text = cell_text(value, written), shown_text(value, written)
    except (ValueError, TypeError) as exc:
        if column not in reported:
            reported.add(column)
            ctx.error(f'row {row} of {call} has "{column}": {value}, which the format "{spelled}" cannot write ({exc}) '
                      "— choose a format for numbers like it", line)
        return dict(cell)
    if bar:
        return {**cell, "text": text, "plain": plain, "width": round(100 * min(max(value, 0), 1), 2)}
    if scale is not None:
        background = scale.colour(value)
        return {**cell, "text": text, "plain": plain, "heat": {"bg": background, "fg": text_on(background)}}
    return {**cell, "text": text, "plain": plain}
