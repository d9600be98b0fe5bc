"""Tests for lessonkit.runtime: vendor manifest, prepared runtime, wheels, requirements, editor bundle (no network)."""

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
from pathlib import Path
from typing import Any

import brotli
import pytest
from places import FIXTURE

from lessonkit import runtime
from lessonkit.assets import editor as assets

ROOT = Path(__file__).resolve().parent.parent
MICROPIP = ROOT / runtime.WHEEL_CACHE / f"micropip-{runtime.MICROPIP_VERSION}-py3-none-any.whl"
needs_micropip = pytest.mark.skipif(
    not MICROPIP.is_file(), reason='micropip wheel not cached: run "python -m lessonkit.runtime check" once (network)'
)


@pytest.fixture(scope="session")
def prepared() -> Path:
    """The prepared runtime of the real tree (built once, ~1 min, when the cache is cold)."""
    return runtime.prepare_runtime(ROOT)


def _vendor_copy(tmp_path: Path) -> Path:
    """Return a project root in tmp_path whose vendored files are copies (small) or symlinks (large, read-only)."""
    root = tmp_path / "proj"
    root.mkdir()
    shutil.copy(ROOT / runtime.MANIFEST_NAME, root / runtime.MANIFEST_NAME)
    for entry in json.loads((ROOT / runtime.MANIFEST_NAME).read_text())["files"]:
        src, dst = ROOT / entry["path"], root / entry["path"]
        dst.parent.mkdir(parents=True, exist_ok=True)
        if entry["size"] < 100_000:
            shutil.copy(src, dst)  # small files are real copies, safe to tamper with
        else:
            dst.symlink_to(src)
    return root


# ---- vendor manifest ----------------------------------------------------------------------------------------


@needs_micropip
def test_manifest_matches_real_tree() -> None:
    assert runtime.check_vendor(ROOT) == []


def test_manifest_pins_expected_files() -> None:
    entries = json.loads((ROOT / runtime.MANIFEST_NAME).read_text())["files"]
    paths = {e["path"]: e for e in entries}
    for name in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json"):
        assert paths[f"node_modules/pyodide/{name}"]["version"] == runtime.PYODIDE_VERSION
    assert paths["node_modules/axe-core/axe.min.js"]["version"] == "4.14.1"
    assert MICROPIP.relative_to(ROOT).as_posix() in paths
    for entry in entries:
        assert re.fullmatch(r"[0-9a-f]{64}", entry["sha256"]) and entry["size"] > 0


@needs_micropip
def test_manifest_reports_tampered_copy(tmp_path: Path) -> None:
    root = _vendor_copy(tmp_path)
    assert runtime.check_vendor(root) == []  # also fills the stat cache, which must not hide the edit below
    target = root / "node_modules/pyodide/pyodide.mjs"
    data = bytearray(target.read_bytes())
    data[-2] ^= 1  # same size, different content
    target.write_bytes(bytes(data))
    problems = runtime.check_vendor(root)
    assert len(problems) == 1
    actual = hashlib.sha256(data).hexdigest()
    assert problems[0].startswith(f"node_modules/pyodide/pyodide.mjs: sha256 is {actual}, vendor-manifest.json pins ")
    assert problems[0].endswith('run "npm ci" to restore the pinned files')


@needs_micropip
def test_manifest_reports_missing_and_resized(tmp_path: Path) -> None:
    root = _vendor_copy(tmp_path)
    (root / "node_modules/pyodide/pyodide-lock.json").unlink()
    with (root / "node_modules/pyodide/pyodide.mjs").open("ab") as fh:
        fh.write(b"\n")
    problems = runtime.check_vendor(root)
    assert any(p.startswith("node_modules/pyodide/pyodide-lock.json: missing") and "npm ci" in p for p in problems)
    assert any(p.startswith("node_modules/pyodide/pyodide.mjs: size is ") for p in problems)


