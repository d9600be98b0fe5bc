"""The site's static/<hash>/ folder: the hash that versions its URL, and the copy of the course's static/ that ships
in it (beside the toolkit's bundles and stylesheet)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path


def tree_hash(folder: Path | None, made: dict[str, str] | None = None) -> str:
    """Content hash of a folder (None: none): its files' names and bytes, and the digests of files made from them
    (an immutable URL for static assets)."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()) if folder is not None else ():
        h.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    for name, digest in sorted((made or {}).items()):
        h.update(f"\0made {name} {digest}".encode())
    return h.hexdigest()[:10]


def with_images(static_hash: str, images: str) -> str:
    """The folder's hash once lesson images are published under it too ('' when there are none): their changes
    change its URL."""
    return hashlib.sha256(f"{static_hash}\0{images}".encode()).hexdigest()[:10] if images else static_hash


def copy_static(src: Path, dest: Path) -> None:
    """Copy a course's static files (its stylesheets go into the one stylesheet instead: lessonkit.assets.styles)."""
    for path in sorted(src.rglob("*")):
        if path.is_file() and not (path.suffix == ".css" and path.relative_to(src).parts[0] == "css"):
            target = dest / path.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
