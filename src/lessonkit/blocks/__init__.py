"""The block registry: each ```{type} block a lesson may use is one folder here, found by its name.

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
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from lessonkit.content.schema import Fields, Key, Src, Text
from lessonkit.core.errors import Problem
from lessonkit.text.figures import Figures

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
    lazy: bool = False  # imported after the first paint, as a bundle of its own (the lab), not in main.js
    # A block that keeps a learner's progress: the course manifest's fields for it beyond type, id and version
    # (a quiz's question count), from the data `build` returned; None, or a function returning None: it keeps none.
    progress: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
    # What an LMS records of a block that keeps progress, from the data `build` returned: its interactions, each
    # {"kind": "question" | "exercise" | "explanation", "label", "text" (HTML), and for a question "n" and "correct"
    # (its correct option's place, 1, 2, …)}; lessonkit.lms.report makes their ids and descriptions.
    interactions: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None
    # Where `lessonkit add` puts its example: a lesson meets the lower first (then by name).
    example_order: int = 100
    folder: Path = Path()  # the type's folder (set by the registry)
    own: bool = False  # one of the toolkit's own types (its page module is in the prebuilt bundle), not a course's

    @property
    def page_module(self) -> Path:
        """Its page module, `<type>.js` in its folder."""
        return self.folder / f"{self.name}.js"

    @property
    def template_name(self) -> str:
        """Its template's name for the templates' loader (page.lesson.environment): `<type>/<type>.html`."""
        return f"{self.name}/{self.name}.html"

    @property
    def stylesheet(self) -> Path:
        """Its styles, `<type>.css` in its folder (optional)."""
        return self.folder / f"{self.name}.css"

    @property
    def progress_module(self) -> Path:
        """What the course index says of its progress, `progress.js` in its folder (a type that keeps some)."""
        return self.folder / "progress.js"

    @property
    def example(self) -> Path:
        """Its example for `lessonkit add`, `example.md.j2` in its folder."""
        return self.folder / "example.md.j2"


HERE = Path(__file__).resolve().parent


def types(extra: Iterable[Path] = ()) -> dict[str, BlockType]:
    """Every block type, by name: the toolkit's folders here, and those in the `extra` folders (a test's own)."""
    return _types(tuple(Path(folder).resolve() for folder in extra))


@cache
def _types(extra: tuple[Path, ...]) -> dict[str, BlockType]:
    found: dict[str, BlockType] = {}
    for parent in (HERE, *extra):
        for folder in sorted(p for p in parent.iterdir() if (p / "__init__.py").is_file() and not p.name.startswith("_")):
            if folder.name in found:
                raise RuntimeError(f"{folder}: the block type {folder.name!r} is defined in {found[folder.name].folder} "
                                   "already — give the new one another name")
            found[folder.name] = _load(folder, parent == HERE)
    return dict(sorted(found.items()))


@cache
def _load(folder: Path, own: bool) -> BlockType:
    """The BlockType a block folder's `__init__.py` defines, checked and told its folder."""
    where = f"lessonkit/blocks/{folder.name}/__init__.py" if own else str(folder / "__init__.py")
    if own:
        module = importlib.import_module(f"{__name__}.{folder.name}")
    else:  # a folder outside the toolkit: imported under a name of its own, so nothing of ours is shadowed
        name = f"lessonkit_block_{folder.name}"
        spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    block: BlockType = module.BLOCK
    if block.name != folder.name:
        raise RuntimeError(f"{where} defines the block type {block.name!r}: name it {folder.name!r} or rename the "
                           "folder")
    if "id" in block.schema.keys:
        raise RuntimeError(f"{where}: every block has an id; leave it out of the schema")
    block.schema.keys["id"] = ID_KEY
    return dataclasses.replace(block, folder=folder, own=own)


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
