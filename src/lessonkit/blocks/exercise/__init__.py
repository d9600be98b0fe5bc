"""{exercise}: a task the learner solves in an editor, checked in the browser by the author's checks.

The build verifies every exercise with labkit's own check runner, in the lab's CPython child process: the solution
passes every check, the starter fails at least one, and a check fails only by `assert` on the solution. The checks'
code and the solution go to the page packed (zlib-compressed JSON, base64) in the island, so they are not in the
HTML as text: everything runs in the learner's browser, so this hides answers from a glance, not from a learner
who looks for them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import zlib
from typing import Any

from lessonkit.blocks import BlockType, Context, text
from lessonkit.content.schema import INVALID, At, Bool, Fields, Inline, Key, ListOf, Markdown, Number, Text, Type, Whole
from lessonkit.core import messages
from lessonkit.core.errors import Problem
from lessonkit.labs.limits import CHECK_ATTEMPTS, CHECK_TIMEOUT
from lessonkit.labs.process import MAX_TIMEOUT

DEFAULT_TIMEOUT = CHECK_TIMEOUT  # seconds the learner's code, and each check, may run (labkit's)
DEFAULT_ATTEMPTS = CHECK_ATTEMPTS  # failed checks before the solution may be revealed (labkit's)
LEARNER_RAISED = "raised"  # labkit's field of a check in which the code under check raised, not the check
FILE_EXAMPLE = '"starter: |" and the code on the lines below it, or "file: name.py" under it'


class Code(Type):
    """Python code: written in the block (a `|` block of lines), or `file: name.py` naming a file in lab/."""

    what = "Python code"
    example = FILE_EXAMPLE
    doc = "code, or `file:` in lab/"

    def check(self, value: Any, at: At) -> Any:
        if isinstance(value, str):
            return {"code": value.rstrip() + "\n", "file": None, "line": at.line}
        if isinstance(value, dict):
            keys = set(value)
            lines = getattr(value, "lines", {})
            if keys != {"file"} or not isinstance(value["file"], str):
                extra = sorted(str(k) for k in keys - {"file"})
                if extra:
                    return at.error(f'unknown key "{extra[0]}" in {at.where} — code is written in the block, or '
                                    'named with "file: name.py" alone', lines.get(extra[0], at.line))
                return INVALID
            return {"code": None, "file": value["file"].strip(), "line": lines.get("file", at.line)}
        return INVALID


CHECK = Fields({
    "name": Key(Text(), required=True, hint='naming what it checks, e.g. "name: sums to one"',
                doc="what the learner reads beside ✓ or ✗"),
    "code": Key(Text(), required=True, hint="with Python that asserts something about the learner's code",
                doc="Python run after the learner's code, against its objects; fails by assert"),
    "secret": Key(Bool(), default=False, doc="the learner sees its name and a generic message only"),
})
SCHEMA = Fields({
    "prompt": Key(Markdown(), required=True, hint="with the task", doc="the task (markdown and math)"),
    "title": Key(Text(), doc='the heading (default "Exercise")'),
    "starter": Key(Code(), required=True, hint=f"with the learner's starting code: {FILE_EXAMPLE}",
                   doc="the learner's starting code"),
    "solution": Key(Code(), required=True, hint=f"with code that passes every check: {FILE_EXAMPLE}",
                    doc="shown after a pass, or on request after `attempts:` failed checks"),
    "checks": Key(ListOf(CHECK, noun="check", min=1,
                         label=lambda c: f' ("{c["name"]}")' if isinstance(c.get("name"), str) else ""),
                  required=True, hint='with at least one check ("- name: …" and "code: …")',
                  doc="the checks, in order"),
    "hints": Key(ListOf(Inline(), noun="hint"), doc="shown one at a time, on request"),
    "remarks": Key(Markdown(), doc="shown once every check passes"),
    "attempts": Key(Whole(min=0, max=100), default=DEFAULT_ATTEMPTS,
                    doc="failed checks before the solution may be shown (0: only after a pass)"),
    "optional": Key(Bool(), default=False,
                    doc="an exercise the learner may skip: in an LMS it counts toward neither the score nor completion "
                    "(unless course.yaml's `scorm: optional: counted`)"),
    "timeout": Key(Number(above=0, max=MAX_TIMEOUT), default=DEFAULT_TIMEOUT,
                   invalid=f'"timeout:" is the seconds the learner\'s code and each check may run, more than 0 and at '
                   f'most {MAX_TIMEOUT:g}, e.g. "timeout: 5"', doc="seconds the learner's code and each check may run"),
})


def build(ctx: Context) -> dict[str, Any] | None:
    """Read the code, check the checks, verify the exercise with labkit's runner; the template's data."""
    data = ctx.data
    starter = _code(ctx, "starter")
    solution = _code(ctx, "solution")
    checks = _checks(ctx)
    if ctx.failed or starter is None or solution is None:
        return None
    filename = f"{ctx.block.id}.py"
    timeout = float(data["timeout"])
    _verify(ctx, filename, starter, solution, checks, timeout)
    if ctx.failed:
        return None
    packed = {"solution": solution, "checks": [{k: c[k] for k in ("name", "code", "secret")} for c in checks],
              "modules": _modules(ctx, checks)}
    title = text(data.get("title")) or "Exercise"
    return {
        "title": title,
        "prompt": ctx.markdown(data["prompt"]),
        "code": starter,
        "filename": filename,
        "code_hash": hashlib.sha256(starter.encode()).hexdigest()[:16],
        "checks": [{"name": c["name"], "secret": c["secret"]} for c in checks],
        "hints": [ctx.inline(h) for h in data.get("hints") or []],
        "remarks": ctx.markdown(data["remarks"]) if data.get("remarks") else "",
        "attempts": int(data["attempts"]),
        "optional": bool(data["optional"]),
        "timeout": timeout,
        "packed": base64.b64encode(zlib.compress(json.dumps(packed).encode(), 9)).decode("ascii"),
    }


def island(data: dict[str, Any]) -> dict[str, Any]:
    """What exercise.js needs besides the HTML: the starter's hash, the limits, and the packed checks and solution."""
    return {"filename": data["filename"], "codeHash": data["code_hash"], "title": data["title"],
            "attempts": data["attempts"], "timeout": data["timeout"], "hints": len(data["hints"]),
            "packed": data["packed"]}


