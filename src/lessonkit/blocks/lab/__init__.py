"""{lab}: an editable Python file from lab/, run in the browser; the build runs it unchanged for the output, the
charts it draws (labkit.bars) and the values its declarations need.

Optional declarations: `panel:` (the instructor's values panel edits one top-level `name = [numbers]` statement, or
a matrix `name = [[numbers], ...]`, read with the grammar the page rewrites it with: panel.py) and
`predict:` (predict-then-run: how a learner's run is compared with the build's, through the charts both drew: a bar
or line chart series by series, a heatmap row by row or by one cell).
"""

from __future__ import annotations

import json
import re
from typing import Any

from lessonkit.blocks import BlockType, Context, text
from lessonkit.blocks.lab import panel as panel_line
from lessonkit.content.schema import Choice, Fields, Inline, Key, ListOf, MapOf, Number, Text, Whole, did_you_mean
from lessonkit.core import messages
from lessonkit.labs.limits import CHART, IDENTIFIER
from lessonkit.labs.process import MAX_TIMEOUT
from lessonkit.labs.runner import DEFAULT_TIMEOUT
from lessonkit.text.figures import option_key

MAX_ITEMS = CHART["labels"]  # values a panel may hold: as many labels as a chart takes
MOVES = ("up", "down", "same")
OUTCOMES = {"up": "every series went up", "down": "every series went down", "same": "every series stayed the same",
            "mixed": "the series did not all move the same way"}

PANEL = Fields({
    "variable": Key(Text(IDENTIFIER, "a Python name", '"variable: raw"'), required=True,
                    hint='naming the list it edits, e.g. "variable: scores"',
                    doc="the top-level `name = [numbers]` (or `[[numbers], …]`) statement of the lab file the panel edits"),
    "legend": Key(Inline(), doc="the panel's heading (default: the line it edits)"),
    "item": Key(Text(), default="Item {n}", doc="each input's label; {n} is its position"),
    "rows": Key(ListOf(Text()), doc='a matrix\'s row labels (default "Row 1", "Row 2", …)'),
    "cols": Key(ListOf(Text()), doc='a matrix\'s column labels (default "Column 1", …)'),
    "min": Key(Whole(min=1, max=MAX_ITEMS), default=1,
               doc="fewest values, or rows and columns of a matrix (the remove buttons stop there)"),
    "max": Key(Whole(min=1, max=MAX_ITEMS), default=12,
               doc="most values, or rows and columns of a matrix (the add buttons stop there)"),
})
PREDICT = Fields({
    "question": Key(Inline(), required=True, hint="asking what the learner expects the run to do",
                    doc="asked before the first run with changed values"),
    "when_gaps_scaled": Key(MapOf(Number(above=0), Inline(), what="factor: question lines", example='2: "…"'),
                            doc="questions for an edit that multiplies every gap between the values by one factor"),
    "hint": Key(Inline(), doc="shown under the question"),
    "chart": Key(Text(), doc="the title of the chart the runs are compared by (default: the first the lab draws)"),
    "measure": Key(Choice("largest", "smallest", "sum", "first", "last"), default="largest",
                   doc="what is compared in each series of a bar or line chart, or each row of a heatmap"),
    "cell": Key(ListOf(Text()), doc="a heatmap's one cell to compare instead: [row label, column label]"),
    "answers": Key(MapOf(Text(r"\S(?:.*\S)?", "a word or two", "sharper"), Choice(*MOVES), what="answer: move lines",
                         example="sharper: up"), required=True, hint='mapping each answer to a move, e.g. "sharper: up"',
                   doc="the learner's choices and the move (up / down / same) each predicts"),
    "outcomes": Key(Fields({move: Key(Text(), doc=f'default "{words}"') for move, words in OUTCOMES.items()}),
                    doc="how the verdict names what the runs did (up, down, same, mixed)"),
    "tolerance": Key(Number(min=0), default=0.0005, doc="a smaller move counts as the same"),
})
SCHEMA = Fields({
    "file": Key(Text(), required=True, hint="naming a Python file in lab/", doc="the learner's starting code, in lab/"),
    "title": Key(Text(), doc="the lab's heading (also its name for screen readers)"),
    "timeout": Key(Number(above=0, max=MAX_TIMEOUT), default=DEFAULT_TIMEOUT,
                   invalid=f'"timeout:" is the seconds the lab may run at build time, more than 0 and at most '
                   f'{MAX_TIMEOUT:g}, e.g. "timeout: 20"', doc="seconds the build lets the file run"),
    "panel": Key(PANEL, doc="the instructor's values panel"),
    "predict": Key(PREDICT, doc="predict-then-run (needs `panel:` and a chart)"),
})


