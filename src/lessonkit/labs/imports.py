"""The lab modules some code imports (`import x` of a lab/x.py), read from its import statements: what a lab's answers
depend on (lessonkit.labs.runner keys them by these files' text) and what an exercise's checks take to the page."""

from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import NamedTuple

from lessonkit.content.sources import outside


class LocalImports(NamedTuple):
    """The lab modules some code imports: `found`, (module name, code) of each, directly or through another; and
    `outside`, (importing module's name, "" for the code itself; the import's line; module name) of each import of
    a module in lab/ that is a link to a file outside it, never read."""

    found: list[tuple[str, str]]
    outside: list[tuple[str, int, str]]


def local_imports(code: str, lab_dir: Path) -> LocalImports:
    """The lab modules this code imports, directly or through another (LocalImports).

    Read from the import statements (anywhere in the file); labkit is keyed separately, by its wheel. A module whose
    file is a link out of lab/ is not read, as `file:` naming one is not (LabRunner._read).
    """
    found: dict[str, str] = {}
    links: set[tuple[str, int, str]] = set()
    todo = [("", code)]
    while todo:
        importer, text = todo.pop()
        for top, line in imported_names(text):
            path = lab_dir / f"{top}.py"
            if top in found or top == "labkit" or not path.is_file():
                continue
            if outside(path, lab_dir):
                links.add((importer, line, top))
                continue
            found[top] = path.read_text(encoding="utf-8", errors="replace")
            todo.append((top, found[top]))
    return LocalImports(sorted(found.items()), sorted(links))


@functools.lru_cache(maxsize=1024)
def imported_names(code: str) -> tuple[tuple[str, int], ...]:
    """The top-level module names this code's import statements name (anywhere in it), each with the line of its first
    import, in order; () when it does not parse (running it reports the error). Parsing is most of a lab's cost to
    the build: each text is parsed once per process, however many blocks and lessons use it."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return ()
    names: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                names[top] = min(names.get(top, node.lineno), node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            top = node.module.split(".")[0]
            names[top] = min(names.get(top, node.lineno), node.lineno)
    return tuple(sorted(names.items(), key=lambda item: item[1]))
