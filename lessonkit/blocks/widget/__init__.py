"""{widget}: a table a lab function computes at build time for every value of one parameter.

The build calls `function(value)` of a file in lab/ (in the lab's child process, lessonkit.labs.host) once per option
and renders every result: the default one in the page (right with JavaScript off), the others in <template>s the
page module swaps in (no Python in the page). The function returns rows — mappings column → number or text, every
row with the same columns in the same order, the first column being the row header — or `{"rows": [...],
**scalars}`, the scalars being words the caption may use. Numbers are shown by the toolkit: whole numbers as they
are, others with 3 decimals, the `bar:` column (0…1) as a percentage with a bar; a string is shown as it is.
"""

from __future__ import annotations

import math
import re
import string
from typing import Any

from markupsafe import Markup

from lessonkit.blocks import BlockType, Context
from lessonkit.content.schema import Fields, Inline, Key, ListOf, MapOf, Number, Src, Text, did_you_mean
from lessonkit.labs.limits import IDENTIFIER
from lessonkit.labs.process import MAX_TIMEOUT, LabError
from lessonkit.labs.runner import DEFAULT_TIMEOUT
from lessonkit.page.figures import Table, option_key, parse_option
from lessonkit.page.markup import literal

MAX_VALUES = 101  # slider positions: each is a table in the page
MAX_ROWS = 200
MAX_COLUMNS = 12

PARAMETER = Fields({
    "label": Key(Inline(), required=True, hint='naming the parameter, e.g. "label: Steepness k"',
                 doc="the control's name"),
    "hint": Key(Inline(), doc="a few words after the name, in brackets"),
    "options": Key(ListOf(Number(), min=1, example="[0.25, 1, 4]"), doc="the values, shown as radio buttons"),
    "range": Key(Fields({"min": Key(Number(), required=True), "max": Key(Number(), required=True),
                         "step": Key(Number(above=0), required=True)}, example="{min: 0.25, max: 4, step: 0.25}"),
                 doc=f"instead of options: a slider from min to max by step (at most {MAX_VALUES} values)"),
    "default": Key(Number(), doc="the value shown first, and without JavaScript (default: the first)"),
})
SCHEMA = Fields({
    "file": Key(Text(), required=True, hint="naming a Python file in lab/", doc="the Python file in lab/"),
    "function": Key(Text(IDENTIFIER, "a Python name", '"function: table"'), required=True,
                    hint='naming the function the build calls, e.g. "function: table"',
                    doc="called once per value: returns the rows (or {rows, **scalars})"),
    "parameter": Key(PARAMETER, required=True, hint="with its label and options (or range)", doc="the control"),
    "caption": Key(Inline(), doc="above the table; {value} and the function's scalars, with format specs: {x:.2f}"),
    "bar": Key(Text(), doc="a column of numbers from 0 to 1, shown as percentages with bars"),
    "figure": Key(Text(), doc="the column figures read (default: the bar column)"),
    "check": Key(MapOf(Number(), ListOf(Text()), what='"option: [figures]" lines', example='4: ["9.0%", "66.5%"]'),
                 doc="figures typed in the lesson, compared with the figure column for that option"),
    "note": Key(Inline(), doc="under the table"),
    "timeout": Key(Number(above=0, max=MAX_TIMEOUT), default=DEFAULT_TIMEOUT, doc="seconds for the file and each call",
                   invalid=f'"timeout:" is the seconds the file and each call may run at build time, more than 0 and at '
                   f'most {MAX_TIMEOUT:g}, e.g. "timeout: 20"'),
})


