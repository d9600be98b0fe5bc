"""The build's side of a lab host process (lessonkit.labs.host): its pipes, its time limits, and how it ended.

Requests and replies are JSON lines on two pipes of their own; the process's fds 1 and 2 go to a third, read aside
(a lab writing there directly, or a crash report with the lab's line). Waiting is bounded by the lab's time limit:
the host's own watchdog ends a request that runs past it, and the build ends the whole process group a little later
if that did not happen.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NoReturn

from lessonkit.core.places import labkit_package
from lessonkit.labs.protocol import reply_problem

HOST = Path(__file__).with_name("host.py")
MAX_TIMEOUT = 600.0  # seconds a lab block may allow
GRACE = 2.0  # seconds past a limit before the build ends the process itself (the host's watchdog comes first)
START_SECONDS = 60.0  # for Python to start in the child on a busy machine; not the lab's time
MAX_REPLY_BYTES = 8 << 20  # more is not the host's reply (the host caps values and output)
STRAY_KEEP = 2000  # characters of stray output kept for messages


class LabError(Exception):
    """A lab could not answer: the problem's line in the lab file (None when it has none), its message, and its kind
    ("timeout", "raised", "missing", "value", or "" for the rest) for callers that word it their own way."""

    def __init__(self, line: int | None, message: str, kind: str = "") -> None:
        super().__init__(message)
        self.line, self.message, self.kind = line, message, kind


class LabHost:
    """A running lessonkit.labs.host process: requests and replies on their own pipes, fds 1 and 2 read aside."""

    def __init__(self, lab_dir: Path) -> None:
        self.cwd = tempfile.mkdtemp(prefix="lessonkit-lab-")  # files a lab writes land here, never in the project
        request_r, self.request_w = os.pipe()
        self.reply_r, reply_w = os.pipe()
        self.stray_r, stray_w = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-B", str(HOST), str(lab_dir.resolve()), str(request_r), str(reply_w),
                 str(labkit_package().parent)],
                stdin=subprocess.DEVNULL, stdout=stray_w, stderr=stray_w, cwd=self.cwd,
                pass_fds=(request_r, reply_w), start_new_session=True)  # a session of its own: stop() ends it all
        finally:
            for fd in (request_r, reply_w, stray_w):
                os.close(fd)
        os.set_blocking(self.stray_r, False)
        # selectors (epoll), not select(): `serve` may hold more than 1024 open sockets when a host starts.
        self._selector = selectors.DefaultSelector()
        self._selector.register(self.reply_r, selectors.EVENT_READ)
        self._selector.register(self.stray_r, selectors.EVENT_READ)
        self._stray = b""
        self._buffer = b""
        self._asked = 0  # request ids: a reply must carry the id of the request it answers
        self._reply(time.monotonic() + START_SECONDS, "", 0)  # labkit imported: the lab's clock may start

    def stray(self) -> str:
        """What reached fds 1 and 2 so far (the lab writing there directly, or a crash report), as text."""
        return self._stray.decode("utf-8", "replace")

    def ask(self, request: dict[str, Any], timeout: float, rel: str, block: str = "lab") -> dict[str, Any]:
        """Send one request and wait for its reply, at most `timeout` seconds (and the grace).

        LabError means the host is gone (past its time, crashed, ended, or garbled); a reply may say the lab failed.
        `block` is the type of the block whose "timeout:" gives the limit (for the message).
        """
        self._asked += 1
        message = {**request, "timeout": timeout, "id": self._asked}
        try:
            os.write(self.request_w, (json.dumps(message, ensure_ascii=True) + "\n").encode())
        except OSError:
            pass  # the host is gone; reading says why
        return self._reply(time.monotonic() + timeout + GRACE, rel, timeout, block, request["op"])

    def _reply(self, deadline: float, rel: str, timeout: float, block: str = "lab", op: str = "") -> dict[str, Any]:
        """Read one JSON line before the deadline (and fds 1 and 2 meanwhile); how the host ended if it did not."""
        while b"\n" not in self._buffer and len(self._buffer) <= MAX_REPLY_BYTES:
            left = deadline - time.monotonic()
            ready = {key.fd for key, _ in self._selector.select(left)} if left > 0 else set()
            if not ready:
                self._read_stray()
                line = _where(self.stray(), rel)
                self.stop()
                if not rel:
                    raise LabError(None, f"the lab's Python process did not start within {START_SECONDS:g} s")
                raise LabError(line, _slow(timeout, line, block), "timeout")
            if self.stray_r in ready:
                self._read_stray()
            if self.reply_r in ready:
                chunk = os.read(self.reply_r, 65536)
                if not chunk:
                    raise self._ended(rel, timeout, block)
                self._buffer += chunk
        self._read_stray()  # what the lab wrote before replying is in the pipe by now
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            reply = json.loads(line)
        except ValueError:
            reply = None
        if reply_problem(reply, op, self._asked):  # the protocol: lessonkit/labs/protocol.py
            self._garbled()
        return reply

    def _garbled(self) -> NoReturn:
        """A reply that is not the host's answer to the last request: the lab wrote into the build's pipe."""
        self.stop()
        raise LabError(None, "the lab's process answered something the build cannot read (did the lab write to a "
                       "file descriptor it did not open?) — leave the process's files alone")

    def _read_stray(self) -> None:
        """Keep the first bytes written to fds 1 and 2; read and drop the rest (a full pipe would stall the lab)."""
        while True:
            try:
                chunk = os.read(self.stray_r, 65536)
            except BlockingIOError:
                return
            if not chunk:
                return
            if len(self._stray) < 4 * STRAY_KEEP:
                self._stray += chunk

    def _ended(self, rel: str, timeout: float, block: str) -> LabError:
        """Why the host process ended without a reply."""
        code = self.proc.wait()
        self._read_stray()
        stray = self.stray()
        line = _where(stray, rel)
        self.stop()
        if not rel:
            return LabError(None, f"the lab's Python process did not start (exit status {code}): {excerpt(stray)}")
        if code == 1 and re.search(r"^Timeout \(", stray, re.M):
            return LabError(line, _slow(timeout, line, block), "timeout")
        if code > 0 and "Traceback (most recent call last)" in stray:
            last = [text for text in stray.splitlines() if text.strip()][-1]
            return LabError(line, f"the lab's Python process failed after the lab ran ({excerpt(last)}) — the lab "
                            "must leave the process's own files and modules alone")
        if code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else f"signal {-code}"
            hint = "out of memory?" if name == "SIGKILL" else "a C extension or ctypes call?"
            return LabError(line, f"the lab's Python process crashed ({name}; {hint}) — the build runs the lab "
                            "to its end: fix what crashes it")
        return LabError(line, f"the lab ended its Python process (exit status {code}, as os._exit does) — the "
                        "build runs it to its end: remove the exit")

    def stop(self) -> None:
        """End the host and anything it started (its session's process group, which outlives a host that has ended
        while a program it started runs on); free its pipes and folder."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # nothing of it is left
        self.proc.wait()
        self._selector.close()
        for fd in (self.request_w, self.reply_r, self.stray_r):
            if fd >= 0:
                os.close(fd)
        self.request_w = self.reply_r = self.stray_r = -1
        shutil.rmtree(self.cwd, ignore_errors=True)


def _slow(timeout: float, line: int | None, block: str = "lab") -> str:
    """The message for a lab past its time limit, set by the "timeout:" of a block of type `block`."""
    more = min(MAX_TIMEOUT, max(20.0, 2 * timeout))
    where = " (it was running this line)" if line else ""
    return (f"the lab did not finish within {timeout:g} s{where} — make it end sooner, or allow more time in its "
            f'{{{block}}} block, e.g. "timeout: {more:g}"')


def _where(stray: str, rel: str) -> int | None:
    """The innermost lab line in a traceback the host printed (faulthandler: most recent call first)."""
    match = re.search(rf'File "{re.escape(rel)}", line (\d+)', stray) if rel else None
    return int(match.group(1)) if match else None


def excerpt(text: str, width: int = 60) -> str:
    """The start of some text, on one line."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width] + "…"
