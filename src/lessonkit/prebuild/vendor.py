"""The toolkit repository's vendored files (Pyodide's, CodeMirror's through the lock, axe-core's, the SCORM runtime
and schemas, the math font, micropip's wheel), each checked against vendor-manifest.json by size and sha256 before
lessonkit.prebuild makes the prebuilt files from them (maintainers only: authors get the prebuilt files in the wheel)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lessonkit.core.errors import RuntimeSetupError
from lessonkit.core.files import atomic_write, sha256_path
from lessonkit.lms import vendor as lms_vendor
from lessonkit.prebuild import mathfont
from lessonkit.runtime.download import pip_download
from lessonkit.runtime.releases import DEFAULT_RELEASE, RELEASES
from lessonkit.runtime.wheels import MICROPIP_VERSION, wheel_name

MANIFEST_NAME = "vendor-manifest.json"
WHEEL_CACHE = Path(".cache") / "wheels"
HASH_CACHE = Path(".cache") / "vendor-hashes.json"

_NPM = "npm"
_PYPI = "pypi"
PYODIDE_DIR = RELEASES[DEFAULT_RELEASE].folder


# (package, version, path relative to the project root, source) of every vendored runtime file.
VENDOR_FILES: tuple[tuple[str, str, str, str], ...] = (
    *(
        ("pyodide", release.version, f"{release.folder}/{name}", _NPM)
        for release in RELEASES.values() for name in release.files
    ),
    ("axe-core", "4.14.1", "node_modules/axe-core/axe.min.js", _NPM),
    # The QR code beside a lab's Copy link (blocks/lab/tools/qr.js bundles it into the lab's tools).
    ("qrcode-generator", "2.0.4", "node_modules/qrcode-generator/dist/qrcode.mjs", _NPM),
    # The SCORM tests' runtime and XML schemas (lessonkit.lms.vendor).
    *((package, version, path, _NPM) for package, version, path in lms_vendor.FILES),
    # The math font the stylesheet's faces are cut from (lessonkit.prebuild.mathfont).
    *((package, version, path, _NPM) for package, version, path in mathfont.FILES),
    ("micropip", MICROPIP_VERSION, f"{WHEEL_CACHE.as_posix()}/{wheel_name('micropip', MICROPIP_VERSION)}", _PYPI),
)


class _HashCache:
    """sha256 of files keyed by (size, mtime, ctime, inode), like git's index, so warm checks do not reread 14 MB."""

    def __init__(self, root: Path) -> None:
        """Load the cache of the project at root."""
        self.path = root / HASH_CACHE
        self.dirty = False
        try:
            self.entries: dict[str, list[Any]] = json.loads(self.path.read_text())
        except (OSError, ValueError):
            self.entries = {}

    def sha256(self, path: Path) -> str:
        """Return the sha256 of path, from the cache when the file is unchanged."""
        st = path.stat()
        stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
        key = str(path.resolve())
        cached = self.entries.get(key)
        if cached is not None and cached[:4] == stamp:
            return str(cached[4])
        digest = sha256_path(path)
        self.entries[key] = [*stamp, digest]
        self.dirty = True
        return digest

    def save(self) -> None:
        """Write the cache back when it changed."""
        if self.dirty:
            atomic_write(self.path, json.dumps(self.entries, indent=0, sort_keys=True).encode())
            self.dirty = False

def load_manifest(root: Path) -> list[dict[str, Any]]:
    """Return the entries of vendor-manifest.json."""
    path = root / MANIFEST_NAME
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise RuntimeSetupError(
            f"{MANIFEST_NAME} is missing — run \"python -m lessonkit.prebuild update-manifest\" to create it"
        ) from None
    entries: list[dict[str, Any]] = data["files"]
    return entries

def _restore_hint(source: str) -> str:
    """Return how to restore a file of the given source."""
    if source == _NPM:
        return 'run "npm ci" to restore the pinned files'
    return "delete it and build again to re-download it from PyPI (or pin the new hash with update-manifest)"

def check_vendor(root: Path) -> list[str]:
    """Verify every vendored runtime file against vendor-manifest.json; return problems as messages."""
    try:
        entries = load_manifest(root)
    except RuntimeSetupError as exc:
        return [str(exc)]
    problems: list[str] = []
    hashes = _HashCache(root)
    pinned = {entry["path"]: entry for entry in entries}
    for package, version, rel, _source in VENDOR_FILES:
        entry = pinned.get(rel)
        if entry is None:
            problems.append(
                f"{rel}: not in {MANIFEST_NAME} (lessonkit.prebuild expects {package} {version}) — "
                'run "python -m lessonkit.prebuild update-manifest"'
            )
        elif entry["version"] != version:
            problems.append(
                f"{rel}: {MANIFEST_NAME} pins {package} {entry['version']}, lessonkit.prebuild expects {version} — "
                'run "python -m lessonkit.prebuild update-manifest"'
            )
    for entry in entries:
        rel, source = entry["path"], entry.get("source", _NPM)
        path = root / rel
        if not path.is_file() and source == _PYPI:
            try:
                pip_download(f"{entry['package']}=={entry['version']}", path.parent)
            except RuntimeSetupError as exc:
                problems.append(f"{rel}: missing, and {exc}")
                continue
        if not path.is_file():
            problems.append(f"{rel}: missing — {_restore_hint(source)}")
            continue
        size = path.stat().st_size
        if size != entry["size"]:
            problems.append(
                f"{rel}: size is {size} bytes, {MANIFEST_NAME} pins {entry['size']} — {_restore_hint(source)}"
            )
            continue
        digest = hashes.sha256(path)
        if digest != entry["sha256"]:
            problems.append(
                f"{rel}: sha256 is {digest}, {MANIFEST_NAME} pins {entry['sha256']} — {_restore_hint(source)}"
            )
    hashes.save()
    return problems

def npm_folder(rel: str) -> str:
    """Return the npm package folder a vendored file lies in (node_modules/<name> or node_modules/@scope/<name>)."""
    parts = rel.split("/")
    return "/".join(parts[:3] if parts[1].startswith("@") else parts[:2])

def update_manifest(root: Path) -> dict[str, Any]:
    """Regenerate vendor-manifest.json from the files on disk (maintainers only)."""
    files = []
    for package, version, rel, source in VENDOR_FILES:
        path = root / rel
        if source == _NPM:
            folder = npm_folder(rel)
            installed = json.loads((root / folder / "package.json").read_text())["version"]
            if installed != version:
                raise RuntimeSetupError(
                    f"{folder} is {package} {installed}, lessonkit.prebuild expects {version} — "
                    "change the pin in package.json and lessonkit (prebuild/vendor.py, runtime/releases.py) together"
                )
        elif not path.is_file():
            pip_download(f"{package}=={version}", path.parent)
        files.append({
            "package": package, "version": version, "source": source, "path": rel,
            "sha256": sha256_path(path), "size": path.stat().st_size,
        })
    manifest = {"comment": "Pinned runtime files; check: lessonkit.prebuild.vendor.check_vendor", "files": files}
    atomic_write(root / MANIFEST_NAME, (json.dumps(manifest, indent=2) + "\n").encode())
    return manifest


def ensure_wheel(root: Path, name: str, version: str) -> Path:
    """Return the cached wheel of a pinned pure package, downloading it once."""
    path = root / WHEEL_CACHE / wheel_name(name, version)
    if not path.is_file():
        pip_download(f"{name}=={version}", path.parent)
    return path
