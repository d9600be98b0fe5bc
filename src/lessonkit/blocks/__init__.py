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

A course adds its own types as folders of the same shape in its blocks/ (their page and progress modules published
as they are, not bundled; lessonkit.assets.scripts). The course's Python is the author's: a folder that makes no block
type (its Python raises or does not parse, it defines no BLOCK or another type's, it has no template, it takes a
toolkit type's name) is a problem at its path:line, and what its build(ctx) raises is one at the block's line.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import re
import sys
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from lessonkit.content.schema import Fields, Key, Src, Text
from lessonkit.core.errors import BuildError, Problem
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


def types(extra: Iterable[Path] = (), shown_from: Path | None = None) -> dict[str, BlockType]:
    """Every block type, by name: the toolkit's folders here, and those in the `extra` folders (a course's blocks/,
    a test's own). A course's folder that does not make a block type raises BuildError: each mistake at its
    `path:line` (shown from `shown_from`, the course folder), never a traceback. An edit to a course's block Python
    is seen by the next call (its files' stamps key the cache)."""
    folders = tuple(Path(folder).resolve() for folder in extra)
    found, problems = _types(folders, _stamp(folders))
    if problems:
        raise BuildError([Problem(_shown(Path(p.path), shown_from), p.line, p.message) for p in problems])
    return found


def _stamp(folders: tuple[Path, ...]) -> tuple[tuple[str, int, int], ...]:
    """What an edit of a course's block types changes: each Python file's path, size and modification time."""
    stamps = []
    for parent in folders:
        for path in sorted(parent.rglob("*.py")) if parent.is_dir() else ():
            try:
                stat = path.stat()
            except OSError:
                continue
            stamps.append((str(path), stat.st_size, stat.st_mtime_ns))
    return tuple(stamps)


@lru_cache(maxsize=8)  # a few courses' folders, each as its files stand (serve reads an edited one again)
def _types(extra: tuple[Path, ...], _stamps: tuple[tuple[str, int, int], ...]) -> tuple[dict[str, BlockType],
                                                                                        tuple[Problem, ...]]:
    found = {folder.name: _own(folder) for folder in _folders(HERE)}
    problems: list[Problem] = []
    for parent in extra:
        for folder in _folders(parent, problems):
            init = folder / "__init__.py"
            if not ID.fullmatch(folder.name):
                problems.append(Problem(str(init), 1, f'the block folder "{folder.name}/" is not a block type\'s name '
                                        "(lessons write it as ```{name}) — rename it with lowercase letters, digits and "
                                        f"single dashes, e.g. {_slug(folder.name)}/"))
                continue
            if folder.name in found:
                first = found[folder.name]
                why = ("is one of lessonkit's own block types" if first.own
                       else f"is defined in {first.folder} already")
                problems.append(Problem(str(init), 1, f'the block type "{folder.name}" {why} — give this folder another '
                                        "name" + (f" (to change how {{{folder.name}}} blocks look, override "
                                                  f"{folder.name}/{folder.name}.html in the course's templates/)"
                                                  if first.own else "")))
                continue
            block = _course_type(folder, problems)
            if block is not None:
                found[folder.name] = block
    return dict(sorted(found.items())), tuple(problems)


def _folders(parent: Path, problems: list[Problem] | None = None) -> list[Path]:
    """The block type folders in `parent` (hidden, `_` and `__pycache__` folders are not types); a course's folder
    without its `__init__.py` is a problem."""
    folders = []
    for folder in sorted(p for p in parent.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))):
        if (folder / "__init__.py").is_file():
            folders.append(folder)
        elif problems is not None:
            problems.append(Problem(str(folder / "__init__.py"), 1, f"the block folder {folder.name}/ has no "
                                    f"__init__.py — write one that defines BLOCK = BlockType(\"{folder.name}\", …) "
                                    "(lessonkit.blocks.BlockType), or move the folder out of blocks/"))
    return folders


@cache
def _own(folder: Path) -> BlockType:
    """One of the toolkit's own types (imported once): a mistake in it is lessonkit's bug, raised as such."""
    module = importlib.import_module(f"{__name__}.{folder.name}")
    block = module.BLOCK
    where = f"lessonkit/blocks/{folder.name}/__init__.py"
    if block.name != folder.name:
        raise RuntimeError(f"{where} defines the block type {block.name!r}: name it {folder.name!r} or rename the "
                           "folder")
    if "id" in block.schema.keys:
        raise RuntimeError(f"{where}: every block has an id; leave it out of the schema")
    block.schema.keys["id"] = ID_KEY
    return dataclasses.replace(block, folder=folder, own=True)


