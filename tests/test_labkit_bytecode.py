"""labkit._bytecode in CPython, as the lab's worker uses it in Pyodide: a package imported with bytecode writing on,
its bytecode collected as checked-hash .pyc files, installed beside a fresh copy of its sources and imported from there
(and not when the sources differ)."""

from __future__ import annotations

import importlib
import io
import sys
import zipfile
from importlib.machinery import SourceFileLoader
from pathlib import Path

import pytest

from labkit import _bytecode


def _package(root: Path, value: int) -> None:
    (root / "kept_pkg").mkdir(parents=True)
    (root / "kept_pkg" / "__init__.py").write_text("from kept_pkg.part import VALUE\nDOUBLE = VALUE * 2\n")
    (root / "kept_pkg" / "part.py").write_text(f"VALUE = {value}\n")


def _import_fresh(root: Path):
    for name in [n for n in sys.modules if n == "kept_pkg" or n.startswith("kept_pkg.")]:
        del sys.modules[name]
    sys.path.insert(0, str(root))
    try:
        importlib.invalidate_caches()
        return importlib.import_module("kept_pkg")
    finally:
        sys.path.remove(str(root))


@pytest.fixture
def no_bytecode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)  # Pyodide's setting


def test_collected_bytecode_is_imported_from_a_fresh_copy_of_the_sources(tmp_path: Path, no_bytecode: None,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    first = tmp_path / "first"
    _package(first, 21)
    with _bytecode.writing():
        _import_fresh(first)
    assert sys.dont_write_bytecode is True
    bundle = _bytecode.collect(str(first))
    names = zipfile.ZipFile(io.BytesIO(bundle)).namelist()
    assert sorted(Path(n).parent.name for n in names) == ["__pycache__", "__pycache__"]
    assert all(zipfile.ZipFile(io.BytesIO(bundle)).read(n)[4:8] == _bytecode.CHECKED_HASH for n in names)

    later = tmp_path / "later"
    _package(later, 21)
    assert _bytecode.install(bundle, str(later)) == 2
    compiled: list[str] = []
    monkeypatch.setattr(SourceFileLoader, "source_to_code", lambda self, data, path, **kw: compiled.append(path))
    assert _import_fresh(later).DOUBLE == 42
    assert compiled == [], "imported from the installed bytecode, no source compiled"


def test_bytecode_of_other_sources_is_not_used(tmp_path: Path, no_bytecode: None) -> None:
    first = tmp_path / "first"
    _package(first, 21)
    with _bytecode.writing():
        _import_fresh(first)
    bundle = _bytecode.collect(str(first))
    changed = tmp_path / "changed"
    _package(changed, 5)
    _bytecode.install(bundle, str(changed))
    assert _import_fresh(changed).DOUBLE == 10, "the source's hash differs: Python compiled the source"


def test_a_bundle_writes_only_bytecode_files_in_pycache_folders(tmp_path: Path) -> None:
    for name in ("kept_pkg/evil.py", "../escape/__pycache__/x.pyc", "kept_pkg/x.pyc"):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as bundle:
            bundle.writestr(name, b"data")
        with pytest.raises(ValueError, match="not a bytecode file of the bundle"):
            _bytecode.install(out.getvalue(), str(tmp_path / "site"))
    assert not (tmp_path / "site").exists()


def test_nothing_written_nothing_collected(tmp_path: Path, no_bytecode: None) -> None:
    _package(tmp_path, 1)
    _import_fresh(tmp_path)
    assert _bytecode.collect(str(tmp_path)) == b""
