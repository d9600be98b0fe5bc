"""The block types: each ```{type} block a lesson may use is one folder here, found by its name (registry; what a type
is: kind), and what building one block has at hand (Context).

A block type's folder `<type>/` holds everything about it: `__init__.py` defines `BLOCK = BlockType(...)` (its schema
(lessonkit.content.schema), `build(ctx)` (checks beyond the schema, lab calls, and the template's data),
`island(data)` (the JSON its page module receives), and optionally `compute(ctx)` (values other blocks' text may cite
as figures, computed before any block is built), `progress(data)` (what the course manifest lists of a block that
keeps a learner's progress) and `interactions(data)` (what an LMS records of it: lessonkit.lms.report));
`<type>.html`, its template; `<type>.js`, its page module (`init(element, island, page)`, and any module only it
uses); `<type>.css`, its styles (bundled into the one stylesheet); `example.md.j2`, its example for `lessonkit add`;
and `progress.js` when it keeps progress (its entries and their words on the course index). The build finds each of
them by these names: the registry here, the templates' loader, the bundler (which generates the page's list of block
modules), the stylesheet and the scaffold. Adding a type is adding its folder.

A course adds its own types as folders of the same shape in its blocks/ (their page and progress modules published
as they are, not bundled; lessonkit.assets.scripts). The course's Python is the author's: a folder that makes no block
type (its Python raises or does not parse, it defines no BLOCK or another type's, it has no template, it takes a
toolkit type's name) is a problem at its path:line, and what its build(ctx) raises is one at the block's line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from lessonkit.blocks.kind import ID, ID_KEY, BlockType, short
from lessonkit.blocks.registry import HERE, types
from lessonkit.content.schema import Src
from lessonkit.core.errors import Problem
from lessonkit.text.figures import Figures

__all__ = ["HERE", "ID", "ID_KEY", "BlockType", "Context", "Inline", "check_ids", "line_of", "short", "text", "types"]

if TYPE_CHECKING:
    from lessonkit.content.lesson import Block, Lesson
    from lessonkit.labs.runner import LabRun, LabRunner

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
