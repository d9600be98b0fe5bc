"""The browser worker's runner: run(code, filename) -> the result as JSON text, each run from the same clean state."""

from __future__ import annotations

import importlib
import json
import linecache
from collections.abc import Callable, Sequence
from typing import Any

from labkit._check import check_code
from labkit._clean import Baseline
from labkit._limits import for_the_page
from labkit._run import OUT_OF_MEMORY, TOO_DEEP_TO_REPORT, Writer, _error_report, _plain_error, run_code
from labkit._stdlib import FullStdlibFinder, install_stdlib_fallback
from labkit._words import text as _words
from labkit._words import use

# Reports made once before the clean state is taken, so what making them imports (traceback's helpers for
# suggestions and carets) is part of that state, instead of being imported, and dropped, on every failing run.
_WARM_REPORTS = ("value = 1\nvalue + valeu\n", "[].apend(1)\n", "x = (1,\n", "import no_such_module_here\n", "1 / 0\n")
_WARM_FILE = "<labkit-warm-up>"
# The boot's warm-up: the toolkit's own code, run once through the runner before any learner code (and before the
# worker's memory snapshot, which keeps what it warmed). It does what a typical lab run does (a function,
# comprehensions, math, f-strings with format specs, print, labkit.bars and the result's JSON), so the learner's
# first run finds those paths warm: tests/bench_labkit.py prints the first run with and without it.
WARM_UP_FILE = "<labkit-warm-up>"
WARM_UP_CODE = """\
import math

import labkit


def curve(k, xs):
    return [1 / (1 + math.exp(-k * x)) for x in xs]


xs = [-2.0, -1.0, 0.0, 1.0, 2.0]
series = {f"{k:g}": curve(k, xs) for k in (0.5, 1, 2)}
for name, values in series.items():
    print(f"k={name:<4} values=[{', '.join(f'{100 * v:.1f}%' for v in values)}]  sum={sum(values):.3f}")
labkit.bars(series, labels=[f"{x:g}" for x in xs], series_title="k", x_title="x", item="x", percent=True)
"""
MAX_MESSAGE_CHARS = 160  # an error's message is one line of the page's status, however long the exception's text
MAX_TYPE_CHARS = 80


def one_line(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """text as one line of at most limit characters, ending with an ellipsis when anything was cut."""
    lines = text.strip().splitlines() or [""]
    line = lines[0].strip()
    if len(line) > limit:
        return line[: limit - 1].rstrip() + "…"
    return line + " …" if len(lines) > 1 else line


def _for_the_status(error: dict | None) -> dict | None:
    """error with its type and message cut to one short line each (the full text is in the output already)."""
    if error is None:
        return None
    return {**error, "type": one_line(error["type"], MAX_TYPE_CHARS), "message": one_line(error["message"])}


def _warm_reports() -> None:
    """Report a few typical errors (and throw the reports away)."""
    for code in _WARM_REPORTS:
        linecache.cache[_WARM_FILE] = (len(code), None, code.splitlines(keepends=True), _WARM_FILE)
        try:
            exec(compile(code, _WARM_FILE, "exec"), {})  # noqa: S102 - our own code, made to fail
        except Exception as exc:  # every one of them fails, on purpose
            _error_report(exc, _WARM_FILE)
    linecache.cache.pop(_WARM_FILE, None)


def _json_encoder() -> Callable[[Any], str]:
    """json.dumps(value, allow_nan=False), made of objects no code can change later (the C encoder, a bound join)."""
    from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]

    def refuse(value: object) -> object:
        raise TypeError(f"{type(value).__name__} is not JSON")

    if c_make_encoder is None:  # a Python built without _json: json's own encoder, the same text
        return json.JSONEncoder(allow_nan=False).encode
    encoder = c_make_encoder(None, refuse, encode_basestring_ascii, None, ": ", ", ", False, False, False)
    join = "".join
    return lambda value: join(encoder(value, 0))


