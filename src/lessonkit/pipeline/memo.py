"""What a rebuild in the same process (`lessonkit serve`) reuses from the build before it, and what decides it.

A rebuild redoes only what its inputs changed, and once what it leaves for later is done (`finish`) its site is the
one a clean build writes, byte for byte (tests/test_rebuild.py proves it for each kind of edit):

- serve's watcher tells the memo which files changed (`note_changes`); when nothing but lesson markdown and the
  course config did, the bundles, the static folder's hash and the templates are the last build's (`begin`), and a
  lesson file is read only when the watcher named it or its stat differs from the one it was loaded with
  (`unchanged`); not told (None), every source is looked at, and a lesson file is parsed only when its bytes changed;
- a lesson's content (its blocks and prose: the slow part) is rendered again when its text, a file of templates/
  or of a block type's folder, what every content reads of lab/ (`lab_shape`: its files' names, labkit), or a
  lesson's image changed (`content_key`), or when a lab file it read (the runner notes them: `LabRunner.reads`)
  has another text now; kept across a new static folder URL (a stylesheet edit), its images' URLs are moved to it
  (`content`);
- its page (the content in the page's template, with the sidebar, prev/next and "Continue with the next lesson")
  when its content or anything of the course every page shows changed: a title, a summary, the order, the course
  config, the bundles' URLs (`page_key`);
- in the site, files whose bytes are unchanged are linked from the last site rather than written, the static folder
  whole when its hash is unchanged; the new site is swapped in whole, so open pages reload into pages that are all
  this build's;
- what is derived from the pages comes after they are published, on serve's thread for later (`finish`): the search
  index (Pagefind, which indexes the whole site at once and cannot update one page of it) when a page's text
  changed, the service worker's digests (only files it has not hashed before) and the host files; a newer edit
  stops it (`cancel`) and the next build defers its own.

Anything the memo does not know about (toolkit code edited under a running server) needs a restart, as before.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lessonkit.assets.search import IndexCancelledError
from lessonkit.core.files import stat_stamp
from lessonkit.labs.runner import UNREAD, lab_file_digest

if TYPE_CHECKING:
    from lessonkit.content.lesson import Lesson
    from lessonkit.core.errors import Problem
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


def lab_shape(lab: Path) -> str:
    """What every lesson's content reads of lab/ besides the lab files it names or imports: the name of every file
    (what a missing file's message lists, what an import finds) and the bytes of every file but the top-level
    Python files (labkit's own, a lab in a subfolder)."""
    h = hashlib.sha256()
    if lab.is_dir():
        for path in sorted(lab.rglob("*")):
            if "__pycache__" in path.parts or path.name.startswith(".") or not path.is_file():
                continue
            rel = path.relative_to(lab).as_posix()
            top = path.parent == lab and path.suffix == ".py"
            h.update(rel.encode() + b"\0" + (b"" if top else path.read_bytes()) + b"\0")
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
    settled: bool = True  # its search index, service worker and host files are those of its pages (else: finish())


@dataclass
class Memo:
    """Kept by `serve` from one build to the next; a build without one (the command line, CI) does everything."""

    lessons: dict[str, tuple[str, tuple[str, ...], Lesson | None, list[Problem]]] = field(default_factory=dict)
    # content_key -> (static URL, content, the lab files it read: name -> runner.lab_text_digest of their text)
    contents: dict[str, tuple[str, Content, dict[str, str]]] = field(default_factory=dict)
    pages: dict[str, tuple[Page, list[Problem]]] = field(default_factory=dict)  # page_key -> page and its problems
    written: Written | None = None
    env: tuple[str, Any] | None = None  # (the templates' and block types' digest, the environment made from them)
    lab: str = ""  # lab_shape of the last build's lab folder (what every content reads of it)
    lab_now: dict[str, str] = field(default_factory=dict)  # this build's lab files' digests, as looked up
    defer_search: bool = True  # publish the pages first, rebuild the search index after (`finish`)
    pending: Callable[[threading.Event | None], None] | None = None  # the search index to make, once the pages are out
    rendered: list[str] = field(default_factory=list)  # slugs whose content the last build rendered
    changed: set[Path] | None = None  # the files the watcher saw change before the next build (None: not known)
    hint: set[Path] | None = None  # what the watcher saw change before this build (None: not known)
    stats: dict[str, tuple[int, ...] | None] = field(default_factory=dict)  # lesson file -> its stat when loaded
    assets: Any = None  # the last build's bundles, stylesheet and static folder's hash (pipeline._Assets)
    markdown: Any = None  # the lessons' markdown converter, made once (each document resets it, as within a build)
    _compiled: str = ""  # the sources' digest whose templates are compiled in this process (`finish`)
    same_sources: bool = False  # this build's: no source but lesson markdown and the course config changed

    def note_changes(self, changed: set[Path] | None) -> None:
        """What the watcher saw change before the next build (`serve` tells it before each one); None: not known,
        every source is looked at."""
        if changed is None:
            self.changed = None
            return
        seen = {Path(os.path.abspath(p)) for p in changed}
        self.changed = seen if self.changed is None else self.changed | seen

    def begin(self, lessons: Path, root: Path | None = None) -> bool:
        """A build starts: it takes what the watcher saw (the next build knows nothing until told again). True when
        that was nothing but lesson markdown in `lessons` and the course config in the course folder `root`: then
        the templates, labs, static folder and bundles are those of the last build, and are not looked at again."""
        self.hint, self.changed = self.changed, None
        self.lab_now = {}
        folder = Path(os.path.abspath(lessons))
        config = Path(os.path.abspath(root if root is not None else lessons.parent)) / "course.yaml"
        same = self.hint is not None and all((p.parent == folder and p.suffix == ".md") or p == config
                                             for p in self.hint)
        if not same:
            self.assets = None  # made again by this build (kept only once it made them without a problem)
        self.same_sources = same
        return same

    def unchanged(self, file: Path, rel: str) -> bool:
        """Whether the lesson file is, by the watcher and by its stat, the one loaded last time as `rel` (a file the
        watcher names is read again even when its stat is the same: two saves in one tick of the clock)."""
        if self.hint is None or file.is_symlink():  # a link's target changes under another name
            return False
        if Path(os.path.abspath(file)) in self.hint:
            return False
        known = self.stats.get(rel)
        return known is not None and known == stat_stamp(file)

    def content(self, key: str, lesson: Lesson, static: str, lab: Path) -> Content | None:
        """The lesson's content as the last build rendered it, under this build's static folder URL (the only part
        of the site a content reads besides its key and the lab files it read: its images' URLs); None when it must
        be rendered again (a lab file it read has another text now, or was not read)."""
        known = self.contents.get(key)
        if known is None:
            return None
        was, content, reads = known
        for name, text in reads.items():
            if name not in self.lab_now:
                self.lab_now[name] = UNREAD if text == UNREAD else lab_file_digest(lab, name)
            if text == UNREAD or self.lab_now[name] != text:
                return None
        if was == static:
            return content
        if was in lesson.source:  # the lesson's own text names the old folder: only a render says what becomes of it
            return None
        return dataclasses.replace(content, body=content.body.replace(f"{was}/", f"{static}/"))

    def finish(self, cancel: threading.Event | None = None) -> None:
        """Bring the published site up to date with the last build (its search index and service worker); with
        `cancel` set meanwhile (a newer edit), stop and leave the site as it was (the next build defers its own)."""
        pending, self.pending = self.pending, None
        if pending is not None:
            try:
                pending(cancel)
            except IndexCancelledError:
                return
        self._compile_templates(cancel)

    def _compile_templates(self, cancel: threading.Event | None) -> None:
        """Every page and block template compiled in this process ahead of the next edit (a large course's first
        build renders in forked children, whose compiled templates this process never sees)."""
        if self.env is None or self.env[0] == self._compiled:
            return
        env = self.env[1]
        for name in env.list_templates(filter_func=lambda name: name.endswith(".html")):
            if cancel is not None and cancel.is_set():
                return
            try:
                env.get_template(name)
            except Exception:  # noqa: S112 (a template with an error: the build that uses it reports it)
                continue
        self._compiled = self.env[0]
