"""Tests for lessonkit.prebuild, the maintainers' side (the toolkit's repository, its node_modules, Node): the vendored
files against vendor-manifest.json, each Pyodide release prepared with its stdlib compiled to .pyc under Node, labkit's
wheel compiled per release, the editor bundle's cache, and the prebuilt files as `make prebuilt` made them (no
network)."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import brotli
import pytest
from places import FIXTURE, ROOT

from lessonkit import runtime
from lessonkit.core.errors import RuntimeSetupError
from lessonkit.core.places import PREBUILT
from lessonkit.prebuild import bundles, prepare, vendor
from lessonkit.prebuild.labkit import build_labkit_wheel
from lessonkit.prebuild.node import node_boot_check
from lessonkit.runtime import wheels
from lessonkit.runtime.prepared import FULL_STDLIB, STDLIB, runtime_files
from lessonkit.runtime.wheels import LABKIT_VERSION

DEFAULT = runtime.get_release()
OLD = runtime.get_release("0.27.7")
MICROPIP = ROOT / vendor.WHEEL_CACHE / f"micropip-{runtime.MICROPIP_VERSION}-py3-none-any.whl"
needs_micropip = pytest.mark.skipif(
    not MICROPIP.is_file(), reason='micropip wheel not cached: run "python -m lessonkit.prebuild check" once (network)'
)


@pytest.fixture(scope="session")
def prepared() -> Path:
    """The default release prepared from the repository (built once, ~1 min, when the cache is cold)."""
    return prepare.prepare_runtime(ROOT)


def _vendor_copy(tmp_path: Path) -> Path:
    """Return a project root in tmp_path whose vendored files are copies (small) or symlinks (large, read-only)."""
    root = tmp_path / "proj"
    root.mkdir()
    shutil.copy(ROOT / vendor.MANIFEST_NAME, root / vendor.MANIFEST_NAME)
    for entry in json.loads((ROOT / vendor.MANIFEST_NAME).read_text())["files"]:
        src, dst = ROOT / entry["path"], root / entry["path"]
        dst.parent.mkdir(parents=True, exist_ok=True)
        if entry["size"] < 100_000:
            shutil.copy(src, dst)  # small files are real copies, safe to tamper with
        else:
            dst.symlink_to(src)
    for folder in {vendor.npm_folder(e["path"]) for e in json.loads((ROOT / vendor.MANIFEST_NAME).read_text())["files"]
                   if e["source"] == "npm"}:
        shutil.copy(ROOT / folder / "package.json", root / folder / "package.json")  # the installed versions
    return root


# ---- vendor manifest ----------------------------------------------------------------------------------------


@needs_micropip
def test_manifest_matches_real_tree() -> None:
    assert vendor.check_vendor(ROOT) == []


def test_manifest_pins_expected_files() -> None:
    entries = json.loads((ROOT / vendor.MANIFEST_NAME).read_text())["files"]
    paths = {e["path"]: e for e in entries}
    for release in runtime.RELEASES.values():
        for name in ("pyodide.mjs", release.asm, "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"):
            assert paths[f"{release.folder}/{name}"]["version"] == release.version
    assert paths["node_modules/axe-core/axe.min.js"]["version"] == "4.14.1"
    assert MICROPIP.relative_to(ROOT).as_posix() in paths
    for entry in entries:
        assert re.fullmatch(r"[0-9a-f]{64}", entry["sha256"]) and entry["size"] > 0


@needs_micropip
def test_manifest_reports_tampered_copy(tmp_path: Path) -> None:
    root = _vendor_copy(tmp_path)
    assert vendor.check_vendor(root) == []  # also fills the stat cache, which must not hide the edit below
    target = root / "node_modules/pyodide/pyodide.mjs"
    data = bytearray(target.read_bytes())
    data[-2] ^= 1  # same size, different content
    target.write_bytes(bytes(data))
    problems = vendor.check_vendor(root)
    pinned = next(e for e in vendor.load_manifest(root) if e["path"] == "node_modules/pyodide/pyodide.mjs")["sha256"]
    assert problems == [f"node_modules/pyodide/pyodide.mjs: sha256 is {hashlib.sha256(data).hexdigest()}, "
                        f'vendor-manifest.json pins {pinned} — run "npm ci" to restore the pinned files']


@needs_micropip
def test_manifest_reports_missing_and_resized(tmp_path: Path) -> None:
    root = _vendor_copy(tmp_path)
    (root / "node_modules/pyodide/pyodide-lock.json").unlink()
    with (root / "node_modules/pyodide/pyodide.mjs").open("ab") as fh:
        fh.write(b"\n")
    size = (root / "node_modules/pyodide/pyodide.mjs").stat().st_size
    assert vendor.check_vendor(root) == [
        f'node_modules/pyodide/pyodide.mjs: size is {size} bytes, vendor-manifest.json pins {size - 1} — run "npm ci" '
        "to restore the pinned files",
        'node_modules/pyodide/pyodide-lock.json: missing — run "npm ci" to restore the pinned files',
    ]


def test_manifest_version_mismatch_and_absence(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    assert vendor.check_vendor(root) == [
        'vendor-manifest.json is missing — run "python -m lessonkit.prebuild update-manifest" to create it']
    manifest = json.loads((ROOT / vendor.MANIFEST_NAME).read_text())
    manifest["files"] = [e for e in manifest["files"] if e["source"] == "npm"]
    manifest["files"][0]["version"] = "0.0.1"
    (root / vendor.MANIFEST_NAME).write_text(json.dumps(manifest))
    problems = vendor.check_vendor(root)
    rel = manifest["files"][0]["path"]
    assert (f'{rel}: vendor-manifest.json pins pyodide 0.0.1, lessonkit.prebuild expects 314.0.7 — run "python -m '
            'lessonkit.prebuild update-manifest"') in problems
    micropip = f"{vendor.WHEEL_CACHE.as_posix()}/{MICROPIP.name}"
    assert (f"{micropip}: not in vendor-manifest.json (lessonkit.prebuild expects micropip "
            f'{runtime.MICROPIP_VERSION}) — run "python -m lessonkit.prebuild update-manifest"') in problems


def test_update_manifest_refuses_an_installed_version_other_than_the_pin(tmp_path: Path) -> None:
    root = _vendor_copy(tmp_path)
    package = root / "node_modules/axe-core/package.json"
    package.write_text(json.dumps({"name": "axe-core", "version": "4.0.0"}))
    with pytest.raises(RuntimeSetupError) as err:
        vendor.update_manifest(root)
    assert str(err.value) == (
        "node_modules/axe-core is axe-core 4.0.0, lessonkit.prebuild expects 4.14.1 — change the pin in package.json "
        "and lessonkit (prebuild/vendor.py, runtime/releases.py) together")
    assert (root / vendor.MANIFEST_NAME).read_bytes() == (ROOT / vendor.MANIFEST_NAME).read_bytes()  # not rewritten


@needs_micropip
def test_update_manifest_pins_what_is_on_disk(tmp_path: Path) -> None:
    root = _vendor_copy(tmp_path)
    written = vendor.update_manifest(root)
    committed = {e["path"]: e for e in json.loads((ROOT / vendor.MANIFEST_NAME).read_text())["files"]}
    assert [e["path"] for e in written["files"]] == [rel for _, _, rel, _ in vendor.VENDOR_FILES]
    assert written["files"] == [committed[e["path"]] for e in written["files"]]
    assert vendor.check_vendor(root) == []


def test_the_committed_manifest_pins_only_what_lessonkit_vendors() -> None:
    """vendor-manifest.json is what update-manifest writes: no pin of a file nothing vendors any more (check_vendor
    would still require it on every maintainer's machine)."""
    listed = {rel for _, _, rel, _ in vendor.VENDOR_FILES}
    assert [e["path"] for e in vendor.load_manifest(ROOT) if e["path"] not in listed] == []


# ---- prepared runtime -------------------------------------------------------------------------------------


def test_prepared_runtime_contents(prepared: Path) -> None:
    meta = json.loads((prepared / "runtime.json").read_text())
    assert prepared.name.startswith(f"pyodide-{runtime.PYODIDE_VERSION}-")
    assert meta["lock_info"] == json.loads((ROOT / "node_modules/pyodide/pyodide-lock.json").read_text())["info"]
    for name in runtime.RUNTIME_FILES:
        info = meta["files"][name]
        assert (prepared / name).stat().st_size == info["size"]
        assert hashlib.sha256((prepared / name).read_bytes()).hexdigest() == info["sha256"]
        assert (prepared / f"{name}.br").stat().st_size == info["br_size"] < info["size"]
    assert brotli.decompress((prepared / "pyodide.mjs.br").read_bytes()) == (prepared / "pyodide.mjs").read_bytes()
    with zipfile.ZipFile(prepared / FULL_STDLIB) as zf:
        names = zf.namelist()
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
    assert not [n for n in names if n.endswith(".py")]
    assert {"json/__init__.pyc", "traceback.pyc", "_pyodide/__init__.pyc", "xml/dom/minidom.pyc"} <= set(names)
    with zipfile.ZipFile(prepared / STDLIB) as zf:
        trimmed = set(zf.namelist())
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
    assert {"json/__init__.pyc", "random.pyc", "_lessonkit_stdlib.pyc"} <= trimmed and "xml/__init__.pyc" not in trimmed
    assert trimmed - {"_lessonkit_stdlib.pyc"} < set(names)
    assert meta["files"][STDLIB]["br_size"] < meta["files"][FULL_STDLIB]["br_size"] / 1.5
    assert "random" in (prepared / "python_stdlib.txt").read_text().split()


def test_prepare_is_cached(prepared: Path) -> None:
    assert prepare.prepare_runtime(ROOT) == prepared
    assert prepare.runtime_dir(ROOT) == prepared


def test_failed_prepare_leaves_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    shutil.copy(ROOT / vendor.MANIFEST_NAME, root / vendor.MANIFEST_NAME)

    def crash(_root: Path, tmp: Path, _release: runtime.Release) -> None:
        (tmp / "python_stdlib.zip").write_bytes(b"half")
        raise RuntimeError("boom")

    monkeypatch.setattr(prepare, "_prepare_into", crash)
    with pytest.raises(RuntimeError, match="boom"):
        prepare.prepare_runtime(root)
    assert list((root / prepare.RUNTIME_CACHE).iterdir()) == []


def test_a_vendored_pyodide_other_than_the_pin_is_not_prepared(tmp_path: Path) -> None:
    root = _vendor_copy(tmp_path)
    lock = root / "node_modules/pyodide/pyodide-lock.json"
    lock.unlink()
    lock.write_text("{}")
    with pytest.raises(RuntimeSetupError) as err:
        prepare.prepare_runtime(root)
    pinned = next(e for e in vendor.load_manifest(root) if e["path"] == "node_modules/pyodide/pyodide-lock.json")
    assert str(err.value) == (
        "the vendored Pyodide does not match the manifest:\nnode_modules/pyodide/pyodide-lock.json: size is 2 bytes, "
        f'vendor-manifest.json pins {pinned["size"]} — run "npm ci" to restore the pinned files')
    assert [p.name for p in (root / prepare.RUNTIME_CACHE).iterdir()] == []


def test_pyc_stdlib_boots_in_node(prepared: Path) -> None:
    for stdlib in (STDLIB, FULL_STDLIB):
        report = node_boot_check(prepared, prepared / stdlib)
        assert report["stdout"] == "2", stdlib


# Line and column positions of a stdlib function (from the shipped pyc) and of code compiled at run time.
_POSITIONS = """
import json, random
def summary(code):
    spots = [p for p in code.co_positions() if p[0] is not None]
    return [len(spots), sum(p[2] is not None for p in spots)]
print(json.dumps({"stdlib": summary(random.Random.choice.__code__),
                  "learner": summary(compile("x = [1, 2][5]", "lab.py", "exec"))}))
"""


def test_stdlib_bytecode_keeps_lines_but_not_column_ranges(prepared: Path) -> None:
    """Shipped stdlib pycs carry line numbers (tracebacks) but no column ranges; code compiled in the page has both."""
    for stdlib in (STDLIB, FULL_STDLIB):
        report = node_boot_check(prepared, prepared / stdlib, _POSITIONS)
        found = json.loads(report["stdout"])
        lines, columns = found["stdlib"]
        assert lines > 0 and columns == 0, (stdlib, found)
        lines, columns = found["learner"]
        assert lines > 0 and columns == lines, (stdlib, found)


# Runs in Pyodide on the trimmed stdlib: a finder at the end of sys.meta_path records every stdlib module the
# import system could not find (each would make the browser download the full stdlib).
_RECORD_MISSES = """
import sys, json
from _lessonkit_stdlib import NAMES
MISSES = []
class Recorder:
    def find_spec(self, name, path=None, target=None):
        if name in NAMES:
            MISSES.append(name)
        return None
sys.meta_path.append(Recorder())
"""

# What a lab may commonly do beyond importing: lazy imports inside the stdlib happen on these calls.
_COMMON_USE = """
import collections, dataclasses, datetime, decimal, fractions, functools, heapq, bisect, copy, enum, io, itertools
import json, math, operator, pprint, random, re, statistics, string, textwrap, time, traceback, typing, tokenize
import abc, contextlib, linecache, csv, cmath, secrets, graphlib, timeit, array, unicodedata, hashlib
random.seed("lab"); statistics.stdev([1.0, 2.0, 4.0]); decimal.Decimal("1.1") + 1; fractions.Fraction(1, 3) ** 2
datetime.datetime.strptime("2024-01-02", "%Y-%m-%d"); time.strftime("%Y"); "é".encode("cp1252"); "x".encode("utf-16")
pprint.pformat({"a": [1, 2]}); textwrap.fill("word " * 30); json.loads(json.dumps({"a": 1.5}))
copy.deepcopy({"a": [1]}); list(csv.reader(io.StringIO("a,b"))); dataclasses.dataclass(type("P", (), {}))
try:
    1 / 0
except ZeroDivisionError:
    traceback.format_exc()
"""


def _lab_code_checks() -> str:
    """Python that runs labkit on every lab file (as the worker does) and the common-use snippet."""
    # The lab files of lessons on the core runtime: a lesson with a release of its own or Pyodide packages boots the
    # full stdlib on its page (and its files may import NumPy).
    elsewhere = set()
    for lesson in (FIXTURE / "lesson").glob("*.md"):
        text = lesson.read_text()
        if re.search(r"^(pyodide|requires):", text.split("\n---", 1)[0], re.M):
            elsewhere |= set(re.findall(r"^file:\s*(\S+\.py)\s*$", text, re.M))
    labs = {p.name: p.read_text() for p in sorted((FIXTURE / "lab").glob("*.py")) if p.name not in elsewhere}
    assert labs and elsewhere
    return (
        _RECORD_MISSES
        + "import labkit\n"
        + f"LABS = {labs!r}\n"
        # a widget's file imports its lab's module, as the build's lab host lets it: every lab file is importable
        + "import os, sys\n"
        + "os.makedirs('/labs', exist_ok=True)\n"
        + "for name, code in LABS.items():\n"
        + "    open('/labs/' + name, 'w').write(code)\n"
        + "sys.path.insert(0, '/labs')\n"
        + "for name, code in LABS.items():\n"
        + "    r = labkit.run_code(code, name, write_out=lambda s: None, write_err=print)\n"
        + "    assert r['ok'], (name, r['error'])\n"
        + _COMMON_USE
        + "print(json.dumps(sorted(set(MISSES))))\n"
    )


def test_trimmed_stdlib_holds_what_labkit_and_the_labs_import(tmp_path: Path, prepared: Path) -> None:
    wheel = build_labkit_wheel(ROOT, tmp_path, DEFAULT)
    report = node_boot_check(prepared, prepared / STDLIB, _lab_code_checks(), [tmp_path / wheel])
    assert json.loads(report["stdout"].splitlines()[-1]) == []


def test_left_out_stdlib_module_is_fetched_on_demand(tmp_path: Path, prepared: Path) -> None:
    wheel = build_labkit_wheel(ROOT, tmp_path, DEFAULT)
    # The worker downloads the full zip with a sync XHR; here Node's file system stands in for the network.
    code = f"""
import js, labkit, pyodide_js
from pyodide.ffi import to_js
def mount():
    pyodide_js.FS.mkdirTree("/mnt/full")
    opts = to_js({{"root": {str(prepared / "full")!r}}}, dict_converter=js.Object.fromEntries)
    pyodide_js.FS.mount(pyodide_js.FS.filesystems.NODEFS, opts, "/mnt/full")
    return "/mnt/full/python_stdlib.zip"
labkit.install_stdlib_fallback(mount)
out = []
code = "import xml.dom.minidom, email.mime.text, wave, sqlite3\\n" \
       "print(xml.dom.minidom.parseString('<a>hi</a>').documentElement.tagName, email.mime.text.__name__)\\n" \
       "print(sqlite3.connect(':memory:').execute('select 40 + 2').fetchone()[0])\\n"
r = labkit.run_code(code, "lab.py", write_out=out.append, write_err=out.append)
print(r["ok"], "".join(out).split())
"""
    report = node_boot_check(prepared, prepared / STDLIB, code, [tmp_path / wheel])
    assert report["stdout"].splitlines()[-1] == "True ['a', 'email.mime.text', '42']"


def test_the_0277_runtime_is_prepared_like_the_default() -> None:
    """Its own loader (a classic script), the pyc stdlib from its python312.zip, trimmed and whole, brotli copies."""
    prepared = prepare.prepare_runtime(ROOT, OLD)
    meta = json.loads((prepared / "runtime.json").read_text())
    assert (meta["pyodide"], meta["asm"], meta["stdlib"]["python"]) == ("0.27.7", "pyodide.asm.js", "3.12.7")
    assert set(meta["files"]) == set(runtime_files(OLD))
    for name in runtime_files(OLD):
        assert (prepared / f"{name}.br").stat().st_size == meta["files"][name]["br_size"]
    assert prepared.name.startswith("pyodide-0.27.7-") and prepared == prepare.runtime_dir(ROOT, OLD)
    for stdlib in (STDLIB, FULL_STDLIB):
        assert node_boot_check(prepared, prepared / stdlib)["stdout"] == "2", stdlib


# ---- labkit wheel -----------------------------------------------------------------------------------------


@pytest.fixture
def small_labkit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A small labkit package in tmp_path standing in for the installed one (the wheel is made from whichever
    labkit lessonkit finds beside it); yields its folder."""
    pkg = tmp_path / "lab" / "labkit"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""Test labkit."""\nfrom labkit.sub.mod import VALUE\n')
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "mod.py").write_text("VALUE = 41 + 1\n")
    (pkg / "__pycache__").mkdir()
    (pkg / "__pycache__" / "junk.cpython-311.pyc").write_bytes(b"junk")
    (pkg / ".hidden.py").write_text("LEFT_OUT = True\n")
    monkeypatch.setattr(wheels, "labkit_package", lambda: pkg)
    yield pkg


