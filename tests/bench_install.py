"""Benchmark rows of lessonkit as an author installs it: the wheel's size; `pip install` of the wheel into a fresh venv
(its dependencies from pip's cache, as on a second machine of the same author: one untimed install fills the cache
first), then `lessonkit new` and `lessonkit serve` until the first lesson's page is served; and the first and second
`lessonkit build` of a new course (the first with an empty user cache: it unpacks the runtime). Printed by
tests/bench.py, never asserted."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import venv
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Install:
    """What one install of the wheel measured (seconds, bytes)."""

    wheel_bytes: int
    install_s: float  # pip install of the wheel into a fresh venv
    to_page_s: float  # from the start of pip install to the first lesson's page served by `lessonkit serve`
    build_first_s: float  # `lessonkit build` of a new course, empty user cache
    build_second_s: float  # the same build again


def make_wheel(out: Path) -> Path:
    """The wheel, made from this checkout by the standard builder."""
    builder = Path(sys.executable).with_name("pyproject-build")
    subprocess.run([str(builder), "--wheel", "--outdir", str(out), str(ROOT)], check=True, capture_output=True,
                   timeout=900)
    return next(out.glob("lessonkit-*.whl"))


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(bin_dir: Path, cache: Path) -> dict[str, str]:
    """The author's shell: the venv on PATH and nothing else (no Node), a user cache of its own."""
    keep = {k: v for k, v in os.environ.items() if k in ("HOME", "LANG", "TMPDIR") or k.startswith("PIP_")}
    return {**keep, "PATH": str(bin_dir), "LESSONKIT_CACHE": str(cache)}


def _install(work: Path, wheel: Path) -> Path:
    """A fresh venv with the wheel installed by pip (its dependencies from pip's cache where it has them)."""
    env_dir = Path(tempfile.mkdtemp(prefix="venv-", dir=work))
    venv.create(env_dir, with_pip=True)
    subprocess.run([str(env_dir / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)], check=True,
                   capture_output=True, timeout=900)
    return env_dir


def warm_pip_cache(work: Path, wheel: Path) -> None:
    """One untimed install of the wheel, so that pip's cache holds its dependencies before the timed ones."""
    shutil.rmtree(_install(work, wheel), ignore_errors=True)


def measure_install(work: Path, wheel: Path | None = None) -> Install:
    """Install, new, serve, build: the rows of one run (the wheel is made once when not given)."""
    wheel = wheel or make_wheel(work / "dist")
    started = time.perf_counter()
    env_dir = _install(work, wheel)
    installed = time.perf_counter()
    home = Path(tempfile.mkdtemp(prefix="author-", dir=work))
    env = _env(env_dir / "bin", home / "cache")
    lessonkit = str(env_dir / "bin" / "lessonkit")
    subprocess.run([lessonkit, "new", "course"], cwd=home, env=env, check=True, capture_output=True, timeout=300)
    port = _port()
    proc = subprocess.Popen([lessonkit, "serve", "--port", str(port)], cwd=home / "course", env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/first-lesson.html", timeout=5):
                    break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError("lessonkit serve ended before serving the page") from None
                time.sleep(0.05)
        served = time.perf_counter()
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    other = Path(tempfile.mkdtemp(prefix="author-", dir=work))
    env = _env(env_dir / "bin", other / "cache")
    subprocess.run([lessonkit, "new", "course"], cwd=other, env=env, check=True, capture_output=True, timeout=300)
    builds = []
    for _ in range(2):
        t0 = time.perf_counter()
        subprocess.run([lessonkit, "build"], cwd=other / "course", env=env, check=True, capture_output=True,
                       timeout=600)
        builds.append(time.perf_counter() - t0)
    shutil.rmtree(env_dir, ignore_errors=True)
    return Install(wheel.stat().st_size, installed - started, served - started, builds[0], builds[1])
