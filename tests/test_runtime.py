"""Tests for the reader side of the prebuilt files (what a build on an author's machine does with them, no Node, no
network): lessonkit.core.prebuilt's manifest check and its refusal of files made from other sources than the
package's; lessonkit.runtime: each release unpacked from its brotli copies into the user cache and checked against
runtime.json, the site's runtime folder named by its content, the prebuilt wheels, what a page boots with, and a
lesson's pinned pure-Python requirements. Making the prebuilt files is tests/test_prebuild.py's."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import brotli
import pytest
from course import tiny_index
from prebuilt_copies import copy_prebuilt, made_up, manifest_of, rewrite, write_manifest

from lessonkit import __version__, blocks, runtime
from lessonkit.assets import editor, scripts, styles
from lessonkit.core import prebuilt
from lessonkit.core.places import PREBUILT, labkit_package, user_cache
from lessonkit.prebuild.node import node_boot_check
from lessonkit.runtime import prepared, requirements, wheels

DEFAULT = runtime.get_release()
OLD = runtime.get_release("0.27.7")
RELEASES = list(runtime.RELEASES.values())
REMAKE = ("in a source checkout of lessonkit, run `make prebuilt`; an installed lessonkit is incomplete: reinstall it "
          "(pip install --force-reinstall lessonkit)")


def test_the_remedy_is_the_one_every_refusal_names() -> None:
    assert prebuilt.REMAKE == REMAKE


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user cache of this test's own (the record of verified prebuilt files, the unpacked runtime)."""
    path = tmp_path / "cache"
    monkeypatch.setenv("LESSONKIT_CACHE", str(path))
    assert user_cache() == path
    return path


@pytest.fixture
def copy(tmp_path: Path, cache: Path) -> Path:
    """A copy of the package's prebuilt files, checked with a user cache of its own."""
    return copy_prebuilt(tmp_path / "_prebuilt")


def refusal(call: Callable[[], Any]) -> str:
    """The message of the RuntimeSetupError the call raises."""
    with pytest.raises(runtime.RuntimeSetupError) as err:
        call()
    return str(err.value)


# ---- the manifest: every prebuilt file has the size and sha256 it lists ----------------------------------------


def test_the_packages_prebuilt_files_match_their_manifest(copy: Path) -> None:
    data = prebuilt.manifest(copy)
    assert (data["format"], data["lessonkit"]) == (prebuilt.FORMAT, __version__)
    assert data["files"] == manifest_of(PREBUILT)["files"] and data["files"]
    assert prebuilt.manifest() == manifest_of(PREBUILT)  # the installed folder itself