def _record_hash(data: bytes) -> str:
    """Return a RECORD hash the way installers compute it."""
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def test_labkit_wheel_is_valid(tmp_path: Path, small_labkit: Path) -> None:
    name = build_labkit_wheel(ROOT, tmp_path / "out", DEFAULT)
    match = re.fullmatch(rf"labkit-{re.escape(LABKIT_VERSION)}\+g([0-9a-f]{{8}})-py3-none-any\.whl", name)
    assert match
    version = f"{LABKIT_VERSION}+g{match.group(1)}"
    dist = f"labkit-{version}.dist-info"
    assert (tmp_path / "out" / name).stat().st_mode & 0o777 == 0o644  # readable by the web server
    with zipfile.ZipFile(tmp_path / "out" / name) as zf:
        assert zf.testzip() is None
        names = zf.namelist()
        assert names == [
            "labkit/__init__.py", "labkit/sub/__init__.py", "labkit/sub/mod.py",
            # Bytecode from Pyodide's CPython, where its import system looks for it.
            "labkit/__pycache__/__init__.cpython-314.pyc", "labkit/sub/__pycache__/__init__.cpython-314.pyc",
            "labkit/sub/__pycache__/mod.cpython-314.pyc",
            f"{dist}/METADATA", f"{dist}/WHEEL", f"{dist}/RECORD",
        ]
        pyc = zf.read("labkit/sub/__pycache__/mod.cpython-314.pyc")
        assert int.from_bytes(pyc[4:8], "little") == 0b01  # hash-based, unchecked: no source stat at import
        assert all(i.date_time == (1980, 1, 1, 0, 0, 0) for i in zf.infolist())
        metadata = zf.read(f"{dist}/METADATA").decode()
        assert "Name: labkit\n" in metadata and f"Version: {version}\n" in metadata
        assert "Tag: py3-none-any\n" in zf.read(f"{dist}/WHEEL").decode()
        rows = list(csv.reader(io.StringIO(zf.read(f"{dist}/RECORD").decode())))
        assert {r[0] for r in rows} == set(names)
        for path, digest, size in rows:
            if path.endswith("RECORD"):
                assert digest == size == ""
                continue
            data = zf.read(path)
            assert digest == _record_hash(data) and int(size) == len(data)


