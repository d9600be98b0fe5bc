"""The wheels a page's Python installs, linked into site/runtime/wheels/: labkit's (one per Pyodide release, its
bytecode compiled by that release's own CPython) and micropip's, as the prebuilt files carry them, and the lessons'
requirements. labkit's wheel is made from the labkit package beside lessonkit (lessonkit.prebuild.labkit): the build
refuses one made from other sources than the installed package's."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from lessonkit import __version__
from lessonkit.core.errors import RuntimeSetupError
from lessonkit.core.files import link
from lessonkit.core.places import PREBUILT, labkit_package
from lessonkit.core.prebuilt import REMAKE, check_sources, manifest, sources_digest
from lessonkit.runtime.releases import Release, get_release

LABKIT_VERSION = __version__  # labkit ships with lessonkit: one version
# micropip 0.11.1 is the version Pyodide 314.0.7 ships (pyodide-lock.json); it vendors packaging, so it needs no
# other wheel. micropip 0.7.2 fails to import in Pyodide 314 (pyodide.ffi.IN_BROWSER is gone).
MICROPIP_VERSION = "0.11.1"
WHEELS = "wheels"  # in the prebuilt folder


def wheel_name(name: str, version: str) -> str:
    """Return the file name of a pure-Python wheel."""
    return f"{name}-{version}-py3-none-any.whl"


def write_wheels(site: Path, wheels: Iterable[Path]) -> list[str]:
    """Link wheels (e.g. from fetch_requirements) into site/runtime/wheels/; return their page-relative URLs."""
    dest = site / "runtime" / "wheels"
    dest.mkdir(parents=True, exist_ok=True)
    urls = []
    for wheel in wheels:
        link(wheel, dest / wheel.name)
        urls.append(f"runtime/wheels/{wheel.name}")
    return urls


# ---- labkit wheel -------------------------------------------------------------------------------------------

def _package_files(package: Path) -> list[tuple[str, bytes]]:
    """Return (archive name, bytes) of a package's files, sorted, without caches or hidden files."""
    files = []
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package.parent)
        if not path.is_file() or path.suffix in {".pyc", ".pyo"}:
            continue
        if any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
            continue
        files.append((rel.as_posix(), path.read_bytes()))
    return files

def labkit_sources() -> list[tuple[str, bytes]]:
    """The labkit package's files as its wheel holds them (labkit/...), sorted."""
    package = labkit_package()
    if not (package / "__init__.py").is_file():
        raise RuntimeSetupError(f"{package}/__init__.py not found: labkit is incomplete — reinstall lessonkit")
    return _package_files(package)


def labkit_digest() -> str:
    """The digest of labkit's sources the prebuilt wheels must have been made from."""
    return sources_digest(labkit_sources())


def labkit_wheel(release: Release | None = None, folder: Path = PREBUILT) -> Path:
    """The prebuilt labkit wheel of a release, refused unless it was made from the installed labkit."""
    release = release or get_release()
    check_sources("labkit", labkit_digest(), "labkit wheels", folder)
    name = manifest(folder)["wheels"]["labkit"].get(release.version)
    if name is None:
        raise RuntimeSetupError(f"{folder}: no labkit wheel for Pyodide {release.version} — {REMAKE}")
    return folder / WHEELS / name


def micropip_wheel(folder: Path = PREBUILT) -> Path:
    """The prebuilt micropip wheel (for pages that install pure-Python requirements)."""
    manifest(folder)
    return folder / WHEELS / wheel_name("micropip", MICROPIP_VERSION)
