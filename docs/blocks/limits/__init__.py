"""{limits}: named constants of lessonkit's code, each with its value and the words its own source gives it (the
comment at the end of its line, else the comment lines just above it), read at build time from the module that is
their one home, so the manual never retypes a limit.

    ```{limits}
    id: bounds
    names:                  # module.NAME, each a constant assigned at the top level of an installed module
      - lessonkit.content.bounds.MAX_BACKTICK_RUN
      - lessonkit.content.lesson.MAX_SLUG_LENGTH
    ```
"""

from __future__ import annotations

import ast
import importlib.util
import io
import tokenize
from pathlib import Path
from typing import Any

from lessonkit.blocks import BlockType, Context
from lessonkit.content.schema import Fields, Key, ListOf, Text

NAME = r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+"

SCHEMA = Fields({
    "names": Key(ListOf(Text(NAME, "a module's constant, module.NAME", '"lessonkit.content.lesson.MAX_SLUG_LENGTH"'),
                        min=1), required=True, hint="listing each constant as module.NAME",
                 doc="the constants to show, each `module.NAME` (a top-level assignment of an installed module)"),
})


def constant(dotted: str) -> tuple[Any, str] | str:
    """(value, words) of a module's top-level constant, read from its source without importing it; or what is
    wrong."""
    module, _, name = dotted.rpartition(".")
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return f"no Python module {module}"
    source = Path(spec.origin).read_text(encoding="utf-8")
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets) and node.value is not None:
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return f"{dotted} is not a literal ({ast.get_source_segment(source, node.value)})"
            return value, words(source, node.lineno, node.end_lineno or node.lineno)
    return f"{module} assigns no {name}"


def words(source: str, first: int, last: int) -> str:
    """The comment ending the assignment's last line, else the comment lines just above its first."""
    comments = {tok.start[0]: tok.string.lstrip("#").strip()
                for tok in tokenize.generate_tokens(io.StringIO(source).readline) if tok.type == tokenize.COMMENT}
    if last in comments:
        return comments[last]
    above, line = [], first - 1
    lines = source.splitlines()
    while line in comments and lines[line - 1].lstrip().startswith("#"):
        above.insert(0, comments[line])
        line -= 1
    return " ".join(above)


def shown(value: Any) -> str:
    """A value as the table shows it: numbers with thousands separators, floats without trailing zeros."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,g}"
    return repr(value)


def build(ctx: Context) -> dict[str, Any] | None:
    """Each constant's value and words, or a problem at its line."""
    rows = []
    for n, dotted in enumerate(ctx.data["names"]):
        found = constant(str(dotted))
        if isinstance(found, str):
            ctx.error(f"{found} — name a constant of an installed module as module.NAME", ctx.line("names", n))
            continue
        value, said = found
        rows.append({"name": str(dotted).rpartition(".")[2], "module": str(dotted).rpartition(".")[0],
                     "value": shown(value), "words": said, "anchor": f"{ctx.block.id}-{dotted.rpartition('.')[2].lower()}"})
    return None if ctx.failed else {"rows": rows}


BLOCK = BlockType("limits", "lessonkit's named limits, each with its value and its source's own words", SCHEMA, build,
                  example_order=260)