def _code(ctx: Context, key: str) -> str | None:
    """The code of `starter:` or `solution:`, read from lab/ when it names a file."""
    value = ctx.data[key]
    if value["code"] is not None:
        return value["code"]
    run = ctx.labs.read(value["file"], ctx.problems, _where(ctx, value["line"]))
    if run is None:
        ctx.failed = True
    return run


def _where(ctx: Context, line: int) -> Problem:
    """Where problems about a file or a run are reported."""
    return Problem(ctx.lesson.rel, line, "")


def _checks(ctx: Context) -> list[dict[str, Any]]:
    """The checks with their lines; duplicate names and checks that do not compile are problems."""
    out: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for n, check in enumerate(ctx.data["checks"]):
        name, line = str(check["name"]), ctx.line("checks", n)
        code_line = ctx.line("checks", n, "code")
        if name in seen:
            ctx.error(f'duplicate check name "{name}" (first used at {ctx.lesson.rel}:{seen[name]}) — give each '
                      "check its own name", ctx.line("checks", n, "name"))
        seen.setdefault(name, line)
        try:
            compile(str(check["code"]), "<check>", "exec", dont_inherit=True)
        except SyntaxError as exc:
            at = f" (its line {exc.lineno})" if exc.lineno and exc.lineno > 1 else ""
            ctx.error(f'check "{name}" has a syntax error{at}: {exc.msg} — fix its "code:"', code_line)
        out.append({"name": name, "code": str(check["code"]).rstrip() + "\n", "secret": bool(check["secret"]),
                    "line": line, "code_line": code_line})
    return out


