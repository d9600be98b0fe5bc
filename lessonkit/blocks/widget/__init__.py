"""{widget}: a table a lab function computes at build time for every value of its parameters.

The build calls `function(value)` of a file in lab/ (in the lab's child process, lessonkit.labs.host) once per option
of `parameter:` — or `function(name=value, …)` once per combination of the options of `parameters:` (see
parameters.py) — and renders every result: the default one in the page (right with JavaScript off), the
others in <template>s the page module swaps in (no Python in the page). The function returns rows — mappings column
→ number or text, every row with the same columns in the same order, the first column being the row header — or
`{"rows": [...], **scalars}`, the scalars being words the caption may use. Numbers are shown by the toolkit (see
cells.py): whole numbers as they are, others with 3 decimals, the `bar:` column (0…1) as a percentage with a
bar, each column as `formats:` says; `heat:` columns shaded on one colour scale, None or -inf there masked; a string
is shown as it is.
"""

from __future__ import annotations

import math
import re
import string
from typing import Any

from markupsafe import Markup

from lessonkit.blocks import BlockType, Context
from lessonkit.blocks.widget.cells import (
    FORMAT_WORDS,
    MASKED,
    Columns,
    cell_text,
    formatter,
    heat_columns,
    masked_value,
    shade,
    unknown_column,
)
from lessonkit.blocks.widget.parameters import FORMATS, NAMED, PARAMETER, Controls, controls
from lessonkit.content.schema import Fields, Inline, Key, ListOf, MapOf, Number, Src, Text, did_you_mean
from lessonkit.labs.limits import IDENTIFIER
from lessonkit.labs.process import MAX_TIMEOUT, LabError
from lessonkit.labs.runner import DEFAULT_TIMEOUT
from lessonkit.page.figures import Table, option_key
from lessonkit.page.markup import literal

MAX_ROWS = 200
MAX_COLUMNS = 12

SCHEMA = Fields({
    "file": Key(Text(), required=True, hint="naming a Python file in lab/", doc="the Python file in lab/"),
    "function": Key(Text(IDENTIFIER, "a Python name", '"function: table"'), required=True,
                    hint='naming the function the build calls, e.g. "function: table"',
                    doc="called once per value (or combination): returns the rows (or {rows, **scalars})"),
    "parameter": Key(PARAMETER, doc="the control: the function's one argument (or `parameters:`)"),
    "parameters": Key(ListOf(NAMED, noun="parameter", min=1, label=lambda item: (
                          f' ("{item["name"]}")' if isinstance(item.get("name"), str) else "") + ' of "parameters:"'),
                      doc="several controls, each the function's keyword argument `name:`"),
    "caption": Key(Inline(), doc="above the table; {value} (or each parameter's {name}) and the function's scalars, "
                   "with format specs: {x:.2f}"),
    "bar": Key(Text(), doc="a column of numbers from 0 to 1, shown as percentages with bars"),
    "heat": Key(Columns(), doc="columns of numbers shaded on one colour scale (all: every one); None or -inf there "
                "is a masked cell"),
    "masked": Key(Text(), default=MASKED, doc='how a masked cell reads, e.g. "−∞" (default "masked")'),
    "formats": Key(FORMATS, doc="each column's number format: number, percent, text, or a format like \"{:.2f}\""),
    "figure": Key(Text(), doc="the column figures read (default: the bar column)"),
    "check": Key(MapOf(Text(), ListOf(Text()), what='"option: [figures]" lines',
                       example='4: ["9.0%", "66.5%"], or "2,weights": [...] for parameters'),
                 doc="figures typed in the lesson, compared with the figure column for that option (or combination)"),
    "note": Key(Inline(), doc="under the table"),
    "timeout": Key(Number(above=0, max=MAX_TIMEOUT), default=DEFAULT_TIMEOUT, doc="seconds for the file and each call",
                   invalid=f'"timeout:" is the seconds the file and each call may run at build time, more than 0 and at '
                   f'most {MAX_TIMEOUT:g}, e.g. "timeout: 20"'),
})


