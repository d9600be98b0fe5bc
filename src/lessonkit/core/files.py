"""Writing the build's files: whole or not at all, and linked rather than copied where the disk allows."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import tempfile
from pathlib import Path


def atomic_write(path: Path, data: bytes) -> None:
    """Write a file through a temp file + rename so readers never see half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes files private; wheels and bundles are served to everyone
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def link(src: Path, dst: Path) -> None:
    """Hard-link src to dst (copy when links are impossible), replacing a different dst."""
    try:
        if os.path.samefile(src, dst):
            return
        dst.unlink()
    except FileNotFoundError:
        pass
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def sha256_path(path: Path) -> str:
    """The hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def stat_stamp(path: Path) -> tuple[int, ...] | None:
    """What a file's stat says of its bytes (inode, size, mtime, ctime), or None when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def sri(path: Path) -> str:
    """Subresource Integrity value of a file, as the page's integrity attributes carry it."""
    return "sha384-" + base64.b64encode(hashlib.sha384(path.read_bytes()).digest()).decode()