def _modules(ctx: Context, checks: list[dict[str, Any]]) -> dict[str, str]:
    """The lab files the checks import, by module name: the page gets their sources with the checks. A check that
    imports a lab module linking out of lab/ is a problem at its "code:" (that file is never published)."""
    found: dict[str, str] = {}
    for check in checks:
        if ctx.labs.outside_imports(check["code"], ctx.problems, _where(ctx, check["code_line"])):
            ctx.failed = True
        found.update(ctx.labs.local_imports(check["code"]))
    return dict(sorted(found.items()))


def _verify(ctx: Context, filename: str, starter: str, solution: str, checks: list[dict[str, Any]],
            timeout: float) -> None:
    """The solution passes every check and the starter fails one, run by labkit's check runner in CPython."""
    where = f'the {{exercise}} block "{ctx.block.id}"'
    request = [{k: c[k] for k in ("name", "code", "secret")} for c in checks]
    modules = _modules(ctx, checks)
    if ctx.failed:
        return
    solved = ctx.labs.check(solution, filename, request, modules, timeout, ctx.problems,
                            _where(ctx, ctx.line("solution")))
    if solved is None:
        ctx.failed = True
        return
    error = solved["error"]
    english = messages.for_page(messages.SOURCE, {})  # the build's problems are English (labkit's said, worded)
    if error is not None:
        at = f" at line {error['line']} of the solution" if error.get("line") else ""
        what = f"{error['type']}: {english.said(error['said']) if error.get('said') else error['message']}"
        ctx.error(f"the solution of {where} stops with {what}{at} — the solution must run to its end",
                  ctx.line("solution"))
        return
    for check, item in zip(checks, solved["checks"], strict=True):
        name = check["name"]
        if item["status"] == "failed":
            said = english.said(item["said"]) if item.get("said") else item["message"]
            ctx.error(f'the solution of {where} fails check "{name}": {said} — fix the solution or the check',
                      check["line"])
        elif item["status"] == "timeout":
            ctx.error(f'check "{name}" takes more than {timeout:g} s on the solution — make it faster, or allow '
                      f'more time with "timeout:"', check["line"])
        elif item["status"] != "passed" and LEARNER_RAISED in item:
            ctx.error(f'the solution of {where} raises {item[LEARNER_RAISED]} in check "{name}" — '
                      "fix the solution", check["line"])
        elif item["status"] != "passed":
            ctx.error(f'check "{name}" raises {item["message"]} on the solution — a check fails only by assert: '
                      "fix the check (or the solution)", check["line"])
    if ctx.failed:
        return
    started = ctx.labs.check(starter, filename, request, modules, timeout, ctx.problems,
                             _where(ctx, ctx.line("starter")))
    if started is None:
        ctx.failed = True
    elif started["ok"]:
        ctx.error(f"the starter of {where} passes every check — leave the task undone in it, or add a check it "
                  "fails", ctx.line("starter"))


def progress(data: dict[str, Any]) -> dict[str, Any]:
    """An exercise keeps progress (its stored state: passed, attempts, hints, solution); the manifest needs no more."""
    return {}


def answers(data: dict[str, Any]) -> dict[str, Any]:
    """The answer key shows the task, its hints and the solution the build verified (from the packed island)."""
    packed = json.loads(zlib.decompress(base64.b64decode(data["packed"])))
    return {"kind": "exercise", "title": data["title"], "prompt": data["prompt"], "hints": data["hints"],
            "solution": packed["solution"]}


BLOCK = BlockType("exercise", "a task the learner codes in an editor, checked in the browser (hints, attempts, "
                  "solution), verified by the build", SCHEMA, build, island, lazy=True,
                  progress=progress, answers=answers,
                  interactions=lambda data: [{"kind": "exercise", "label": messages.t("lms.exercise"),
                                              "text": data["title"], "optional": data["optional"]}])