def compute(ctx: Context) -> dict[str, Any] | None:
    """Call the lab function for every value; the shown table per option (also what figures read)."""
    data = ctx.data
    values = _values(ctx)
    if values is None:
        return None
    default = _default(ctx, values)
    run = ctx.run_lab(str(data["file"]), float(data["timeout"]))
    if run is None or not run.ok or default is None:
        return None
    function = str(data["function"])
    results: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {}
    for key, value in values.items():
        try:
            result = run.call(function, value)
        except LabError as exc:
            _call_failed(ctx, exc, f"{function}({key})", run.rel)
            return None
        shaped = _shape(ctx, result, f"{function}({key})")
        if shaped is None:
            return None
        results[key] = shaped
    columns = list(next(iter(results.values()))[0][0])
    for key, (rows, _) in results.items():
        if list(rows[0]) != columns:
            ctx.error(f"{function}({key}) returns the columns {_names(rows[0])}, but {function}({default}) returns "
                      f"{_names(columns)} — return the same columns for every value", ctx.line("function"))
            return None
    bar = _column(ctx, "bar", columns, function)
    figure = _column(ctx, "figure", columns, function) if "figure" in data else bar
    if ctx.failed:
        return None
    states: dict[str, Any] = {}
    shown: dict[str, list[dict[str, str]]] = {}
    for key, (rows, scalars) in results.items():
        cells = [[_cell(ctx, row[c], c == bar, f"{function}({key})", n) for c in columns] for n, row in
                 enumerate(rows, 1)]
        states[key] = {"rows": cells, "scalars": scalars, "value": values[key]}
        shown[key] = [{c: cell["text"] for c, cell in zip(columns, row, strict=True)} for row in cells]
    if ctx.failed:
        return None
    table = Table(ctx.block.id, function, columns, figure, shown)
    _check(ctx, table)
    ctx.figures.tables[ctx.block.id] = table  # what figures in the lesson's text read
    return {"table": table, "states": states, "columns": columns, "bar": bar, "default": default, "values": values}


def build(ctx: Context) -> dict[str, Any] | None:
    """The template's data: the control, the captions (markdown, figures filled) and the rows of every option."""
    computed = ctx.computed
    if computed is None:
        return None
    data = ctx.data
    parameter = data["parameter"]
    states = computed["states"]
    captions = _captions(ctx, states) if data.get("caption") else {key: Markup("") for key in states}
    if captions is None:
        return None
    return {
        "label": ctx.inline(parameter["label"]),
        "hint": ctx.inline(parameter["hint"]) if parameter.get("hint") else "",
        "control": "range" if "range" in parameter else "radio",
        "range": {k: option_key(parameter["range"][k]) for k in ("min", "max", "step")} if "range" in parameter else None,
        "options": list(states),
        "default": computed["default"],
        "columns": computed["columns"],
        "states": {key: {"caption": captions[key], "rows": state["rows"]} for key, state in states.items()},
        "note": ctx.inline(data["note"]) if data.get("note") else "",
    }


def island(data: dict[str, Any]) -> dict[str, Any]:
    """The page reads each option's table from its <template>; it needs the default and the options' order."""
    return {"default": data["default"], "options": data["options"]}


def _values(ctx: Context) -> dict[str, float] | None:
    """The parameter's values by option key, from `options:` or `range:`."""
    parameter = ctx.data["parameter"]
    at = ctx.line("parameter")
    if ("options" in parameter) == ("range" in parameter):
        ctx.error('"parameter:" in the {widget} block needs "options:" (a list of numbers, e.g. [1, 4, 16]) or '
                  '"range:" ({min: 0.25, max: 4, step: 0.25}), not both', at)
        return None
    if "options" in parameter:
        values: dict[str, float] = {}
        for n, value in enumerate(parameter["options"]):
            key = option_key(value)
            if key in values:
                ctx.error(f'"options:" in the {{widget}} block\'s "parameter:" lists {key} twice — list each value '
                          "once", ctx.line("parameter", "options", n))
                return None
            values[key] = int(value) if float(value).is_integer() else value
        if len(values) > MAX_VALUES:
            ctx.error(f'"options:" lists {len(values)} values — a widget holds at most {MAX_VALUES}',
                      ctx.line("parameter", "options"))
            return None
        return values
    low, high, step = (parameter["range"][k] for k in ("min", "max", "step"))
    at = ctx.line("parameter", "range")
    steps = (high - low) / step
    if high <= low:
        ctx.error(f'"range:" goes from {option_key(low)} to {option_key(high)} — "max:" must be more than "min:"', at)
        return None
    if abs(steps - round(steps)) > 1e-9 * max(1.0, steps):
        ctx.error(f'"range:" steps from {option_key(low)} by {option_key(step)} never reach {option_key(high)} — make '
                  '"max:" "min:" plus a whole number of steps', at)
        return None
    if round(steps) + 1 > MAX_VALUES:
        ctx.error(f'"range:" gives {round(steps) + 1} values — a slider holds at most {MAX_VALUES}: take a larger '
                  '"step:"', at)
        return None
    places = max(_places(low), _places(step))
    out = {}
    for i in range(round(steps) + 1):
        value = round(low + i * step, places)
        out[option_key(value)] = int(value) if float(value).is_integer() else value
    return out


