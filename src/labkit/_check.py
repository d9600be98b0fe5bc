"""Check a learner's code against an exercise's checks: the same runner in the build (CPython) and the page (Pyodide).

check_code(code, filename, checks) runs the learner's code as __main__ (labkit.run_code: captured output, learner-only
tracebacks), then each check in a namespace of its own holding the learner's objects, with the real builtins and
labkit's helpers: whatever the learner rebinds (print, assert-like helpers, builtins) is put back before a check
runs, and the learner's top-level names never shadow a builtin or a helper there. A check fails by `assert`; a bare
`assert a == b` (any one comparison) or `assert close(a, b, tol)` says "expected …, got …" from the values it
compared (repr, trimmed), found by rewriting the check's asserts, so nothing is evaluated twice. Each part (the
learner's code, then every check) has `timeout` seconds: a loop is stopped at its next line in learner or check
code, a sleep past the limit at once; both report "took too long". Code that blocks inside one C call cannot be
stopped from Python, nor a loop that makes no line events (`while True: pass` on one line, before Python 3.12),
nor a loop that catches BaseException (the first stop turns the tracer off): the host ends the process then (the
build's watchdog, the page's worker restart).

What a check says of itself is labkit's, by message key and values (labkit._words SAID: "check.expected" with the
two values …), which the page and the build word in their own languages; an assertion's own message and an
exception's text are the author's and Python's words, as they are.
"""

from __future__ import annotations

import ast
import builtins
import importlib.abc
import importlib.machinery
import importlib.util
import io
import math
import operator
import sys
import time
import types
from collections.abc import Callable
from typing import Any

from labkit import _chart
from labkit._clean import Baseline
from labkit._limits import CHECK_OUTPUT_CHARS, CHECK_OUTPUT_LINES, CHECK_TIMEOUT, REPORT_CHARS
from labkit._output import _Sink, _Stream
from labkit._report import _error_report, _message
from labkit._run import run_code
from labkit._words import said
from labkit._words import text as _words

DEFAULT_TIMEOUT = CHECK_TIMEOUT  # labkit._limits
CHECK_FILE = "<check>"
MAX_REPR = 80  # characters of a value shown in "expected …, got …"
MAX_MESSAGE = 300  # characters of a check's message (an assertion's own, or the error it raised)
CLOCK_EVERY = 64  # line events between two looks at the clock
RAISED = "raised"  # a revealed check's field: what the learner's code raised in it (check_code)
HELPERS = ("close",)

_monotonic = time.monotonic  # taken now: learner code may replace time.monotonic
_real_sleep = time.sleep


class TookTooLong(BaseException):
    """Raised into learner (or check) code that runs past its time limit; BaseException so `except Exception`
    does not swallow it."""


_last: list[dict[str, Any]] = []  # what the comparison the assert being checked made says (a said), if any


def _show(value: object) -> str:
    """repr(value), trimmed; the learner's __repr__ may fail like any of their code."""
    try:
        text = repr(value)
    except Exception:  # a learner's __repr__ failing is their result, not ours
        text = f"<{type(value).__name__} object (repr() failed)>"
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 1] + "…"


def _close_enough(actual: Any, expected: Any, tol: float) -> bool:
    """Numbers within tol of each other (absolute), or sequences of them item by item."""
    if isinstance(expected, (int, float)) and not isinstance(expected, bool):
        if isinstance(actual, bool) or not isinstance(actual, (int, float)):
            return False
        return math.isfinite(actual) and abs(actual - expected) <= tol
    if isinstance(expected, (list, tuple)):
        try:
            items = list(actual)
        except TypeError:
            return False
        return len(items) == len(expected) and all(_close_enough(a, e, tol) for a, e in zip(items, expected, strict=True))
    return bool(actual == expected)