def test_labkit_wheel_is_deterministic(tmp_path: Path, small_labkit: Path) -> None:
    first = build_labkit_wheel(ROOT, tmp_path / "a", DEFAULT, pyc=False)
    os.utime(small_labkit / "__init__.py", (0, 0))  # timestamps must not matter
    second = build_labkit_wheel(ROOT, tmp_path / "b", DEFAULT, pyc=False)
    assert first == second
    assert (tmp_path / "a" / first).read_bytes() == (tmp_path / "b" / second).read_bytes()
    (small_labkit / "sub" / "mod.py").write_text("VALUE = 2\n")
    assert build_labkit_wheel(ROOT, tmp_path / "a", DEFAULT, pyc=False) != first  # content change, new name


def test_labkit_wheel_names_differ_by_release_and_bytecode(tmp_path: Path, small_labkit: Path) -> None:
    """Each release's wheel carries bytecode of its own CPython: a name of its own (so neither is taken for the
    other), and the source-only wheel another."""
    names = {build_labkit_wheel(ROOT, tmp_path / "pure", release, pyc=False) for release in runtime.RELEASES.values()}
    assert len(names) == 1  # without bytecode, the wheel is the same for every release
    compiled = {release.version: build_labkit_wheel(ROOT, tmp_path / release.version, release)
                for release in runtime.RELEASES.values()}
    assert len(set(compiled.values()) | names) == len(runtime.RELEASES) + 1
    with zipfile.ZipFile(tmp_path / "0.27.7" / compiled["0.27.7"]) as zf:
        assert "labkit/sub/__pycache__/mod.cpython-312.pyc" in zf.namelist()


