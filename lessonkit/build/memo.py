"""What a rebuild in the same process (`build.py serve`) reuses from the build before it, and what decides it.

A rebuild redoes only what its inputs changed, and its site is the one a clean build writes, byte for byte
(tests/test_rebuild.py proves it for each kind of edit):

- a lesson file is loaded again only when its text changed;
- a lesson's content (its blocks and prose: the slow part) is rendered again when its text, a file of lab/, of
  templates/ or of a block type's folder, or the static folder's URL changed (`content_key`);
- its page (the content in the page's template, with the sidebar, prev/next and "Continue with the next lesson")
  when its content or anything of the course every page shows changed: a title, a summary, the order, the course
  config, the bundles' URLs (`page_key`);
- in the site, files whose bytes are unchanged are linked from the last site rather than written, the static folder
  and the search index whole when their inputs are unchanged, and the service worker hashes only the files it has
  not hashed before;
- the search index (Pagefind, which indexes the whole site at once and cannot update one page of it) is rebuilt
  after the pages are published when a page's text changed: open pages reload first, search follows (`finish`).

Anything the memo does not know about (toolkit code edited under a running server) needs a restart, as before.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lessonkit.assets.search import IndexCancelledError

if TYPE_CHECKING:
    from lessonkit.content.errors import Problem
    from lessonkit.content.lesson import Lesson
    from lessonkit.page.lesson import Content, Page


def digest(*parts: str | bytes) -> str:
    """sha256 of the parts, each kept apart from the next."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else part.encode("utf-8", "surrogatepass"))
        h.update(b"\0\1\0")
    return h.hexdigest()


def folder_digest(folders: Iterable[Path]) -> str:
    """The names and bytes of every file under these folders (caches and editors' files left out)."""
    h = hashlib.sha256()
    for folder in folders:
        h.update(f"\0folder {folder}\0".encode())
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if "__pycache__" in path.parts or path.name.startswith(".") or not path.is_file():
                continue
            h.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def site_digest(site: dict[str, Any], leave_out: Iterable[str] = ()) -> str:
    """What every page reads of the site's data (the functions and block types are covered by the sources' digest)."""
    skipped = {"runtime_for", "blocks", *leave_out}
    return digest(json.dumps({k: v for k, v in site.items() if k not in skipped}, sort_keys=True, default=str))


@dataclass
class Written:
    """The last site this process wrote: where, and what is in it."""

    out: Path
    files: dict[str, str]  # page file name -> its text
    static_hash: str
    search: dict[str, str]  # the pages (file name -> text) the search index in it was made from
    digests: dict[str, str] = field(default_factory=dict)  # site-relative path -> sha256, as the service worker lists


@dataclass
class Memo:
    """Kept by `serve` from one build to the next; a build without one (the command line, CI) does everything."""

    lessons: dict[str, tuple[str, tuple[str, ...], Lesson | None, list[Problem]]] = field(default_factory=dict)
    contents: dict[str, Content] = field(default_factory=dict)  # content_key -> the lesson's content
    pages: dict[str, tuple[Page, list[Problem]]] = field(default_factory=dict)  # page_key -> page and its problems
    written: Written | None = None
    env: tuple[str, Any] | None = None  # (the sources' digest, the template environment made from them)
    defer_search: bool = True  # publish the pages first, rebuild the search index after (`finish`)
    pending: Callable[[threading.Event | None], None] | None = None  # the search index to make, once the pages are out
    rendered: list[str] = field(default_factory=list)  # slugs whose content the last build rendered

    def finish(self, cancel: threading.Event | None = None) -> None:
        """Bring the published site up to date with the last build (its search index and service worker); with
        `cancel` set meanwhile (a newer edit), stop and leave the site as it was (the next build defers its own)."""
        pending, self.pending = self.pending, None
        if pending is None:
            return
        try:
            pending(cancel)
        except IndexCancelledError:
            pass