def build(ctx: Context) -> dict[str, Any] | None:
    """Run the file; check the declarations against it; the template's data."""
    data = ctx.data
    run = ctx.run_lab(str(data["file"]), float(data["timeout"]))
    if run is None:
        return None
    panel = _panel(ctx, run.code, run.rel) if "panel" in data else None
    predict = _predict(ctx, run.charts if run.ok else None) if "predict" in data else None
    if ctx.failed:
        return None
    title = text(data.get("title"))
    return {"filename": run.file, "code": run.code, "code_hash": run.code_hash, "build_output": run.output,
            "charts": run.charts, "title": title, "panel": panel, "predict": predict}


def island(data: dict[str, Any]) -> dict[str, Any]:
    """What lab.js needs besides the HTML (the code and the build output are in it already).

    In `panel` and `predict`, `legend`, `question`, `hint` and the `when_gaps_scaled` questions are safe inline HTML;
    every other text is plain (the page sets it with textContent).
    """
    return {"filename": data["filename"], "codeHash": data["code_hash"], "title": data["title"],
            "charts": data["charts"], "panel": data["panel"], "predict": data["predict"]}


def _panel(ctx: Context, code: str, rel: str) -> dict[str, Any] | None:
    """The panel's declaration, checked against the lab file's own `name = [...]` statement with the grammar the page
    rewrites it with (panel.py)."""
    panel = ctx.data["panel"]
    name = str(panel["variable"])
    at = ctx.line("panel", "variable")
    try:
        found = panel_line.read(code, name)
    except panel_line.NotAListError as why:
        reason = str(why)
        if reason == "none":
            ctx.error(f'"panel:" edits "{name}", but {rel} has no top-level line "{name} = [numbers]" — add one, e.g. '
                      f'"{name} = [0.0, 4.0, 2.0]" (or "{name} = [[1.0, 0.0], [0.0, 1.0]]" for a matrix), or name the '
                      "list it should edit", at)
        elif reason.startswith("assigned on lines"):
            ctx.error(f'"panel:" edits "{name}", which {rel} {reason.replace("assigned", "assigns")} — the panel '
                      "edits one statement: keep one", at)
        else:
            line = code.count("\n", 0, re.search(rf"^{name}[ \t]*=", code, re.M).start()) + 1
            ctx.error(f'"panel:" edits "{name}", but {rel} line {line} is not a list of numbers or a rectangular list '
                      f"of lists of numbers ({reason}) — write only numbers in brackets, e.g. "
                      f'"{name} = [[1.0, 0.0], [0.0, 1.0]]"', at)
        return None
    low, high = panel["min"], panel["max"]
    values = found.values
    shape = (len(values), len(values[0])) if found.matrix else (len(values),)
    if low > high:
        ctx.error(f'"min:" ({low}) in the {{lab}} block\'s "panel:" is more than "max:" ({high}) — swap them',
                  ctx.line("panel", "min"))
    elif not all(low <= n <= high for n in shape):
        what = f"{shape[0]} rows of {shape[1]} numbers" if found.matrix else f"{shape[0]} values"
        ctx.error(f'"{name}" in {rel} line {found.line} has {what}, outside the panel\'s "min:" {low} and "max:" '
                  f"{high}{' (for its rows and its columns)' if found.matrix else ''} — widen the range",
                  ctx.line("panel"))
    labels = {}
    for key, count in (("rows", shape[0]), ("cols", shape[-1])):
        given = panel.get(key)
        if given is None:
            continue
        if not found.matrix:
            ctx.error(f'"{key}:" labels a matrix\'s {"rows" if key == "rows" else "columns"}, but "{name}" in {rel} '
                      f"line {found.line} is one list of numbers — remove \"{key}:\" (\"item:\" labels its values), or "
                      "make it a list of lists", ctx.line("panel", key))
        elif len(given) != count:
            ctx.error(f'"{key}:" has {len(given)} labels, but "{name}" in {rel} line {found.line} has {count} '
                      f'{"rows" if key == "rows" else "columns"} — give one label each', ctx.line("panel", key))
        labels[key] = [str(x) for x in given]
    legend = panel.get("legend")
    shown = f"Values: `{name} = [[...], ...]`" if found.matrix else f"Values: `{name} = [...]`"
    return {"variable": name, "legend": ctx.inline(legend) if legend else ctx.inline(shown),
            "item": str(panel["item"]), "min": low, "max": high, "matrix": found.matrix,
            "rows": labels.get("rows", []), "cols": labels.get("cols", [])}


