"""Run each lab file at build time in a child process (lessonkit.labhost): its output and values feed the page.

The lab runs with labkit's own runner and caps, under a time limit (per lab block, `timeout:`), in a process of its
own, so a lab that loops, exits, crashes or floods its output becomes a `path:line` problem and never takes the
build down. The build asks a lab for values with `get(name)` and `call(function, *args)` (JSON in, JSON out).
Answers are kept in .cache/labs by content (the lab's code, its file name and time limit, labkit, the host and
Python's version), so a rebuild starts no process for a lab that has not changed.
"""

from __future__ import annotations

import hashlib
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
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from lessonkit.errors import Problem
from lessonkit.runtime import atomic_write
from lessonkit.sources import outside, read_text

DEFAULT_TIMEOUT = 10.0  # seconds for running the file, and again for each value the build asks for
MAX_TIMEOUT = 600.0
GRACE = 2.0  # seconds past a limit before the build ends the process itself (the host's watchdog comes first)
START_SECONDS = 60.0  # for Python to start in the child on a busy machine; not the lab's time
MAX_REPLY_BYTES = 8 << 20
STRAY_KEEP = 2000  # characters of stray output kept for messages
HOST = Path(__file__).with_name("labhost.py")
MEMORY_KEEP = 64  # labs whose answers this process keeps between builds (`serve` rebuilds in-process)


class LabError(Exception):
    """A lab could not answer: the problem's line in the lab file (None when it has none) and its message."""

    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.line, self.message = line, message


@dataclass
class LabRun:
    """A lab file, what running it unchanged printed, and a way to ask it for values."""

    file: str
    rel: str
    code: str
    output: str = ""
    chart: dict[str, Any] = field(default_factory=dict)
    ok: bool = False
    session: _Session | None = field(default=None, repr=False)

    @property
    def code_hash(self) -> str:
        """Version of the starter code, so saved learner edits know when it changed."""
        return hashlib.sha256(self.code.encode()).hexdigest()[:16]

    def get(self, name: str) -> Any:
        """A value the lab defines (numbers, strings, lists, dicts); LabError when it cannot give one."""
        return self._ask({"op": "get", "name": name})

    def call(self, name: str, *args: Any) -> Any:
        """What the lab's function returns for these JSON arguments; LabError when it fails or is too slow."""
        return self._ask({"op": "call", "name": name, "args": list(args)})

    def _ask(self, request: dict[str, Any]) -> Any:
        if self.session is None or not self.ok:
            raise LabError(None, "the lab did not run")
        return self.session.ask(request)


class LabRunner:
    """The labs of one build in one process: answers from the cache, a live host per lab only when needed."""

    def __init__(self, lab_dir: Path, root: Path, labkit_id: str) -> None:
        self.lab_dir, self.root = lab_dir, root
        self.cache_dir = root / ".cache" / "labs"
        self.salt = "\0".join([_host_id(), labkit_id, sys.version])
        self._pid = os.getpid()
        self._sessions: dict[str, _Session] = {}

    def run(self, file: str, timeout: float, problems: list[Problem], where: Problem) -> LabRun | None:
        """Run `lab/<file>` (or take its cached result); author errors become problems at the lab's own line."""
        path = self.lab_dir / file
        rel = _rel(path, self.root)
        lab_rel = _rel(self.lab_dir, self.root)
        if Path(file).is_absolute() or ".." in Path(file).parts:
            problems.append(Problem(where.path, where.line, f'lab file "{file}" is outside {lab_rel}/ — lab files '
                                    f'live in {lab_rel}/: move it there and write "file: {Path(file).name}"'))
            return None
        if outside(path, self.lab_dir):
            problems.append(Problem(where.path, where.line, f'lab file "{rel}" is a link to a file outside {lab_rel}/ '
                                    f"— the build publishes only what is in {lab_rel}/: copy the file there instead"))
            return None
        if not path.is_file() or path.suffix != ".py":
            available = ", ".join(sorted(p.name for p in self.lab_dir.glob("*.py"))) or "none"
            problems.append(Problem(where.path, where.line, f'lab file "{rel}" not found — create it or fix '
                                    f'"file:" (Python files in {lab_rel}/: {available})'))
            return None
        code, problem = read_text(path, rel)
        if code is None:
            problems.append(problem)  # type: ignore[arg-type]  # read_text gives one or the other
            return None
        session = self._session(rel, code, timeout)
        lab = LabRun(file, rel, code, session=session)
        try:
            reply = session.result()
        except LabError as exc:
            problems.append(Problem(rel, exc.line or 1, exc.message))
            return lab
        lab.output, lab.chart, lab.ok = reply["output"], reply["chart"], True
        return lab

    def _session(self, rel: str, code: str, timeout: float) -> _Session:
        """One session per lab content in this process (a course may use one lab in many lessons)."""
        if os.getpid() != self._pid:  # a forked renderer: the parent's hosts are not ours to use or stop
            self._pid, self._sessions = os.getpid(), {}
        key = hashlib.sha256("\0".join([self.salt, rel, repr(timeout), code]).encode()).hexdigest()[:32]
        if key not in self._sessions:
            self._sessions[key] = _Session(key, rel, code, timeout, self.lab_dir, self.cache_dir)
        return self._sessions[key]

    def close(self) -> None:
        """Stop this process's hosts and keep their new answers in the cache."""
        if os.getpid() != self._pid:
            return
        for session in self._sessions.values():
            session.close()
        self._sessions = {}


