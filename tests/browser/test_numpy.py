"""A course on Pyodide 0.27.7 (course.yaml `pyodide:`): the lesson that requires NumPy loads the official wheel,
imports it in every run, its NumPy settings put back between runs; the course's other lesson boots the core only.
The course's own NumPy lesson, on a release of its own, is tests/browser/test_numpy_lesson.py."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from lessonkit.pipeline.site import build_site
from lessonkit.serve.server import ServerHandle

from .helpers import requested
from .test_lab import Lab

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
NUMPY = "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
WEIGHTS = "[[0.401 0.198 0.401]\n [0.108 0.446 0.446]]"


@pytest.fixture(scope="module")
def numpy_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture course (course.yaml `pyodide: 0.27.7`), its labs beside the project's labkit."""
    base = tmp_path_factory.mktemp("numpy")
    lab = base / "lab"
    shutil.copytree(FIXTURES / "numpy-lab", lab)
    os.environ.pop("LESSONKIT_PYODIDE_PACKAGES", None)
    build_site(FIXTURES / "numpy", base / "site", lessons=FIXTURES / "numpy", labs=lab)
    return base / "site"


def wheel_url(site: Path) -> str:
    """The wheel's site path: beside the runtime, under its official file name."""
    [wheel] = site.glob(f"runtime/pyodide-0.27.7-*/{NUMPY}")
    return wheel.relative_to(site).as_posix()


def run_unchanged(site: Path, name: str, new_page: Callable[..., Page],
                  start_test_server: Callable[..., ServerHandle]) -> tuple[ServerHandle, Page, Lab]:
    """The site served, the page opened, its lab run as it stands once Ready."""
    server = start_test_server(site)
    page = new_page(server.url)
    page.goto(name)
    lab = Lab(page)
    lab.wait_ready()
    lab.run()
    return server, page, lab


def test_numpy_runs_in_every_python_of_the_page(numpy_site: Path, new_page: Callable[..., Page],
                                                start_test_server: Callable[..., ServerHandle]) -> None:
    server, page, lab = run_unchanged(numpy_site, "with-numpy.html", new_page, start_test_server)
    expect(lab.current).to_contain_text("numpy 2.0.2")
    assert WEIGHTS in lab.output_text()
    # The chart drawn from NumPy rows, as screen readers announce it.
    chart = lab.current.get_by_role("img", name=re.compile(r"^Chart of this run\. Attention weights\. query 1: key 1 "
                                                            r"0\.401, key 2 0\.198, key 3 0\.401; query 2: key 1 0\.108"))
    expect(chart).to_be_visible()
    assert requested(server.log, wheel_url(numpy_site), 200)
    assert requested(server.log, "pyodide.asm.js", 200)
    # A run that changes NumPy's settings leaves the next as it was; the next Python booted from the snapshot.
    lab.run("import numpy as np\nnp.seterr(all='raise')\nnp.set_printoptions(precision=1)\nprint(np.array([1/3]))")
    expect(lab.current).to_contain_text("[0.3]")
    lab.run("import numpy as np\nprint(np.geterr()['divide'], np.array([1/3]), np.float64(1) / 0)")
    expect(lab.current).to_contain_text("warn [0.33333333] inf")
    assert page.evaluate("document.querySelector('[data-lab]').labController.python.diagnostics.snapshot") is True


def test_the_other_lesson_boots_the_core_only(numpy_site: Path, new_page: Callable[..., Page],
                                              start_test_server: Callable[..., ServerHandle]) -> None:
    server, _, lab = run_unchanged(numpy_site, "core-only.html", new_page, start_test_server)
    expect(lab.current).to_contain_text("python (3, 12)")
    assert not requested(server.log, NUMPY)
    assert not requested(server.log, "full/python_stdlib.zip")
