"""Benchmark build side: the lesson build, 200 generated lessons, and the one-lesson rebuild `serve` does."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from lessonkit.build.pipeline import build_site

_SLUG = re.compile(r"^slug:.*$", re.M)
_ORDER = re.compile(r"^order:.*$", re.M)


def build_once(root: Path, out: Path, lessons: Path | None = None) -> float:
    """One in-process build (what `serve` runs on every edit); seconds."""
    t0 = time.perf_counter()
    build_site(root, out, lessons=lessons)
    return time.perf_counter() - t0


def build_cli(root: Path, out: Path, lessons: Path) -> float:
    """`python build.py --out X --lessons Y` as a user runs it; wall seconds including interpreter start."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, str(root / "build.py"), "--out", str(out), "--lessons", str(lessons)],
                          cwd=root, capture_output=True, text=True, check=False)
    took = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"build.py failed ({proc.returncode}): {(proc.stderr or proc.stdout).strip()[-400:]}")
    return took


def copy_lessons(root: Path, folder: Path, count: int) -> Path:
    """`count` copies of every lesson with distinct slugs and orders (200 lessons: the scale the build is benchmarked at)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    sources = sorted((root / "lesson").glob("*.md"))
    n = 0
    for i in range(count):
        for source in sources:
            text = source.read_text(encoding="utf-8")
            slug = f"{source.stem}-{i:03d}" if count > 1 else source.stem
            text = _SLUG.sub(f"slug: {slug}", text, count=1)
            text = _ORDER.sub(f"order: {n + 1}", text, count=1)
            (folder / f"{slug}.md").write_text(text, encoding="utf-8")
            n += 1
    for config in (root / "lesson").glob("course.y*ml"):  # the course's title, tagline and order rules
        shutil.copyfile(config, folder / config.name)
    return folder


def rebuild_after_edit(root: Path, work: Path, repeats: int) -> list[float]:
    """Edit one lesson, rebuild in-process as `serve` does; the first build (imports, caches) is not counted."""
    lessons = copy_lessons(root, work / "lessons-edit", 1)
    out = work / "site-rebuild"
    build_once(root, out, lessons)
    edited = sorted(lessons.glob("*.md"))[0]
    times = []
    for i in range(repeats):
        now = time.time() + i  # a new mtime each time, as an editor's save gives the watcher
        os.utime(edited, (now, now))
        times.append(build_once(root, out, lessons))
    return times
