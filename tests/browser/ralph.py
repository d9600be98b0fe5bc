"""Ralph (PyPI ralph-malph, in .venv-lrs: `make lrs`), a real xAPI Learning Record Store, for the tests that send
statements to one: on its file-system backend, run as the manual says (docs/lesson/teach.md, "Run Ralph for your
classes": its app is read from there), with the keys the test registers by `ralph auth` commands, restricted by
scope and authority, answering CORS for the origins given."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from .helpers import ROOT, wait_until

LRS_VENV = ROOT / ".venv-lrs"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ralph_app(folder: Path) -> Path:
    """The manual's Ralph app (its one home: the instructor copies it from there), saved as `folder/ralph_fs.py`."""
    manual = (ROOT / "docs" / "lesson" / "teach.md").read_text(encoding="utf-8")
    found = re.search(r'```python\n("""Ralph\'s xAPI API.*?)```', manual, re.DOTALL)
    assert found, "docs/lesson/teach.md has no Ralph app"
    (folder / "ralph_fs.py").write_text(found.group(1), encoding="utf-8")
    return folder


@contextmanager
def running_ralph(data: Path, port: int, commands: list[list[str]], origins: list[str]) -> Iterator[None]:
    """Ralph on 127.0.0.1:`port`, its store and auth file in `data`, the `ralph auth` `commands` run first (as the
    LRS's administrator types them), CORS allowed for `origins`; stopped when the block ends."""
    if not (LRS_VENV / "bin" / "python").is_file():
        pytest.fail("Ralph is not installed: `make lrs` makes .venv-lrs", pytrace=False)
    env = {**os.environ, "RALPH_RUNSERVER_BACKEND": "fs", "RALPH_AUTH_FILE": str(data / "auth.json"),
           "RALPH_APP_DIR": str(data / "app"), "RALPH_BACKENDS__LRS__FS__DEFAULT_DIRECTORY_PATH": str(data / "store"),
           "RALPH_LRS_RESTRICT_BY_SCOPES": "true", "RALPH_LRS_RESTRICT_BY_AUTHORITY": "true",
           "RALPH_RUNSERVER_CORS_ALLOW_ORIGINS": json.dumps(origins)}
    (data / "store").mkdir(parents=True)
    for cmd in commands:
        subprocess.run([str(LRS_VENV / "bin" / cmd[0]), *cmd[1:]], env=env, check=True, capture_output=True,
                       timeout=120)
    ralph = subprocess.Popen([str(LRS_VENV / "bin" / "python"), "-m", "uvicorn", "ralph_fs:app", "--app-dir",
                              str(ralph_app(data)), "--host", "127.0.0.1", "--port", str(port)], env=env,
                             stdout=(data / "ralph.log").open("wb"), stderr=subprocess.STDOUT)

    def up() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/__lbheartbeat__", timeout=2):
                return True
        except OSError:
            return ralph.poll() is not None and pytest.fail("Ralph stopped before it answered", pytrace=False)

    try:
        wait_until(up, timeout=120, message="Ralph to answer")
        yield
    finally:
        ralph.terminate()
        ralph.wait(timeout=20)
