"""serve() as the command runs it, in a process of its own over a one-lesson project: rebuilds on save, Ctrl-C, a
rebuild that exits, a busy port."""


from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fake_site import ROOT
from terminal import ctrl_c_as_a_terminal_has_it

from lessonkit.serve.server import ServerHandle

# -- the CLI entry point -------------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


SERVE_SCRIPT = """
import sys
import threading
from pathlib import Path
from lessonkit.serve.dev import serve

root, site, port = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])

def rebuild():
    text = (root / "lesson" / "a.md").read_text()
    if "THREAD" in text:  # where the build's time limit on markdown has its alarm, or not
        text = "main thread" if threading.current_thread() is threading.main_thread() else "another thread"
    if "BAD" in text:
        return [f"lesson/a.md:1:1: {text.strip()}"]
    if "EXIT" in text:  # what a lab run in this process by the build could do
        raise SystemExit("a lab called sys.exit()")
    site.mkdir(exist_ok=True)
    (site / "index.html").write_text(f"<html><body><h1>{text.strip()}</h1></body></html>")
    return []

serve(root, site, port, rebuild)
"""


class _ServeProcess:
    """`serve()` (SERVE_SCRIPT) in a child process over a one-lesson project; `lesson` is the file it rebuilds from."""

    def __init__(self, tmp_path: Path) -> None:
        root = tmp_path / "proj"
        (root / "lesson").mkdir(parents=True)
        self.lesson = root / "lesson" / "a.md"
        self.lesson.write_text("first", encoding="utf-8")
        self.port = _free_port()
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen([sys.executable, "-c", SERVE_SCRIPT, str(root), str(root / "site"),
                                      str(self.port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env=env, cwd=tmp_path, preexec_fn=ctrl_c_as_a_terminal_has_it)
        assert self.proc.stdout is not None
        self.banner: list[str] = []
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            self.banner.append(line)
            if "Ctrl-C" in line or not line:
                break

    def get(self, path: str) -> bytes:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("GET", path)
            return conn.getresponse().read()
        finally:
            conn.close()

    def events(self) -> dict[str, object]:
        return json.loads(self.get("/__lessonkit/events"))  # type: ignore[no-any-return]

    def events_until(self, predicate: Callable[[dict[str, object]], object], timeout: float = 10) -> dict[str, object]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.events()
            if predicate(state):
                return state
            time.sleep(0.1)
        raise AssertionError("no matching event")

    def save_good_lesson(self, text: str, since: dict[str, object]) -> None:
        """Save a lesson that builds: a new epoch (open pages reload), no problems, the page shows `text`."""
        self.lesson.write_text(text, encoding="utf-8")
        state = self.events_until(lambda s: s["epoch"] != since["epoch"])
        assert state["problems"] == []
        assert f"<h1>{text}</h1>".encode() in self.get("/")

    def stop(self) -> str:
        """Ctrl-C; the rest of the output."""
        self.proc.send_signal(signal.SIGINT)
        rest, _ = self.proc.communicate(timeout=10)
        return rest

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate(timeout=10)


def test_serve_end_to_end(tmp_path: Path) -> None:
    """The CLI entry: initial build, URL printed, watcher → rebuild → events, Ctrl-C exits 0."""
    serving = _ServeProcess(tmp_path)
    try:
        assert f"http://127.0.0.1:{serving.port}/" in "".join(serving.banner), serving.banner
        page = serving.get("/")
        assert b"<h1>first</h1>" in page and b"dev-reload.js?epoch=" in page
        start = serving.events()
        assert start["problems"] == []

        serving.lesson.write_text("BAD front matter", encoding="utf-8")
        state = serving.events_until(lambda s: s["problems"])
        assert state["problems"] == ["lesson/a.md:1:1: BAD front matter"] and state["epoch"] == start["epoch"]
        assert b"<h1>first</h1>" in serving.get("/")  # last good build still served

        serving.save_good_lesson("second", since=start)
        rest = serving.stop()
    finally:
        serving.kill()
    assert serving.proc.returncode == 0, rest
    assert "Traceback" not in rest and "Stopped." in rest
    assert "still serving the last good build" in rest and "Rebuilt in" in rest


def test_serve_keeps_watching_after_a_rebuild_exits(tmp_path: Path) -> None:
    """A rebuild raising SystemExit: the terminal and the page's banner say so, the next edit is built."""
    serving = _ServeProcess(tmp_path)
    try:
        start = serving.events()
        serving.lesson.write_text("EXIT", encoding="utf-8")
        state = serving.events_until(lambda s: s["problems"])
        assert state["problems"] == ["build crashed: SystemExit: a lab called sys.exit()"]
        assert serving.proc.poll() is None

        serving.save_good_lesson("fixed", since=start)
        rest = serving.stop()
    finally:
        serving.kill()
    assert serving.proc.returncode == 0, rest
    assert "SystemExit: a lab called sys.exit()" in rest and "still serving the last good build" in rest
    assert "Rebuilt in" in rest and "Stopped." in rest


def test_serve_rebuilds_on_the_main_thread(tmp_path: Path) -> None:
    """An edit's rebuild runs on serve's main thread (the watcher only asks for it), where the time limit on a
    lesson's markdown can stop a conversion (lessonkit.content.bounds)."""
    serving = _ServeProcess(tmp_path)
    try:
        start = serving.events()
        serving.lesson.write_text("THREAD", encoding="utf-8")
        serving.events_until(lambda s: s["epoch"] != start["epoch"])
        assert b"<h1>main thread</h1>" in serving.get("/")
        serving.stop()
    finally:
        serving.kill()
    assert serving.proc.returncode == 0


def test_serve_reports_busy_port(tmp_path: Path, server: ServerHandle) -> None:
    from lessonkit.serve.dev import serve

    with pytest.raises(SystemExit, match="Cannot listen"):
        serve(ROOT, tmp_path, server.port, lambda: [], watch=False, initial_build=False)
