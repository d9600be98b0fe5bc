"""{package}: lessonkit's parts in the order they import, each with what its own docstring says it is: the layers of
the import-linter contract that `make test` enforces (pyproject.toml's [tool.importlinter], their one home), read
at build time with each subpackage's docstring, so the manual's map of the package cannot drift from it.

    ```{package}
    id: layers
    ```
"""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path
from typing import Any

from markupsafe import Markup

from lessonkit.blocks import BlockType, Context
from lessonkit.content.schema import Fields, Key, Text
from lessonkit.core.places import PACKAGE

PYPROJECT = PACKAGE.parent.parent / "pyproject.toml"  # the repository's (src/lessonkit/ → the repository root)
CONTRACT = "layers"

SCHEMA = Fields({
    "contract": Key(Text(), doc="the name of the import-linter layers contract to show (default: the first one)"),
})


def summary(package: str) -> Markup:
    """The first sentence of a subpackage's docstring, as HTML: its text escaped, its `code` spans as code."""
    init = PACKAGE.parent / Path(*package.split(".")) / "__init__.py"
    doc = " ".join((ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or "").split())
    first = doc.split(". ", 1)[0].rstrip(".") + "."
    return Markup(re.sub(r"`([^`]+)`", r"<code>\1</code>", str(Markup.escape(first))))  # noqa: S704 — escaped above


def build(ctx: Context) -> dict[str, Any] | None:
    """Each layer, highest first, with its parts and their summaries."""
    if not PYPROJECT.is_file():
        ctx.error(f"{PYPROJECT} is not here: this block reads lessonkit's repository, where the manual is built")
        return None
    contracts = [c for c in tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
                 if c.get("type") == CONTRACT]
    wanted = ctx.data.get("contract")
    chosen = next((c for c in contracts if wanted is None or c["name"] == wanted), None)
    if chosen is None:
        ctx.error(f'"contract: {wanted}" names no layers contract — use one of: '
                  f"{', '.join(c['name'] for c in contracts)}", ctx.line("contract"))
        return None
    containers = chosen.get("containers", [])  # a contract of one container names its parts relative to it
    within = f"{containers[0]}." if len(containers) == 1 else ""
    layers = [[{"name": within + part.strip(), "short": (within + part.strip()).removeprefix("lessonkit."),
                "summary": summary(within + part.strip())} for part in layer.split("|")]
              for layer in chosen["layers"]]
    return {"name": chosen["name"], "layers": layers, "exhaustive": bool(chosen.get("exhaustive"))}


BLOCK = BlockType("package", "lessonkit's layers in their import order, each part with its docstring's summary",
                  SCHEMA, build, example_order=250)
