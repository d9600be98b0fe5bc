"""lessonkit as an author gets it: the wheel (and its sdist) made as a release makes them, installed into a fresh venv
with no Node on PATH, then `lessonkit new` a course outside the repository, `check`, `add` a lesson that requires a
package, `build` (its first steps in a fresh user cache each on a progress line, counted), `serve`, and the lab of its
first lesson run in Chromium. Nothing here reads the repository's course; the wheel carries everything the build
needs (its prebuilt bundles, runtime and wheels)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import venv
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from course import tiny_index
from places import ROOT
from playwright.sync_api import Page, expect

from lessonkit import __version__
from lessonkit.runtime import DEFAULT_RELEASE

from .test_lab import BOOT_TIMEOUT, Lab

PIP_TIMEOUT = 900  # seconds: the wheel's dependencies come from the package index


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel and sdist, made from this checkout by `pyproject-build` (the standard builder, isolated env)."""
    out = tmp_path_factory.mktemp("dist")
    builder = Path(sys.executable).with_name("pyproject-build")
    done = subprocess.run([str(builder), "--outdir", str(out), str(ROOT)], capture_output=True, text=True,
                          timeout=PIP_TIMEOUT, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (out / f"lessonkit-{__version__}.tar.gz").is_file()
    return out / f"lessonkit-{__version__}-py3-none-any.whl"


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed: its bin/ folder."""
    env = tmp_path_factory.mktemp("venv") / "venv"
    venv.create(env, with_pip=True)
    done = subprocess.run([str(env / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                           str(wheel)], capture_output=True, text=True, timeout=PIP_TIMEOUT, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return env / "bin"


def _author_env(bin_dir: Path, cache: Path) -> dict[str, str]:
    """What the author's shell has: the venv's bin/ on PATH and nothing else (no node, no npm), a user cache of its
    own."""
    assert shutil.which("node", path=str(bin_dir)) is None
    keep = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "LC_ALL", "TMPDIR") or k.startswith("PIP_")}
    return {**keep, "PATH": str(bin_dir), "LESSONKIT_CACHE": str(cache)}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def course(installed: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, str]]]:
    """`lessonkit new` outside the repository, then `check`, `add` a lesson that requires a package (pip finds it in
    a package index of its own), and `build`, as the author types them."""
    home = tmp_path_factory.mktemp("author")
    env = {**_author_env(installed, home / "cache"), **tiny_index(home / "index")}

    def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(installed / "lessonkit"), *args], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=600, check=False)

    version = run("--version", cwd=home)
    assert (version.returncode, version.stdout.strip()) == (0, f"lessonkit {__version__}")
    made = run("new", "my-course", cwd=home)
    assert made.returncode == 0, made.stderr
    folder = home / "my-course"
    assert (folder / "course.yaml").is_file() and (folder / "lesson" / "first-lesson.md").is_file()
    checked = run("check", cwd=folder / "lesson")  # found upward, like git
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith("checked 1 lesson: no problems")
    assert checked.stderr == ""  # no runtime to unpack for a check, no package to download
    added = run("add", "Second lesson", cwd=folder)
    assert added.returncode == 0, added.stderr
    second = folder / "lesson" / "second-lesson.md"
    second.write_text(re.sub(r"^# requires: .*$", 'requires: ["tiny-pkg==1.0"]', second.read_text(encoding="utf-8"),
                             count=1, flags=re.M), encoding="utf-8")
    built = run("build", cwd=folder)
    assert built.returncode == 0, built.stderr
    assert re.match(r"built 2 lesson pages into site/ in \d+ ms$", built.stdout.strip()), built.stdout
    # The first build's long steps, each as it begins: the required package downloaded, then the runtime unpacked.
    assert built.stderr.splitlines() == [
        "lessonkit: downloading tiny-pkg==1.0 with pip (1 of 2)",
        f"lessonkit: unpacking Pyodide {DEFAULT_RELEASE} into {home / 'cache' / 'runtime'}, once for this lessonkit "
        "(2 of 2)"]
    assert (folder / "site" / "runtime" / "wheels" / "tiny_pkg-1.0-py3-none-any.whl").is_file()
    again = run("build", cwd=folder)
    assert (again.returncode, again.stderr) == (0, "")  # once: the user cache has both
    yield folder, env


def test_the_installed_command_serves_a_course_whose_lab_runs(course: tuple[Path, dict[str, str]],
                                                              new_page: Callable[..., Page]) -> None:
    folder, env = course
    port = _free_port()
    proc = subprocess.Popen([env["PATH"] + "/lessonkit", "serve", "--port", str(port)], cwd=folder, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    page = None
    try:
        url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(url + "first-lesson.html", timeout=5) as reply:
                    assert reply.status == 200
                    break
            except OSError:
                assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
                assert time.monotonic() < deadline, "lessonkit serve never answered"
                time.sleep(0.2)
        page = new_page(url)
        page.goto(url + "first-lesson.html")
        lab = Lab(page)
        lab.wait_ready()
        lab.run()
        expect(lab.current).to_be_visible(timeout=BOOT_TIMEOUT)
        expect(lab.status).to_contain_text("Run finished")
    finally:
        if page is not None:
            page.close()  # before the server stops: the page's live-reload poll would find it gone
        proc.terminate()
        proc.wait(timeout=30)
