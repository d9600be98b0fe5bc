"""Import fallback for a trimmed stdlib: mount the full stdlib the first time a left-out module is imported."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType

from labkit._words import text as _words


def _listed_names() -> frozenset[str] | None:
    """Every module of the full stdlib, as listed in the trimmed zip (None without that list)."""
    try:
        from _lessonkit_stdlib import NAMES  # type: ignore[import-not-found]  # written by lessonkit/pyc_stdlib.mjs
    except ImportError:
        return None
    return frozenset(NAMES)


class FullStdlibFinder:
    """A sys.meta_path finder consulted last: on a miss for a stdlib module it mounts the full stdlib once."""

    def __init__(self, mount: Callable[[], str], names: Iterable[str] | None = None) -> None:
        """mount() makes the full stdlib importable (a zip or folder) and returns its path; names: modules it holds."""
        self._mount = mount
        # Without an exact list, any module under a top-level stdlib name may be in the full stdlib.
        self._names = frozenset(names) if names is not None else _listed_names()
        self.root: str | None = None

    def _wanted(self, fullname: str) -> bool:
        """Whether the full stdlib may hold fullname."""
        if self._names is not None:
            return fullname in self._names
        return fullname.partition(".")[0] in sys.stdlib_module_names

    def find_spec(
        self, fullname: str, path: Iterable[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """Find fullname in the full stdlib, mounting it first; None (a normal ModuleNotFoundError) otherwise."""
        if not self._wanted(fullname):
            return None
        if self.root is None:
            try:
                root = str(self._mount())
            except Exception:  # any failure (offline, HTTP error: the host says which) becomes one clear ImportError
                raise ImportError(_words("labkit.no_full_stdlib", name=repr(fullname)), name=fullname) from None
            self.root = root
            if root not in sys.path:
                sys.path.append(root)  # later imports (and pkgutil, importlib.resources) see it like any path
        parent, _, _ = fullname.rpartition(".")
        where = [self.root + ("/" + parent.replace(".", "/") if parent else "")]
        return PathFinder.find_spec(fullname, where, target)

    def invalidate_caches(self) -> None:
        """Nothing cached here (importlib.invalidate_caches calls this)."""


def install_stdlib_fallback(mount: Callable[[], str], names: Iterable[str] | None = None) -> FullStdlibFinder:
    """Append (once) a FullStdlibFinder to sys.meta_path and return it."""
    for finder in sys.meta_path:
        if isinstance(finder, FullStdlibFinder):
            return finder
    finder = FullStdlibFinder(mount, names)
    sys.meta_path.append(finder)
    return finder
