"""What the lesson's text says about a {widget}'s table: each combination's caption (its {name} fields and the
function's scalars filled in with Python's format specs, then markdown), and the figures `check:` types, compared
with the ones the lab computes."""

from __future__ import annotations

import re
import string
from typing import Any

from markupsafe import Markup

from lessonkit.blocks import Context
from lessonkit.content.schema import Src
from lessonkit.core import messages
from lessonkit.text.figures import Table, option_key
from lessonkit.text.markup import literal


def _check(ctx: Context, table: Table) -> None:
    """Figures the author typed under `check:` must equal the ones the lab computes."""
    check = ctx.data.get("check")
    if not check:
        return
    if table.column is None:
        ctx.error('"check:" compares figures with the figure column: add "figure:" (or "bar:") naming it',
                  ctx.line("check"))
        return
    for option, expected in check.items():
        line = ctx.line("check", option)
        key = table.parse(str(option))
        rows = table.values.get(key or "")
        if rows is None:
            shown = str(option).strip() if not isinstance(option, int | float) else option_key(option)
            ctx.error(f'"check:" names the option {shown}, which is not one of the values — use one of: '
                      f"{table.known()}", line)
            continue
        call = table.call(key)
        computed = [row[table.column] for row in rows]
        for n, (want, got) in enumerate(zip(expected, computed, strict=False), 1):
            if str(want).strip() != got:
                ctx.error(f'"check:" says {want} for option {key}, row {n} of "{table.column}", but {call} '
                          f"gives {got} — correct the figure", line)
        if len(expected) != len(computed):
            ctx.error(f'"check:" lists {len(expected)} figures for option {key}, but {call} gives '
                      f"{len(computed)} rows — list one figure per row", line)


_FORMATTER = string.Formatter()
_PERCENT_SPEC = re.compile(r"\.(\d+)%")


def _number_text(value: Any, spec: str) -> str:
    """A caption's value with its format spec, a number in the page's language: "{p:.1%}" is its percent format
    (66,5 % in German), other specs Python's digits with the language's decimal sign."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return format(value, spec)
    words = messages.current()
    percent = _PERCENT_SPEC.fullmatch(spec)
    if percent:
        return words.percent(value, int(percent.group(1)), grouping=False)
    return words.localize(format(value, spec))


def _captions(ctx: Context, states: dict[str, Any]) -> dict[str, Markup] | None:
    """Each option's caption: {value} (or each parameter's {name}) and the function's scalars filled in (Python's
    format specs), then markdown."""
    caption = ctx.data["caption"]
    at = ctx.line("caption")
    out = {}
    for key, state in states.items():
        names = {**state["names"], **state["scalars"]}
        try:
            filled = []
            for text, field, spec, conversion in _FORMATTER.parse(str(caption)):
                filled.append(text)
                if field is None:
                    continue
                if conversion or field not in names:
                    known = ", ".join("{" + n + "}" for n in names)
                    first = next(iter(names))
                    ctx.error(f'"caption:" uses {{{field}{"!" + conversion if conversion else ""}}}, which names no '
                              f"value — use {known} (a format spec may follow a colon: {{{first}:.2f}})", at)
                    return None
                filled.append(literal(_number_text(names[field], spec or "")))
        except (ValueError, TypeError) as exc:
            ctx.error(f'"caption:" cannot be filled in for the value {key} ({exc}) — write a name in braces, with a '
                      f'format spec after a colon if needed, e.g. "{{{next(iter(state["names"]))}:.2f}}"; write {{{{ and '
                      "}} for braces", at)
            return None
        out[key] = ctx.inline(Src("".join(filled), caption.line))
    return out
