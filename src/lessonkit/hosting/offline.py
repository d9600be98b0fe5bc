"""Offline after the first visit: write `site/sw.js`, a service worker that precaches the course's pages and assets
(its shell), then, for the lesson a visit opens, that lesson's runtime and wheels (LESSONS); the rest of the runtime
when the learner asks ("Save the course for offline use" on the index). A first visit then downloads what its own
lesson needs: a lesson without NumPy never fetches NumPy."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from lessonkit import __version__
from lessonkit.assets.scripts import DEV_ONLY
from lessonkit.content.media import MEDIA
from lessonkit.core.files import atomic_write
from lessonkit.core.places import STATIC
from lessonkit.hosting.headers import CONTENT_TYPES, security_headers
from lessonkit.runtime.config import OFFLINE_COPY

SW_NAME = "sw.js"
CACHE_PREFIX = "lessonkit-"
# Digests of big site files (the runtime, hard-linked from the build's caches) are remembered by inode between builds,
# in the course's build state folder.
DIGEST_CACHE = "site-digests.json"
REMEMBER_FROM = 1 << 20  # bytes: smaller files are new every build and quicker to hash than to look up
SETTLED_NS = 2_000_000_000  # remembered only once its mtime is this old (mtimes are coarser than writes)
# Lesson images (static/<hash>/media/) the install downloads up front: each at most PRECACHE_IMAGE_BYTES, and at most
# PRECACHE_IMAGES_BYTES of them in all (in the order of their paths). A larger image, or one past that total, is
# cached, checked like the rest, the first time a page shows it: every visitor's install would download it otherwise.
PRECACHE_IMAGE_BYTES = 1_000_000
PRECACHE_IMAGES_BYTES = 8_000_000
_URL_SAFE = "/+-._~@"
_HASHED_STATIC = re.compile(r"^[0-9a-f]{8,64}$")

# The worker's code: a real script, written into site/sw.js after this build's data (render_service_worker).
SW_SOURCE = STATIC / "js" / "sw" / "sw.js"
# The data the build writes before it, one `const` each (the names sw.js reads: see its top).
SW_DATA = ("CACHE", "PRECACHE", "LESSONS", "DIGESTS", "TYPES", "KEPT_HEADERS", "OFFLINE_COPY")
SW_PROLOGUE = ('"use strict";\n// Written by the build (lessonkit.hosting.offline): this build\'s data, then the service '
               "worker's code (static/js/sw/sw.js).\n// Do not edit: rebuild instead.\n")


def precache_urls(site: Path, wheels: Iterable[str]) -> list[str]:
    """Site-relative URLs to precache: every page, the search index, static/<hash>/ (minus dev files), runtime files,
    and `wheels` (site-relative: those the build's pages install, from their runtime config)."""
    urls: list[str] = []
    pages = sorted(p for p in site.glob("*.html") if p.is_file())
    urls += [p.name for p in pages]
    search = site / "pagefind"  # lessonkit.assets.search: the index and Pagefind's JavaScript and wasm
    if search.is_dir():
        urls += [_rel(f, site) for f in sorted(search.rglob("*")) if f.is_file() and f.suffix != ".br"]
    static = site / "static"
    if static.is_dir():
        later = set(_images_on_first_use(site))
        for folder in sorted(d for d in static.iterdir() if d.is_dir() and _HASHED_STATIC.match(d.name)):
            urls += [rel for f in sorted(folder.rglob("*"))
                     if f.is_file() and f.name not in DEV_ONLY and f.suffix != ".br"  # a copy made some other way
                     and (rel := _rel(f, site)) not in later]
    runtime = site / "runtime"
    if runtime.is_dir():
        for folder in sorted(runtime.glob("pyodide-*")):
            # The server picks a file's .br sibling by Accept-Encoding; the cache keys the plain URL.
            urls += [_rel(f, site) for f in sorted(folder.iterdir()) if f.is_file() and f.suffix != ".br"]
    # A wheel named by a page but missing from the site would make every install fail: leave it to the network.
    listed = set(urls)
    urls += sorted(w for w in set(wheels) if (site / w).is_file() and w not in listed)
    return [quote(u, safe=_URL_SAFE) for u in urls]


def shell_urls(urls: list[str]) -> list[str]:
    """What the worker installs up front, of precache_urls: everything but the runtime (its pages, search index and
    static files)."""
    return [u for u in urls if not u.startswith("runtime/")]


def lesson_urls(site: Path, lessons: dict[str, list[str]]) -> dict[str, list[str]]:
    """For each page (its file name) the runtime files it boots with: its release folder's own files (no package
    wheel of another lesson's) and the wheels it installs (`lessons`: each page's, site-relative; see
    lessonkit.page.lesson._wheels), the files the worker caches when that page registers it."""
    found: dict[str, list[str]] = {}
    for page, wheels in sorted(lessons.items()):
        folders = {"/".join(w.split("/")[:2]) for w in wheels if w.startswith("runtime/pyodide-")}
        urls = [_rel(f, site) for folder in sorted(folders) if (site / folder).is_dir()  # its packages: in `wheels`
                for f in sorted((site / folder).iterdir()) if f.is_file() and f.suffix not in (".br", ".whl")]
        urls += [w for w in wheels if (site / w).is_file() and w not in urls]
        if urls:
            found[page] = [quote(u, safe=_URL_SAFE) for u in urls]
    return found


def _images_on_first_use(site: Path) -> list[str]:
    """Lesson images (site-relative) left out of the precache: larger than PRECACHE_IMAGE_BYTES, or past
    PRECACHE_IMAGES_BYTES of precached ones."""
    later, total = [], 0
    for file in sorted((site / "static").glob(f"*/{MEDIA}/**/*")):
        if not file.is_file() or file.suffix == ".br" or not _HASHED_STATIC.match(file.relative_to(site).parts[1]):
            continue
        size = file.stat().st_size
        if size > PRECACHE_IMAGE_BYTES or total + size > PRECACHE_IMAGES_BYTES:
            later.append(_rel(file, site))
        else:
            total += size
    return later


def served_urls(site: Path, precached: list[str]) -> list[str]:
    """What the worker may serve from its cache: the precached URLs, then the images and every other runtime file
    it caches on first use."""
    runtime = site / "runtime"
    later = [quote(rel, safe=_URL_SAFE) for rel in _images_on_first_use(site)] if (site / "static").is_dir() else []
    later += [quote(_rel(f, site), safe=_URL_SAFE) for f in sorted(runtime.rglob("*"))
              if f.is_file() and f.suffix != ".br"] if runtime.is_dir() else []
    known = set(precached)
    return precached + [u for u in later if u not in known]


def file_digests(site: Path, state: Path | None, urls: list[str], known: dict[str, str] | None = None) -> dict[str, str]:
    """sha256 (hex) of each site-relative URL's file, as the worker checks them; `known`: digests by site-relative
    path of files the caller knows (linked unchanged from a site it hashed before), not read again."""
    digests = _Digests(state)
    known = known or {}
    found = {}
    for url in urls:
        rel = unquote(url)
        found[url] = known[rel] if rel in known else digests.sha256(site / rel)
    digests.save()
    return found


class _Digests:
    """sha256 of files; a big one seen by an earlier build (same inode, size and mtime) is not read again."""

    def __init__(self, state: Path | None) -> None:
        """Load what earlier builds remembered in the course's build state folder `state` (None: remember nothing)."""
        self.path = state / DIGEST_CACHE if state is not None else None
        try:
            self.known: dict[str, list[Any]] = json.loads(self.path.read_text(encoding="utf-8")) if self.path else {}
        except (OSError, ValueError):
            self.known = {}
        self.seen: dict[str, list[Any]] = {}

    def sha256(self, path: Path) -> str:
        """The file's sha256 in hex."""
        st = path.stat()
        if st.st_size < REMEMBER_FROM:
            return hashlib.sha256(path.read_bytes()).hexdigest()
        key, stamp = f"{st.st_dev}:{st.st_ino}", [st.st_size, st.st_mtime_ns]
        entry = self.known.get(key)
        if entry and entry[:2] == stamp:
            digest = str(entry[2])
        else:
            h = hashlib.sha256()
            with path.open("rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
            digest = h.hexdigest()
        if time.time_ns() - st.st_mtime_ns > SETTLED_NS:  # a file written just now may change again in the same tick
            self.seen[key] = [*stamp, digest]
        return digest

    def save(self) -> None:
        """Remember this build's big files (only where there is a build state folder)."""
        if self.path is not None and self.seen != self.known and self.path.parent.is_dir():
            atomic_write(self.path, json.dumps(self.seen, indent=0, sort_keys=True).encode())


def cache_name(precached: list[str], digests: dict[str, str], script: str) -> str:
    """`lessonkit-<12 hex>` from lessonkit's version, the worker's code and every file the worker serves."""
    h = hashlib.sha256(f"lessonkit {__version__}".encode())
    h.update(b"\0" + script.encode())
    h.update(b"\0" + json.dumps([precached, sorted(digests.items())]).encode())
    return CACHE_PREFIX + h.hexdigest()[:12]


def render_service_worker(site: Path, state: Path | None, wheels: Iterable[str],
                          known: dict[str, str] | None = None, lessons: dict[str, list[str]] | None = None) -> str:
    """The text of sw.js for the site in `site`: this build's data, then the worker's code, static/js/sw/sw.js as it
    is (`state`: the course's build state folder, see file_digests; `wheels`: those the pages install, see
    precache_urls; `known`: see file_digests; `lessons`: each page's wheels, see lesson_urls)."""
    return _service_worker(site, state, wheels, known, lessons)[0]


def _service_worker(site: Path, state: Path | None, wheels: Iterable[str], known: dict[str, str] | None,
                    lessons: dict[str, list[str]] | None = None) -> tuple[str, dict[str, str]]:
    """sw.js's text, and the digests it lists by site-relative path."""
    script = SW_SOURCE.read_text(encoding="utf-8")
    urls = precache_urls(site, wheels)
    digests = file_digests(site, state, served_urls(site, urls), known)
    shell = shell_urls(urls)
    by_page = lesson_urls(site, lessons or {})
    # A runtime file the course needs but no page's list names (a page given no lessons: a test's own worker) is
    # kept with the first page, so "Save the course" still saves all of it.
    listed = {u for page in by_page.values() for u in page}
    rest = [u for u in urls if u.startswith("runtime/") and u not in listed]
    if rest:
        by_page.setdefault("", []).extend(rest)
    data = {
        "CACHE": json.dumps(cache_name(urls, digests, script)),
        "PRECACHE": json.dumps(shell, indent=2),
        "LESSONS": json.dumps(by_page, indent=2),
        "DIGESTS": json.dumps(digests, indent=2),
        "TYPES": json.dumps(CONTENT_TYPES),
        "KEPT_HEADERS": json.dumps([name.lower() for name, _ in security_headers(isolated=True)]),
        "OFFLINE_COPY": json.dumps(OFFLINE_COPY),
    }
    # "use strict" first, as a directive for the whole script (the worker's own, after the data, is then a no-op).
    text = SW_PROLOGUE + "\n".join(f"const {name} = {data[name]};" for name in SW_DATA) + "\n\n" + script
    return text, {unquote(url): value for url, value in digests.items()}


def write_service_worker(site: Path, state: Path | None, wheels: Iterable[str],
                         known: dict[str, str] | None = None, lessons: dict[str, list[str]] | None = None) -> dict[str, str]:
    """Write `site/sw.js`; call it after everything else is in `site`. Returns the digests it lists, by site-relative
    path (`state`, `known`: see file_digests; `lessons`: each page's wheels, see lesson_urls)."""
    text, digests = _service_worker(site, state, wheels, known, lessons)
    (site / SW_NAME).write_text(text, encoding="utf-8")
    return digests


def _rel(path: Path, site: Path) -> str:
    """POSIX path relative to the site root."""
    return path.relative_to(site).as_posix()