def _places(x: float) -> int:
    """Decimal places a number is written with (0.25 → 2), so a range's values do not collect float error."""
    digits = repr(float(x)).split("e")[0]
    return len(digits.split(".")[1].rstrip("0")) if "." in digits else 0


def _default(ctx: Context, values: dict[str, float]) -> str | None:
    """The default option's key (the first one unless `default:` names another)."""
    parameter = ctx.data["parameter"]
    if "default" not in parameter:
        return next(iter(values))
    key = option_key(parameter["default"])
    if key not in values:
        shown = ", ".join(values) if len(values) <= 12 else f"{next(iter(values))} to {list(values)[-1]}"
        ctx.error(f'"default:" {key} is not one of the values ({shown}) — choose one of them',
                  ctx.line("parameter", "default"))
        return None
    return key


def _call_failed(ctx: Context, exc: LabError, call: str, rel: str) -> None:
    """A call that raised, ran too long or returned what JSON cannot carry, reported at the "function:" line."""
    at = f" (at {rel}:{exc.line})" if exc.line else ""
    if exc.kind == "missing":
        message = f'{rel} defines no function "{ctx.data["function"]}" — define it, or name a function it defines'
    elif exc.kind == "timeout":
        message = (f"{call} did not finish within {float(ctx.data['timeout']):g} s{at} — make it end sooner, or allow "
                   f'more time with "timeout:" in the {{widget}} block, e.g. "timeout: {_more(ctx.data["timeout"])}"')
    elif exc.kind == "raised":
        message = f"{call} raised {exc.message}{at} — fix the function: the build calls it once per value"
    elif exc.kind == "value":
        message = exc.message.replace(f"{ctx.data['function']}(…)", call, 1)
    else:
        message = f"{call} failed{at}: {exc.message}"
    ctx.error(message, ctx.line("function"))


def _more(timeout: float) -> str:
    """A longer time limit to suggest."""
    return f"{min(MAX_TIMEOUT, max(20.0, 2 * float(timeout))):g}"


def _shape(ctx: Context, result: Any, call: str) -> tuple[list[dict[str, Any]], dict[str, Any]] | None:
    """(rows, scalars) from what the function returned, or None after reporting what is wrong with it."""
    at = ctx.line("function")
    scalars: dict[str, Any] = {}
    if isinstance(result, dict):
        if not isinstance(result.get("rows"), list):
            ctx.error(f'{call} returns a mapping without "rows" — return a list of rows, or {{"rows": [...], '
                      "...}", at)
            return None
        scalars = {k: v for k, v in result.items() if k != "rows"}
        for name, value in scalars.items():
            if not re.fullmatch(IDENTIFIER, name) or not _plain(value):
                ctx.error(f'{call} returns "{name}": {_kind(value)} — besides "rows", return words (Python names) '
                          "mapped to numbers or text, for the caption", at)
                return None
        result = result["rows"]
    if not isinstance(result, list) or not result:
        what = "an empty list" if result == [] else _kind(result)
        ctx.error(f"{call} returns {what} — return a list of rows, each a mapping column → number or text", at)
        return None
    if len(result) > MAX_ROWS:
        ctx.error(f"{call} returns {len(result)} rows — a widget shows at most {MAX_ROWS}", at)
        return None
    columns: list[str] | None = None
    for n, row in enumerate(result, 1):
        if not isinstance(row, dict) or not row:
            ctx.error(f"row {n} of {call} is {_kind(row)} — each row must be a mapping column → number or text", at)
            return None
        if columns is None:
            columns = list(row)
            if len(columns) > MAX_COLUMNS:
                ctx.error(f"{call} returns {len(columns)} columns — a widget shows at most {MAX_COLUMNS}", at)
                return None
        elif list(row) != columns:
            ctx.error(f"row {n} of {call} has the columns {_names(row)}, but row 1 has {_names(columns)} — give "
                      "every row the same columns in the same order", at)
            return None
        for column, value in row.items():
            if not _plain(value):
                ctx.error(f'row {n} of {call} has "{column}": {_kind(value)} — a cell is a number or text', at)
                return None
    return result, scalars