def test_a_labkit_without_its_init_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wheels, "labkit_package", lambda: tmp_path / "nowhere")
    with pytest.raises(RuntimeSetupError) as err:
        build_labkit_wheel(ROOT, tmp_path / "c", DEFAULT)
    assert str(err.value) == f"{tmp_path / 'nowhere'}/__init__.py not found: labkit is incomplete — reinstall lessonkit"
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize("release", list(runtime.RELEASES.values()), ids=list(runtime.RELEASES))
def test_labkit_wheel_installs_in_pyodide(tmp_path: Path, small_labkit: Path, release: runtime.Release) -> None:
    """The wheel compiled for a release imports in that release from its bytecode (the source's pyc is present where
    the import system looks, so nothing is compiled at the page's first import)."""
    name = build_labkit_wheel(ROOT, tmp_path / "out", release)
    code = (
        "import labkit, importlib.metadata as m, importlib.util as u, os\n"
        "print(labkit.VALUE, m.version('labkit'), os.path.isfile(u.cache_from_source(labkit.__file__)))"
    )
    prepared = prepare.prepare_runtime(ROOT, release)
    # importlib.metadata is not in the trimmed stdlib (the worker would fetch it on demand).
    report = node_boot_check(prepared, prepared / FULL_STDLIB, code, [tmp_path / "out" / name])
    assert report["stdout"] == f"42 {name.split('-')[1]} True"
    source_only = build_labkit_wheel(ROOT, tmp_path / "out", release, pyc=False)
    assert source_only != name and "__pycache__" not in str(zipfile.ZipFile(tmp_path / "out" / source_only).namelist())


