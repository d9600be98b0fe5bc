"""Pages as the server sends them (live-reload script included in dev mode) and their brotli copies.

A page's brotli copy is made once, by one background thread, never while a request waits: until it is ready the
page goes out uncompressed, which every client accepts. The server asks for every page to be prepared when it
starts and again when a rebuild is published, so a page is normally compressed before anyone asks for it.
"""

from __future__ import annotations

import hashlib
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import brotli

# Quality 11 is the smallest output and costs far more CPU per byte than lower qualities; a page past this size
# (a lab printing a great deal) gets quality 5 so it cannot keep a rebuild's other pages waiting for long.
BEST_QUALITY_UP_TO = 1024 * 1024
LARGE_PAGE_QUALITY = 5
MAX_PAGES = 1024  # a bound on memory if pages come and go over a long dev session


@dataclass
class Page:
    """One page as sent for one version of its file (and one dev epoch): body, ETag, brotli copy when made."""

    key: tuple[int, int, int, int | None]
    body: bytes
    etag: str
    etag_br: str = ""
    brotli: bytes | None = None  # set last, after etag_br: a reader that sees it sees both


class PageStore:
    """The current `Page` of each HTML file, compressed off the request path by one daemon thread."""

    def __init__(self, inject: Callable[[bytes, int], bytes]) -> None:
        self._inject = inject  # adds the live-reload script for a dev epoch
        self._pages: dict[Path, Page] = {}
        self._lock = threading.Lock()
        # ("load", file, epoch) prepares a page (warm-up); ("compress", file, None) compresses the stored one.
        self._jobs: queue.SimpleQueue[tuple[str, Path, int | None] | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._closed = False

    def get(self, file: Path, epoch: int | None) -> Page:
        """The page for `file` as it is on disk now; queues its compression if this version is new."""
        st = file.stat()
        key = (st.st_ino, st.st_mtime_ns, st.st_size, epoch)
        with self._lock:
            known = self._pages.get(file)
        if known is not None and known.key == key:
            return known
        # Read through one descriptor and key by what was read: a rebuild may swap the file meanwhile.
        with file.open("rb") as fh:
            st = os.fstat(fh.fileno())
            raw = fh.read()
        body = raw if epoch is None else self._inject(raw, epoch)
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        page = Page((st.st_ino, st.st_mtime_ns, st.st_size, epoch), body, etag)
        if epoch is None:
            _take_twin(page, file)
        with self._lock:
            known = self._pages.get(file)
            if known is not None and known.key == page.key:
                return known  # another request loaded the same version first
            if len(self._pages) >= MAX_PAGES:
                self._pages.clear()
            self._pages[file] = page
        self._submit(("compress", file, None))
        return page

    def warm(self, site: Path, epoch: int | None) -> None:
        """Prepare every page of `site` in the background (at start, and after each published rebuild)."""
        pages = {p.resolve() for p in site.glob("*.html")} if site.is_dir() else set()
        with self._lock:
            for gone in [f for f in self._pages if f.parent == site.resolve() and f not in pages]:
                del self._pages[gone]  # a lesson removed by the rebuild
        for file in sorted(pages):
            self._submit(("load", file, epoch))

    def close(self) -> None:
        """Stop the background thread (queued work is dropped)."""
        self._closed = True
        self._jobs.put(None)

    def _submit(self, job: tuple[str, Path, int | None]) -> None:
        if self._closed:
            return
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="lessonkit-pages", daemon=True)
                self._thread.start()
        self._jobs.put(job)

    def _work(self) -> None:
        """Run queued jobs one at a time until closed."""
        while (job := self._jobs.get()) is not None and not self._closed:
            kind, file, epoch = job
            try:
                if kind == "load":
                    self.get(file, epoch)  # queues its compression when this version is new
                else:
                    self._compress(file)
            except OSError:
                continue  # the file went away with a rebuild; the next request or warm-up sees the new site

    def _compress(self, file: Path) -> None:
        with self._lock:
            page = self._pages.get(file)
        if page is None or page.brotli is not None:
            return  # superseded or already done (several requests can queue the same page)
        quality = 11 if len(page.body) <= BEST_QUALITY_UP_TO else LARGE_PAGE_QUALITY
        packed = brotli.compress(page.body, quality=quality)
        page.etag_br = page.etag[:-1] + '-br"'
        page.brotli = packed


def _take_twin(page: Page, file: Path) -> None:
    """The build's brotli twin of the page (written beside it for hosts that send precompressed files), taken when it
    holds exactly the page: the page then goes out compressed from its first request."""
    twin = file.with_name(file.name + ".br")
    try:
        packed = twin.read_bytes()
        same = brotli.decompress(packed) == page.body
    except (OSError, brotli.error):
        return
    if same:
        page.etag_br = page.etag[:-1] + '-br"'
        page.brotli = packed