def close(actual: Any, expected: Any, tol: float = 1e-6) -> bool:
    """Whether actual is within tol of expected (numbers, or lists of them item by item): for `assert close(…)`."""
    ok = _close_enough(actual, expected, tol)
    if not ok:
        _last[:] = [said("check.expected_within", expected=_show(expected), tol=f"{tol:g}", actual=_show(actual))]
    return ok


_OPS: dict[str, tuple[Callable[[Any, Any], Any], str]] = {
    "Eq": (operator.eq, "=="), "NotEq": (operator.ne, "!="), "Lt": (operator.lt, "<"), "LtE": (operator.le, "<="),
    "Gt": (operator.gt, ">"), "GtE": (operator.ge, ">="), "Is": (operator.is_, "is"),
    "IsNot": (operator.is_not, "is not"), "In": (lambda a, b: a in b, "in"), "NotIn": (lambda a, b: a not in b, "not in"),
}


def _compare(op: str, left: Any, right: Any) -> bool:
    """One comparison of a rewritten assert: its outcome, and what it says should it fail."""
    fn, symbol = _OPS[op]
    ok = bool(fn(left, right))
    if not ok:
        _last[:] = [said("check.expected", expected=_show(right), actual=_show(left)) if op == "Eq"
                    else said("check.expected_compare", left=_show(left), op=symbol, right=_show(right))]
    return ok


def _reset() -> None:
    """Forget the last comparison: called as each assert starts."""
    _last.clear()


class _Rewrite(ast.NodeTransformer):
    """`assert a OP b` -> `assert (__lk_reset__() or __lk_cmp__("OP", a, b))`; any other assert gets the reset."""

    def visit_Assert(self, node: ast.Assert) -> ast.Assert:
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]).__name__ in _OPS:
            test = ast.Call(ast.Name("__lk_cmp__", ast.Load()),
                            [ast.Constant(type(test.ops[0]).__name__), test.left, test.comparators[0]], [])
        reset = ast.Call(ast.Name("__lk_reset__", ast.Load()), [], [])
        node.test = ast.copy_location(ast.BoolOp(ast.Or(), [reset, test]), node.test)
        return ast.fix_missing_locations(node)


def compile_check(code: str, name: str = CHECK_FILE) -> types.CodeType:
    """A check's code with its asserts rewritten (SyntaxError as Python gives it, at the check's own lines)."""
    tree = ast.parse(code, name, "exec")
    return compile(_Rewrite().visit(tree), name, "exec", dont_inherit=True)


class _Limit:
    """A time limit for one part: a tracer that stops a loop in the learner's or a check's code at its next line, and
    time.sleep that stops at the limit."""

    def __init__(self, seconds: float, files: tuple[str, ...]) -> None:
        self.seconds, self.files = seconds, files
        self.end = 0.0
        self.fired = False
        self.count = 0

    def _local(self, frame: types.FrameType, event: str, arg: object) -> Callable | None:
        """Line events in those files: look at the clock now and then."""
        self.count += 1
        if self.count % CLOCK_EVERY == 0 and _monotonic() > self.end:
            self.fired = True
            raise TookTooLong(f"took too long (more than {self.seconds:g} s)")
        return self._local

    def _global(self, frame: types.FrameType, event: str, arg: object) -> Callable | None:
        """Trace only frames of the learner's file and the checks: nothing of ours is ever interrupted."""
        return self._local if frame.f_code.co_filename in self.files else None

    def _sleep(self, seconds: float) -> None:
        """time.sleep, up to the limit."""
        left = self.end - _monotonic()
        if seconds > left:
            _real_sleep(max(left, 0))
            self.fired = True
            raise TookTooLong(f"took too long (more than {self.seconds:g} s)")
        _real_sleep(seconds)

    def arm(self) -> None:
        """Start the clock (from inside the guarded part: the clean state's put-back removes both hooks)."""
        self.end = _monotonic() + self.seconds
        self.count = 0
        time.sleep = self._sleep
        sys.settrace(self._global)


