"""Prebuilt folders for the tests of the checks that read them (lessonkit.core.prebuilt and what reads through it): a
copy of the package's own (small files copied, large ones symlinked: they are hard links shared with every site and
cache, never to be written), a made-up one of given files, and a manifest sealed again after an edit, as
lessonkit.prebuild writes it (so that what is tested is the check after the manifest's, not the manifest's own)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from lessonkit import __version__
from lessonkit.core.places import PREBUILT
from lessonkit.core.prebuilt import FORMAT, MANIFEST

SMALL = 200_000  # bytes: copied; larger files are symlinks (read-only for the tests)


def manifest_of(folder: Path) -> dict[str, Any]:
    """The folder's manifest, as JSON."""
    data: dict[str, Any] = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    return data


def write_manifest(folder: Path, data: dict[str, Any]) -> None:
    """Write the folder's manifest."""
    (folder / MANIFEST).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def copy_prebuilt(dest: Path, source: Path = PREBUILT) -> Path:
    """A copy of the prebuilt folder at dest (its manifest's files only, and the manifest)."""
    data = manifest_of(source)
    for rel, (size, _digest) in data["files"].items():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if size < SMALL:
            shutil.copyfile(source / rel, target)
        else:
            target.symlink_to(source / rel)
    shutil.copyfile(source / MANIFEST, dest / MANIFEST)
    return dest


def rewrite(folder: Path, rel: str, data: bytes) -> None:
    """Replace a file of the folder (never through a symlink) and seal its new size and sha256 into the manifest."""
    target = folder / rel
    target.unlink(missing_ok=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    manifest = manifest_of(folder)
    manifest["files"][rel] = [len(data), hashlib.sha256(data).hexdigest()]
    write_manifest(folder, manifest)


def made_up(dest: Path, files: dict[str, bytes], **fields: Any) -> Path:
    """A prebuilt folder of these files, its manifest listing each (`fields`: its other keys, e.g. sources)."""
    for rel, data in files.items():
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_bytes(data)
    listed = {rel: [len(data), hashlib.sha256(data).hexdigest()] for rel, data in sorted(files.items())}
    write_manifest(dest, {"format": FORMAT, "lessonkit": __version__, "sources": {}, **fields, "files": listed})
    return dest
