"""The protocol between the build and its lab host (lessonkit.labs.process ↔ lessonkit.labs.host): JSON lines, one
request and then its reply, each checked where it arrives (request_problem in the host, reply_problem in the build).

Standard library only: the host, which never imports lessonkit, loads this file by its path.

Requests (build → host), each with "op", "timeout" (seconds, > 0) and "id" (1, 2, …: a reply carries its request's):
    run     {"code", "filename", "words"}                 run the lab file as __main__ (first, once per host); words:
                                                          what labkit words its own text with (labkit._words.use:
                                                          {"texts", "decimal", "group"}, the page's language)
    get     {"name"}                                      a value the lab defined, as JSON
    call    {"name", "args": [...], "kwargs": {...}}      a function the lab defined, called with JSON arguments
                                                          (keyword arguments: a widget's parameters by name)
    check   {"code", "filename", "checks": [...], "modules": {name: source}, "check_timeout", "words"}
                                                          an exercise's code against its checks (a host of its own)
Replies (host → build): {"ok": true|false, "id"} and
    ok, run       {"output": str, "charts": [...]}        what the lab printed, the charts it drew
    ok, get/call  {"value": JSON}
    ok, check     {"report": {...}}                       labkit's check report (labkit.check_code, revealed)
    not ok        {"error": {"type": str, "line": int|null, "message"?: str}}
                  (type "output": past the page's output cap; "text": output that is not Unicode; "missing",
                  "value": what the build asked for; else the lab's own exception)
The host's first line, before any request, is {"ok": true, "ready": true, "id": 0}: labkit is imported.
"""

from __future__ import annotations

from typing import Any

READY = {"ok": True, "ready": True, "id": 0}

_NUMBER = (int, float)
_LINE = (int, type(None))
_NAMES = {_NUMBER: "a number", _LINE: "a line number or null"}
# Each request's fields besides "op", "timeout" and "id": name -> type(s).
REQUESTS: dict[str, dict[str, Any]] = {
    "run": {"code": str, "filename": str, "words": dict},
    "get": {"name": str},
    "call": {"name": str, "args": list, "kwargs": dict},
    "check": {"code": str, "filename": str, "checks": list, "modules": dict, "check_timeout": _NUMBER, "words": dict},
}
# What a successful reply to each request carries besides "ok" and "id" (a value: any JSON).
REPLIES: dict[str, dict[str, Any]] = {
    "run": {"output": str, "charts": list},
    "get": {"value": object},
    "call": {"value": object},
    "check": {"report": dict},
}


def _is(value: Any, kind: Any) -> bool:
    """value has the type(s) `kind` (never a bool for a number)."""
    if kind is object:
        return True
    if isinstance(value, bool) and kind is not bool:
        return False
    return isinstance(value, kind)


def _fields(message: dict[str, Any], fields: dict[str, Any]) -> str:
    """"" when message has exactly these fields with these types, else what is wrong."""
    for key, kind in fields.items():
        if key not in message:
            return f".{key}: missing"
        if not _is(message[key], kind):
            return f".{key}: expected {_NAMES.get(kind) or kind.__name__}, got {type(message[key]).__name__}"
    extra = sorted(set(message) - set(fields))
    return f".{extra[0]}: not a field of this message" if extra else ""


def request_problem(request: Any) -> str:
    """"" when `request` is a request of this protocol, else one line saying what is wrong."""
    if not isinstance(request, dict):
        return f"a request must be a JSON object, got {type(request).__name__}"
    op = request.get("op")
    if op not in REQUESTS:
        return f"unknown request op {op!r}"
    problem = _fields(request, {"op": str, "timeout": _NUMBER, "id": int, **REQUESTS[op]})
    if not problem and (request["timeout"] <= 0 or request["id"] < 1):
        problem = ".timeout: must be > 0" if request["timeout"] <= 0 else ".id: must be 1 or more"
    return f"{op}{problem}" if problem else ""


def reply_problem(reply: Any, op: str, request_id: int) -> str:
    """"" when `reply` answers the request `op` numbered `request_id` (0: the host's ready line), else what is wrong."""
    if not isinstance(reply, dict):
        return f"a reply must be a JSON object, got {type(reply).__name__}"
    if reply.get("id") != request_id or not isinstance(reply.get("id"), int) or isinstance(reply.get("id"), bool):
        return f"the reply's id is {reply.get('id')!r}, not the request's {request_id}"
    if request_id == 0:
        return "" if reply == READY else "the host's first line is not its ready line"
    if not _is(reply.get("ok"), bool):
        return ".ok: missing, or not true or false"
    if not reply["ok"]:
        problem = _fields(reply, {"ok": bool, "id": int, "error": dict})
        if problem:
            return f"{op} error{problem}"
        error = reply["error"]
        fields = {"type": str, "line": _LINE, **({"message": str} if "message" in error else {})}
        problem = _fields(error, fields)
        return f"{op} error.error{problem}" if problem else ""
    problem = _fields(reply, {"ok": bool, "id": int, **REPLIES[op]})
    return f"{op} reply{problem}" if problem else ""