def compute(ctx: Context) -> dict[str, Any] | None:
    """Call the lab function for every combination; the shown table per combination (also what figures read)."""
    data = ctx.data
    found = controls(ctx)
    if found is None:
        return None
    run = ctx.run_lab(str(data["file"]), float(data["timeout"]))
    if run is None or not run.ok:
        return None
    function = str(data["function"])
    results: dict[str, tuple[list[dict[str, Any]], dict[str, Any]]] = {}
    for key in found.keys:
        call = found.call_text(function, key)
        args, kwargs = found.arguments(key)
        try:
            result = run.call(function, *args, **kwargs)
        except LabError as exc:
            _call_failed(ctx, exc, call, run.rel)
            return None
        shaped = _shape(ctx, result, call, found)
        if shaped is None:
            return None
        results[key] = shaped
    columns = list(next(iter(results.values()))[0][0])
    for key, (rows, _) in results.items():
        if list(rows[0]) != columns:
            ctx.error(f"{found.call_text(function, key)} returns the columns {_names(rows[0])}, but "
                      f"{found.call_text(function, found.keys[0])} returns {_names(columns)} — return the same columns "
                      "for every value", ctx.line("function"))
            return None
    bar = _column(ctx, "bar", columns, function)
    figure = _column(ctx, "figure", columns, function) if "figure" in data else bar
    shaded = _heat(ctx, columns, [rows for rows, _ in results.values()], bar, function)
    formats = _formats(ctx, data.get("formats"), columns, ctx.line("formats"), function, '"formats:"')
    for parameter in found.parameters:
        for option in parameter.options.values():
            if option.formats:
                _formats(ctx, option.formats, columns, option.formats_line, function,
                         f'"formats:" of the option {option.key}')
    if ctx.failed or shaded is None or formats is None:
        return None
    states: dict[str, Any] = {}
    shown: dict[str, list[dict[str, str]]] = {}
    reported: set[str] = set()  # columns with a problem reported: one message each, not one per row and option
    for key, (rows, scalars) in results.items():
        call = found.call_text(function, key)
        spelled, lines = _effective(formats, found, key, columns, ctx.line("formats"))
        fmts = {c: formatter(spelled[c]) for c in columns}
        percent = bool(shaded) and all(spelled[c] == "percent" for c in shaded)
        scale, legend = shade(rows, shaded, fmts, percent)  # type: ignore[arg-type]
        cells = [[_cell(ctx, row[c], c, call, n, bar=c == bar, fmt=fmts[c], spelled=spelled[c],  # type: ignore[arg-type]
                        scale=scale if c in shaded else None, line=lines[c], reported=reported) for c in columns]
                 for n, row in enumerate(rows, 1)]
        names = dict(zip([p.name or "value" for p in found.parameters],
                         [o.value for o in found.combination(key)], strict=True))
        states[key] = {"rows": cells, "scalars": scalars, "names": names, "legend": legend}
        shown[key] = [{c: cell["text"] for c, cell in zip(columns, row, strict=True)} for row in cells]
    if ctx.failed:
        return None
    names = ", ".join(p.name or "value" for p in found.parameters)
    hint = (f"a combination names one option of each parameter in order ({names}), e.g. {found.default}: "
            if len(found.parameters) > 1 else "")
    table = Table(ctx.block.id, function, columns, figure, shown, parse=found.parse,
                  spell=lambda key: found.call_text(function, key), hint=hint)
    _check(ctx, table)
    ctx.figures.tables[ctx.block.id] = table  # what figures in the lesson's text read
    return {"table": table, "states": states, "columns": columns, "bar": bar, "controls": found}


def build(ctx: Context) -> dict[str, Any] | None:
    """The template's data: the controls, the captions (markdown, figures filled) and the rows of every option."""
    computed = ctx.computed
    if computed is None:
        return None
    data = ctx.data
    found: Controls = computed["controls"]
    states = computed["states"]
    captions = _captions(ctx, states) if data.get("caption") else {key: Markup("") for key in states}
    if captions is None:
        return None
    params = []
    for n, parameter in enumerate(found.parameters):
        yaml = ctx.data["parameter"] if parameter.name is None else ctx.data["parameters"][n]
        suffix = parameter.name or "value"
        params.append({
            "label": ctx.inline(yaml["label"]),
            "hint": ctx.inline(yaml["hint"]) if yaml.get("hint") else "",
            "control": parameter.control,
            "range": parameter.range,
            "options": [{"key": o.key, "label": ctx.inline(o.label) if o.label is not None else o.key}
                        for o in parameter.options.values()],
            "default": parameter.default,
            "input": f"{ctx.block.id}-{suffix}",
            "id": f"widget-{ctx.block.id}-{suffix}",
        })
    return {
        "params": params,
        "options": found.keys,
        "default": found.default,
        "parameters": [list(p.options) for p in found.parameters] if len(found.parameters) > 1 else None,
        "columns": computed["columns"],
        "states": {key: {"caption": captions[key], "rows": state["rows"], "legend": state["legend"]}
                   for key, state in states.items()},
        "masked": str(data["masked"]),
        "note": ctx.inline(data["note"]) if data.get("note") else "",
    }