class Runner:
    """Runs learner code in the worker: call it with (code, filename); call settle() after handing the result out."""

    def __init__(self, write_out: Writer, write_err: Writer, finder: FullStdlibFinder | None,
                 scratch: Sequence[str]) -> None:
        """See make_runner."""
        self._write_out, self._write_err = write_out, write_err
        self._finder = finder
        self._scratch = tuple(scratch)
        self._baseline: Baseline | None = None
        self._unsettled = False
        self._encode = _json_encoder()
        self._canned: dict[str, str] = {}
        self._can()

    def _can(self) -> None:
        """The results made ahead: when memory or the stack has run out, a result must still come back without
        building one (made again when the words change)."""
        self._canned = {
            kind: self._encode(self._result(_plain_error(kind, key)))
            for kind, key in (("MemoryError", OUT_OF_MEMORY), ("RecursionError", TOO_DEEP_TO_REPORT))
        }
        stopped = {"type": "KeyboardInterrupt", "message": _words("labkit.stopped"), "line": None, "traceback": ""}
        self._canned["KeyboardInterrupt"] = self._encode({**self._result(stopped), "stopped": True})
        self._stopped_line = _words("labkit.stopped") + "\n"

    def use_words(self, words: str) -> None:
        """Word what labkit writes in the page's language (JSON text: {texts: {key: text}, decimal, group}, the
        page's catalog's labkit._words WORDED messages and its number signs); the worker calls this at every boot,
        after the memory snapshot (which then holds no language), before any learner code."""
        given = json.loads(words)
        use(given["texts"], given["decimal"], given["group"])
        self._can()

    @staticmethod
    def _result(error: dict | None) -> dict:
        """A result with this error and nothing else."""
        return {"ok": error is None, "error": error, "stopped": False, "truncated": False, "charts": []}

    def __call__(self, code: str, filename: str) -> str:
        """Run code; return labkit.run_code's result as JSON text. The core of the clean state is back already."""
        self._prepare()
        try:
            result = run_code(code, filename, write_out=self._write_out, write_err=self._write_err,
                              baseline=self._baseline)
            result["error"] = _for_the_status(result["error"])
            if self._finder is not None and self._finder.root:
                self._baseline.adopt_path(self._finder.root)  # the full stdlib stays mounted for later runs
            try:
                return self._encode(result)
            except (TypeError, ValueError):  # never expected: a chart holds only text and finite numbers
                return self._encode({**result, "charts": []})
        except KeyboardInterrupt:  # a Stop landing after the code ended, while its result was being made
            self._write_err(self._stopped_line)
            return self._canned["KeyboardInterrupt"]
        except RecursionError:
            return self._canned["RecursionError"]
        except MemoryError:  # while turning the result into text
            return self._canned["MemoryError"]

    def _prepare(self) -> None:
        """Before a run or a check: the clean state taken (the first time) or put back (the rest of it)."""
        if self._baseline is None:
            _warm_reports()
            self._baseline = Baseline(scratch=self._scratch)  # before the first run's code: the clean state
        elif self._unsettled:
            self.settle()
        self._unsettled = True

    def check(self, code: str, filename: str, exercise: str, timeout: float) -> str:
        """Check code against an exercise (JSON text: {checks, modules}); labkit.check_code's report as JSON text.

        What the code prints is in the report, not sent as output; secret checks get the generic message.
        """
        self._prepare()
        try:
            spec = json.loads(exercise)
            report = check_code(code, filename, spec["checks"], timeout=float(timeout), modules=spec["modules"],
                                baseline=self._baseline)
            report["error"] = _for_the_status(report["error"])
            return self._encode(report)
        except (MemoryError, RecursionError) as exc:
            error = _plain_error(type(exc).__name__, OUT_OF_MEMORY if isinstance(exc, MemoryError) else TOO_DEEP_TO_REPORT)
            return self._encode({"ok": False, "passed": 0, "total": 0, "error": error, "checks": [], "output": "",
                                 "truncated": False})

    def limits(self) -> str:
        """The caps the page enforces again on what this worker sends for one request, as JSON (labkit._limits)."""
        return self._encode(for_the_page())

    def warm_up(self) -> str:
        """Run the toolkit's warm-up (the first call takes the clean state, before its code); its result as JSON."""
        return self(WARM_UP_CODE, WARM_UP_FILE)

    def adopt(self, names: str) -> None:
        """Import the page's packages (JSON text: a list of import names) and make them part of the clean state, so
        every run finds them as the first did (the worker calls this after loading them, before any learner code)."""
        self._prepare()
        for name in json.loads(names):
            importlib.import_module(name)
        self._baseline.adopt_modules()
        self._unsettled = False

    def settle(self) -> None:
        """Put back the rest of the clean state; the next run does it first if this was not called."""
        if self._baseline is not None and self._unsettled:
            self._baseline.settle()
            self._unsettled = False


def make_runner(write_out: Writer, write_err: Writer, mount_stdlib: Callable[[], str] | None = None, *,
                scratch: Sequence[str] = ()) -> Runner:
    """The worker's runner, made once per boot (before the memory snapshot, which then holds it).

    write_out / write_err receive the runs' output. mount_stdlib: Python booted with the trimmed stdlib, so a
    left-out import mounts the full one (see install_stdlib_fallback). scratch: folders (the working directory,
    /tmp) where each run's new files and folders are removed after it. The clean state every run starts from is
    taken at the first call, before its code runs (the worker calls warm_up() first).
    """
    finder = install_stdlib_fallback(mount_stdlib) if mount_stdlib is not None else None
    return Runner(write_out, write_err, finder, scratch)