_memory: OrderedDict[str, dict[str, Any]] = OrderedDict()  # key -> {"run": reply, "answers": {request: reply}}


class _Session:
    """One lab's answers: from memory, from .cache/labs, or from a host started on the first miss."""

    def __init__(self, key: str, rel: str, code: str, timeout: float, lab_dir: Path, cache_dir: Path) -> None:
        self.key, self.rel, self.code, self.timeout = key, rel, code, timeout
        self.lab_dir, self.path = lab_dir, cache_dir / f"{key}.json"
        self.entry = _memory.get(key) or self._read()
        self.failure: LabError | None = None
        self.host: _Host | None = None
        self.dirty = False

    def _read(self) -> dict[str, Any]:
        try:
            entry = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return entry if isinstance(entry, dict) and isinstance(entry.get("answers"), dict) else {}

    def result(self) -> dict[str, Any]:
        """The run's reply (output and chart); LabError when the lab does not run cleanly."""
        if "run" in self.entry:
            return self.entry["run"]
        self._live()
        return self.entry["run"]

    def ask(self, request: dict[str, Any]) -> Any:
        """The value for a get or call request."""
        key = json.dumps(request, sort_keys=True, ensure_ascii=False)
        reply = self.entry.get("answers", {}).get(key)
        if reply is None:
            try:
                reply = self._live().ask(request, self.timeout, self.rel)
            except LabError as exc:  # the host is gone: later questions get the same answer, not another wait
                self.failure, self.host = exc, None
                raise
            if not reply["ok"]:
                raise _error(reply["error"], request)
            self.entry.setdefault("answers", {})[key] = reply
            self._remember()
        return reply["value"]

    def _live(self) -> _Host:
        """A host that has run this lab cleanly (started now if need be)."""
        if self.failure is not None:
            raise self.failure
        if self.host is None:
            try:
                self.host = _Host(self.lab_dir)
                reply = self.host.ask({"op": "run", "code": self.code, "filename": self.rel}, self.timeout, self.rel)
                if not reply["ok"]:
                    raise _error(reply["error"], {"op": "run"})
                stray = self.host.stray()
                if stray:
                    raise LabError(None, f'the lab wrote "{_excerpt(stray)}" straight to its process\'s output '
                                   "(os.write, sys.__stdout__ or a C extension), which the page never shows — use print()")
            except LabError as exc:
                self.failure = exc
                self.close()
                raise
            if "run" not in self.entry:
                self.entry = {"run": {"output": reply["output"], "chart": reply["chart"]}, "answers": {}}
                self._remember()
        return self.host

    def _remember(self) -> None:
        _memory[self.key] = self.entry
        _memory.move_to_end(self.key)
        while len(_memory) > MEMORY_KEEP:
            _memory.popitem(last=False)
        self.dirty = True

    def close(self) -> None:
        """Stop the host; write new answers to the cache."""
        if self.host is not None:
            self.host.stop()
            self.host = None
        if self.dirty and "run" in self.entry:
            atomic_write(self.path, json.dumps(self.entry, ensure_ascii=False).encode())
            self.dirty = False


def _error(error: dict[str, Any], request: dict[str, Any]) -> LabError:
    """The problem a host's failed reply stands for."""
    kind, line, message = error.get("type"), error.get("line"), error.get("message", "")
    if request["op"] == "run":
        if kind == "output":
            return LabError(line, f"the lab prints more than the page shows ({message}) — print less")
        if kind == "text":
            return LabError(line, "the lab prints text that is not valid Unicode (a lone surrogate such as "
                            "\"\\udcff\", e.g. from bytes decoded with errors=\"surrogateescape\") — print text "
                            'decoded with errors="replace"')
        if kind == "SystemExit":
            return LabError(line, f"the lab exits early (SystemExit: {message}) — the build runs it to its end: "
                            "remove the exit")
        return LabError(line, f"{kind}{': ' if message else ''}{message} — the lab must run unchanged")
    if kind == "missing":
        return LabError(None, f"the lab {message}")
    if kind == "value":
        return LabError(None, message)
    return LabError(line, f"{kind}{': ' if message else ''}{message} (in {request['name']}(), which the build calls) "
                    "— the lab must run unchanged")


