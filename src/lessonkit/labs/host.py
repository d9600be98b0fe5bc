"""The lab host: a child process that runs one lab file with labkit's runner and answers the build's questions.

Started by lessonkit.labs.process as `python -I -B host.py LAB_DIR REQUEST_FD REPLY_FD LABKIT_PARENT` (the folder
holding the labkit package); it imports only the standard library and labkit (never lessonkit: the protocol's spec and
validator, protocol.py beside this file, is loaded by its path). Requests and replies are JSON lines on their own pipes
(the protocol: lessonkit/labs/protocol.py), so whatever the lab writes to file descriptors 1 and 2 cannot be mistaken
for a reply (the build reads those as stray output). A request that runs past its timeout ends the process from a
watchdog thread (faulthandler), which first prints where the lab was: the build reads that line from the stray output.
"""
from __future__ import annotations

import builtins
import faulthandler
import importlib.util
import json
import os
import resource
import sys
import types
from typing import Any

MEMORY_LIMIT = 2 << 30  # bytes of address space: about what the page's 32-bit WebAssembly Python can reach
STRAY_FD = 2  # the process's stderr, which the build reads as stray output (not the lab's sys.stderr)
MAX_VALUE_CHARS = 100_000  # a value handed to the build, as JSON (the page's output cap, in characters)

# Taken before any lab code runs: a lab that replaces json.dumps (say) changes its own namespace, not this host's.
_dumps, _loads = json.dumps, json.loads
_PROTOCOL_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "protocol.py")


def _load_protocol() -> types.ModuleType:
    """The protocol's spec and validator (protocol.py beside this file), loaded by its path: no lessonkit import."""
    spec = importlib.util.spec_from_file_location("lessonkit_lab_protocol", _PROTOCOL_FILE)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {_PROTOCOL_FILE}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


protocol = _load_protocol()
_watch, _unwatch = faulthandler.dump_traceback_later, faulthandler.cancel_dump_traceback_later

filename = "lab.py"  # the lab's path as the author sees it, set by the run request
_exit_line: int | None = None  # where the lab raised SystemExit


