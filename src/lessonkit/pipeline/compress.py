"""Brotli copies beside the site's text files, so a host (or `serve`) sends them precompressed."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import brotli

from lessonkit.core.files import atomic_write
from lessonkit.hosting.headers import is_compressible

SMALLEST = 512  # bytes: a smaller file gains nothing worth a second file
QUALITY = 11
CHANGING_QUALITY = 5  # a file that changes with every build (sw.js)


def precompress(folder: Path, cache: Path) -> None:
    """Brotli (quality 11) beside each text asset; kept in a content-addressed cache so rebuilds cost nothing."""
    cache.mkdir(parents=True, exist_ok=True)
    for path in folder.rglob("*"):
        if not is_compressible(path.name) or path.stat().st_size < SMALLEST or path.with_name(path.name + ".br").exists():
            continue
        data = path.read_bytes()
        cached = cache / (hashlib.sha256(data).hexdigest()[:32] + ".br")
        if not cached.is_file():
            atomic_write(cached, brotli.compress(data, quality=QUALITY))
        shutil.copyfile(cached, path.with_name(path.name + ".br"))


def precompress_file(path: Path) -> None:
    """Brotli beside one file that changes with the build (sw.js, with its build's digests; the pages)."""
    # Quality 5, not 11: 11 takes ~75x the time (a 73 KB lesson page: 2 ms against 150 ms) for ~10 % fewer bytes,
    # which every rebuild would pay for every changed page (one-lesson rebuild row of the benchmark).
    path.with_name(path.name + ".br").write_bytes(brotli.compress(path.read_bytes(), quality=CHANGING_QUALITY))