class _LabModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports of the lesson's own lab files in a check (`from lab_file import function`), from their sources: the
    page has no lab folder. What such a file prints while it is imported is not shown."""

    def __init__(self, sources: dict[str, str]) -> None:
        self.sources = sources

    def find_spec(self, name: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        """A spec for a lab file's module name."""
        return importlib.util.spec_from_loader(name, self, origin=f"{name}.py") if name in self.sources else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        """The default module."""

    def exec_module(self, module: types.ModuleType) -> None:
        """Run the lab file's code in the module. What it prints and draws is the lab's, not the check's: dropped (it
        draws with a chart budget of its own); an error it raises says that the import raised it."""
        code = compile(self.sources[module.__name__], f"{module.__name__}.py", "exec", dont_inherit=True)
        saved = sys.stdout, sys.stderr
        drawn = _chart._drawn[:]
        del _chart._drawn[:]
        sys.stdout = sys.stderr = io.StringIO()
        try:
            exec(code, module.__dict__)  # noqa: S102 - the lesson's own lab file
        except Exception as exc:
            raise ImportError(_words("labkit.import_failed", module=f"{module.__name__}.py",
                                   error=f"{type(exc).__name__}: {_message(exc)}"), name=module.__name__) from exc
        finally:
            sys.stdout, sys.stderr = saved
            _chart._drawn[:] = drawn


def _namespace(learner: dict[str, Any]) -> dict[str, Any]:
    """A check's globals: the learner's objects, then the real builtins and the helpers over any name they shadow."""
    names = vars(builtins)
    ns = {k: v for k, v in learner.items() if not k.startswith("__") and k not in names and k not in HELPERS}
    ns.update({"__builtins__": builtins, "__name__": "__check__", "close": close,
               "__lk_cmp__": _compare, "__lk_reset__": _reset})
    return ns


def check_code(code: str, filename: str, checks: list[dict[str, Any]], *, timeout: float = DEFAULT_TIMEOUT,
               reveal: bool = False, modules: dict[str, str] | None = None,
               baseline: Baseline | None = None) -> dict[str, Any]:
    """Run code, then each check ({name, code, secret}); the report (see lab/protocol-check.js `ReportMessage`).

    modules: the sources of lab files the checks import, by module name.
    reveal: give secret checks' real messages (the build, which reports them to the author); the page gets
    "check.hidden". With reveal, a check in which the learner's code (not the check) raised also says what it raised,
    as RAISED ("TypeError: ..."): the build tells the author their solution is wrong, not the check.
    baseline: as for run_code (the worker's Runner passes its own; without one, all is put back here).
    """
    own = baseline is None
    clean = Baseline() if own else baseline
    parts: list[str] = []
    chars = [0]

    def write(text: str) -> None:
        """Keep text for the report: the sinks cap the code's output; this bounds their own text too."""
        room = CHECK_OUTPUT_CHARS + REPORT_CHARS - chars[0]
        if room > 0:
            parts.append(text[:room])
            chars[0] += min(len(text), room)

    module = types.ModuleType("__main__")
    limit = _Limit(timeout, (filename, CHECK_FILE))
    # Armed here, put back by the run's own restore (time.sleep and the tracer are part of the clean state):
    # run_code's sleep wraps whatever time.sleep is now, and the tracer sees only the learner's frames.
    limit.arm()
    result = run_code(code, filename, write_out=write, write_err=write, module=module, baseline=clean,
                      max_chars=CHECK_OUTPUT_CHARS, max_lines=CHECK_OUTPUT_LINES, max_messages=None)
    error = result["error"]
    if error is not None and limit.fired:
        error = {**error, "type": "TookTooLong", "message": "", "said": said("check.code_too_long", seconds=timeout)}
    truncated = result["truncated"]
    used_lines = sum(part.count("\n") for part in parts)  # the checks share what the learner's code left
    sink = _Sink(write, write, max(CHECK_OUTPUT_CHARS - chars[0], 0), max(CHECK_OUTPUT_LINES - used_lines, 0), None)
    items = []
    for check in checks:
        name, secret = str(check["name"]), bool(check.get("secret"))
        if error is not None:
            item = {"status": "skipped", "message": "", "said": said("check.not_run"), "traceback": ""}
        else:
            item = _one(check, module.__dict__, filename, timeout, clean, sink, _LabModules(modules or {}))
            if secret and not reveal and item["status"] != "passed":
                timed_out = item["status"] == "timeout"
                item = item if timed_out else {**item, "message": "", "said": said("check.hidden")}
                item = {**item, "traceback": ""}
            if not reveal:
                item.pop(RAISED, None)  # the build's alone: the page's protocol has no such field
        items.append({"name": name, "secret": secret, **item})
    sink.flush()
    truncated = truncated or sink.truncated
    passed = sum(item["status"] == "passed" for item in items)
    module.__dict__.clear()  # the learner's data goes with the run
    if own:
        clean.settle()
    return {"ok": error is None and passed == len(items), "passed": passed, "total": len(items), "error": error,
            "checks": items, "output": "".join(parts), "truncated": truncated}


