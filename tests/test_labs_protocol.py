"""The build ↔ lab host protocol (lessonkit/labs/protocol.py): what each end accepts, and why not; and the host
refusing a request outside it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from places import FIXTURE, LABKIT

from lessonkit.labs import protocol
from lessonkit.labs.process import HOST

ROOT = Path(__file__).resolve().parent.parent


def test_every_request_the_build_sends_is_accepted() -> None:
    for request in (
        {"op": "run", "code": "x = 1", "filename": "lab.py", "words": {}, "timeout": 10.0, "id": 1},
        {"op": "get", "name": "x", "timeout": 10, "id": 2},
        {"op": "call", "name": "f", "args": [1, [2]], "kwargs": {}, "timeout": 10.0, "id": 3},
        {"op": "call", "name": "table", "args": [], "kwargs": {"heads": 2, "show": "weights"}, "timeout": 10.0, "id": 4},
        {"op": "check", "code": "", "filename": "e.py", "checks": [], "modules": {}, "check_timeout": 5, "words": {},
         "timeout": 9, "id": 1},
    ):
        assert protocol.request_problem(request) == "", request


def test_other_requests_are_refused_with_the_reason() -> None:
    run = {"op": "run", "code": "", "filename": "lab.py", "words": {}, "timeout": 1, "id": 1}
    assert [protocol.request_problem(r) for r in (
        [run], {**run, "op": "exec"}, {k: v for k, v in run.items() if k != "code"}, {**run, "code": 1},
        {**run, "extra": 1}, {**run, "timeout": 0}, {**run, "id": 0}, {**run, "id": True},
    )] == [
        "a request must be a JSON object, got list", "unknown request op 'exec'", "run.code: missing",
        "run.code: expected str, got int", "run.extra: not a field of this message", "run.timeout: must be > 0",
        "run.id: must be 1 or more", "run.id: expected int, got bool",
    ]


def test_replies_are_checked_against_their_request() -> None:
    assert protocol.reply_problem(protocol.READY, "", 0) == ""
    assert protocol.reply_problem({"ok": True, "output": "", "charts": [], "id": 4}, "run", 4) == ""
    assert protocol.reply_problem({"ok": True, "value": None, "id": 2}, "get", 2) == ""
    assert protocol.reply_problem({"ok": True, "report": {}, "id": 1}, "check", 1) == ""
    assert protocol.reply_problem({"ok": False, "error": {"type": "text", "line": 3}, "id": 1}, "run", 1) == ""
    assert protocol.reply_problem({"ok": False, "error": {"type": "E", "message": "m", "line": None}, "id": 1},
                                  "call", 1) == ""
    assert [protocol.reply_problem(reply, op, 1) for reply, op in (
        ("ok", "run"), ({"ok": True, "value": 1, "id": 2}, "get"), ({"ok": "yes", "id": 1}, "get"),
        ({"ok": True, "output": "", "id": 1}, "run"), ({"ok": True, "value": 1, "extra": 2, "id": 1}, "get"),
        ({"ok": False, "id": 1}, "run"), ({"ok": False, "error": {"type": "E", "line": "3"}, "id": 1}, "run"),
        ({"ok": False, "error": {"type": "E", "line": True}, "id": 1}, "run"),
    )] == [
        "a reply must be a JSON object, got str", "the reply's id is 2, not the request's 1",
        ".ok: missing, or not true or false", "run reply.charts: missing", "get reply.extra: not a field of this message",
        "run error.error: missing", "run error.error.line: expected a line number or null, got str",
        "run error.error.line: expected a line number or null, got bool",
    ]
    assert protocol.reply_problem({"ok": True, "id": 0}, "", 0) == "the host's first line is not its ready line"


def test_the_host_refuses_a_request_outside_the_protocol(tmp_path: Path) -> None:
    """The host answers its ready line, then ends at a malformed request, saying why on its stray output."""
    request_r, request_w = os.pipe()
    reply_r, reply_w = os.pipe()
    proc = subprocess.Popen([sys.executable, "-I", str(HOST), str(FIXTURE / "lab"), str(request_r), str(reply_w),
                             str(LABKIT.parent)],
                            pass_fds=(request_r, reply_w), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            cwd=tmp_path)
    os.close(request_r)
    os.close(reply_w)
    with os.fdopen(reply_r, "r") as replies, os.fdopen(request_w, "w") as requests:
        assert json.loads(replies.readline()) == protocol.READY
        requests.write(json.dumps({"op": "run", "code": "print(1)", "timeout": 5, "id": 1}) + "\n")
        requests.flush()
        stray, _ = proc.communicate(timeout=60)
    assert proc.returncode == 70
    assert b"lab host: a request outside the protocol: run.filename: missing" in stray
