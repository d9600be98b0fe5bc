"""What a set of Pyodide packages was verified from (lessonkit.runtime.packages): the stamps of each copy read and of
each copy the site links, kept for this process and, in a release's package cache, for later build processes.

A stamp is what a file's stat says of its bytes (pipeline.files.stat_stamp). While every stamp holds, the bytes are the
ones checked against the lock, and they are not read again; any change reads and checks everything again. Only sources
that are pinned carriers are recorded across processes: a folder of packages may gain a copy that would come first.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lessonkit.core.files import atomic_write, stat_stamp

if TYPE_CHECKING:
    from lessonkit.runtime.packages import Packages, Sources

# In a release's package cache: {"key+key...": {"specs": the sources, "stamps": what they were verified from}}.
VERIFIED_FILE = "verified.json"

# Packages verified in this process, by (project, release, lock keys): (the stamps they were verified from, them).
IN_PROCESS: dict[tuple[str, str, tuple[str, ...]], tuple[tuple[Any, ...], Packages]] = {}


def stamp(path: Path) -> tuple[Any, ...]:
    """The file's path and what its stat says of its bytes; OSError when it is gone."""
    found = stat_stamp(path)
    if found is None:
        raise FileNotFoundError(path)
    return (str(path), *found)


def linked_stamp(path: Path) -> tuple[Any, ...]:
    """The stamp of a verified copy the site links: its path, inode, size and mtime (each build's hard links to it
    change its ctime, never its bytes)."""
    return stamp(path)[:4]


def stamps(sources: Sources, lock: dict[str, Any], order: Sequence[str], cache: Path) -> tuple[Any, ...] | None:
    """The stamps of what verifying these packages reads (None when a file is gone: verify again)."""
    found: list[Any] = [sources.labels()]
    try:
        for key in order:
            file_name = lock["packages"][key]["file_name"]
            copies = sources.lookup(file_name)
            if not copies:
                return None
            found += [copies[0].where, copies[0].member, stamp(copies[0].path), linked_stamp(cache / file_name)]
    except OSError:
        return None
    return tuple(found)


def remembered(cache: Path, order: Sequence[str], sources: Sources) -> tuple[Any, ...] | None:
    """The stamps (as stamps() gives them) these packages were verified from by an earlier build process, when every
    one is unchanged; else None."""
    if not _carriers_only(sources):
        return None
    try:
        record = json.loads((cache / VERIFIED_FILE).read_text(encoding="utf-8"))["+".join(order)]
        specs, kept = record["specs"], record["stamps"]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if (specs != [spec for _, spec in sources.specs] or not isinstance(kept, list) or not kept
            or kept[0] != sources.labels() or (len(kept) - 1) % 4):
        return None  # another pin (each spec carries its carrier's sha256), or not a record of this shape
    now: list[Any] = [kept[0]]
    for n in range(1, len(kept), 4):
        where, member, *files = kept[n:n + 4]
        try:
            current = [stamp(Path(files[0][0])), linked_stamp(Path(files[1][0]))]
        except (OSError, TypeError, IndexError):
            return None
        if [list(each) for each in current] != files:
            return None
        now += [where, member, *current]
    return tuple(now)


def remember(cache: Path, order: Sequence[str], sources: Sources, verified: tuple[Any, ...] | None) -> None:
    """Keep the stamps these packages were just verified from, for the next build process."""
    if verified is None or not _carriers_only(sources):
        return
    path = cache / VERIFIED_FILE
    try:
        known = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    known = known if isinstance(known, dict) else {}
    known["+".join(order)] = {"specs": [spec for _, spec in sources.specs], "stamps": json.loads(json.dumps(verified))}
    atomic_write(path, json.dumps(known, sort_keys=True, indent=1).encode())


def _carriers_only(sources: Sources) -> bool:
    return all(spec.startswith("pypi:") for _, spec in sources.specs)
