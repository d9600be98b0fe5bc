"""Step 4 of the build: everything written into a sibling temporary folder, then swapped in for the old site in two
renames, so a reader sees the old site or the new one, and a failure leaves the last good one."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING

from lessonkit import runtime
from lessonkit.assets import search
from lessonkit.assets.editor import write_editor
from lessonkit.assets.scripts import write_scripts
from lessonkit.assets.styles import write_styles
from lessonkit.build.compress import precompress, precompress_file
from lessonkit.build.static import copy_static
from lessonkit.content import media
from lessonkit.content.errors import BuildError, Problem
from lessonkit.hosting.headers import MARKER, marker_text, write_header_files
from lessonkit.hosting.offline import write_service_worker
from lessonkit.page.links import INDEX

if TYPE_CHECKING:
    from lessonkit.build.pipeline import Built, Project


def write_site(project: Project, built: Built, out: Path, *, base_path: str = "/", hsts: str | None = None) -> None:
    """Write everything into a sibling temporary folder, then swap it in."""
    out = out.resolve()
    if out.exists() and not (out / MARKER).exists() and any(out.iterdir()):
        raise BuildError([Problem(str(out), 1, f"refusing to replace {out}: it was not made by this build "
                                  f"(no {MARKER} file) — choose another output folder")])
    tmp = out.with_name(f"{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir(parents=True)
        t = time.perf_counter()
        _write_assets(project, built, tmp)
        built.timings["assets"] = time.perf_counter() - t
        for page in built.pages:
            (tmp / f"{page.lesson.slug}.html").write_text(page.html, encoding="utf-8")
        (tmp / INDEX).write_text(built.index, encoding="utf-8")
        # The pages as written, before the swap: a failure leaves the last good site.
        search.index_site(project.root, tmp, built.search["integrity"], [f"{p.lesson.slug}.html" for p in built.pages])
        precompress(tmp / search.FOLDER, project.root / ".cache" / "br")
        write_header_files(tmp, base=base_path, hsts=hsts, script_hashes=built.script_hashes)
        wheels = sorted({wheel for page in built.pages for wheel in page.wheels})
        write_service_worker(tmp, project.root, wheels)  # last: it lists and hashes everything above
        precompress_file(tmp / "sw.js")
        (tmp / MARKER).write_text(marker_text(built.script_hashes), encoding="utf-8")
        _swap(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _write_assets(project: Project, built: Built, tmp: Path) -> None:
    """static/<hash>/ (static files, lesson images, the stylesheet, the bundles, their brotli), the runtime, wheels."""
    static = tmp / "static" / built.static_hash
    copy_static(project.static, static)
    for rel in sorted({rel for page in built.pages for rel in page.images}):
        target = static / media.MEDIA / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(project.lessons / rel, target)
    write_styles(built.style, static / "css")
    write_scripts(built.scripts, static / "js")
    write_editor(built.editor, static / "js" / "editor.js")
    precompress(static, project.root / ".cache" / "br")
    runtime.write_runtime(tmp, project.root, runtime.get_release(built.release), built.packages)
    runtime.write_wheels(tmp, [built.labkit, *built.wheels])


def _swap(tmp: Path, out: Path) -> None:
    """Replace `out` with `tmp` in two renames, so a reader sees the old site or the new one."""
    old = out.with_name(f"{out.name}.old-{os.getpid()}")
    if out.exists():
        out.rename(old)
    try:
        tmp.rename(out)
    except OSError:
        if old.exists():
            old.rename(out)  # put the last good site back
        raise
    shutil.rmtree(old, ignore_errors=True)
