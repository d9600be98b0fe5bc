"""The block registry: the toolkit's block types, one folder each here, and a course's own in its blocks/, found by
their names; a course folder that makes no block type is a problem at its path:line, never a traceback."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import re
import sys
import traceback
from collections.abc import Iterable
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lessonkit.blocks.kind import ID, ID_KEY, BlockType, short
from lessonkit.content.schema import Fields
from lessonkit.core.errors import BuildError, Problem

if TYPE_CHECKING:
    from lessonkit.blocks import Context

HERE = Path(__file__).resolve().parent  # the toolkit's block types' folders


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
    module = importlib.import_module(f"lessonkit.blocks.{folder.name}")
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




