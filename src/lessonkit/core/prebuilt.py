"""What the wheel carries prebuilt (made by lessonkit.prebuild when the wheel is made, never on an author's machine):
the page's bundles and stylesheet, the editor, each Pyodide release prepared (brotli copies only; the plain files are
unpacked from them into the user cache), labkit's wheel per release, micropip's, and the SCORM schemas.

`manifest.json` lists every file with its size and sha256, and the digests of the package's sources each part was
made from (the page's modules and styles, labkit): the build checks the files against it once per install (a record
of their stamps in the user cache saves reading them again) and the sources against their digests on every build, so
bundles older than the modules beside them are never published.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

from lessonkit import __version__
from lessonkit.core.errors import RuntimeSetupError
from lessonkit.core.files import atomic_write, sha256_path, stat_stamp
from lessonkit.core.places import PREBUILT, user_cache

FORMAT = 1  # what manifest.json holds; lessonkit.prebuild writes it
MANIFEST = "manifest.json"
REMAKE = "in a source checkout of lessonkit, run `make prebuilt`; an installed lessonkit is incomplete: reinstall it " \
         "(pip install --force-reinstall lessonkit)"


def _manifest(folder: Path) -> dict[str, Any]:
    """The manifest, checked for its format and version."""
    try:
        data: dict[str, Any] = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RuntimeSetupError(f"{folder}: lessonkit's prebuilt files are missing — {REMAKE}") from None
    except ValueError as exc:
        raise RuntimeSetupError(f"{folder / MANIFEST}: not JSON ({exc}) — {REMAKE}") from None
    if data.get("format") != FORMAT or data.get("lessonkit") != __version__:
        raise RuntimeSetupError(f"{folder}: prebuilt for lessonkit {data.get('lessonkit')} (format "
                                f"{data.get('format')}), this is lessonkit {__version__} — {REMAKE}")
    return data


def _verify(folder: Path, data: dict[str, Any]) -> None:
    """Every listed file has its size and sha256; stamps of files checked before (by this install) skip the read."""
    record = user_cache() / "prebuilt-verified.json"
    try:
        known: dict[str, list[Any]] = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        known = {}
    seen: dict[str, list[Any]] = {}
    problems = []
    for rel, (size, digest) in sorted(data["files"].items()):
        path = folder / rel
        found = stat_stamp(path)
        if found is None:
            problems.append(f"{rel}: missing")
            continue
        key = str(path)
        if known.get(key) == [*found, digest]:
            seen[key] = known[key]
            continue
        if path.stat().st_size != size:
            problems.append(f"{rel}: {path.stat().st_size} bytes, the manifest says {size}")
            continue
        actual = sha256_path(path)
        if actual != digest:
            problems.append(f"{rel}: sha256 {actual}, the manifest says {digest}")
            continue
        seen[key] = [*found, digest]
    if problems:
        raise RuntimeSetupError(f"{folder}: prebuilt files do not match their manifest — {REMAKE}:\n  "
                                + "\n  ".join(problems))
    others = {key: value for key, value in known.items() if not key.startswith(f"{folder}/")}  # other installs'
    if {**others, **seen} != known:
        try:
            atomic_write(record, json.dumps({**others, **seen}, indent=0, sort_keys=True).encode())
        except OSError:
            pass  # a read-only cache: checked again next time


@functools.cache
def _checked(folder: Path, stamp: tuple[Any, ...] | None) -> dict[str, Any]:
    data = _manifest(folder)
    _verify(folder, data)
    return data


def manifest(folder: Path = PREBUILT) -> dict[str, Any]:
    """The checked manifest of the prebuilt folder (its files verified once per process while it is unchanged)."""
    return _checked(folder, stat_stamp(folder / MANIFEST))


def check_sources(part: str, digest: str, what: str, folder: Path = PREBUILT) -> None:
    """Refuse prebuilt files made from other sources than the package's (`part`'s digest in the manifest; `what`
    names them, e.g. "page bundles")."""
    made = manifest(folder)["sources"].get(part)
    if made != digest:
        raise RuntimeSetupError(f"{folder}: the prebuilt {what}: made from other sources than this lessonkit's "
                                f"({part} {made} ≠ {digest}) — {REMAKE}")


def sources_digest(files: list[tuple[str, bytes]]) -> str:
    """A digest of (name, bytes) pairs, in the order given: what `sources` in the manifest records."""
    h = hashlib.sha256()
    for name, data in files:
        h.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()[:16]