def test_manifest_version_mismatch_and_absence(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    assert "update-manifest" in runtime.check_vendor(root)[0]
    manifest = json.loads((ROOT / runtime.MANIFEST_NAME).read_text())
    manifest["files"] = [e for e in manifest["files"] if e["source"] == "npm"]
    manifest["files"][0]["version"] = "0.0.1"
    (root / runtime.MANIFEST_NAME).write_text(json.dumps(manifest))
    problems = runtime.check_vendor(root)
    assert any("pins pyodide 0.0.1, lessonkit.runtime expects 314.0.7" in p for p in problems)
    assert any("micropip" in p and "not in vendor-manifest.json" in p for p in problems)


# ---- prepared runtime -------------------------------------------------------------------------------------


def test_prepared_runtime_contents(prepared: Path) -> None:
    meta = json.loads((prepared / "runtime.json").read_text())
    assert prepared.name.startswith(f"pyodide-{runtime.PYODIDE_VERSION}-")
    assert meta["lock_info"] == json.loads((ROOT / "node_modules/pyodide/pyodide-lock.json").read_text())["info"]
    for name in runtime.RUNTIME_FILES:
        info = meta["files"][name]
        assert (prepared / name).stat().st_size == info["size"]
        assert (prepared / f"{name}.br").stat().st_size == info["br_size"] < info["size"]
    assert brotli.decompress((prepared / "pyodide.mjs.br").read_bytes()) == (prepared / "pyodide.mjs").read_bytes()
    with zipfile.ZipFile(prepared / runtime.FULL_STDLIB) as zf:
        names = zf.namelist()
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
    assert not [n for n in names if n.endswith(".py")]
    assert {"json/__init__.pyc", "traceback.pyc", "_pyodide/__init__.pyc", "xml/dom/minidom.pyc"} <= set(names)
    with zipfile.ZipFile(prepared / runtime.STDLIB) as zf:
        trimmed = set(zf.namelist())
        assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
    assert {"json/__init__.pyc", "random.pyc", "_lessonkit_stdlib.pyc"} <= trimmed and "xml/__init__.pyc" not in trimmed
    assert trimmed - {"_lessonkit_stdlib.pyc"} < set(names)
    assert meta["files"][runtime.STDLIB]["br_size"] < meta["files"][runtime.FULL_STDLIB]["br_size"] / 1.5
    assert "random" in (prepared / "python_stdlib.txt").read_text().split()


def test_prepare_is_cached(prepared: Path) -> None:
    assert runtime.prepare_runtime(ROOT) == prepared
    assert runtime.runtime_dir(ROOT) == prepared


def test_failed_prepare_leaves_no_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    shutil.copy(ROOT / runtime.MANIFEST_NAME, root / runtime.MANIFEST_NAME)

    def crash(_root: Path, tmp: Path, _release: runtime.Release) -> None:
        (tmp / "python_stdlib.zip").write_bytes(b"half")
        raise RuntimeError("boom")

    monkeypatch.setattr(runtime.prepare, "_prepare_into", crash)
    with pytest.raises(RuntimeError, match="boom"):
        runtime.prepare_runtime(root)
    assert list((root / runtime.RUNTIME_CACHE).iterdir()) == []


def test_pyc_stdlib_boots_in_node(prepared: Path) -> None:
    for stdlib in (runtime.STDLIB, runtime.FULL_STDLIB):
        report = runtime.node_boot_check(prepared, prepared / stdlib)
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
    for stdlib in (runtime.STDLIB, runtime.FULL_STDLIB):
        report = runtime.node_boot_check(prepared, prepared / stdlib, _POSITIONS)
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
    wheel = runtime.build_labkit_wheel(FIXTURE / "lab", tmp_path)
    report = runtime.node_boot_check(prepared, prepared / runtime.STDLIB, _lab_code_checks(), [tmp_path / wheel])
    assert json.loads(report["stdout"].splitlines()[-1]) == []


def test_left_out_stdlib_module_is_fetched_on_demand(tmp_path: Path, prepared: Path) -> None:
    wheel = runtime.build_labkit_wheel(FIXTURE / "lab", tmp_path)
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
    report = runtime.node_boot_check(prepared, prepared / runtime.STDLIB, code, [tmp_path / wheel])
    assert report["stdout"].splitlines()[-1] == "True ['a', 'email.mime.text', '42']"


# ---- write_runtime / page config ---------------------------------------------------------------------------


@needs_micropip
def test_write_runtime_layout(tmp_path: Path, prepared: Path) -> None:
    site = tmp_path / "site"
    fragment = runtime.write_runtime(site, ROOT)
    base = f"runtime/{runtime.site_dirname(ROOT)}/"
    assert runtime.site_dirname(ROOT) == f"pyodide-314.0.7-{prepared.name.rsplit('-', 1)[1][:8]}"
    assert fragment == {
        "pyodide": "314.0.7",
        "asmScript": False,
        "inlineLock": True,
        "indexURL": base,
        "pyodideURL": base + "pyodide.mjs",
        "asmURL": base + "pyodide.asm.mjs",
        "stdLibURL": base + "python_stdlib.zip",
        "stdLibFullURL": base + "full/python_stdlib.zip",
        "lock": {"info": json.loads((prepared / "runtime.json").read_text())["lock_info"], "packages": {}},
        "micropip": [],
        "requirements": [],
        "sizes": {n: (prepared / n).stat().st_size for n in ("pyodide.asm.wasm", "python_stdlib.zip")},
        "fullStdLibSize": (prepared / runtime.FULL_STDLIB).stat().st_size,
    }
    folder = site / "runtime" / runtime.site_dirname(ROOT)
    expected = {n for name in runtime.RUNTIME_FILES for n in (name, f"{name}.br")}
    assert {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} == expected
    for name in expected:
        assert (folder / name).stat().st_size == (prepared / name).stat().st_size
    assert (folder / "pyodide.mjs").read_bytes() == (prepared / "pyodide.mjs").read_bytes()
    assert os.path.samefile(folder / "pyodide.asm.wasm", prepared / "pyodide.asm.wasm")  # hard link, no copy
    assert sorted(p.name for p in (site / "runtime" / "wheels").iterdir()) == [MICROPIP.name]
    runtime.write_runtime(site, ROOT)  # a second write into the same site is a no-op, not an error


def test_page_config(prepared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fragment = runtime.runtime_fragment(ROOT)
    plain = runtime.page_runtime_config(fragment, worker="static/h/js/lab-worker.js", labkit="runtime/wheels/l.whl")
    assert list(plain) == ["pyodide", "releases", "asmScript", "inlineLock", "worker", "workerIntegrity", "indexURL",
                           "pyodideURL", "asmURL", "stdLibURL", "stdLibFullURL", "lock", "packages", "labkit",
                           "micropip", "requirements", "sizes"]
    assert plain["releases"] == ["314.0.7"]
    assert plain["micropip"] == [] and plain["requirements"] == [] and plain["lock"]["packages"] == {}
    assert plain["sizes"]["python_stdlib.zip"] == (prepared / "python_stdlib.zip").stat().st_size
    extra = runtime.page_runtime_config(fragment, worker="w.js", labkit="l.whl", requirements=["runtime/wheels/t.whl"])
    assert extra["micropip"] == [f"runtime/wheels/micropip-{runtime.MICROPIP_VERSION}-py3-none-any.whl"]
    assert extra["requirements"] == ["runtime/wheels/t.whl"]
    # micropip imports what the trimmed stdlib leaves out: such pages boot with the full one.
    assert extra["stdLibURL"] == extra["stdLibFullURL"] == f"runtime/{runtime.site_dirname(ROOT)}/full/python_stdlib.zip"
    assert extra["sizes"]["python_stdlib.zip"] == (prepared / runtime.FULL_STDLIB).stat().st_size


# ---- labkit wheel -----------------------------------------------------------------------------------------


def _make_package(base: Path, body: str = "VALUE = 1\n") -> Path:
    """Create a small labkit package under base and return base."""
    pkg = base / "labkit"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""Test labkit."""\nfrom labkit.sub.mod import VALUE\n')
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "mod.py").write_text(body)
    (pkg / "__pycache__").mkdir()
    (pkg / "__pycache__" / "junk.cpython-311.pyc").write_bytes(b"junk")
    return base


def _record_hash(data: bytes) -> str:
    """Return a RECORD hash the way installers compute it."""
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def test_labkit_wheel_is_valid(tmp_path: Path) -> None:
    lab = _make_package(tmp_path / "lab")
    name = runtime.build_labkit_wheel(lab, tmp_path / "out")
    match = re.fullmatch(r"labkit-0\.1\.0\+g([0-9a-f]{8})-py3-none-any\.whl", name)
    assert match
    version = f"0.1.0+g{match.group(1)}"
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


def test_labkit_wheel_is_deterministic(tmp_path: Path) -> None:
    lab = _make_package(tmp_path / "lab")
    first = runtime.build_labkit_wheel(lab, tmp_path / "a")
    os.utime(lab / "labkit" / "__init__.py", (0, 0))  # timestamps must not matter
    second = runtime.build_labkit_wheel(lab, tmp_path / "b")
    assert first == second
    assert (tmp_path / "a" / first).read_bytes() == (tmp_path / "b" / second).read_bytes()
    (lab / "labkit" / "sub" / "mod.py").write_text("VALUE = 2\n")
    assert runtime.build_labkit_wheel(lab, tmp_path / "a") != first  # content change, new name


def test_labkit_wheel_accepts_package_dir_and_rejects_missing(tmp_path: Path) -> None:
    lab = _make_package(tmp_path / "lab")
    package = runtime.build_labkit_wheel(lab / "labkit", tmp_path / "a", pyc=False)
    assert package == runtime.build_labkit_wheel(lab, tmp_path / "b", pyc=False)
    with pytest.raises(runtime.RuntimeSetupError, match=r"__init__\.py not found"):
        runtime.build_labkit_wheel(tmp_path / "nowhere", tmp_path / "c")


def test_labkit_wheel_installs_in_pyodide(tmp_path: Path, prepared: Path) -> None:
    lab = _make_package(tmp_path / "lab", "VALUE = 41 + 1\n")
    name = runtime.build_labkit_wheel(lab, tmp_path / "out")
    code = (
        "import labkit, importlib.metadata as m, importlib.util as u, os\n"
        "print(labkit.VALUE, m.version('labkit'), os.path.isfile(u.cache_from_source(labkit.__file__)))"
    )
    # importlib.metadata is not in the trimmed stdlib (the worker would fetch it on demand).
    report = runtime.node_boot_check(prepared, prepared / runtime.FULL_STDLIB, code, [tmp_path / "out" / name])
    assert report["stdout"] == f"42 {name.split('-')[1]} True"
    source_only = runtime.build_labkit_wheel(lab, tmp_path / "out", pyc=False)
    assert source_only != name and "__pycache__" not in str(zipfile.ZipFile(tmp_path / "out" / source_only).namelist())


# ---- lesson requirements ----------------------------------------------------------------------------------


def _fake_wheel(root: Path, name: str) -> Path:
    """Put an (empty) wheel file into root's wheel cache so no download is attempted."""
    path = root / runtime.WHEEL_CACHE / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    return path


def test_requirements_use_cache(tmp_path: Path) -> None:
    wheel = _fake_wheel(tmp_path, "tabulate-0.9.0-py3-none-any.whl")
    other = _fake_wheel(tmp_path, "Typing_Extensions-4.0.0-py2.py3-none-any.whl")
    assert runtime.fetch_requirements(["tabulate==0.9.0", "typing-extensions == 4.0.0"], tmp_path) == [wheel, other]


def test_requirements_reject_non_pure(tmp_path: Path) -> None:
    _fake_wheel(tmp_path, "numpy-2.3.0-cp314-cp314-pyodide_2026_0_wasm32.whl")
    with pytest.raises(runtime.RuntimeSetupError) as err:
        runtime.fetch_requirements(["numpy==2.3.0"], tmp_path)
    message = str(err.value)
    assert "numpy==2.3.0: numpy-2.3.0-cp314-cp314-pyodide_2026_0_wasm32.whl is not a pure-Python wheel" in message
    assert "(tag cp314-cp314-pyodide_2026_0_wasm32)" in message


@pytest.mark.parametrize("req", ["tabulate", "tabulate>=0.9", "tabulate==0.9.*", "-e ."])
def test_requirements_must_be_pinned(tmp_path: Path, req: str) -> None:
    with pytest.raises(runtime.RuntimeSetupError, match="must be pinned exactly"):
        runtime.fetch_requirements([req], tmp_path)


def test_write_requirements_links(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    _fake_wheel(root, "tabulate-0.9.0-py3-none-any.whl")
    urls = runtime.write_wheels(tmp_path / "site", runtime.fetch_requirements(["tabulate==0.9.0"], root))
    assert urls == ["runtime/wheels/tabulate-0.9.0-py3-none-any.whl"]
    assert (tmp_path / "site" / urls[0]).is_file()


# ---- editor bundle ----------------------------------------------------------------------------------------


def test_bundle_editor_is_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "proj"
    (root / "static" / "js" / "lab").mkdir(parents=True)
    (root / "node_modules").symlink_to(ROOT / "node_modules")
    shutil.copy(ROOT / "package-lock.json", root / "package-lock.json")
    (root / "static/js/lab/editor-entry.js").write_text(
        'import { EditorView } from "codemirror";\nimport { label } from "./editor-label.js";\n'
        "export function make(parent) { return new EditorView({ parent, doc: label }); }\n"
    )
    (root / "static/js/lab/editor-label.js").write_text('export const label = "first label";\n')
    out = tmp_path / "site" / "static" / "h" / "js" / "editor.js"
    assets.write_editor(assets.editor_bundle(root), out)
    text = out.read_text()
    assert "first label" in text and "\n\n" not in text  # bundled and minified
    packed = out.with_name("editor.js.br")  # precompressed sibling, served when the browser accepts br
    assert brotli.decompress(packed.read_bytes()) == out.read_bytes() and packed.stat().st_size < len(text) / 2
    assert re.search(r"export\s*\{", text)  # still an ES module

    calls: list[Any] = []
    real_run = subprocess.run

    def spy(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real_run(*args, **kwargs)

    monkeypatch.setattr(subprocess, "run", spy)
    out2 = tmp_path / "site2" / "editor.js"
    assets.write_editor(assets.editor_bundle(root), out2)
    assert calls == [] and out2.read_bytes() == out.read_bytes()  # cache hit: esbuild not run
    assert out2.with_name("editor.js.br").read_bytes() == packed.read_bytes()
    (root / "static/js/lab/editor-label.js").write_text('export const label = "second label";\n')
    assets.write_editor(assets.editor_bundle(root), out2)
    assert len(calls) == 1 and "second label" in out2.read_text()  # an imported local module changed: rebuilt


# ---- Pyodide 0.27.7, the release a course may choose for NumPy ------------------------------------------------

def test_the_0277_runtime_is_prepared_like_the_default() -> None:
    """Its own loader (a classic script), the pyc stdlib from its python312.zip, trimmed and whole, brotli copies."""
    release = runtime.get_release("0.27.7")
    prepared = runtime.prepare_runtime(ROOT, release)
    meta = json.loads((prepared / "runtime.json").read_text())
    assert (meta["pyodide"], meta["asm"], meta["stdlib"]["python"]) == ("0.27.7", "pyodide.asm.js", "3.12.7")
    assert set(meta["files"]) == set(runtime.runtime_files(release))
    for name in runtime.runtime_files(release):
        assert (prepared / f"{name}.br").stat().st_size == meta["files"][name]["br_size"]
    assert runtime.site_dirname(ROOT, release).startswith("pyodide-0.27.7-")
    for stdlib in (runtime.STDLIB, runtime.FULL_STDLIB):
        assert runtime.node_boot_check(prepared, prepared / stdlib)["stdout"] == "2", stdlib