def _predict(ctx: Context, charts: list[Any] | None) -> dict[str, Any] | None:
    """The prediction's declaration; it needs the panel (whose edits it asks about) and a chart to compare: a bar
    or line chart series by series, a heatmap row by row (its masked cells left out), or one cell of a heatmap."""
    predict = ctx.data["predict"]
    at = ctx.line("predict")
    if "panel" not in ctx.data:
        ctx.error('"predict:" asks about the values the panel edits — add "panel:" to the {lab} block', at)
    if charts is not None:
        _compared(ctx, predict, charts)
    answers = predict["answers"]
    if len(answers) < 2:
        ctx.error('"answers:" in the {lab} block\'s "predict:" needs at least two answers', ctx.line("predict", "answers"))
    outcomes = {**OUTCOMES, **{move: str(words) for move, words in (predict.get("outcomes") or {}).items()}}
    scaled = predict.get("when_gaps_scaled") or {}
    return {
        "question": ctx.inline(predict["question"]),
        "when_gaps_scaled": {option_key(factor): ctx.inline(q) for factor, q in scaled.items()},
        "hint": ctx.inline(predict["hint"]) if predict.get("hint") else "",
        "measure": str(predict["measure"]),
        "chart": text(predict.get("chart")) or None,
        "cell": [str(label) for label in predict["cell"]] if predict.get("cell") else None,
        # a list, not a mapping: the island's JSON sorts a mapping's keys, and the answers keep the author's order
        "answers": [{"text": str(answer), "move": str(move)} for answer, move in answers.items()],
        "outcomes": outcomes,
        "tolerance": predict["tolerance"],
    }


CHART_KINDS = {"bars": "a bar chart", "lines": "a line chart", "heatmap": "a heatmap"}


def chart_title(chart: Any) -> str:
    """A chart's name: its title, or (labkit gives "" when the lab names it not) its kind in the page's language, as
    the page calls it (lab/chart-parts.js `chartTitle`)."""
    if chart["title"]:
        return str(chart["title"])
    if chart["type"] == "heatmap":
        return messages.t("chart.heatmap_title")
    return messages.t("chart.lines_title") if chart["type"] == "lines" else messages.t("chart.bars_title")


def _compared(ctx: Context, predict: Any, charts: list[Any]) -> None:
    """The build's chart the runs are compared by (`chart:`'s title, else the first), checked: it exists, and for
    `cell:` it is a heatmap with that cell, not masked."""
    file = ctx.data["file"]
    if not charts:
        ctx.error(f'"predict:" compares a chart of the lesson\'s run with the learner\'s, but {file} draws no chart at '
                  "build time — draw one with labkit.bars, labkit.lines or labkit.heatmap (its series, or a heatmap's "
                  "rows, are what the prediction is about)", ctx.line("predict"))
        return
    titles = [chart_title(chart) for chart in charts]
    wanted = text(predict.get("chart"))
    if wanted and wanted not in titles:
        ctx.error(f'"chart:" names "{wanted}", which {file} does not draw at build time{did_you_mean(wanted, titles)} '
                  f"— name one of its charts by its title: {', '.join(json.dumps(t, ensure_ascii=False) for t in titles)}",
                  ctx.line("predict", "chart"))
        return
    chart = charts[titles.index(wanted)] if wanted else charts[0]
    cell = predict.get("cell")
    if cell is None:
        return
    at = ctx.line("predict", "cell")
    if len(cell) != 2:
        ctx.error(f'"cell:" names one cell of a heatmap by its row and its column, e.g. "cell: [{_label(chart, "rows")},'
                  f' {_label(chart, "cols")}]", not {len(cell)} label{"" if len(cell) == 1 else "s"}', at)
        return
    if chart["type"] != "heatmap":
        ctx.error(f'"cell:" names a cell of a heatmap, but the chart "{chart_title(chart)}" is {CHART_KINDS[chart["type"]]}'
                  ' — name a heatmap with "chart:", or leave "cell:" out to compare each series', at)
        return
    row, col = (str(label) for label in cell)
    for label, labels, what in ((row, chart["rows"], "row"), (col, chart["cols"], "column")):
        if label not in labels:
            ctx.error(f'"cell:" names the {what} "{label}", which the heatmap "{chart_title(chart)}" does not have'
                      f"{did_you_mean(label, labels)} — its {what}s are {', '.join(labels)}", at)
            return
    if chart["cells"][chart["rows"].index(row)][chart["cols"].index(col)] is None:
        ctx.error(f'"cell:" names the cell ({row}, {col}) of "{chart_title(chart)}", which is masked in the lesson\'s run '
                  "— a masked cell has no value to compare: name one that has", at)


def _label(chart: Any, key: str) -> str:
    """A label of the chart's rows or columns, for an example (a heatmap's, else "…")."""
    return str(chart[key][0]) if chart.get("type") == "heatmap" else "…"


BLOCK = BlockType("lab", "an editable Python file from lab/, run in the browser (Pyodide), with its build output and "
                  "charts", SCHEMA, build, island, lazy=True,
                  progress=lambda data: {}, example_order=30)  # progress: the learner's edited code
