"""A lesson's `requires:`: packages of the lesson's Pyodide release by name (lessonkit.runtime.packages), and pinned
pure-Python packages, their wheels downloaded once (pip, wheels only) into the user cache, for micropip to install in
the page's Python."""

from __future__ import annotations

import os
import re
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from lessonkit.core.errors import RuntimeSetupError
from lessonkit.runtime.download import pip_download
from lessonkit.runtime.packages import lock_key

WHEEL_CACHE = "wheels"  # in the user cache

PURE_TAGS = ("py3-none-any", "py2.py3-none-any")


_PIN = re.compile(r"^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*==\s*([A-Za-z0-9][A-Za-z0-9.+!_-]*)\s*$")

def _normalize(name: str) -> str:
    """Return a project name normalized as in wheel file names (PEP 503 + underscores)."""
    return re.sub(r"[-_.]+", "_", name).lower()

def _wheel_parts(filename: str) -> tuple[str, str, str]:
    """Return (normalized name, version, tag) of a wheel file name."""
    parts = filename[: -len(".whl")].split("-")
    if len(parts) not in (5, 6):
        raise RuntimeSetupError(f"{filename}: not a valid wheel file name")
    return _normalize(parts[0]), parts[1], "-".join(parts[-3:])

def check_pure_wheel(filename: str, requirement: str = "") -> None:
    """Raise RuntimeSetupError unless the wheel file name has a pure-Python tag."""
    tag = _wheel_parts(filename)[2]
    if tag not in PURE_TAGS:
        what = f"{requirement}: " if requirement else ""
        raise RuntimeSetupError(
            f"{what}{filename} is not a pure-Python wheel (tag {tag}); a lesson can only require packages with a "
            f"{' or '.join(PURE_TAGS)} wheel, because the browser lab installs wheels without Pyodide's package index"
        )

def _find_cached_wheel(cache: Path, name: str, version: str) -> Path | None:
    """Return the cached wheel of name==version, if any."""
    wanted = _normalize(name)
    if not cache.is_dir():
        return None
    for path in sorted(cache.glob("*.whl")):
        try:
            wheel_name, wheel_version, _tag = _wheel_parts(path.name)
        except RuntimeSetupError:
            continue
        if wheel_name == wanted and wheel_version == version:
            return path
    return None

def cached_wheel(req: str, root: Path) -> Path | None:
    """The wheel of a pinned requirement downloaded into the user cache `root` by an earlier build, if any (None for
    one not pinned)."""
    match = _PIN.match(req)
    return _find_cached_wheel(root / WHEEL_CACHE, *match.groups()) if match is not None else None


def fetch_requirements(reqs: list[str], root: Path, python: str = "3.14") -> list[Path]:
    """Return the wheels of a lesson's pinned pure-Python requirements, downloading each once into `root`/wheels
    (`root`: the user cache)."""
    cache = root / WHEEL_CACHE
    wheels = []
    for req in reqs:
        match = _PIN.match(req)
        if match is None:
            raise RuntimeSetupError(f"requirement {req!r} must be pinned exactly, like tabulate==0.9.0")
        name, version = match.groups()
        wheel = _find_cached_wheel(cache, name, version)
        if wheel is None:
            with tempfile.TemporaryDirectory(dir=cache.parent if cache.parent.is_dir() else None) as tmp:
                pip_download(f"{name}=={version}", Path(tmp), python)
                found = sorted(Path(tmp).glob("*.whl"))
                if not found:
                    raise RuntimeSetupError(f"{req}: pip downloaded no wheel")
                check_pure_wheel(found[0].name, req)  # reject before it enters the cache
                cache.mkdir(parents=True, exist_ok=True)
                wheel = cache / found[0].name
                os.replace(found[0], wheel)
        check_pure_wheel(wheel.name, req)
        wheels.append(wheel)
    return wheels


def split_requires(items: list[str], lock: dict[str, Any], version: str) -> tuple[list[str], list[str], list[str]]:
    """Split a lesson's `requires:` into (lock keys of Pyodide packages, pinned pure-Python packages, problems).

    A name the release's lock lists is a Pyodide package (the lock wins over a pure package of that name); pinned,
    its version must be the lock's. Any other name must be pinned, for pip to fetch its pure-Python wheel.
    """
    keys: list[str] = []
    pure: list[str] = []
    problems: list[str] = []
    for item in items:
        name, _, pinned = str(item).partition("==")
        key = lock_key(lock, name.strip())
        if key is not None:
            locked = lock["packages"][key]["version"]
            if pinned and pinned.strip() != locked:
                problems.append(f"{item}: Pyodide {version}'s lock has {key} {locked} — write {name} (or {name}=={locked})")
            elif key not in keys:
                keys.append(key)
        elif pinned:
            pure.append(str(item))
        else:
            problems.append(f'"{name}" is not a package of Pyodide {version} — name a package of its lock (numpy, '
                            'pandas, scipy…), or pin a pure-Python package from PyPI, like "tabulate==0.9.0"')
    return keys, pure, problems


def build_versions(lock: dict[str, Any]) -> list[str]:
    """Notes on the lock's packages whose version in the build's own Python differs: its labs compute the page's
    figures in CPython, so they should run the version the page's Pyodide loads (pyproject.toml pins it)."""
    notes = []
    for key, entry in lock["packages"].items():
        if entry.get("package_type", "package") != "package" or key == "micropip":
            continue
        try:
            installed = metadata.version(key)
        except metadata.PackageNotFoundError:
            installed = None
        if installed == entry["version"]:
            continue
        have = f"has {key} {installed}" if installed else f"has no {key}"
        notes.append(f"note: the build's Python {have}, the page's Pyodide {lock['info']['version']} loads "
                     f"{key} {entry['version']}: install {key}=={entry['version']} so that the figures the build's "
                     "labs compute are the ones the page computes")
    return notes
