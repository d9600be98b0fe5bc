"""The runtime a page boots, as the wheel carries it prebuilt (lessonkit.core.prebuilt): for each Pyodide release,
its files compressed with brotli at quality 11, the standard library compiled to .pyc inside that release (trimmed to
what labs use, and whole), its runtime.json and its official pyodide-lock.json. A build unpacks a release once into
the user cache (each plain file checked against runtime.json's sha256) and links it into each site under a folder
named by its content."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import brotli

from lessonkit.core.errors import RuntimeSetupError
from lessonkit.core.files import link
from lessonkit.core.places import PREBUILT, user_cache
from lessonkit.core.prebuilt import REMAKE, manifest
from lessonkit.runtime.download import step
from lessonkit.runtime.releases import Release, get_release

# Files served from site/runtime/pyodide-<version>-<hash>/, each with a brotli sibling. python_stdlib.zip is the
# trimmed pyc stdlib the page boots with; full/python_stdlib.zip (every module) is fetched only when a learner
# imports a module the trimmed one left out (labkit's import fallback), and sits in a subfolder so it is not
# precached (unless a page boots with it: one with packages).
STDLIB = "python_stdlib.zip"
FULL_STDLIB = "full/python_stdlib.zip"
META = "runtime.json"
LOCK = "pyodide-lock.json"  # the release's official lock, as its npm package ships it (pinned by sha256)
FOLDER = "runtime"  # in the prebuilt folder: one folder per release, named by its version


def runtime_files(release: Release | None = None) -> tuple[str, ...]:
    """The files served from a release's runtime folder (its loader's name differs between releases)."""
    return ("pyodide.mjs", (release or get_release()).asm, "pyodide.asm.wasm", STDLIB, FULL_STDLIB)


RUNTIME_FILES = runtime_files()  # the default release's


def prebuilt_dir(release: Release, folder: Path = PREBUILT) -> Path:
    """The release's folder in the prebuilt files (checked against their manifest)."""
    manifest(folder)
    found = folder / FOLDER / release.version
    if not (found / META).is_file():
        raise RuntimeSetupError(f"{found}: Pyodide {release.version} is not in lessonkit's prebuilt files — {REMAKE}")
    return found


@functools.cache
def _meta(release: Release, folder: Path) -> dict[str, Any]:
    meta: dict[str, Any] = json.loads((prebuilt_dir(release, folder) / META).read_text(encoding="utf-8"))
    return meta


def runtime_meta(release: Release | None = None, folder: Path = PREBUILT) -> dict[str, Any]:
    """The release's runtime.json: its files' sizes and sha256, the lock's info, how its stdlib was compiled."""
    return _meta(release or get_release(), folder)


def runtime_key(release: Release | None = None, folder: Path = PREBUILT) -> str:
    """A short hash of the release's prepared files (from runtime.json, which lists each one's sha256)."""
    meta = runtime_meta(release, folder)
    return hashlib.sha256(json.dumps(meta["files"], sort_keys=True).encode()).hexdigest()[:12]


def site_dirname(release: Release | None = None, folder: Path = PREBUILT) -> str:
    """The runtime's folder in the site, named by its content so immutable caching can never serve stale files."""
    release = release or get_release()
    return f"pyodide-{release.version}-{runtime_key(release, folder)[:8]}"


def release_lock(release: Release, folder: Path = PREBUILT) -> Path:
    """The release's official pyodide-lock.json, as the prebuilt files carry it (checked with them)."""
    return prebuilt_dir(release, folder) / LOCK


def _unpacked_dir(release: Release, folder: Path, cache: Path) -> Path:
    """Where the release's prepared runtime is unpacked in the user cache `cache`."""
    return cache / "runtime" / f"pyodide-{release.version}-{runtime_key(release, folder)}"


def unpacked(release: Release, folder: Path = PREBUILT) -> bool:
    """Whether the release's runtime is unpacked in the user cache already (a build then has no unpacking to do)."""
    return (_unpacked_dir(release, folder, user_cache()) / META).is_file()


@functools.cache
def _unpacked(release: Release, folder: Path, cache: Path) -> Path:
    final = _unpacked_dir(release, folder, cache)
    if (final / META).is_file():
        return final
    source = prebuilt_dir(release, folder)
    meta = runtime_meta(release, folder)
    step(f"unpacking Pyodide {release.version} into {final.parent}, once for this lessonkit")
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".tmp-{final.name}-"))
    try:
        tmp.chmod(0o755)  # mkdtemp makes it private; the files are linked into sites that others serve
        for name in runtime_files(release):
            packed = source / f"{name}.br"
            data = brotli.decompress(packed.read_bytes())
            want = meta["files"][name]["sha256"]
            if hashlib.sha256(data).hexdigest() != want:
                raise RuntimeSetupError(f"{packed}: unpacks to other bytes than runtime.json's sha256 {want} — "
                                        f"{REMAKE}")
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp / name).write_bytes(data)
            link(packed, tmp / f"{name}.br")
        shutil.copyfile(source / META, tmp / META)
        try:
            os.rename(tmp, final)
        except OSError:
            if not (final / META).is_file():  # not another build that finished the same folder first
                raise
            shutil.rmtree(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def runtime_dir(release: Release | None = None, folder: Path = PREBUILT) -> Path:
    """The release's runtime unpacked in the user cache (once per prebuilt runtime), plain files beside their .br."""
    return _unpacked(release or get_release(), folder, user_cache())
