"""Execute learner code with captured, capped output and learner-only tracebacks."""

from __future__ import annotations

import builtins
import gc
import io
import linecache
import sys
import time
import traceback
import types
import warnings
from collections.abc import Callable
from typing import Any

from labkit import _chart
from labkit._clean import Baseline
from labkit._limits import (
    ERROR_CHARS,
    ERROR_LINES,
    FLUSH_CHARS,
    FLUSH_SECONDS,
    OUTPUT_CHARS,
    OUTPUT_LINES,
    OUTPUT_MESSAGES,
)

NO_INPUT_MESSAGE = "This lab has no keyboard input: put the values in the code instead"
NO_MODULE_TAIL = ": this lab runs Python's standard library only (and the packages this lesson lists)."
STOPPED_MESSAGE = "Stopped."
OUT_OF_MEMORY = "Python ran out of memory: the program keeps too much data at once"
TOO_DEEP_TO_REPORT = "the error is nested too deeply to be shown"
KEEP_FRAMES = 500  # per end: formatting 100,000 recursion frames takes half a minute in the browser

Writer = Callable[[str], Any]
COMPILED_KEEP = 4  # recent (code, filename) -> bytecode: re-running unchanged code (compare, Live, class) skips compile

_compiled: dict[tuple[str, str], types.CodeType] = {}
# Sets an exception's traceback in Python itself: an error JavaScript raised into Python (Pyodide's JsException) is
# a proxy of the JavaScript error, whose attribute writes (`exc.__traceback__ = tb`) go to that JavaScript object.
_set_traceback = BaseException.with_traceback


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


class _Sink:
    """Collects stdout/stderr in order, forwards batches, and enforces the output cap."""

    def __init__(self, write_out: Writer, write_err: Writer, max_chars: int, max_lines: int,
                 max_messages: int | None = OUTPUT_MESSAGES, flush_chars: int = FLUSH_CHARS) -> None:
        """max_messages: how many batches the writers may get for the capped text (None: any number); flush_chars:
        the pending characters that make a batch go out at once (0: every write goes out as it comes)."""
        self._writers = {"out": write_out, "err": write_err}
        self._flush_chars = flush_chars
        self._max_chars = max_chars
        self._max_lines = max_lines
        self._max_messages = max_messages
        self._pending: list[list[str]] = []  # [stream, text] runs, adjacent same-stream text merged
        self._pending_chars = 0
        # The first batch waits FLUSH_SECONDS too: a short run's output then reaches the page together with its
        # result, in one rendering frame instead of two (the benchmark's "Steady run" row is click to output).
        self._clock = time.monotonic  # taken now: the learner's code may replace time.monotonic
        self._last_flush = self._clock()
        self.chars = 0
        self.lines = 0
        self.messages = 0  # batches begun for the capped text (each reaches a writer as one call)
        self.truncated = False
        self.last_char = "\n"

    def write(self, stream: str, text: str) -> None:
        """Queue text for stream, cutting it at the cap."""
        if self.truncated or not text:
            return  # past the cap: keep running (so Stop works) but forward nothing
        cut = min(len(text), max(self._max_chars - self.chars, 0))
        room_lines = self._max_lines - self.lines
        if room_lines <= 0:
            cut = 0
        else:
            pos = -1
            for _ in range(room_lines):
                pos = text.find("\n", pos + 1, cut)
                if pos == -1:
                    break
            else:
                cut = pos + 1
        batches = self._max_messages is not None and cut and self._begins_batch(stream) \
            and self.messages >= self._max_messages
        if batches:
            cut = 0
        part = text[:cut]
        if part:
            self._queue(stream, part)
        if cut < len(text):
            self.truncated = True
            lead = "" if (part or self.last_char).endswith("\n") else "\n"
            shown = (f"the output came in more than {self._max_messages:,} separate pieces, and only those are"
                     if batches else f"only the first {self._max_lines:,} lines or {self._max_chars:,} characters are")
            self._queue(
                "err",
                f"{lead}… Output limit reached: {shown} shown. The program keeps running until it ends "
                "or you press Stop.\n",
                count=False,
            )
            self.flush()
            return
        if self._pending_chars >= self._flush_chars or self._clock() - self._last_flush >= FLUSH_SECONDS:
            self.flush()

    def _begins_batch(self, stream: str) -> bool:
        """Whether text for stream now would go out as a message of its own."""
        return not (self._pending and self._pending[-1][0] == stream)

    def _queue(self, stream: str, text: str, *, count: bool = True) -> None:
        """Append text to the pending batch."""
        if count:
            self.chars += len(text)
            self.lines += text.count("\n")
            self.messages += self._begins_batch(stream)
        self.last_char = text[-1]
        if self._pending and self._pending[-1][0] == stream:
            self._pending[-1][1] += text
        else:
            self._pending.append([stream, text])
        self._pending_chars += len(text)

    def write_uncapped(self, stream: str, text: str) -> None:
        """Forward text (error reports) even after the cap, after what is already queued."""
        if text:
            if not self.last_char.endswith("\n"):
                text = "\n" + text
            self._queue(stream, text, count=False)
        self.flush()

    def flush(self) -> None:
        """Send pending text to the writers in order."""
        pending, self._pending, self._pending_chars = self._pending, [], 0
        self._last_flush = self._clock()
        for stream, text in pending:
            self._writers[stream](text)

    def drop_pending(self) -> None:
        """Forget what is not sent yet (when there is no memory left to send it)."""
        self._pending, self._pending_chars = [], 0