def test_a_tampered_prebuilt_file_is_refused(copy: Path) -> None:
    rel = "js/main.js"
    data = bytearray((copy / rel).read_bytes())
    data[len(data) // 2] ^= 1  # the same size, other bytes
    (copy / rel).write_bytes(bytes(data))
    listed = manifest_of(copy)["files"][rel][1]
    assert refusal(lambda: prebuilt.manifest(copy)) == (
        f"{copy}: prebuilt files do not match their manifest — {REMAKE}:\n"
        f"  {rel}: sha256 {hashlib.sha256(data).hexdigest()}, the manifest says {listed}")


def test_missing_and_resized_prebuilt_files_are_refused_all_at_once(copy: Path) -> None:
    (copy / "runtime/314.0.7/runtime.json").unlink()
    size = (copy / "css/site.css").stat().st_size
    with (copy / "css/site.css").open("a") as fh:
        fh.write("\n")
    assert refusal(lambda: prebuilt.manifest(copy)) == (
        f"{copy}: prebuilt files do not match their manifest — {REMAKE}:\n"
        f"  css/site.css: {size + 1} bytes, the manifest says {size}\n"
        "  runtime/314.0.7/runtime.json: missing")


def test_a_file_checked_before_is_read_again_once_it_changed(copy: Path, cache: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A build process trusts the record of the files an earlier one checked only while each one's stat holds."""
    prebuilt.manifest(copy)
    assert (cache / "prebuilt-verified.json").is_file()
    prebuilt._checked.cache_clear()  # a new build process

    def unread(path: Path) -> str:
        raise AssertionError(f"{path} was read again")

    with monkeypatch.context() as patched:
        patched.setattr(prebuilt, "sha256_path", unread)
        prebuilt.manifest(copy)  # nothing changed: stats only
    rel = "runtime/0.27.7/runtime.json"
    text = (copy / rel).read_text()
    (copy / rel).write_text(text.replace('"pyodide": "0.27.7"', '"pyodide": "0.27.8"'))  # the same size
    prebuilt._checked.cache_clear()
    assert "  runtime/0.27.7/runtime.json: sha256 " in refusal(lambda: prebuilt.manifest(copy))


def test_a_missing_prebuilt_folder_is_refused(tmp_path: Path, cache: Path) -> None:
    assert refusal(lambda: prebuilt.manifest(tmp_path / "none")) == (
        f"{tmp_path / 'none'}: lessonkit's prebuilt files are missing — {REMAKE}")


def test_prebuilt_files_of_another_lessonkit_are_refused(tmp_path: Path, cache: Path) -> None:
    folder = made_up(tmp_path / "other", {"css/site.css": b"p{}"}, lessonkit="0.0.1")
    assert refusal(lambda: prebuilt.manifest(folder)) == (
        f"{folder}: prebuilt for lessonkit 0.0.1 (format 1), this is lessonkit {__version__} — {REMAKE}")
    (folder / "manifest.json").write_text("{")
    assert refusal(lambda: prebuilt.manifest(folder)) == (
        f"{folder / 'manifest.json'}: not JSON (Expecting property name enclosed in double quotes: line 1 column 2 "
        f"(char 1)) — {REMAKE}")


# ---- made from the package's sources ----------------------------------------------------------------------------

# Each part of the prebuilt files the build reads, made from sources in the package: how the build reads it, and
# what its refusal calls it.
READERS: dict[str, tuple[Callable[[Path, Path], Any], str]] = {
    "js": (lambda folder, _tmp: scripts.page_bundle(blocks.types(), folder), "page bundles"),
    "css": (lambda folder, tmp: styles.bundle_styles(blocks.types(), None, tmp, folder), "styles"),
    "labkit": (lambda folder, _tmp: wheels.labkit_wheel(DEFAULT, folder), "labkit wheels"),
    "editor": (lambda folder, _tmp: editor.editor_bundle(folder), "editor bundle"),
}


@pytest.mark.parametrize("part", list(READERS))
def test_a_part_made_from_other_sources_is_refused(part: str, copy: Path, tmp_path: Path) -> None:
    read, what = READERS[part]
    read(copy, tmp_path)  # made from the installed sources: read
    data = manifest_of(copy)
    ours = data["sources"][part]
    data["sources"][part] = "0" * 16
    write_manifest(copy, data)
    assert refusal(lambda: read(copy, tmp_path)) == (
        f"{copy}: the prebuilt {what}: made from other sources than this lessonkit's ({part} {'0' * 16} ≠ "
        f"{ours}) — {REMAKE}")


def _edited_block_type(tmp_path: Path, name: str, file: str) -> dict[str, blocks.BlockType]:
    """The block types with one of the toolkit's own read from an edited copy of its folder."""
    kinds = dict(blocks.types())
    folder = tmp_path / "blocks" / name
    shutil.copytree(kinds[name].folder, folder, ignore=shutil.ignore_patterns("__pycache__"))
    with (folder / file).open("a", encoding="utf-8") as fh:
        fh.write("\n/* edited after the prebuilt files were made */\n")
    kinds[name] = dataclasses.replace(kinds[name], folder=folder)
    return kinds


def test_bundles_older_than_a_page_module_are_refused(tmp_path: Path) -> None:
    kinds = _edited_block_type(tmp_path, "quiz", "quiz.js")
    message = refusal(lambda: scripts.page_bundle(kinds))
    assert message.startswith(f"{PREBUILT}: the prebuilt page bundles: made from other sources than this "
                              f"lessonkit's (js {manifest_of(PREBUILT)['sources']['js']} ≠ ")
    assert message.endswith(f") — {REMAKE}")


def test_a_stylesheet_older_than_a_block_types_styles_is_refused(tmp_path: Path) -> None:
    kinds = _edited_block_type(tmp_path, "quiz", "quiz.css")
    message = refusal(lambda: styles.bundle_styles(kinds, None, tmp_path))
    assert message.startswith(f"{PREBUILT}: the prebuilt styles: made from other sources than this lessonkit's "
                              f"(css {manifest_of(PREBUILT)['sources']['css']} ≠ ")


def test_labkit_wheels_older_than_labkit_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    edited = tmp_path / "labkit"
    shutil.copytree(labkit_package(), edited, ignore=shutil.ignore_patterns("__pycache__"))
    with (edited / "_run.py").open("a", encoding="utf-8") as fh:
        fh.write("\n# edited after the prebuilt files were made\n")
    monkeypatch.setattr(wheels, "labkit_package", lambda: edited)
    for release in RELEASES:
        message = refusal(lambda release=release: wheels.labkit_wheel(release))
        assert message.startswith(f"{PREBUILT}: the prebuilt labkit wheels: made from other sources than this "
                                  f"lessonkit's (labkit {manifest_of(PREBUILT)['sources']['labkit']} ≠ ")


def test_an_editor_older_than_its_entry_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "lessonkit"
    for rel in manifest_of(PREBUILT)["editor"]["inputs"]:
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_bytes((PREBUILT.parent / rel).read_bytes() + b"\n// edited\n")
    monkeypatch.setattr(editor, "PACKAGE", package)
    message = refusal(editor.editor_bundle)
    assert message.startswith(f"{PREBUILT}: the prebuilt editor bundle: made from other sources than this "
                              f"lessonkit's (editor {manifest_of(PREBUILT)['sources']['editor']} ≠ ")


# ---- each release unpacked into the user cache -------------------------------------------------------------------


def test_each_release_is_unpacked_from_its_brotli_copies(cache: Path) -> None:
    for release in RELEASES:
        source = PREBUILT / "runtime" / release.version
        meta = json.loads((source / "runtime.json").read_text())
        found = runtime.runtime_dir(release)
        assert found.parent == cache / "runtime" and found.name.startswith(f"pyodide-{release.version}-")
        assert runtime.site_dirname(release) == found.name[: len(f"pyodide-{release.version}-") + 8]
        for name in runtime.runtime_files(release):
            data = (found / name).read_bytes()
            assert len(data) == meta["files"][name]["size"]
            assert hashlib.sha256(data).hexdigest() == meta["files"][name]["sha256"]
            assert data == brotli.decompress((source / f"{name}.br").read_bytes())
            assert (found / f"{name}.br").read_bytes() == (source / f"{name}.br").read_bytes()  # served as it is
        assert json.loads((found / "runtime.json").read_text()) == meta
        assert runtime.runtime_dir(release) == found
    assert sorted(p.name for p in (cache / "runtime").iterdir()) == sorted(
        runtime.runtime_dir(r).name for r in RELEASES)  # nothing half made beside them


def test_a_brotli_copy_that_unpacks_to_other_bytes_is_refused(copy: Path, cache: Path) -> None:
    rel = "runtime/314.0.7/pyodide.mjs.br"
    rewrite(copy, rel, brotli.compress(b"export const loadPyodide = null;\n"))  # the manifest lists it as it is
    want = json.loads((copy / "runtime/314.0.7/runtime.json").read_text())["files"]["pyodide.mjs"]["sha256"]
    assert refusal(lambda: runtime.runtime_dir(DEFAULT, copy)) == (
        f"{copy / rel}: unpacks to other bytes than runtime.json's sha256 {want} — {REMAKE}")
    assert list((cache / "runtime").iterdir()) == []  # nothing left for the next build to take as unpacked


def test_a_release_the_prebuilt_files_lack_is_refused(copy: Path) -> None:
    data = manifest_of(copy)
    data["files"] = {rel: entry for rel, entry in data["files"].items() if not rel.startswith("runtime/0.27.7/")}
    write_manifest(copy, data)
    shutil.rmtree(copy / "runtime/0.27.7")
    assert refusal(lambda: runtime.runtime_dir(OLD, copy)) == (
        f"{copy / 'runtime/0.27.7'}: Pyodide 0.27.7 is not in lessonkit's prebuilt files — {REMAKE}")
    assert refusal(lambda: prepared.release_lock(OLD, copy)) == refusal(lambda: runtime.runtime_dir(OLD, copy))


def test_the_sites_runtime_folder_is_named_by_the_runtimes_files(tmp_path: Path, cache: Path) -> None:
    first = copy_prebuilt(tmp_path / "first")
    name = runtime.site_dirname(DEFAULT, first)
    assert re.fullmatch(r"pyodide-314\.0\.7-[0-9a-f]{8}", name) and name == runtime.site_dirname(DEFAULT)
    other = copy_prebuilt(tmp_path / "other")
    rel = "runtime/314.0.7/runtime.json"
    meta = json.loads((other / rel).read_text())
    meta["files"]["python_stdlib.zip"]["sha256"] = "0" * 64
    rewrite(other, rel, json.dumps(meta).encode())
    assert runtime.site_dirname(DEFAULT, other) != name  # other files: another URL, never a stale immutable copy
    assert runtime.site_dirname(OLD, other) == runtime.site_dirname(OLD, first)


@pytest.mark.parametrize("release", RELEASES, ids=[r.version for r in RELEASES])
def test_the_unpacked_runtime_boots_the_prebuilt_labkit(release: runtime.Release) -> None:
    """What a page gets, under Node: the runtime unpacked from the prebuilt files, on its trimmed stdlib, imports the
    prebuilt labkit wheel from the bytecode compiled for its own Python, and runs a lab through it."""
    found = runtime.runtime_dir(release)
    code = (
        "import importlib.util as u, os, sys, labkit\n"
        "out = []\n"
        "r = labkit.run_code('print(6 * 7)', 'lab.py', write_out=out.append, write_err=out.append)\n"
        "print('%d.%d' % sys.version_info[:2], os.path.isfile(u.cache_from_source(labkit.__file__)), r['ok'],"
        " ''.join(out).strip())"
    )
    report = node_boot_check(found, found / runtime.STDLIB, code, [runtime.labkit_wheel(release)])
    assert report["stdout"] == f"{release.python} True True 42"


# ---- the prebuilt wheels -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("release", RELEASES, ids=[r.version for r in RELEASES])
def test_the_prebuilt_labkit_wheel_holds_the_installed_labkit(release: runtime.Release) -> None:
    wheel = runtime.labkit_wheel(release)
    assert wheel.parent == PREBUILT / "wheels" and wheel.name == manifest_of(PREBUILT)["wheels"]["labkit"][release.version]
    sources = dict(wheels.labkit_sources())
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        assert {n: zf.read(n) for n in names if not n.startswith("labkit-") and "__pycache__" not in n} == sources
    compiled = {n for n in names if "__pycache__" in n}
    assert compiled == {f"{n.rpartition('/')[0]}/__pycache__/{n.rpartition('/')[2][:-3]}.{release.cache_tag}.pyc"
                        for n in sources if n.endswith(".py")}


def test_a_release_without_a_labkit_wheel_is_refused(copy: Path) -> None:
    data = manifest_of(copy)
    del data["wheels"]["labkit"]["0.27.7"]
    write_manifest(copy, data)
    assert runtime.labkit_wheel(DEFAULT, copy).is_file()
    assert refusal(lambda: runtime.labkit_wheel(OLD, copy)) == f"{copy}: no labkit wheel for Pyodide 0.27.7 — {REMAKE}"


def test_the_micropip_wheel_is_the_prebuilt_one() -> None:
    wheel = runtime.micropip_wheel()
    assert wheel == PREBUILT / "wheels" / f"micropip-{runtime.MICROPIP_VERSION}-py3-none-any.whl" and wheel.is_file()
    assert manifest_of(PREBUILT)["wheels"]["micropip"] == wheel.name


# ---- write_runtime / page config ---------------------------------------------------------------------------


def test_write_runtime_layout(tmp_path: Path) -> None:
    site = tmp_path / "site"
    unpacked = runtime.runtime_dir()
    fragment = runtime.write_runtime(site)
    base = f"runtime/{runtime.site_dirname()}/"
    assert runtime.site_dirname() == f"pyodide-314.0.7-{unpacked.name.rsplit('-', 1)[1][:8]}"
    meta = json.loads((unpacked / "runtime.json").read_text())
    assert fragment == {
        "pyodide": "314.0.7",
        "asmScript": False,
        "inlineLock": True,
        "indexURL": base,
        "pyodideURL": base + "pyodide.mjs",
        "asmURL": base + "pyodide.asm.mjs",
        "stdLibURL": base + "python_stdlib.zip",
        "stdLibFullURL": base + "full/python_stdlib.zip",
        "lock": {"info": meta["lock_info"], "packages": {}},
        "micropip": [],
        "requirements": [],
        "sizes": {n: (unpacked / n).stat().st_size for n in ("pyodide.asm.wasm", "python_stdlib.zip")},
        "fullStdLibSize": (unpacked / runtime.FULL_STDLIB).stat().st_size,
    }
    assert meta["lock_info"] == runtime.load_lock(DEFAULT)["info"]
    folder = site / "runtime" / runtime.site_dirname()
    expected = {n for name in runtime.RUNTIME_FILES for n in (name, f"{name}.br")}
    assert {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} == expected
    for name in expected:
        assert (folder / name).stat().st_size == (unpacked / name).stat().st_size
    assert (folder / "pyodide.mjs").read_bytes() == (unpacked / "pyodide.mjs").read_bytes()
    assert os.path.samefile(folder / "pyodide.asm.wasm", unpacked / "pyodide.asm.wasm")  # hard link, no copy
    assert sorted(p.name for p in (site / "runtime" / "wheels").iterdir()) == [runtime.micropip_wheel().name]
    runtime.write_runtime(site)  # a second write into the same site is a no-op, not an error


def test_page_config() -> None:
    fragment = runtime.runtime_fragment()
    unpacked = runtime.runtime_dir()
    plain = runtime.page_runtime_config(fragment, worker="static/h/js/lab-worker.js", labkit="runtime/wheels/l.whl")
    assert list(plain) == ["pyodide", "offlineCopy", "releases", "asmScript", "inlineLock", "worker", "workerIntegrity",
                           "indexURL", "pyodideURL", "asmURL", "stdLibURL", "stdLibFullURL", "lock", "packages", "labkit",
                           "micropip", "requirements", "sizes"]
    assert plain["releases"] == ["314.0.7"]
    assert plain["micropip"] == [] and plain["requirements"] == [] and plain["lock"]["packages"] == {}
    assert plain["sizes"]["python_stdlib.zip"] == (unpacked / "python_stdlib.zip").stat().st_size
    extra = runtime.page_runtime_config(fragment, worker="w.js", labkit="l.whl", requirements=["runtime/wheels/t.whl"])
    assert extra["micropip"] == [f"runtime/wheels/micropip-{runtime.MICROPIP_VERSION}-py3-none-any.whl"]
    assert extra["requirements"] == ["runtime/wheels/t.whl"]
    # micropip imports what the trimmed stdlib leaves out: such pages boot with the full one.
    assert extra["stdLibURL"] == extra["stdLibFullURL"] == f"runtime/{runtime.site_dirname()}/full/python_stdlib.zip"
    assert extra["sizes"]["python_stdlib.zip"] == (unpacked / runtime.FULL_STDLIB).stat().st_size
    old = runtime.runtime_fragment(OLD)
    assert (old["pyodide"], old["asmScript"], old["inlineLock"]) == ("0.27.7", True, False)
    assert old["asmURL"] == f"runtime/{runtime.site_dirname(OLD)}/pyodide.asm.js"


# ---- lesson requirements ----------------------------------------------------------------------------------


def _fake_wheel(cache: Path, name: str) -> Path:
    """Put an (empty) wheel file into the user cache's wheels so no download is attempted."""
    path = cache / requirements.WHEEL_CACHE / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"")
    return path


def test_requirements_use_cache(tmp_path: Path) -> None:
    wheel = _fake_wheel(tmp_path, "tabulate-0.9.0-py3-none-any.whl")
    other = _fake_wheel(tmp_path, "Typing_Extensions-4.0.0-py2.py3-none-any.whl")
    assert runtime.fetch_requirements(["tabulate==0.9.0", "typing-extensions == 4.0.0"], tmp_path) == [wheel, other]


def test_requirements_reject_non_pure(tmp_path: Path) -> None:
    _fake_wheel(tmp_path, "numpy-2.3.0-cp314-cp314-pyodide_2026_0_wasm32.whl")
    assert refusal(lambda: runtime.fetch_requirements(["numpy==2.3.0"], tmp_path)) == (
        "numpy==2.3.0: numpy-2.3.0-cp314-cp314-pyodide_2026_0_wasm32.whl is not a pure-Python wheel (tag "
        "cp314-cp314-pyodide_2026_0_wasm32); a lesson can only require packages with a py3-none-any or "
        "py2.py3-none-any wheel, because the browser lab installs wheels without Pyodide's package index")


@pytest.mark.parametrize("req", ["tabulate", "tabulate>=0.9", "tabulate==0.9.*", "-e ."])
def test_requirements_must_be_pinned(tmp_path: Path, req: str) -> None:
    assert refusal(lambda: runtime.fetch_requirements([req], tmp_path)) == (
        f"requirement {req!r} must be pinned exactly, like tabulate==0.9.0")


def test_write_requirements_links(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _fake_wheel(cache, "tabulate-0.9.0-py3-none-any.whl")
    urls = runtime.write_wheels(tmp_path / "site", runtime.fetch_requirements(["tabulate==0.9.0"], cache))
    assert urls == ["runtime/wheels/tabulate-0.9.0-py3-none-any.whl"]
    assert (tmp_path / "site" / urls[0]).is_file()


def test_a_shown_download_keeps_the_commands_stdout_its_own(tmp_path: Path) -> None:
    # pip's progress of a large download goes where lessonkit's progress goes: a build's stdout stays its report.
    index = tiny_index(tmp_path / "links")
    code = ("import sys; from pathlib import Path; from lessonkit.runtime.download import pip_download; "
            "pip_download('tiny-pkg==1.0', Path(sys.argv[1]), python=None, shown=True)")
    env = {**os.environ, **index}
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "dest")], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "Saved" in done.stderr
    assert [p.name for p in (tmp_path / "dest").iterdir()] == ["tiny_pkg-1.0-py3-none-any.whl"]
