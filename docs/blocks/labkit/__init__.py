"""{labkit}: what a lab's code may call (labkit.OFFERED), each with its signature and its parameters' words read from
its docstring; or labkit's caps on one run, read from labkit itself (labkit/_limits.py, their one home). Made at
build time, so the manual never retypes a signature or a number.

    ```{labkit}
    id: labkit-api
    of: functions      # or limits
    ```

A docstring's first paragraph says what the function does; its parameters are written `name: what it is.` (or
`a / b: …` for two alike), each named as in the signature, or named in the summary (labkit.close's `actual`,
`expected` and `tol`): a parameter described nowhere is a problem at this block's line.
"""

from __future__ import annotations

import inspect
import re
from typing import Any

from markupsafe import Markup

import labkit
from labkit import _limits
from lessonkit.blocks import BlockType, Context
from lessonkit.content.schema import Choice, Fields, Key

SCHEMA = Fields({
    "of": Key(Choice("functions", "limits"), default="functions",
              doc="functions: what a lab calls, from their signatures and docstrings; limits: labkit's caps on a run"),
})
# labkit's caps, in the order a reader meets them: (its name in labkit/_limits.py, what it bounds).
LIMITS = (
    ("OUTPUT_LINES", "lines a run may print before labkit cuts its output, with a notice"),
    ("OUTPUT_CHARS", "characters a run may print"),
    ("OUTPUT_MESSAGES", "messages (batches of one stream's text) a run may send"),
    ("ERROR_LINES", "lines of an error's report (it keeps its ends and says how much was left out)"),
    ("ERROR_CHARS", "characters of an error's report"),
    ("CHECK_OUTPUT_LINES", "lines of what the learner's code prints during a Check, kept in its report"),
    ("CHECK_OUTPUT_CHARS", "characters of the same"),
    ("MAX_CHARTS", "charts one run may draw (bars, heatmaps and lines together)"),
    ("MAX_SERIES", "series of one bar or line chart"),
    ("MAX_LABELS", "labels (groups of bars) of one bar chart"),
    ("MAX_POINTS", "x values of one line chart"),
    ("MAX_SIDE", "rows, and columns, of one heatmap"),
    ("MAX_TEXT", "characters of any one title, label or legend"),
    ("CHECK_TIMEOUT", "an exercise's default seconds for the learner's code and for each check"),
    ("CHECK_ATTEMPTS", "an exercise's default failed checks before Show solution appears"),
)


def signature(function: Any) -> str:
    """`labkit.bars(series, *, labels=None, …)`: the call as a lab writes it, without type annotations."""
    parts, star = [], False
    for parameter in inspect.signature(function).parameters.values():
        if parameter.kind is parameter.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        default = "" if parameter.default is parameter.empty else f"={parameter.default!r}"
        parts.append(f"{parameter.name}{default}")
    return f"labkit.{function.__name__}({', '.join(parts)})"


def described(function: Any) -> tuple[str, list[tuple[list[str], str]], list[str]]:
    """A docstring's summary, each parameter (or pair) with its words, and the parameters it does not describe."""
    doc = inspect.getdoc(function) or ""
    summary, _, rest = doc.partition("\n\n")
    names = list(inspect.signature(function).parameters)
    text = " ".join(rest.split())
    name = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    start = re.compile(rf"(?:^|(?<=[.)] ))((?:{name})(?: / (?:{name}))*): ")
    found = list(start.finditer(text))
    params = [(m.group(1).split(" / "), text[m.end(): found[n + 1].start() if n + 1 < len(found) else len(text)].strip())
              for n, m in enumerate(found)]
    covered = {p for group, _ in params for p in group}
    return " ".join(summary.split()), params, [n for n in names if n not in covered]


def plain(text: str) -> Markup:
    """A docstring's text as HTML: escaped, its `code` spans as code."""
    return Markup(re.sub(r"`([^`]+)`", r"<code>\1</code>", str(Markup.escape(text))))  # noqa: S704 — escaped first


def build(ctx: Context) -> dict[str, Any] | None:
    """The functions (or the caps) as the page shows them."""
    if ctx.data["of"] == "limits":
        return {"of": "limits", "limits": [{"name": name, "value": f"{getattr(_limits, name):,g}", "what": what}
                                           for name, what in LIMITS]}
    functions = []
    for name in labkit.OFFERED:
        function = getattr(labkit, name)
        summary, params, missing = described(function)
        missing = [p for p in missing if not re.search(rf"\b{re.escape(p)}\b", summary)]  # named in its summary
        if missing:
            ctx.error(f"labkit.{name}'s docstring does not describe {', '.join(missing)} — write \"name: what it is.\" "
                      "for each parameter in labkit's docstring")
            return None
        functions.append({"name": name, "anchor": f"{ctx.block.id}-{name}", "signature": signature(function),
                          "summary": plain(summary),
                          "params": [{"names": group, "text": plain(words)} for group, words in params]})
    return {"of": "functions", "functions": functions}


BLOCK = BlockType("labkit", "labkit's functions (signature and docstring) or its caps on a run, read from labkit",
                  SCHEMA, build, example_order=230)
