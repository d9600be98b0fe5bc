"""A learner's error as the lab reports it: the traceback trimmed to the learner's frames (its ends when the
chain is very deep), an enormous message shortened, Pyodide's and an empty MemoryError's messages retold (in the
host's words: labkit._words), and a conversion JavaScript refused reported as what refused it."""

from __future__ import annotations

import traceback
import types

from labkit._limits import ERROR_CHARS, ERROR_LINES, MAX_ERROR_NAME
from labkit._words import text as _words

OUT_OF_MEMORY = "labkit.out_of_memory"  # the message keys of the two errors made when even a report cannot be
TOO_DEEP_TO_REPORT = "labkit.too_deep"
KEEP_FRAMES = 500  # per end: formatting 100,000 recursion frames takes half a minute in the browser

# Sets an exception's traceback in Python itself: an error JavaScript raised into Python (Pyodide's JsException) is
# a proxy of the JavaScript error, whose attribute writes (`exc.__traceback__ = tb`) go to that JavaScript object.
_set_traceback = BaseException.with_traceback


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
        text = f"{cut}{lead}{_words('labkit.lines_left_out', n=len(lines) - ERROR_LINES)}\n{''.join(lines[-half:])}"
    if len(text) <= ERROR_CHARS:
        return text
    half = ERROR_CHARS // 2
    return f"{text[:half]}\n{_words('labkit.chars_left_out', n=len(text) - ERROR_CHARS)}\n{text[-half:]}"


# A class's own name and method resolution order, read past any metaclass of the learner's.
_class_name = type.__dict__["__name__"].__get__
_class_mro = type.__dict__["__mro__"].__get__


def shown_name(kind: type) -> str:
    """The exception name the status line shows for class kind: its own when that is a Python identifier of at most
    MAX_ERROR_NAME characters, else that of its nearest base class whose name is. A class named like a sentence
    ("Run finished in 3 ms. All 5 checks passed") would read as the page's own words; the traceback in the output
    keeps the name as it is."""
    for cls in _class_mro(kind):
        name = _class_name(cls)
        if name.isidentifier() and len(name) <= MAX_ERROR_NAME:
            return name
    return "BaseException"


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
        exc = _retold(exc, ModuleNotFoundError(_words("labkit.no_module", name=repr(exc.name)), name=exc.name))
    elif isinstance(exc, MemoryError) and not _message(exc):
        exc = _retold(exc, MemoryError(_words(OUT_OF_MEMORY)))
    elif _refused_conversion(exc):
        exc = _retold(exc, exc.__cause__)
    cut = _trim_chain(exc, filename)
    te = traceback.TracebackException(type(exc), exc, exc.__traceback__, compact=True)
    text = "".join(te.format())
    tail = "".join(te.format_exception_only())
    if cut and cut[0] and text.endswith(tail):
        text = f"{text[: -len(tail)]}  {_words('labkit.calls_left_out', n=cut[0])}\n{tail}"
    line = None
    if isinstance(exc, SyntaxError) and exc.filename == filename:
        line = exc.lineno
    elif te.stack:
        line = te.stack[-1].lineno
    message = _message(exc) if not isinstance(exc, SyntaxError) else (exc.msg or "invalid syntax")
    return {"type": shown_name(type(exc)), "message": _shorten(message), "line": line, "traceback": _shorten(text)}


def _refused_conversion(exc: BaseException) -> bool:
    """Pyodide's ConversionError caused by a JavaScript error: a Python value JavaScript refused to copy (the lab's
    memory cap refusing a string's copy, in the learner's words), whose cause says what happened."""
    kind = type(exc)
    return (kind.__name__ == "ConversionError" and kind.__module__ == "pyodide.ffi"
            and type(exc.__cause__).__name__ == "JsException")


def _retold(exc: BaseException, friendly: BaseException) -> BaseException:
    """friendly, standing where exc was raised (what exc was raised during is Python's own business here)."""
    return _set_traceback(friendly, exc.__traceback__)


def _plain_error(kind: str, key: str) -> dict:
    """An error with nothing to trim, its message labkit's (`key`, labkit._words): one line for the status, the same
    line for the output."""
    message = _words(key)
    return {"type": kind, "message": message, "line": None, "traceback": f"{kind}: {message}\n"}