def lab_line() -> int | None:
    """Line of the innermost frame of the lab file on the current stack."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == filename:
            return frame.f_lineno
        frame = frame.f_back
    return None


class _Exit(SystemExit):
    """SystemExit that remembers the lab line raising it (labkit's runner drops the traceback of an exit)."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        global _exit_line
        _exit_line = lab_line()


def _sys_exit(code: object = None) -> None:
    """sys.exit, raising the remembering SystemExit."""
    raise _Exit(code)


def _os_exit(status: int) -> None:
    """os._exit that first prints where the lab was, as a crash does (the build reads the line from it)."""
    faulthandler.dump_traceback(file=STRAY_FD, all_threads=False)
    _real_os_exit(status)


_real_os_exit = os._exit


NO_FORK = ("a build-time lab cannot fork the lab's process (the copy would share its channel to the build and run "
           "on after it): compute in this process, or start a program with subprocess")
NO_PREEXEC = ("a build-time lab cannot run Python in a copy of the lab's process (subprocess's preexec_fn runs in one, "
              "which shares its channel to the build): start the program without preexec_fn")
NO_NEW_SESSION = ("a build-time lab cannot start a program that outlives its run (start_new_session or process_group "
                  "takes it out of the process group the build ends): start it without them")
# What the C library calls the ways to copy a process, looked up through ctypes (syscall reaches them by number).
FORK_SYMBOLS = frozenset({"fork", "vfork", "_Fork", "__fork", "__libc_fork", "forkpty", "daemon", "clone", "clone3",
                          "__clone", "__clone2", "syscall"})
_forked_at: list[int | None] = []  # where the lab was when a fork the audit hook did not see happened, this request


def _popen_problem() -> str | None:
    """What of the subprocess.Popen call under way (its _execute_child, which raises the audit event) would copy the
    lab's process or outlive its run; None when nothing does."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_name != "_execute_child":
        frame = frame.f_back
    if frame is None:
        return None
    given = frame.f_locals
    if given.get("preexec_fn") is not None:
        return NO_PREEXEC
    if given.get("start_new_session") or given.get("process_group", -1) not in (-1, None):
        return NO_NEW_SESSION
    return None


def _refuse_fork(event: str, args: tuple[object, ...]) -> None:
    """Audit hook: os.fork and os.forkpty (multiprocessing's default start), a subprocess that would run Python in a
    copy of this process (preexec_fn) or leave its process group, and ctypes looking up the C library's fork raise at
    the lab's line."""
    if event in ("os.fork", "os.forkpty"):
        raise RuntimeError(NO_FORK)
    if event == "subprocess.Popen":
        problem = _popen_problem()
        if problem:
            raise RuntimeError(problem)
    if event in ("ctypes.dlsym", "ctypes.dlsym/handle") and len(args) > 1 and args[1] in FORK_SYMBOLS:
        raise RuntimeError(NO_FORK)


def _before_fork() -> None:
    """A fork the audit hook let by (Python's own at-fork handlers run: _posixsubprocess called with a preexec_fn by
    hand): the request fails at the lab's line."""
    _forked_at.append(lab_line())


def _in_the_copy() -> None:
    """The copy of that fork ends at once, before any of the lab's code runs in it."""
    _real_os_exit(70)


def _install_hooks() -> None:
    """Make every way out of the lab leave its line behind, and refuse to fork this process (an audit hook: a lab
    cannot remove it; Python's at-fork handlers for what slips by it)."""
    sys.addaudithook(_refuse_fork)
    os.register_at_fork(before=_before_fork, after_in_child=_in_the_copy)
    builtins.SystemExit = _Exit  # type: ignore[misc]  # `raise SystemExit`, exit() and quit() find this one
    sys.exit = _sys_exit
    os._exit = _os_exit
    faulthandler.enable(file=STRAY_FD, all_threads=False)  # segfaults and aborts print the lab's line


class OutputLimit(BaseException):
    """Raised into the lab at the write past the page's output cap: the build stops there, as Stop would."""


class _Output:
    """Collects what the run prints, noting the lab line of the write that hit the cap and of any invalid text."""

    def __init__(self, max_chars: int, max_lines: int) -> None:
        self.parts: list[str] = []
        self.max_chars, self.max_lines = max_chars, max_lines
        self.chars = self.lines = 0
        self.last_line: int | None = None
        self.bad_text_line: int | None = None

    def write(self, text: str) -> None:
        """labkit's write callback (called on every write: run() asks for no batching)."""
        line = lab_line()
        if line is not None:
            self.last_line = line
        if self.bad_text_line is None and not text.isascii() and not _is_unicode(text):
            self.bad_text_line = line or 1
        self.parts.append(text)
        self.chars += len(text)
        self.lines += text.count("\n")
        # Past a cap only once the runner adds its "Output limit reached" notice, which counts for neither.
        if line is not None and (self.chars > self.max_chars or self.lines > self.max_lines):
            raise OutputLimit


def _is_unicode(text: str) -> bool:
    """False for text that cannot be written as UTF-8 (lone surrogates, e.g. from bytes decoded with errors)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def run(request: dict[str, Any], module: types.ModuleType) -> dict[str, Any]:
    """Run the lab file as __main__ in `module` with the page's own runner and caps."""
    global filename
    from labkit import _limits, _run, _words

    filename = request["filename"]
    _words.use(**request["words"])
    out = _Output(_limits.OUTPUT_CHARS, _limits.OUTPUT_LINES)  # the page's own output caps
    # Every write is a call here, not a message to a page: the build counts none of them. flush_chars=0: every write
    # reaches this host at once, while the lab's line is still on the stack.
    result = _run.run_code(request["code"], filename, write_out=out.write, write_err=out.write, module=module,
                           max_messages=None, flush_chars=0)
    reply: dict[str, Any] = {"ok": True, "output": "".join(out.parts), "charts": result["charts"]}
    error = result["error"]
    cap = f"{out.max_lines:,} lines or {out.max_chars:,} characters"
    if error is not None and error["type"] == OutputLimit.__name__:
        reply = {"ok": False, "error": {"type": "output", "message": cap, "line": error["line"] or out.last_line}}
    elif error is not None:
        line = error["line"] if error["type"] != "SystemExit" else _exit_line
        reply = {"ok": False, "error": {"type": error["type"], "message": error["message"], "line": line}}
    elif result["truncated"]:
        reply = {"ok": False, "error": {"type": "output", "message": cap, "line": out.last_line}}
    elif out.bad_text_line is not None:
        reply = {"ok": False, "error": {"type": "text", "line": out.bad_text_line}}
    return reply


def get(request: dict[str, Any], module: types.ModuleType) -> dict[str, Any]:
    """A value the lab defined, as JSON."""
    name = request["name"]
    if name not in module.__dict__:
        return {"ok": False, "error": {"type": "missing", "message": f"defines no {name!r}", "line": None}}
    value = module.__dict__[name]
    if callable(value) or isinstance(value, types.ModuleType):
        kind = "a module" if isinstance(value, types.ModuleType) else "a function"
        return {"ok": False, "error": {"type": "value", "message": f"{name!r} is {kind}, not a value", "line": None}}
    return _as_json(value, f"{name!r}")


def call(request: dict[str, Any], module: types.ModuleType) -> dict[str, Any]:
    """Call a function the lab defined with JSON arguments; its result as JSON (what it prints is dropped)."""
    name = request["name"]
    function = module.__dict__.get(name)
    if not callable(function):
        return {"ok": False, "error": {"type": "missing", "message": f"defines no function {name!r}", "line": None}}
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = _Discard()
    try:
        value = function(*request["args"], **request["kwargs"])
    except BaseException as exc:  # the lab's own error, reported at its line
        return {"ok": False, "error": {"type": type(exc).__name__, "message": _short(str(exc)),
                                       "line": _innermost_lab_line(exc)}}
    finally:
        sys.stdout, sys.stderr = saved
    return _as_json(value, f"{name}(…)")


class _Discard:
    """sys.stdout during a call: the page shows a function's values, not what it prints."""

    def write(self, text: str) -> int:
        """Drop the text."""
        return len(text)

    def flush(self) -> None:
        """Nothing to flush."""


def _innermost_lab_line(exc: BaseException) -> int | None:
    """Line of the innermost lab frame in an exception's traceback."""
    tb, line = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _as_json(value: object, what: str) -> dict[str, Any]:
    """A reply carrying value, or the reason it cannot be carried."""
    try:
        text = _dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        kind = type(value).__name__
        return {"ok": False, "error": {"type": "value", "line": None, "message": f"{what} is a {kind}, which the build "
                                       "cannot read: use numbers, strings, lists and dicts"}}
    if not _is_unicode(text):
        return {"ok": False, "error": {"type": "value", "line": None,
                                       "message": f"{what} holds text that is not valid Unicode"}}
    if len(text) > MAX_VALUE_CHARS:
        return {"ok": False, "error": {"type": "value", "line": None, "message": f"{what} is {len(text):,} characters "
                                       f"of JSON, more than the {MAX_VALUE_CHARS:,} the build reads — return less: "
                                       "a page shows a few hundred numbers, not a whole grid"}}
    return {"ok": True, "value": value}


def _short(text: str, limit: int = 300) -> str:
    """An exception message short enough for one problem line."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"


def check(request: dict[str, Any], module: types.ModuleType) -> dict[str, Any]:
    """An exercise's code against its checks with labkit's check runner, in a namespace of its own (the lab's
    module is not used); every check's real message, secret ones too (the build reports them to the author)."""
    global filename
    from labkit import _check, _words

    filename = request["filename"]
    _words.use(**request["words"])
    report = _check.check_code(request["code"], filename, request["checks"], timeout=request["check_timeout"],
                               reveal=True, modules=request["modules"])
    return {"ok": True, "report": report}


HANDLERS = {"run": run, "get": get, "call": call, "check": check}


def main() -> None:
    """Serve requests until the build closes the request pipe."""
    lab_dir, request_fd, reply_fd, labkit_parent = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    try:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    except (ValueError, OSError):
        pass  # macOS may refuse an address-space limit; the time limit still ends a lab that keeps growing
    # labkit, the very package the page installs (beside lessonkit), imported from its own folder before the clock
    # starts and before the lab can shadow it; then the lab's folder first, as a script's own folder is.
    sys.path.insert(0, labkit_parent)
    import labkit  # noqa: F401
    sys.path.remove(labkit_parent)
    sys.path.insert(0, lab_dir)

    _install_hooks()
    module = types.ModuleType("__main__")
    requests = os.fdopen(request_fd, "r", encoding="utf-8")
    replies = os.fdopen(reply_fd, "w", encoding="utf-8")

    def send(reply: dict[str, Any]) -> None:
        replies.write(_dumps(reply, ensure_ascii=True) + "\n")
        replies.flush()

    send(protocol.READY)
    for line in requests:
        request = _loads(line)
        problem = protocol.request_problem(request)
        if problem:  # the build's bug: said where the build reads stray output, and no reply
            os.write(STRAY_FD, f"lab host: a request outside the protocol: {problem}\n".encode())
            _real_os_exit(70)
        _watch(request["timeout"], exit=True, file=STRAY_FD)
        _forked_at.clear()
        try:
            reply = HANDLERS[request["op"]](request, module)
        finally:
            _unwatch()
        if _forked_at:
            reply = {"ok": False, "error": {"type": "RuntimeError", "message": NO_FORK, "line": _forked_at[0]}}
        send({**reply, "id": request["id"]})


if __name__ == "__main__":
    main()
