"""The block registry: each ```{type} block a lesson may use is one module here, found by its file name.

A block module defines `BLOCK = BlockType(...)`: its schema (lessonkit.content.schema), `build(ctx)` (checks beyond the
schema, lab calls, and the template's data), `island(data)` (the JSON its page module receives), and optionally
`compute(ctx)` (values other blocks' text may cite as figures, computed before any block is built) and
`progress(data)` (what the course manifest lists of a block that keeps a learner's progress). Its template
is templates/blocks/<type>.html and its page module static/js/blocks/<type>.js unless it names another; the build
generates the page's list of block modules from this registry (lessonkit.assets.scripts). Adding a type touches its module,
its template and its page module, nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from lessonkit.content.errors import Problem
from lessonkit.content.schema import Fields, Key, Src, Text
from lessonkit.page.figures import Figures

if TYPE_CHECKING:
    from lessonkit.content.lesson import Block, Lesson
    from lessonkit.labs.runner import LabRun, LabRunner

ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
ID_KEY = Key(Text(), doc="the block's id: lowercase letters, digits and single dashes (answers are saved under it)")


@dataclass(frozen=True)
class BlockType:
    """What one block type is: its schema, how it is built, and what the page receives."""

    name: str
    doc: str  # one line for the README's block list
    schema: Fields
    build: Callable[[Context], dict[str, Any] | None]
    island: Callable[[dict[str, Any]], dict[str, Any]] = lambda data: {}
    compute: Callable[[Context], Any] | None = None  # run for every block of a lesson before any is built
    module: str = ""  # the page module, under static/js/ (default blocks/<name>.js)
    lazy: bool = False  # imported after the first paint, as a bundle of its own (the lab), not in main.js
    template: str = ""  # under templates/ (default blocks/<name>.html)
    # A block that keeps a learner's progress: the course manifest's fields for it beyond type, id and version
    # (a quiz's question count), from the data `build` returned; None, or a function returning None: it keeps none.
    progress: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None

    @property
    def page_module(self) -> str:
        """The page module's path under static/js/."""
        return self.module or f"blocks/{self.name}.js"

    @property
    def template_name(self) -> str:
        """The template's path under templates/."""
        return self.template or f"blocks/{self.name}.html"


@cache
def types() -> dict[str, BlockType]:
    """Every block type, by name, from the modules in this package."""
    found: dict[str, BlockType] = {}
    for info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        block: BlockType = module.BLOCK
        if block.name != info.name:
            raise RuntimeError(f"lessonkit/blocks/{info.name}.py defines the block type {block.name!r}: name it "
                               f"{info.name!r} or rename the file")
        if "id" in block.schema.keys:
            raise RuntimeError(f"lessonkit/blocks/{info.name}.py: every block has an id; leave it out of the schema")
        block.schema.keys["id"] = ID_KEY
        found[block.name] = block
    return found


Inline = Callable[[str], Markup]  # author text → safe inline HTML (figures filled, math converted)


@dataclass
class Context:
    """One block being built: its lesson, its checked data, and the build's means (labs, markdown, figures)."""

    lesson: Lesson
    block: Block
    data: Any  # the checked YAML (a lessonkit.yamlsrc.YMap: `data.lines[key]` is a key's line)
    problems: list[Problem]
    labs: LabRunner
    inline: Inline
    markdown: Inline
    figures: Figures
    computed: Any = None  # what this block's `compute` returned
    failed: bool = field(default=False)  # a problem was reported for this block

    def error(self, message: str, line: int | None = None) -> None:
        """A problem at `line` (the block's opening line when None)."""
        self.problems.append(Problem(self.lesson.rel, line or self.block.line, message))
        self.failed = True

    def line(self, *keys: str | int) -> int:
        """File line of a nested key or item (`ctx.line("parameter", "default")`); the nearest one that exists."""
        node, line = self.data, self.block.line
        for key in keys:
            lines = getattr(node, "lines", None)
            if lines is None:
                break
            try:
                line = lines[key]
                node = node[key]
            except (KeyError, IndexError, TypeError):
                break
        return line

    def run_lab(self, file: str, timeout: float, key: str = "file") -> LabRun | None:
        """Run lab/<file> (or take its cached answers); its problems are reported at `key`'s line or the lab's."""
        before = len(self.problems)
        where = Problem(self.lesson.rel, self.line(key), "")
        run = self.labs.run(file, timeout, self.problems, where, block=self.block.type)
        self.failed = self.failed or len(self.problems) > before
        return run

    @property
    def where(self) -> str:
        """How messages name this block."""
        return f"the {{{self.block.type}}} block"


def text(value: Any) -> str:
    """A checked text value, or "" when absent."""
    return str(value) if value is not None else ""


def line_of(value: Any, fallback: int) -> int:
    """The line a checked text was written on."""
    return value.line if isinstance(value, Src) else fallback


def short(value: Any, width: int = 40) -> str:
    """The opening words of a text, for messages."""
    words = " ".join(str(value or "").split())
    return words if len(words) <= width else words[:width].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def check_ids(lesson: Lesson, problems: list[Problem]) -> None:
    """Every block needs a unique, URL-safe id: saved answers and element ids are keyed by it."""
    seen: dict[str, Block] = {}
    for block in lesson.blocks:
        if not block.data:
            continue  # its YAML did not load (reported)
        if "id" not in block.data or not str(block.data["id"]).strip():
            problems.append(Problem(lesson.rel, block.line, f'{{{block.type}}} block needs an id: add a first line '
                                    'like "id: my-block"'))
            continue
        line = block.data.lines["id"]
        if not ID.fullmatch(block.id):
            problems.append(Problem(lesson.rel, line, f'block id "{block.id}" must be lowercase letters, digits and '
                                    'single dashes, e.g. "quick-check"'))
        if block.id in seen:
            first = seen[block.id].data.lines["id"]
            problems.append(Problem(lesson.rel, line, f'duplicate block id "{block.id}" (first used at '
                                    f"{lesson.rel}:{first}) — give each block its own id"))
        else:
            seen[block.id] = block