@pytest.mark.parametrize("release", list(runtime.RELEASES.values()), ids=list(runtime.RELEASES))
def test_the_prebuilt_labkit_wheels_are_the_ones_made_from_the_installed_labkit(tmp_path: Path,
                                                                                release: runtime.Release) -> None:
    """`make prebuilt` put in the wheel made from the installed labkit for each release, byte for byte."""
    name = build_labkit_wheel(ROOT, tmp_path, release)
    assert name == json.loads((PREBUILT / "manifest.json").read_text())["wheels"]["labkit"][release.version]
    assert (tmp_path / name).read_bytes() == (PREBUILT / "wheels" / name).read_bytes()


# ---- the prebuilt files as made ---------------------------------------------------------------------------------


def test_the_prebuilt_runtime_is_the_prepared_one_with_the_official_lock() -> None:
    """Each release's folder in the prebuilt files: the prepared brotli copies, runtime.json and the npm package's own
    pyodide-lock.json, byte for byte."""
    for release in runtime.RELEASES.values():
        prepared = prepare.prepare_runtime(ROOT, release)
        folder = PREBUILT / "runtime" / release.version
        assert json.loads((folder / "runtime.json").read_text()) == json.loads((prepared / "runtime.json").read_text())
        for name in runtime_files(release):
            assert (folder / f"{name}.br").read_bytes() == (prepared / f"{name}.br").read_bytes(), name
        assert (folder / "pyodide-lock.json").read_bytes() == (ROOT / release.folder / "pyodide-lock.json").read_bytes()