class _Host:
    """A running lessonkit.labhost process: requests and replies on their own pipes, fds 1 and 2 read aside."""

    def __init__(self, lab_dir: Path) -> None:
        self.cwd = tempfile.mkdtemp(prefix="lessonkit-lab-")  # files a lab writes land here, never in the project
        request_r, self.request_w = os.pipe()
        self.reply_r, reply_w = os.pipe()
        self.stray_r, stray_w = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", str(HOST), str(lab_dir.resolve()), str(request_r), str(reply_w)],
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

    def ask(self, request: dict[str, Any], timeout: float, rel: str) -> dict[str, Any]:
        """Send one request and wait for its reply, at most `timeout` seconds (and the grace).

        LabError means the host is gone (past its time, crashed, ended, or garbled); a reply may say the lab failed.
        """
        self._asked += 1
        message = {**request, "timeout": timeout, "id": self._asked}
        try:
            os.write(self.request_w, (json.dumps(message, ensure_ascii=True) + "\n").encode())
        except OSError:
            pass  # the host is gone; reading says why
        reply = self._reply(time.monotonic() + timeout + GRACE, rel, timeout)
        if reply["ok"] and not _complete(reply, request["op"]):
            self._garbled()
        return reply

    def _reply(self, deadline: float, rel: str, timeout: float) -> dict[str, Any]:
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
                raise LabError(line, _slow(timeout, line))
            if self.stray_r in ready:
                self._read_stray()
            if self.reply_r in ready:
                chunk = os.read(self.reply_r, 65536)
                if not chunk:
                    raise self._ended(rel, timeout)
                self._buffer += chunk
        self._read_stray()  # what the lab wrote before replying is in the pipe by now
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            reply = json.loads(line)
        except ValueError:
            reply = None
        if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool) or reply.get("id") != self._asked:
            self._garbled()
        if not reply["ok"] and not isinstance(reply.get("error"), dict):
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

    def _ended(self, rel: str, timeout: float) -> LabError:
        """Why the host process ended without a reply."""
        code = self.proc.wait()
        self._read_stray()
        stray = self.stray()
        line = _where(stray, rel)
        self.stop()
        if not rel:
            return LabError(None, f"the lab's Python process did not start (exit status {code}): {_excerpt(stray)}")
        if code == 1 and re.search(r"^Timeout \(", stray, re.M):
            return LabError(line, _slow(timeout, line))
        if code > 0 and "Traceback (most recent call last)" in stray:
            last = [text for text in stray.splitlines() if text.strip()][-1]
            return LabError(line, f"the lab's Python process failed after the lab ran ({_excerpt(last)}) — the lab "
                            "must leave the process's own files and modules alone")
        if code < 0:
            name = signal.Signals(-code).name if -code in signal.valid_signals() else f"signal {-code}"
            hint = "out of memory?" if name == "SIGKILL" else "a C extension or ctypes call?"
            return LabError(line, f"the lab's Python process crashed ({name}; {hint}) — the build runs the lab "
                            "to its end: fix what crashes it")
        return LabError(line, f"the lab ended its Python process (exit status {code}, as os._exit does) — the "
                        "build runs it to its end: remove the exit")

    def stop(self) -> None:
        """End the host and anything it started; free its pipes and folder."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait()
        self._selector.close()
        for fd in (self.request_w, self.reply_r, self.stray_r):
            if fd >= 0:
                os.close(fd)
        self.request_w = self.reply_r = self.stray_r = -1
        shutil.rmtree(self.cwd, ignore_errors=True)


def _complete(reply: dict[str, Any], op: str) -> bool:
    """A successful reply has what its request asked for."""
    if op == "run":
        return isinstance(reply.get("output"), str) and isinstance(reply.get("chart"), dict)
    return "value" in reply


def _slow(timeout: float, line: int | None) -> str:
    """The message for a lab past its time limit."""
    more = min(MAX_TIMEOUT, max(20.0, 2 * timeout))
    where = " (it was running this line)" if line else ""
    return (f"the lab did not finish within {timeout:g} s{where} — make it end sooner, or allow more time in its "
            f'{{lab}} block, e.g. "timeout: {more:g}"')


def _where(stray: str, rel: str) -> int | None:
    """The innermost lab line in a traceback the host printed (faulthandler: most recent call first)."""
    match = re.search(rf'File "{re.escape(rel)}", line (\d+)', stray) if rel else None
    return int(match.group(1)) if match else None


def _excerpt(text: str, width: int = 60) -> str:
    """The start of some text, on one line."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width] + "…"


def _host_id() -> str:
    """Changes when the host's or this module's code changes (their answers may differ)."""
    h = hashlib.sha256()
    for file in (HOST, Path(__file__)):
        h.update(file.read_bytes())
    return h.hexdigest()


def _rel(path: Path, root: Path) -> str:
    """Path as the author sees it, relative to the project."""
    try:
        return (path.parent.resolve() / path.name).relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
