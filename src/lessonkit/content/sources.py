"""Read the author's files safely: UTF-8 text (a BOM is fine), regular files only, and inside their own folder."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from lessonkit.core.errors import Problem

BOM = b"\xef\xbb\xbf"


def read_text(path: Path, rel: str) -> tuple[str, None] | tuple[None, Problem]:
    """The file's text, or the problem that keeps it from being read (binary, not UTF-8, a link loop, a pipe…)."""
    kind = file_kind(path)
    if kind:
        return None, Problem(rel, 1, f"this file is {kind}, not a text file — replace it with a UTF-8 text file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, Problem(rel, 1, f"cannot read this file ({exc.strerror or exc}) — check its permissions")
    data = data.removeprefix(BOM)  # editors on Windows save UTF-8 with one; it is not part of the text
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return None, Problem(rel, line, f"this file is not UTF-8 text (byte 0x{data[exc.start]:02X} on this line; "
                             "Latin-1, UTF-16 or a binary file?) — save it as UTF-8")
    if "\0" in text:
        line = text.count("\n", 0, text.index("\0")) + 1
        return None, Problem(rel, line, "this file has a NUL character on this line (a binary file?) — save it as "
                             "UTF-8 text")
    return text, None


def file_kind(path: Path) -> str | None:
    """None for a regular file (through links); otherwise what it is, in words."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link that loops"
        return "a broken symbolic link" if path.is_symlink() else "missing"
    if stat.S_ISREG(mode):
        return None
    return "a folder" if stat.S_ISDIR(mode) else "a special file (a pipe, socket or device)"


def outside(path: Path, folder: Path) -> bool:
    """True when path, with every link followed, is not inside folder.

    A link loop is not outside anything: reading it reports what it is (file_kind).
    """
    try:
        return not path.resolve(strict=False).is_relative_to(folder.resolve(strict=False))
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop
        return False


def shown(path: Path, root: Path) -> str:
    """A path as authors see it: from the project's root when it is inside it (a link is named, not followed)."""
    try:
        return (path.parent.resolve() / path.name).relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
