"""The build's lab host (lessonkit/labs/host.py) as the build starts it, a real child process: `python -I host.py
LAB_DIR REQUEST_FD REPLY_FD`, spoken to here over its own pipes, each reply checked against the protocol
(lessonkit/labs/protocol.py). The lab folder and its files are made by each test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from places import LABKIT

from labkit import _limits
from lessonkit.core.messages import Messages
from lessonkit.labs import protocol
from lessonkit.labs.limits import WORDED
from lessonkit.labs.process import HOST

WORDS = Messages("en").labkit_words(WORDED)  # what the build hands an English page's lab host with run and check

ROOT = Path(__file__).resolve().parent.parent


class Host:
    """One host process: `ask` sends a request and returns its reply, checked; `stray` is what it wrote to fd 1/2."""

    def __init__(self, lab_dir: Path, cwd: Path) -> None:
        request_r, request_w = os.pipe()
        reply_r, reply_w = os.pipe()
        self.proc = subprocess.Popen([sys.executable, "-I", str(HOST), str(lab_dir), str(request_r), str(reply_w),
                                      str(LABKIT.parent)],
                                     pass_fds=(request_r, reply_w), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=cwd)
        os.close(request_r)
        os.close(reply_w)
        self.requests = os.fdopen(request_w, "w", encoding="utf-8")
        self.replies = os.fdopen(reply_r, "r", encoding="utf-8")
        self.asked = 0
        assert json.loads(self.replies.readline()) == protocol.READY

    def ask(self, op: str, timeout: float = 60, **fields: Any) -> dict[str, Any]:
        self.asked += 1
        words = {"words": WORDS} if op in ("run", "check") else {}
        request = {"op": op, **fields, **words, "timeout": timeout, "id": self.asked}
        assert protocol.request_problem(request) == ""
        self.requests.write(json.dumps(request) + "\n")
        self.requests.flush()
        line = self.replies.readline()
        assert line, f"the host ended: {self.end()!r}"
        reply = json.loads(line)
        assert protocol.reply_problem(reply, op, self.asked) == "", reply
        return {k: v for k, v in reply.items() if k != "id"}

    def end(self) -> str:
        """Close the request pipe (the host's end of work) and return its stray output."""
        if not self.requests.closed:
            self.requests.close()
        stray, _ = self.proc.communicate(timeout=60)
        self.replies.close()
        return stray.decode("utf-8", "replace")


@contextmanager
def host(tmp_path: Path, **files: str) -> Iterator[Host]:
    """A host for a lab folder holding labkit (the toolkit's own, as the build ships it) and `files`."""
    lab = tmp_path / "lab"
    lab.mkdir()
    (lab / "labkit").symlink_to(LABKIT, target_is_directory=True)
    for name, text in files.items():
        (lab / name).write_text(text, encoding="utf-8")
    (tmp_path / "cwd").mkdir()
    running = Host(lab, tmp_path / "cwd")
    try:
        yield running
    finally:
        if running.proc.poll() is None:
            running.end()


LAB = """from helper import SCALE

x = 2 * SCALE

def f(a, b):
    print("a call's output is dropped")
    return [a, b * x]

def g():
    return {1, 2}

def boom(n):
    raise ValueError(f"no {n}")

print("x is", x)
"""


def test_a_run_then_its_values_and_functions_in_one_namespace(tmp_path: Path) -> None:
    with host(tmp_path, **{"helper.py": "SCALE = 3\n"}) as lab:
        assert lab.ask("run", code=LAB, filename="lesson/lab.py") == {"ok": True, "output": "x is 6\n", "charts": []}
        assert lab.ask("get", name="x") == {"ok": True, "value": 6}
        assert lab.ask("call", name="f", args=[1, [2]], kwargs={}) == {"ok": True, "value": [1, [2, 2, 2, 2, 2, 2]]}
        assert lab.ask("call", name="f", args=[1], kwargs={"b": [2]}) == {"ok": True, "value": [1, [2, 2, 2, 2, 2, 2]]}
        assert lab.ask("get", name="y") == {"ok": False, "error": {"type": "missing", "message": "defines no 'y'",
                                                                    "line": None}}
        assert lab.ask("get", name="f") == {"ok": False, "error": {"type": "value", "line": None,
                                                                    "message": "'f' is a function, not a value"}}
        assert lab.ask("call", name="x", args=[], kwargs={}) == {"ok": False, "error": {
            "type": "missing", "message": "defines no function 'x'", "line": None}}
        assert lab.ask("call", name="g", args=[], kwargs={}) == {"ok": False, "error": {"type": "value", "line": None, "message":
            "g(…) is a set, which the build cannot read: use numbers, strings, lists and dicts"}}
        assert lab.ask("call", name="boom", args=[7], kwargs={}) == {"ok": False, "error": {"type": "ValueError",
                                                                                  "message": "no 7", "line": 13}}
        assert lab.end() == ""  # nothing reached fds 1 and 2: the output went into the replies


def test_a_labs_errors_and_exits_carry_its_line(tmp_path: Path) -> None:
    with host(tmp_path) as lab:
        assert lab.ask("run", code="a = 1\nraise KeyError('k')\n", filename="lab.py") == {
            "ok": False, "error": {"type": "KeyError", "message": "'k'", "line": 2}}
        assert lab.ask("run", code="import sys\n\nsys.exit(3)\n", filename="lab.py") == {
            "ok": False, "error": {"type": "SystemExit", "message": "3", "line": 3}}
        assert lab.ask("run", code="print('\\udc80')\n", filename="lab.py") == {
            "ok": False, "error": {"type": "text", "line": 1}}


@pytest.mark.parametrize("fork", ["os.fork()", "import posix\nposix.fork()", "os.forkpty()",
                                  "import multiprocessing as mp\nmp.get_context('fork').Process(target=print).start()"])
def test_a_lab_that_forks_is_refused_at_its_line(tmp_path: Path, fork: str) -> None:
    from lessonkit.labs.host import NO_FORK

    code = f"import os\nx = 1\n{fork}\n"
    with host(tmp_path) as lab:
        reply = lab.ask("run", code=code, filename="lab.py")
        assert reply["ok"] is False and reply["error"]["type"] == "RuntimeError", reply
        assert reply["error"]["message"] == NO_FORK
        assert reply["error"]["line"] is not None and reply["error"]["line"] >= 3
        # Starting a program is still the author's to do.
        assert lab.ask("run", code="import subprocess, sys\nsubprocess.run([sys.executable, '-c', 'pass'], check=True)\n",
                       filename="lab.py")["ok"] is True


SUBPROCESS = "import subprocess, sys\nx = 1\n"


@pytest.mark.parametrize(("code", "refusal"), [
    (f"{SUBPROCESS}subprocess.run([sys.executable, '-c', 'pass'], preexec_fn=lambda: None)\n", "NO_PREEXEC"),
    (f"{SUBPROCESS}subprocess.Popen([sys.executable, '-c', 'pass'], start_new_session=True)\n", "NO_NEW_SESSION"),
    (f"{SUBPROCESS}subprocess.Popen([sys.executable, '-c', 'pass'], process_group=0)\n", "NO_NEW_SESSION"),
    ("import ctypes\nx = 1\nctypes.CDLL(None).fork()\n", "NO_FORK"),
    ("import ctypes\nx = 1\nctypes.pythonapi['vfork']()\n", "NO_FORK"),
    ("import ctypes\nx = 1\nctypes.CDLL(None).syscall(57)\n", "NO_FORK"),
], ids=["preexec_fn", "start_new_session", "process_group", "ctypes fork", "ctypes vfork", "ctypes syscall"])
def test_a_lab_that_would_copy_its_process_or_leave_its_group_is_refused_at_its_line(
    tmp_path: Path, code: str, refusal: str
) -> None:
    from lessonkit.labs import host as lab_host

    with host(tmp_path) as lab:
        assert lab.ask("run", code=code, filename="lab.py") == {
            "ok": False, "error": {"type": "RuntimeError", "message": getattr(lab_host, refusal), "line": 3}}
        assert lab.ask("get", name="x") == {"ok": True, "value": 1}  # the host goes on


def test_a_fork_that_slips_past_the_audit_hook_never_runs_the_labs_code_and_fails_its_run(tmp_path: Path) -> None:
    """A lab that hides its preexec_fn from the audit hook (Popen's _execute_child renamed) still forks with Python's
    at-fork handlers: the copy ends before the preexec_fn runs, and the run fails at the line that forked."""
    from lessonkit.labs.host import NO_FORK

    marker = tmp_path / "the copy ran"
    code = ("import subprocess, sys, types\nf = subprocess.Popen._execute_child\n"
            "subprocess.Popen._execute_child = types.FunctionType(f.__code__.replace(co_name='renamed'), f.__globals__,"
            " 'renamed', f.__defaults__, f.__closure__)\n"
            f"p = subprocess.Popen([sys.executable, '-c', 'pass'], preexec_fn=lambda: open({str(marker)!r}, 'w'))\n"
            "status = p.wait()\n")
    with host(tmp_path) as lab:
        assert lab.ask("run", code=code, filename="lab.py") == {
            "ok": False, "error": {"type": "RuntimeError", "message": NO_FORK, "line": 4}}
        assert lab.ask("get", name="status") == {"ok": True, "value": 70}
    assert not marker.exists()


def test_a_program_a_lab_starts_ends_with_the_lab_even_after_its_process_has_gone(tmp_path: Path) -> None:
    from lessonkit.labs.process import LabError, LabHost

    pid_file = tmp_path / "pid"
    code = ("import os, pathlib, subprocess\np = subprocess.Popen(['sleep', '600'])\n"
            f"pathlib.Path({str(pid_file)!r}).write_text(str(p.pid))\nos._exit(0)\n")
    (tmp_path / "lab").mkdir()
    lab = LabHost(tmp_path / "lab")
    try:
        with pytest.raises(LabError):
            lab.ask({"op": "run", "code": code, "filename": "lab.py", "words": WORDS}, 60, "lab/lab.py")
    finally:
        lab.stop()
    pid = int(pid_file.read_text())

    def state() -> str:
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
        except FileNotFoundError:
            return "gone"

    deadline = time.monotonic() + 30  # a killed process takes a moment to go, on a busy machine longer
    while state() not in ("gone", "Z") and time.monotonic() < deadline:
        time.sleep(0.05)
    if state() not in ("gone", "Z"):
        os.kill(pid, 9)  # the test's own child: not left behind
        pytest.fail("the program the lab started still runs after the lab's process ended")


def test_output_past_the_pages_cap_stops_the_run_at_its_line(tmp_path: Path) -> None:
    code = f"print('start')\nfor i in range({_limits.OUTPUT_LINES + 10}):\n    print(i)\n"
    cap = f"{_limits.OUTPUT_LINES:,} lines or {_limits.OUTPUT_CHARS:,} characters"
    with host(tmp_path) as lab:
        assert lab.ask("run", code=code, filename="lab.py") == {
            "ok": False, "error": {"type": "output", "message": cap, "line": 3}}


def test_what_the_lab_writes_to_fd_1_stays_out_of_the_replies(tmp_path: Path) -> None:
    code = "import os\nos.write(1, b'{\"ok\": true}\\n')\nprint('to the page')\n"
    with host(tmp_path) as lab:
        assert lab.ask("run", code=code, filename="lab.py") == {"ok": True, "output": "to the page\n", "charts": []}
        assert lab.end() == '{"ok": true}\n'


def test_an_exercises_checks_get_their_real_messages(tmp_path: Path) -> None:
    checks = [{"name": "one", "code": "assert f() == 1, 'f() should be 1'", "secret": True},
              {"name": "two", "code": "from lab import K\nassert f() == K", "secret": False}]
    with host(tmp_path) as lab:
        reply = lab.ask("check", code="def f():\n    return 2\n", filename="ex.py", checks=checks,
                        modules={"lab": "K = 2\n"}, check_timeout=10)
    assert reply["ok"] is True
    report = reply["report"]
    assert (report["passed"], report["total"]) == (1, 2)
    assert [(c["name"], c["status"]) for c in report["checks"]] == [("one", "failed"), ("two", "passed")]
    assert "f() should be 1" in report["checks"][0]["message"]  # a secret check's own message, for the author


def test_a_request_past_its_timeout_ends_the_host_saying_where_the_lab_was(tmp_path: Path) -> None:
    with host(tmp_path) as lab:
        lab.requests.write(json.dumps({"op": "run", "code": "n = 0\nwhile True:\n    n += 1\n", "filename": "lab.py",
                                       "words": WORDS, "timeout": 1, "id": 1}) + "\n")
        lab.requests.flush()
        assert lab.replies.readline() == ""  # no reply: the watchdog ended the process
        stray = lab.end()
    assert lab.proc.returncode != 0
    assert 'File "lab.py", line 2' in stray or 'File "lab.py", line 3' in stray, stray
