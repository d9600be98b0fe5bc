"""{widget}: a table a lab function computes at build time for every value of its parameters.

The build calls `function(value)` of a file in lab/ (in the lab's child process, lessonkit.labs.host) once per option
of `parameter:` — or `function(name=value, …)` once per combination of the options of `parameters:` (see
parameters.py) — and renders every result: the default one in the page (right with JavaScript off), the
others in <template>s the page module swaps in (no Python in the page). The function returns rows — mappings column
→ number or text, every row with the same columns in the same order, the first column being the row header — or
`{"rows": [...], **scalars}`, the scalars being words the caption may use. Each value's table has its own rows and
columns (a causal mask over n tokens is n × n): its header, shading and formats are its own. Numbers are shown by
the toolkit (see cells.py): whole numbers as they are, others with 3 decimals, the `bar:` column (0…1) as a
percentage with a bar, each column as `formats:` says; `heat:` columns shaded on one colour scale, None or -inf
there masked; a string is shown as it is.

Here: the schema, the calls and the template's data. What the function returns is checked in returns.py, the
columns the block names and what each cell shows in table.py, the captions and `check:`'s figures in captions.py.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from lessonkit.blocks import BlockType, Context
from lessonkit.blocks.widget.captions import _captions, _check
from lessonkit.blocks.widget.cells import MASKED, Columns, formatter, shade
from lessonkit.blocks.widget.parameters import FORMATS, NAMED, PARAMETER, Controls, controls
from lessonkit.blocks.widget.returns import _call_failed, _shape
from lessonkit.blocks.widget.table import _cell, _column, _effective, _formats, _heat
from lessonkit.content.schema import Fields, Inline, Key, ListOf, MapOf, Number, Text
from lessonkit.core import messages
from lessonkit.labs.limits import IDENTIFIER
from lessonkit.labs.process import MAX_TIMEOUT, LabError
from lessonkit.labs.runner import DEFAULT_TIMEOUT
from lessonkit.text.figures import Table

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
    # Each table has its own rows and columns (a mask over n tokens is n × n); what the block names is checked
    # against the columns some table has, and `bar:` and `figure:` against every table's.
    shapes = {key: list(rows[0]) for key, (rows, _) in results.items()}
    columns = list(dict.fromkeys(c for shape in shapes.values() for c in shape))

    def spell(key: str) -> str:
        return found.call_text(function, key)

    bar = _column(ctx, "bar", shapes, function, spell)
    figure = _column(ctx, "figure", shapes, function, spell) if "figure" in data else bar
    shaded = _heat(ctx, shapes, {key: rows for key, (rows, _) in results.items()}, bar, function, spell)
    formats = _formats(ctx, data.get("formats"), columns, ctx.line("formats"), function, '"formats:"')
    for parameter in found.parameters:
        for option in parameter.options.values():
            if option.formats:
                among = [c for key in found.keys if option in found.combination(key) for c in shapes[key]]
                _formats(ctx, option.formats, list(dict.fromkeys(among)), option.formats_line, function,
                         f'"formats:" of the option {option.key}')
    if ctx.failed or shaded is None or formats is None:
        return None
    states: dict[str, Any] = {}
    shown: dict[str, list[dict[str, str]]] = {}  # as the author writes them (`check:`, a figure's stated value)
    said: dict[str, list[dict[str, str]]] = {}  # as the page shows them, in its language
    reported: set[str] = set()  # columns with a problem reported: one message each, not one per row and option
    for key, (rows, scalars) in results.items():
        call, own, heat = spell(key), shapes[key], shaded[key]
        spelled, lines = _effective(formats, found, key, own, ctx.line("formats"))
        fmts = {c: formatter(spelled[c]) for c in own}
        percent = bool(heat) and all(spelled[c] == "percent" for c in heat)
        scale, legend = shade(rows, heat, fmts, percent)  # type: ignore[arg-type]
        cells = [[_cell(ctx, row[c], c, call, n, bar=c == bar, fmt=fmts[c], spelled=spelled[c],  # type: ignore[arg-type]
                        scale=scale if c in heat else None, line=lines[c], reported=reported) for c in own]
                 for n, row in enumerate(rows, 1)]
        names = dict(zip([p.name or "value" for p in found.parameters],
                         [o.value for o in found.combination(key)], strict=True))
        states[key] = {"rows": cells, "scalars": scalars, "names": names, "legend": legend, "columns": own}
        shown[key] = [{c: cell.get("plain", cell["text"]) for c, cell in zip(own, row, strict=True)} for row in cells]
        said[key] = [{c: cell["text"] for c, cell in zip(own, row, strict=True)} for row in cells]
    if ctx.failed:
        return None
    names = ", ".join(p.name or "value" for p in found.parameters)
    hint = (f"a combination names one option of each parameter in order ({names}), e.g. {found.default}: "
            if len(found.parameters) > 1 else "")
    table = Table(ctx.block.id, function, columns, figure, shown, parse=found.parse, spell=spell, hint=hint,
                  said=said)
    _check(ctx, table)
    ctx.figures.tables[ctx.block.id] = table  # what figures in the lesson's text read
    return {"table": table, "states": states, "reshaped": len({tuple(c) for c in shapes.values()}) > 1, "bar": bar,
            "controls": found}


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
        "reshaped": computed["reshaped"],  # the tables' columns differ: each <template> carries its header row
        "states": {key: {"caption": captions[key], "rows": state["rows"], "legend": state["legend"],
                         "columns": state["columns"]} for key, state in states.items()},
        "masked": masked_text(data),
        # The legend beside the hatch: "−∞: masked", or "masked" alone when that is how a masked cell reads.
        "masked_key": messages.t("widget.masked") if masked_text(data) == messages.t("widget.masked")
        else messages.t("widget.masked_key", text=str(data["masked"])),
        "note": ctx.inline(data["note"]) if data.get("note") else "",
    }


def masked_text(data: dict[str, Any]) -> str:
    """How a masked cell reads: the author's "masked:", or the page's word for masked (its default)."""
    return messages.t("widget.masked") if str(data["masked"]) == MASKED else str(data["masked"])


def island(data: dict[str, Any]) -> dict[str, Any]:
    """The page reads each combination's table from its <template>; it needs the default and the keys' order (and,
    for several parameters, each one's option keys in order)."""
    out = {"default": data["default"], "options": data["options"]}
    if data["parameters"]:
        out["parameters"] = data["parameters"]
    return out




BLOCK = BlockType("widget", "a table a lab function computes for each value of a parameter (radio buttons or a "
                  "slider), switched instantly in the page", SCHEMA, build, island, compute=compute,
                  example_order=10)