def _plain(value: Any) -> bool:
    """A finite number or a string (what a cell or a caption scalar may be)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, str) or (isinstance(value, int | float) and math.isfinite(value))


def _kind(value: Any) -> str:
    """A value's kind, in words."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} (not a finite number)"
    kinds = {bool: "true or false", dict: "a mapping", list: "a list", type(None): "None", str: "text"}
    return kinds.get(type(value), f"a {type(value).__name__}")


def _names(columns: Any) -> str:
    return ", ".join(f'"{c}"' for c in columns)


def _column(ctx: Context, key: str, columns: list[str], function: str) -> str | None:
    """The column `bar:` or `figure:` names (None when not given); a problem when the function has no such column."""
    name = ctx.data.get(key)
    if name is None:
        return None
    if str(name) not in columns:
        ctx.error(f'"{key}:" names the column "{name}", which {function}() does not return'
                  f"{did_you_mean(str(name), columns)} — use one of: {', '.join(columns)}", ctx.line(key))
        return None
    return str(name)


def _cell(ctx: Context, value: Any, bar: bool, call: str, row: int) -> dict[str, Any]:
    """What a cell shows: text (and a bar width in percent for the bar column)."""
    if isinstance(value, str):
        return {"text": value, "width": None}
    if bar:
        if not 0 <= value <= 1:
            ctx.error(f'row {row} of {call} has {value} in the bar column "{ctx.data["bar"]}" — bars show numbers '
                      "from 0 to 1 (as 0 % to 100 %)", ctx.line("bar"))
        return {"text": f"{100 * value:.1f}%", "width": round(100 * value, 2)}
    return {"text": str(value) if isinstance(value, int) else f"{value:.3f}", "width": None}


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
        key = parse_option(str(option))
        rows = table.values.get(key or "")
        if rows is None:
            ctx.error(f'"check:" names the option {option_key(option)}, which is not one of the values — use one of: '
                      f"{', '.join(table.values)}", line)
            continue
        computed = [row[table.column] for row in rows]
        for n, (want, got) in enumerate(zip(expected, computed, strict=False), 1):
            if str(want).strip() != got:
                ctx.error(f'"check:" says {want} for option {key}, row {n} of "{table.column}", but {table.function}({key}) '
                          f"gives {got} — correct the figure", line)
        if len(expected) != len(computed):
            ctx.error(f'"check:" lists {len(expected)} figures for option {key}, but {table.function}({key}) gives '
                      f"{len(computed)} rows — list one figure per row", line)


_FORMATTER = string.Formatter()


def _captions(ctx: Context, states: dict[str, Any]) -> dict[str, Markup] | None:
    """Each option's caption: {value} and the function's scalars filled in (Python's format specs), then markdown."""
    caption = ctx.data["caption"]
    at = ctx.line("caption")
    out = {}
    for key, state in states.items():
        names = {"value": state["value"], **state["scalars"]}
        try:
            filled = []
            for text, field, spec, conversion in _FORMATTER.parse(str(caption)):
                filled.append(text)
                if field is None:
                    continue
                if conversion or field not in names:
                    known = ", ".join("{" + n + "}" for n in names)
                    ctx.error(f'"caption:" uses {{{field}{"!" + conversion if conversion else ""}}}, which names no '
                              f"value — use {known} (a format spec may follow a colon: {{value:.2f}})", at)
                    return None
                filled.append(literal(format(names[field], spec or "")))
        except (ValueError, TypeError) as exc:
            ctx.error(f'"caption:" cannot be filled in for the value {key} ({exc}) — write a name in braces, with a '
                      'format spec after a colon if needed, e.g. "{value:.2f}"; write {{ and }} for braces', at)
            return None
        out[key] = ctx.inline(Src("".join(filled), caption.line))
    return out


BLOCK = BlockType("widget", "a table a lab function computes for each value of a parameter (radio buttons or a "
                  "slider), switched instantly in the page", SCHEMA, build, island, compute=compute,
                  example_order=10)