class _Stream(io.TextIOBase):
    """A text stream that feeds the sink (sys.stdout / sys.stderr stand-in)."""

    def __init__(self, sink: _Sink, stream: str) -> None:
        super().__init__()
        self._sink = sink
        self._stream = stream

    @property
    def encoding(self) -> str:  # type: ignore[override]
        """Report UTF-8 like a real console."""
        return "utf-8"

    def writable(self) -> bool:
        """Streams accept writes."""
        return True

    def isatty(self) -> bool:
        """Not a terminal."""
        return False

    def write(self, text: str) -> int:  # type: ignore[override]
        """Queue text."""
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._sink.write(self._stream, text)
        return len(text)

    def flush(self) -> None:
        """Nothing to do: batching is time based."""


class _NoInput(io.TextIOBase):
    """sys.stdin stand-in: reading explains that there is no keyboard."""

    def readable(self) -> bool:
        """Claims to be readable so reads reach read()/readline()."""
        return True

    def read(self, size: int | None = -1) -> str:  # type: ignore[override]
        """Refuse with the lab's message."""
        raise EOFError(NO_INPUT_MESSAGE)

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        """Refuse with the lab's message."""
        raise EOFError(NO_INPUT_MESSAGE)


def _no_input(prompt: object = "") -> str:
    """input() stand-in: there is no keyboard in the lab."""
    raise EOFError(NO_INPUT_MESSAGE)


def _learner_tb(tb: types.TracebackType | None, filename: str) -> tuple[types.TracebackType | None, int]:
    """Rebuild tb with only the learner's frames (at most KEEP_FRAMES from each end); return it and the number cut."""
    entries = []
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            entries.append(tb)
        tb = tb.tb_next
    left_out = 0
    if len(entries) > 2 * KEEP_FRAMES:
        left_out = len(entries) - 2 * KEEP_FRAMES
        entries = entries[:KEEP_FRAMES] + entries[-KEEP_FRAMES:]
    rebuilt = None
    for entry in reversed(entries):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return rebuilt, left_out


def _trim_chain(exc: BaseException, filename: str) -> list[int]:
    """Point exc and every exception chained to it at learner-only tracebacks; return the calls cut from each."""
    seen: set[int] = set()
    cut: list[int] = []
    todo = [exc]
    while todo:  # a loop, not recursion: a chain can be longer than the recursion limit
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        tb, left_out = _learner_tb(current.__traceback__, filename)
        _set_traceback(current, tb)
        cut.append(left_out)
        members = getattr(current, "exceptions", None)
        todo += [m for m in members if isinstance(m, BaseException)] if isinstance(members, tuple) else []
        todo += [c for c in (current.__context__, current.__cause__) if c is not None]
    return cut


def _shorten(text: str) -> str:
    """Keep error reports readable when a message is enormous: its ends, and a notice of what was left out."""
    lines = text.splitlines(keepends=True)
    if len(lines) > ERROR_LINES:
        half = ERROR_LINES // 2
        cut = "".join(lines[:half])
        lead = "" if cut.endswith("\n") else "\n"
        text = f"{cut}{lead}… ({len(lines) - ERROR_LINES:,} lines left out) …\n{''.join(lines[-half:])}"
    if len(text) <= ERROR_CHARS:
        return text
    half = ERROR_CHARS // 2
    return f"{text[:half]}\n… ({len(text) - ERROR_CHARS:,} characters left out) …\n{text[-half:]}"


def _message(value: object) -> str:
    """str(value), or what Python's own report shows when the learner's __str__ fails."""
    try:
        return str(value)
    except Exception:  # the learner's __str__ may fail like any of their code
        return "<exception str() failed>"


def _error_report(exc: BaseException, filename: str) -> dict:
    """Describe exc with a traceback trimmed to the learner's frames."""
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        # Pyodide's own text talks about micropip and the CDN; the lab offers neither.
        exc = _retold(exc, ModuleNotFoundError(f"No module named {exc.name!r}{NO_MODULE_TAIL}", name=exc.name))
    elif isinstance(exc, MemoryError) and not _message(exc):
        exc = _retold(exc, MemoryError(OUT_OF_MEMORY))
    cut = _trim_chain(exc, filename)
    te = traceback.TracebackException(type(exc), exc, exc.__traceback__, compact=True)
    text = "".join(te.format())
    tail = "".join(te.format_exception_only())
    if cut and cut[0] and text.endswith(tail):
        text = f"{text[: -len(tail)]}  … {cut[0]:,} more calls left out …\n{tail}"
    line = None
    if isinstance(exc, SyntaxError) and exc.filename == filename:
        line = exc.lineno
    elif te.stack:
        line = te.stack[-1].lineno
    message = _message(exc) if not isinstance(exc, SyntaxError) else (exc.msg or "invalid syntax")
    return {"type": type(exc).__name__, "message": _shorten(message), "line": line, "traceback": _shorten(text)}


def _retold(exc: BaseException, friendly: BaseException) -> BaseException:
    """friendly, standing where exc was raised (what exc was raised during is Python's own business here)."""
    return _set_traceback(friendly, exc.__traceback__)


def _plain_error(kind: str, message: str) -> dict:
    """An error with nothing to trim: one line for the status, the same line for the output."""
    return {"type": kind, "message": message, "line": None, "traceback": f"{kind}: {message}\n"}


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
        text = f"The program exited with status {status}." if status is not None else _message(caught.code)
        sink.write_uncapped("err", _shorten(text) + "\n")
        message = str(status) if status is not None else _shorten(text)
        return {"type": "SystemExit", "message": message, "line": None, "traceback": ""}, False
    clean.restore_rest()  # a report uses modules beyond the core (traceback's own imports)
    if isinstance(caught, KeyboardInterrupt):
        report = _error_report(caught, filename)
        sink.write_uncapped("err", STOPPED_MESSAGE + "\n")
        return {**report, "message": STOPPED_MESSAGE, "traceback": STOPPED_MESSAGE + "\n"}, True
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
