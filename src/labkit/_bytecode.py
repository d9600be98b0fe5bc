"""The compiled bytecode of a page's packages, kept from one visit to the next (the lab's worker calls these).

A package's Python files (NumPy's: some 80 modules, 3.6 MB of source) are compiled on every import: Pyodide writes
no bytecode, and its files are unpacked anew by every Python. The page's first Python imports its packages once with
bytecode writing on (`writing`), then `collect` gathers what that import wrote, each file made a checked-hash .pyc
(its header names the hash of the source it was compiled from, not a date: the files unpacked again have new dates).
The page keeps the bundle with its memory snapshot, taken by the same boot before any learner code ran, and its later
Pythons `install` it before they import: Python reads a .pyc only when its source hashes to what the .pyc names, so a
bundle made from other sources (a package of another version) only costs compiling again.
"""

from __future__ import annotations

import importlib.util
import io
import os
import sys
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager

CHECKED_HASH = (3).to_bytes(4, "little")  # PEP 552 flags: hash-based, checked against the source on import
TIMESTAMP = (0).to_bytes(4, "little")
HEADER = 16  # magic, flags, then the source's date and size or its hash


@contextmanager
def writing() -> Iterator[None]:
    """Python writes the bytecode of what it imports meanwhile (into __pycache__ beside each source)."""
    before = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        yield
    finally:
        sys.dont_write_bytecode = before


def collect(root: str) -> bytes:
    """A zip (stored) of the checked-hash .pyc of every imported module under `root` whose import wrote its bytecode,
    by path relative to `root`; b"" when there is none."""
    entries: dict[str, bytes] = {}
    prefix = root.rstrip("/") + "/"
    for module in list(sys.modules.values()):
        source = getattr(module, "__file__", None)
        if not isinstance(source, str) or not source.endswith(".py") or not source.startswith(prefix):
            continue
        cached = importlib.util.cache_from_source(source)
        try:
            with open(cached, "rb") as f:
                data = f.read()
            with open(source, "rb") as f:
                text = f.read()
        except OSError:
            continue  # no bytecode was written for it
        if len(data) < HEADER or data[4:8] != TIMESTAMP:
            continue
        entries[os.path.relpath(cached, root)] = data[:4] + CHECKED_HASH + importlib.util.source_hash(text) + data[HEADER:]
    if not entries:
        return b""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as bundle:
        for name in sorted(entries):
            bundle.writestr(name, entries[name])
    return out.getvalue()


def install(bundle: bytes, root: str) -> int:
    """Write a bundle `collect` made under `root`; returns how many files. Raises ValueError for anything but .pyc
    files in __pycache__ folders (nothing is written then)."""
    with zipfile.ZipFile(io.BytesIO(bytes(bundle))) as archive:
        names = archive.namelist()
        for name in names:
            parts = name.split("/")
            if not name.endswith(".pyc") or len(parts) < 2 or parts[-2] != "__pycache__" or ".." in parts:
                raise ValueError(f"not a bytecode file of the bundle: {name!r}")
        archive.extractall(root)
    return len(names)


def adopt_collecting(runner: object, names: str, root: str) -> bytes:
    """runner.adopt(names) (the page's packages imported into the clean state) with bytecode writing on, then
    collect(root): what the page's first Python does."""
    with writing():
        runner.adopt(names)  # type: ignore[attr-defined]
    return collect(root)