# ---- editor bundle ----------------------------------------------------------------------------------------


def test_the_editor_bundle_is_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "proj"
    package = root / "pkg"  # the package's modules, inside the repository (esbuild finds node_modules above them)
    (package / "static" / "js" / "lab").mkdir(parents=True)
    (root / "node_modules").symlink_to(ROOT / "node_modules")
    shutil.copy(ROOT / "package-lock.json", root / "package-lock.json")
    (package / "static/js/lab/editor-entry.js").write_text(
        'import { EditorView } from "codemirror";\nimport { label } from "./editor-label.js";\n'
        "export function make(parent) { return new EditorView({ parent, doc: label }); }\n"
    )
    (package / "static/js/lab/editor-label.js").write_text('export const label = "first label";\n')
    monkeypatch.setattr(bundles, "PACKAGE", package)
    monkeypatch.setattr(bundles, "STATIC", package / "static")
    out = tmp_path / "prebuilt" / "js"
    inputs = bundles.make_editor(root, out)
    assert inputs == ["static/js/lab/editor-entry.js", "static/js/lab/editor-label.js"]  # what the build checks
    text = (out / "editor.js").read_text()
    assert "first label" in text and "\n\n" not in text  # bundled and minified
    packed = out / "editor.js.br"  # precompressed sibling, served when the browser accepts br
    assert brotli.decompress(packed.read_bytes()) == (out / "editor.js").read_bytes()
    assert packed.stat().st_size < len(text) / 2
    assert re.search(r"export\s*\{", text)  # still an ES module

    calls: list[Any] = []
    real_run = subprocess.run

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(subprocess, "run", spy)
    again = tmp_path / "again" / "js"
    bundles.make_editor(root, again)
    assert calls == [] and (again / "editor.js").read_bytes() == (out / "editor.js").read_bytes()  # esbuild not run
    assert (again / "editor.js.br").read_bytes() == packed.read_bytes()
    (package / "static/js/lab/editor-label.js").write_text('export const label = "second label";\n')
    bundles.make_editor(root, again)
    assert len(calls) == 1 and "second label" in (again / "editor.js").read_text()  # an imported module changed
