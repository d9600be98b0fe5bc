"""Step 4 of the build: everything written into a sibling temporary folder, then swapped in for the old site in two
renames, so a reader sees the old site or the new one, and a failure leaves the last good one."""

from __future__ import annotations

import itertools
import os
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lessonkit import runtime
from lessonkit.assets import search
from lessonkit.assets.editor import write_editor
from lessonkit.assets.mathfont import FOLDER as FONTS
from lessonkit.assets.mathfont import write_faces
from lessonkit.assets.scripts import write_scripts
from lessonkit.assets.styles import write_styles
from lessonkit.content import media
from lessonkit.core.errors import BuildError, Problem, SourcesChangedError
from lessonkit.core.files import link
from lessonkit.hosting.headers import HEADER_FILES, MARKER, marker_text, write_header_files
from lessonkit.hosting.offline import SW_NAME, write_service_worker
from lessonkit.page.links import INDEX
from lessonkit.pipeline.compress import precompress, precompress_file
from lessonkit.pipeline.memo import Memo, Written
from lessonkit.pipeline.static import copy_static

if TYPE_CHECKING:
    from lessonkit.pipeline.site import Built, Project


def write_site(project: Project, built: Built, out: Path, *, base_path: str = "/", hsts: str | None = None,
               memo: Memo | None = None, held_still: Callable[[], bool] | None = None) -> None:
    """Write everything into a sibling temporary folder, then swap it in.

    `held_still()`, asked once the last source file is read (before anything of the site or the memo changes), says
    whether the sources are as they were when the build began; when they are not, SourcesChangedError is raised and `out`
    is left as it was.

    With a memo that wrote `out` last (`serve`), unchanged files are linked from it rather than written, and what
    is derived from the pages (the search index, the service worker's digests, the host files) is brought up to
    date after the swap (`memo.finish()`; lessonkit.pipeline.memo): open pages reload as soon as their own page is out.
    """
    out = out.resolve()
    if out.exists() and not (out / MARKER).exists() and any(out.iterdir()):
        raise BuildError([Problem(str(out), 1, f"refusing to replace {out}: it was not made by this build "
                                  f"(no {MARKER} file) — choose another output folder")])
    last = memo.written if memo is not None else None
    if last is not None and (last.out != out or not (out / MARKER).is_file()):
        last = None  # another folder, or one changed behind this process's back: written whole
    deferring = last is not None and memo is not None and memo.defer_search
    tmp = out.with_name(f"{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    pages = {f"{page.lesson.slug}.html": page.html for page in built.pages}
    search_key = pages  # the pages the index is made from (compared as they are: equal strings are quick to tell)
    linked: set[str] = set()
    written = False  # a file of this build's own (not linked from the last site)
    try:
        tmp.mkdir(parents=True)
        t = time.perf_counter()
        _write_assets(project, built, tmp, out if last is not None and last.static_hash == built.static_hash else None,
                      linked)
        written = last is None or last.static_hash != built.static_hash
        built.timings["assets"] = time.perf_counter() - t
        files = {**pages, INDEX: built.index}
        for name, text in files.items():
            # Each page with its brotli twin, for hosts that send precompressed files (nginx's brotli_static): most do
            # not compress pages themselves, and a lesson's page is several times its compressed size.
            if last is not None and last.files.get(name) == text and (out / f"{name}.br").is_file():
                _link(out / name, tmp / name, linked, name)
                _link(out / f"{name}.br", tmp / f"{name}.br", linked, f"{name}.br")
            else:
                (tmp / name).write_text(text, encoding="utf-8")
                precompress_file(tmp / name)
                written = True
        # The pages as written, before the swap: a failure leaves the last good site.
        searched = search_key
        if last is not None and last.search == search_key:
            _link_tree(out / search.FOLDER, tmp / search.FOLDER, linked, tmp)
        elif deferring and (out / search.FOLDER).is_dir():
            _link_tree(out / search.FOLDER, tmp / search.FOLDER, linked, tmp)  # the last index, until finish()
            searched = last.search
        else:
            _index(project, built, tmp, list(pages))
        if held_still is not None and not held_still():
            raise SourcesChangedError
        settled = not deferring or (not written and searched == search_key and last.settled)
        if settled:
            _finish_site(project, built, tmp, base_path, hsts, last, linked, memo, out, files, searched)
        else:  # the last site's until finish(): the dev server's pages register no service worker meanwhile
            assert last is not None and memo is not None
            for name in (SW_NAME, f"{SW_NAME}.br", *HEADER_FILES):
                if (out / name).is_file():
                    _link(out / name, tmp / name, linked, name)
            (tmp / MARKER).write_text(marker_text(built.script_hashes, built.connect), encoding="utf-8")
            memo.written = Written(out, files, built.static_hash, searched,
                                   {rel: value for rel, value in last.digests.items() if rel in linked}, settled=False)
        _swap(tmp, out, background=memo is not None)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if memo is not None and not settled:
        memo.pending = lambda cancel: _reindex(project, built, out, base_path, hsts, memo, search_key, cancel)


def _index(project: Project, built: Built, site: Path, pages: list[str], cancel: threading.Event | None = None) -> None:
    """The search index of these pages of `site`, with its brotli copies."""
    search.index_site(site, built.search["integrity"], pages, cancel)
    precompress(site / search.FOLDER, project.state / "br")


def _finish_site(project: Project, built: Built, tmp: Path, base_path: str, hsts: str | None, last: Written | None,
                 linked: set[str], memo: Memo | None, out: Path, files: dict[str, str], searched: dict[str, str]) -> None:
    """The host files, the service worker (last: it lists and hashes everything above) and the marker; what was
    written noted in the memo."""
    write_header_files(tmp, base=base_path, hsts=hsts, script_hashes=built.script_hashes, connect=built.connect)
    known = {rel: last.digests[rel] for rel in linked if rel in last.digests} if last is not None else {}
    wheels = sorted({wheel for page in built.pages for wheel in page.wheels})
    lessons = {f"{page.lesson.slug}.html": page.wheels for page in built.pages}
    digests = write_service_worker(tmp, project.state, wheels, known, lessons)
    precompress_file(tmp / SW_NAME)
    (tmp / MARKER).write_text(marker_text(built.script_hashes, built.connect), encoding="utf-8")
    if memo is not None:
        memo.written = Written(out, files, built.static_hash, searched, digests)


def _reindex(project: Project, built: Built, out: Path, base_path: str, hsts: str | None, memo: Memo,
             search_key: dict[str, str], cancel: threading.Event | None = None) -> None:
    """After a swap that kept what is derived from the last site's pages: the site again with this build's search
    index (when a page's text changed), service worker and host files."""
    last = memo.written
    if last is None or last.out != out or not (out / MARKER).is_file():
        return  # written by someone else since: the next build writes it whole
    tmp = out.with_name(f"{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    linked: set[str] = set()
    reindex = last.search != search_key
    rewritten = {SW_NAME, f"{SW_NAME}.br", MARKER, *HEADER_FILES} | ({search.FOLDER} if reindex else set())
    try:
        tmp.mkdir(parents=True)
        for item in out.iterdir():
            _stop_if(cancel)
            if item.name not in rewritten:
                (_link_tree if item.is_dir() else _link)(item, tmp / item.name, linked,
                                                          tmp if item.is_dir() else item.name)
        _stop_if(cancel)
        if reindex:
            _index(project, built, tmp, [f"{page.lesson.slug}.html" for page in built.pages], cancel)
        _stop_if(cancel)
        _finish_site(project, built, tmp, base_path, hsts, last, linked, memo, out, last.files, search_key)
        _swap(tmp, out, background=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _stop_if(cancel: threading.Event | None) -> None:
    """A newer build is waiting (serve stops this work as a save comes in): it makes its own, so stop here."""
    if cancel is not None and cancel.is_set():
        raise search.IndexCancelledError("stopped: a newer build makes its own index")


def _link(src: Path, dst: Path, linked: set[str], rel: str) -> None:
    """dst as a hard link to src (a copy where links are impossible), noted as linked."""
    link(src, dst)
    linked.add(rel)


def _link_tree(src: Path, dst: Path, linked: set[str], site: Path) -> None:
    """Every file under src linked under dst (paths noted relative to `site`, the folder dst is in); the new tree
    has no files yet, so each is linked without a look at what is there."""
    base = dst.relative_to(site).as_posix()
    for folder, _, names in os.walk(src):
        sub = os.path.relpath(folder, src)
        target = os.path.join(dst, sub) if sub != "." else str(dst)
        os.makedirs(target, exist_ok=True)
        prefix = f"{base}/{sub}/" if sub != "." else f"{base}/"
        for name in names:
            try:
                os.link(os.path.join(folder, name), os.path.join(target, name))
            except OSError:
                shutil.copyfile(os.path.join(folder, name), os.path.join(target, name))
            linked.add(prefix + name)


def _write_assets(project: Project, built: Built, tmp: Path, last: Path | None, linked: set[str]) -> None:
    """static/<hash>/ (static files, lesson images, the stylesheet, the math font, the bundles, their brotli), the
    runtime, wheels; static/<hash>/ linked from the `last` site when it has the same hash."""
    static = tmp / "static" / built.static_hash
    if last is not None and (last / "static" / built.static_hash).is_dir():
        _link_tree(last / "static" / built.static_hash, static, linked, tmp)
    else:
        if project.static is not None:
            copy_static(project.static, static)
        for rel in sorted({rel for page in built.pages for rel in page.images}):
            target = static / media.MEDIA / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(project.lessons / rel, target)
        write_styles(built.style, static / "css")
        write_scripts(built.scripts, static)
        write_editor(built.editor, static / "js" / "editor.js")
        write_faces(built.fonts, static / FONTS)
        precompress(static, project.state / "br")
    for version, packages in built.runtimes.items():
        runtime.write_runtime(tmp, runtime.get_release(version), packages)
    runtime.write_wheels(tmp, [*built.labkits, *built.wheels])


def _swap(tmp: Path, out: Path, *, background: bool = False) -> None:
    """Replace `out` with `tmp` in two renames, so a reader sees the old site or the new one. The old one is removed
    after (`background`: by a thread, for `serve`, whose open pages reload meanwhile)."""
    old = out.with_name(f"{out.name}.old-{os.getpid()}-{next(_swaps)}")
    if out.exists():
        out.rename(old)
    try:
        tmp.rename(out)
    except OSError:
        if old.exists():
            old.rename(out)  # put the last good site back
        raise
    if background:
        threading.Thread(target=shutil.rmtree, args=(old,), kwargs={"ignore_errors": True}, daemon=True).start()
    else:
        shutil.rmtree(old, ignore_errors=True)


_swaps = itertools.count()
