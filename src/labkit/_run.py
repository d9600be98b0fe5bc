"""Execute learner code: compiled (unchanged code from the recent compiles), run as __main__ with the lab's streams
(labkit._output) and clean state (labkit._clean), and what it raised reported (labkit._report)."""

from __future__ import annotations

import builtins
import gc
import linecache
import sys
import time
import types
import warnings

from labkit import _chart
from labkit._clean import Baseline
from labkit._limits import FLUSH_CHARS, OUTPUT_CHARS, OUTPUT_LINES, OUTPUT_MESSAGES
from labkit._output import Writer, _no_input, _NoInput, _Sink, _Stream
from labkit._report import (
    OUT_OF_MEMORY,
    TOO_DEEP_TO_REPORT,
    _error_report,
    _message,
    _plain_error,
    _set_traceback,
    _shorten,
)
from labkit._words import text as _words

COMPILED_KEEP = 4  # recent (code, filename) -> bytecode: re-running unchanged code (compare, Live, class) skips compile

_compiled: dict[tuple[str, str], types.CodeType] = {}


def precompile(code: str, filename: str) -> bool:
    """Compile without running (the page's starter code, at boot); False when it does not compile."""
    try:
        _compile(code, filename)
    except (SyntaxError, ValueError):
        return False
    return True


def _compile(code: str, filename: str) -> types.CodeType:
    """Bytecode for code, from the recent-compiles cache when it is unchanged.

    Code that warns while compiling (say, an invalid escape) is never cached: it is compiled again outside the
    recorder, so the warnings machinery (filters, stderr) treats every run exactly as it would without a cache.
    """
    key = (code, filename)
    hit = _compiled.get(key)
    if hit is not None:
        return hit
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = compile(code, filename, "exec", dont_inherit=True)
    if caught:
        return compile(code, filename, "exec", dont_inherit=True)
    _compiled[key] = compiled
    while len(_compiled) > COMPILED_KEEP:
        del _compiled[next(iter(_compiled))]  # oldest first (dicts keep insertion order)
    return compiled



def run_code(
    code: str,
    filename: str,
    *,
    write_out: Writer,
    write_err: Writer,
    max_chars: int = OUTPUT_CHARS,
    max_lines: int = OUTPUT_LINES,
    max_messages: int | None = OUTPUT_MESSAGES,
    flush_chars: int = FLUSH_CHARS,
    module: types.ModuleType | None = None,
    baseline: Baseline | None = None,
) -> dict:
    """Run code as __main__ in a fresh namespace (or `module`'s); stream output; return {ok, error, stopped, truncated, charts}.

    charts: what the code drew with labkit.bars, in order (see labkit._chart). The caps (labkit._limits): the
    characters, lines and messages (writer calls) of what the code prints; max_messages None for any number (a host
    whose writers are no channel, like the build's). flush_chars: the batch size that goes out at once (0: every
    write reaches the writers as it comes, while the code's line is still on the stack: the build's host).

    baseline: the clean state to return to. A Runner passes the one it keeps (its core is back when this returns,
    the rest after the Runner's settle); without one, this call captures its own and puts all of it back. A fresh
    namespace is emptied when the state is put back (so the learner's data goes); a module passed in is left as the
    code made it (the build reads the lab's values from it).
    """
    own = baseline is None
    clean = Baseline() if baseline is None else baseline
    sink = _Sink(write_out, write_err, max_chars, max_lines, max_messages, flush_chars)
    out, err = _Stream(sink, "out"), _Stream(sink, "err")
    # The build passes its own module to read the lab's values after the run; the page always runs in a fresh one.
    fresh = module is None
    module = module if module is not None else types.ModuleType("__main__")
    module.__file__ = filename
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    # Registering the source lets tracebacks and warnings show the learner's lines.
    linecache.cache[filename] = (len(code), None, code.splitlines(keepends=True), filename)
    real_sleep = time.sleep

    def sleep(seconds: float) -> None:
        """time.sleep that first shows what was printed before the pause."""
        sink.flush()
        real_sleep(seconds)

    def body() -> None:
        """Everything that belongs to the run: its streams, its __main__, compiling (warnings go to it), its code."""
        sys.stdout, sys.stderr, sys.stdin = out, err, _NoInput()
        sys.argv = [filename]
        sys.modules["__main__"] = module
        builtins.input = _no_input
        time.sleep = sleep
        exec(_compile(code, filename), module.__dict__)  # noqa: S102 - running the learner's code is the point

    _chart.start_run()
    # Every name this function looks up from here on was put back by guarded(), whatever the code changed.
    caught = clean.guarded(body, module.__dict__ if fresh else None)
    try:
        error, stopped = _outcome(caught, filename, sink, clean)
    except MemoryError:
        clean.drop(caught)  # the learner's data may be what fills the memory; a report needs only the lines
        gc.collect()
        try:
            error, stopped = _outcome(caught, filename, sink, clean)
        except (MemoryError, RecursionError) as exc:
            error, stopped = _report_failed(exc, sink), False
    except RecursionError as exc:
        error, stopped = _report_failed(exc, sink), False
    caught = None  # its traceback holds the learner's frames
    try:
        sink.flush()
        charts = _chart.take()
    except MemoryError:
        sink.drop_pending()
        _chart.start_run()
        charts = []
    if own:
        clean.settle()
    return {"ok": error is None, "error": error, "stopped": stopped, "truncated": sink.truncated, "charts": charts}


def _outcome(caught: BaseException | None, filename: str, sink: _Sink, clean: Baseline) -> tuple[dict | None, bool]:
    """(error, stopped) for what the learner's code raised, its report written to the output."""
    if caught is None:
        return None, False
    if isinstance(caught, SystemExit):
        if caught.code in (None, 0):
            return None, False
        # sys.exit("message") prints the message, like CPython does; a number is reported as a status.
        status = caught.code if isinstance(caught.code, int) else None
        text = _words("labkit.exit_status", status=str(status)) if status is not None else _message(caught.code)
        sink.write_uncapped("err", _shorten(text) + "\n")
        message = str(status) if status is not None else _shorten(text)
        return {"type": "SystemExit", "message": message, "line": None, "traceback": ""}, False
    clean.restore_rest()  # a report uses modules beyond the core (traceback's own imports)
    if isinstance(caught, KeyboardInterrupt):
        report = _error_report(caught, filename)
        stopped = _words("labkit.stopped")
        sink.write_uncapped("err", stopped + "\n")
        return {**report, "message": stopped, "traceback": stopped + "\n"}, True
    error = _error_report(caught, filename)  # every learner error is reported, never raised
    sink.write_uncapped("err", error["traceback"])
    return error, False


def _report_failed(exc: BaseException, sink: _Sink) -> dict:
    """The error when even reporting failed: memory or stack ran out making it. Output printed so far is kept."""
    kind = "MemoryError" if isinstance(exc, MemoryError) else "RecursionError"
    _set_traceback(exc, None)
    error = _plain_error(kind, OUT_OF_MEMORY if kind == "MemoryError" else TOO_DEEP_TO_REPORT)
    try:
        sink.write_uncapped("err", error["traceback"])
    except MemoryError:
        sink.drop_pending()  # the status line still says what happened
    return error