def island(data: dict[str, Any]) -> dict[str, Any]:
    """The page reads each combination's table from its <template>; it needs the default and the keys' order (and,
    for several parameters, each one's option keys in order)."""
    out = {"default": data["default"], "options": data["options"]}
    if data["parameters"]:
        out["parameters"] = data["parameters"]
    return out


def _heat(ctx: Context, columns: list[str], tables: list[list[dict[str, Any]]], bar: str | None,
          function: str) -> list[str] | None:
    """The columns `heat:` shades (none without it); None after reporting a name that is not a column."""
    given = ctx.data.get("heat")
    if given is None:
        return []
    shaded = heat_columns(given, columns, tables)
    if isinstance(shaded, str):
        ctx.error(f'"heat:" names the column "{shaded}", which {function}() does not return'
                  f"{unknown_column(shaded, columns)}", ctx.line("heat"))
        return None
    for name in shaded:
        if name == columns[0] or name == bar:
            what = "the row header" if name == columns[0] else 'the "bar:" column'
            ctx.error(f'"heat:" names "{name}", {what} — shade other columns', ctx.line("heat"))
            return None
    if not shaded:
        ctx.error(f'"heat: all" shades every column of numbers, but {function}() returns none besides the row header '
                  "— return numbers, or leave heat: out", ctx.line("heat"))
        return None
    return shaded


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


def _shape(ctx: Context, result: Any, call: str, found: Controls) -> tuple[list[dict[str, Any]], dict[str, Any]] | None:
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
            if name in [p.name or "value" for p in found.parameters]:
                ctx.error(f'{call} returns "{name}", the name of a parameter, which the caption writes as '
                          f'{{{name}}} already — give the scalar another name', at)
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
            if not _plain(value) and not masked_value(value):
                ctx.error(f'row {n} of {call} has "{column}": {_kind(value)} — a cell is a number or text (or None or '
                          '-inf in a "heat:" column: a masked cell)', at)
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


def _cell(ctx: Context, value: Any, column: str, call: str, row: int, *, bar: bool, fmt: Any, spelled: str,
          scale: Any, line: int, reported: set[str]) -> dict[str, Any]:
    """What a cell shows: text, a bar width in percent for the bar column, a shaded cell's colours, or masked. A
    problem with a column is reported once (at its first cell), not for every row and option."""
    cell: dict[str, Any] = {"text": "", "width": None, "heat": None, "masked": False, "hidden": ""}
    if masked_value(value):
        if scale is None and column not in reported:
            reported.add(column)
            ctx.error(f'row {row} of {call} has "{column}": {_kind(value)} — None and -inf are masked cells, shown only '
                      'in a "heat:" column: name the column in "heat:", or return a number', ctx.line("function"))
        masked = str(ctx.data["masked"])
        return {**cell, "text": masked, "masked": True, "hidden": "" if masked == MASKED else f" ({MASKED})"}
    if isinstance(value, str):
        return {**cell, "text": value}
    if bar and not 0 <= value <= 1:
        ctx.error(f'row {row} of {call} has {value} in the bar column "{ctx.data["bar"]}" — bars show numbers '
                  "from 0 to 1 (as 0 % to 100 %)", ctx.line("bar"))
    try:
        text = cell_text(value, formatter("percent") if bar and spelled == "number" else fmt)
    except (ValueError, TypeError) as exc:
        if column not in reported:
            reported.add(column)
            ctx.error(f'row {row} of {call} has "{column}": {value}, which the format "{spelled}" cannot write ({exc}) '
                      "— choose a format for numbers like it", line)
        return cell
    if bar:
        return {**cell, "text": text, "width": round(100 * min(max(value, 0), 1), 2)}
    if scale is not None:
        return {**cell, "text": text, "heat": {"bg": scale.colour(value), "fg": scale.text(value)}}
    return {**cell, "text": text}


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
                filled.append(literal(format(names[field], spec or "")))
        except (ValueError, TypeError) as exc:
            ctx.error(f'"caption:" cannot be filled in for the value {key} ({exc}) — write a name in braces, with a '
                      f'format spec after a colon if needed, e.g. "{{{next(iter(state["names"]))}:.2f}}"; write {{{{ and '
                      "}} for braces", at)
            return None
        out[key] = ctx.inline(Src("".join(filled), caption.line))
    return out


BLOCK = BlockType("widget", "a table a lab function computes for each value of a parameter (radio buttons or a "
                  "slider), switched instantly in the page", SCHEMA, build, island, compute=compute,
                  example_order=10)