def _one(check: dict[str, Any], learner: dict[str, Any], filename: str, timeout: float, clean: Baseline,
         sink: _Sink, finder: _LabModules) -> dict[str, Any]:
    """Run one check in a namespace of its own; {status, message, said, traceback}."""
    code = compile_check(str(check["code"]))
    ns = _namespace(learner)
    limit = _Limit(timeout, (filename, CHECK_FILE))
    out, err = _Stream(sink, "out"), _Stream(sink, "err")

    def body() -> None:
        sys.stdout, sys.stderr = out, err
        sys.meta_path.insert(0, finder)  # put back with sys.meta_path, and the modules it made with sys.modules
        limit.arm()
        exec(code, ns)  # noqa: S102 - the author's check, run against the learner's objects

    _reset()
    caught = clean.guarded(body, None)  # puts back the tracer, time.sleep, the streams and the builtins
    compared = _last[0] if _last else None
    _reset()
    ns.clear()
    if caught is None:
        return {"status": "passed", "message": "", "said": None, "traceback": ""}
    clean.restore_rest()  # a report uses modules beyond the core (traceback's own imports)
    try:
        return _failure(caught, compared, filename, timeout, limit)
    finally:
        caught = None


def _failure(caught: BaseException, compared: dict[str, Any] | None, filename: str, timeout: float,
             limit: _Limit) -> dict[str, Any]:
    """What a check that raised says: `message`, the author's or Python's own words (an assertion's message, what the
    check itself raised), or `said`, labkit's (see the top)."""
    if isinstance(caught, TookTooLong) or limit.fired:
        return {"status": "timeout", "message": "", "said": said("check.too_long", seconds=timeout), "traceback": ""}
    if isinstance(caught, AssertionError):
        own = _message(caught).strip()
        if own:
            return {"status": "failed", "message": _trimmed(own), "said": None, "traceback": ""}
        return {"status": "failed", "message": "", "said": compared or said("check.assert_failed"), "traceback": ""}
    if isinstance(caught, SystemExit):
        return {"status": "error", "message": "", "said": said("check.exited"), "traceback": ""}
    report = _error_report(caught, filename)
    learner = _from_learner(caught, filename)
    what = _trimmed(f"{report['type']}: {report['message']}")
    if learner:
        return {"status": "error", "message": "", "said": said("check.raised", error=what),
                "traceback": report["traceback"], RAISED: what}
    return {"status": "error", "message": what, "said": None, "traceback": ""}


def _trimmed(text: str) -> str:
    """text in at most MAX_MESSAGE characters (an exception's name and message may be any length)."""
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def _from_learner(exc: BaseException, filename: str) -> bool:
    """Whether the learner's code is on exc's traceback (their function raised, not the check itself)."""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            return True
        tb = tb.tb_next
    return False