def _course_type(folder: Path, problems: list[Problem]) -> BlockType | None:
    """The BlockType a course's block folder defines, checked and told its folder; None after reporting why not.

    The folder is imported as a package of its own name (`lessonkit_course_block_<type>`, fresh each time, its
    modules with it), so nothing of the toolkit's or another folder's is shadowed and an edit is read again."""
    init = folder / "__init__.py"
    name = "lessonkit_course_block_" + re.sub(r"\W", "_", folder.name)
    for loaded in [m for m in sys.modules if m == name or m.startswith(f"{name}.")]:
        del sys.modules[loaded]
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(folder)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        del sys.modules[name]
        where = Path(exc.filename).resolve() if exc.filename else init
        problems.append(Problem(str(where), exc.lineno or 1, f"the block type's Python does not parse: {exc.msg} — "
                                "fix this line"))
        return None
    except BaseException as exc:  # whatever the author's module raises (SystemExit too) is the author's mistake
        del sys.modules[name]
        if isinstance(exc, KeyboardInterrupt):
            raise
        path, line = _raised_at(exc, folder, init)
        problems.append(Problem(str(path), line, f'importing the block type "{folder.name}" raised '
                                f"{type(exc).__name__}: {exc} — fix its Python here"))
        return None
    block = getattr(module, "BLOCK", None)
    assigned = _assignment_line(init)
    example = (f'BLOCK = BlockType("{folder.name}", "what it is", SCHEMA, build) (lessonkit.blocks.BlockType; '
               "lessonkit's own block types are examples)")
    if block is None:
        problems.append(Problem(str(init), assigned or 1, f"the block folder {folder.name}/ defines no BLOCK — "
                                f"end its __init__.py with {example}"))
        return None
    if not isinstance(block, BlockType):
        problems.append(Problem(str(init), assigned or 1, f"BLOCK is {type(block).__name__} {short(repr(block))}, "
                                f"not a block type — write {example}"))
        return None
    if block.name != folder.name:
        problems.append(Problem(str(init), assigned or 1, f'BLOCK is the block type "{block.name}", in the folder '
                                f'{folder.name}/ — name it "{folder.name}" (lessons write ```{{{folder.name}}}), or '
                                f"rename the folder to {block.name}/"))
        return None
    if not isinstance(block.schema, Fields):
        problems.append(Problem(str(init), assigned or 1, f"the block type's schema is {type(block.schema).__name__}, "
                                "not Fields({...}) (lessonkit.content.schema) — give it the keys its blocks may have"))
        return None
    if "id" in block.schema.keys and block.schema.keys["id"] is not ID_KEY:
        problems.append(Problem(str(init), assigned or 1, 'the block type\'s schema has "id:", which every block has '
                                'already (lessonkit adds it) — leave "id" out of its keys'))
        return None
    template = folder / f"{folder.name}.html"
    if not template.is_file():
        problems.append(Problem(str(template), 1, f'the block type "{folder.name}" has no template: write '
                                f"{folder.name}.html in its folder (lessonkit's own block types' are examples)"))
        return None
    block.schema.keys["id"] = ID_KEY
    return _guarded(dataclasses.replace(block, folder=folder, own=False))


def _guarded(block: BlockType) -> BlockType:
    """A course's block type whose functions report what they raise as the author's problem at the block's line,
    naming the file and line of the course's Python that raised it (its island, progress and interactions are tried
    on what its build returns, where the block is known)."""
    folder = block.folder

    def report(ctx: Context, step: str, exc: Exception) -> None:
        path, line = _raised_at(exc, folder, folder / "__init__.py")
        ctx.error(f"{ctx.where}'s {step} raised {type(exc).__name__}: {exc} (at {folder.name}/"
                  f"{path.relative_to(folder).as_posix()}:{line}) — fix the block type's Python there")

    def build(ctx: Context) -> dict[str, Any] | None:
        step = "build(ctx)"
        try:
            data = block.build(ctx)
            if data is not None and not ctx.failed:
                for step, fn in (("island(data)", block.island), ("progress(data)", block.progress),  # noqa: B007
                                 ("interactions(data)", block.interactions)):
                    if fn is not None:
                        fn(data)
            return data
        except Exception as exc:  # the author's code
            report(ctx, step, exc)
            return None

    def compute(ctx: Context) -> Any:
        assert block.compute is not None
        try:
            return block.compute(ctx)
        except Exception as exc:  # the author's code
            report(ctx, "compute(ctx)", exc)
            return None

    return dataclasses.replace(block, build=build, compute=compute if block.compute is not None else None)


def _raised_at(exc: BaseException, folder: Path, fallback: Path) -> tuple[Path, int]:
    """The file and line in the course's block folder where `exc` was raised (its innermost frame there)."""
    found = (fallback, 1)
    for frame, line in traceback.walk_tb(exc.__traceback__):
        path = Path(frame.f_code.co_filename)
        if path.is_relative_to(folder):
            found = (path, line)
    return found


def _assignment_line(init: Path) -> int | None:
    """The line of `BLOCK = ...` in a block folder's __init__.py (where a problem with BLOCK is reported)."""
    try:
        tree = ast.parse(init.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None
    lines = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assign | ast.AnnAssign)
             and any(isinstance(t, ast.Name) and t.id == "BLOCK"
                     for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))]
    return lines[-1] if lines else None


def _slug(name: str) -> str:
    """A block type's name made from a folder's ("My_Block" → "my-block")."""
    return "-".join(re.findall(r"[a-z0-9]+", name.lower())) or "my-block"


def _shown(path: Path, root: Path | None) -> str:
    """A path as the author reads it: from the course folder when it is inside it."""
    if root is not None:
        try:
            return path.relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return path.as_posix()


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
