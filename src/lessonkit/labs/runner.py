"""Run each lab file at build time in a child process (lessonkit.labs.host): its output and values feed the page.

The lab runs with labkit's own runner and caps, in the page's words (what labkit writes itself is worded with the
catalog of the page being built: lessonkit.core.messages.current), under a time limit (per lab block, `timeout:`),
in a process of its own, so a lab that loops, exits, crashes or floods its output becomes a `path:line` problem and
never takes the build down. The build asks a lab for values with `get(name)` and `call(function, *args)` (JSON in, JSON out).
Answers are kept in the course's .lessonkit/labs by content (the lab's code, its file name and time limit, those
words, labkit, the host and Python's version), so a rebuild starts no process for a lab that has not changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lessonkit.content.sources import outside, read_text, shown
from lessonkit.core import messages
from lessonkit.core.errors import Problem
from lessonkit.core.files import atomic_write
from lessonkit.labs.imports import LocalImports, local_imports
from lessonkit.labs.limits import WORDED
from lessonkit.labs.process import HOST, LabError, LabHost, excerpt

DEFAULT_TIMEOUT = 10.0  # seconds for running the file, and again for each value the build asks for
CHECK_GRACE = 5.0  # seconds an exercise's check run may take beyond its parts' own limits (starting, reporting)
MEMORY_KEEP = 64  # labs whose answers this process keeps between builds (`serve` rebuilds in-process)


@dataclass
class LabRun:
    """A lab file, what running it unchanged printed, and a way to ask it for values."""

    file: str
    rel: str
    code: str
    output: str = ""
    charts: list[Any] = field(default_factory=list)  # what the run drew with labkit.bars
    ok: bool = False
    session: _Session | None = field(default=None, repr=False)

    @property
    def code_hash(self) -> str:
        """Version of the starter code, so saved learner edits know when it changed."""
        return hashlib.sha256(self.code.encode()).hexdigest()[:16]

    def get(self, name: str) -> Any:
        """A value the lab defines (numbers, strings, lists, dicts); LabError when it cannot give one."""
        return self._ask({"op": "get", "name": name})

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """What the lab's function returns for these JSON arguments; LabError when it fails or is too slow."""
        return self._ask({"op": "call", "name": name, "args": list(args), "kwargs": kwargs})

    def _ask(self, request: dict[str, Any]) -> Any:
        if self.session is None or not self.ok:
            raise LabError(None, "the lab did not run")
        return self.session.ask(request)


class LabRunner:
    """The labs of one build in one process: answers from the cache, a live host per lab only when needed."""

    def __init__(self, lab_dir: Path, root: Path, state: Path, labkit_id: str) -> None:
        """The labs in `lab_dir` of the course at `root` (paths are shown from it); answers kept in its build state
        folder `state`; `labkit_id` names the labkit they run with (a new one runs every lab again)."""
        self.lab_dir, self.root = lab_dir, root
        self.cache_dir = state / "labs"
        self.salt = "\0".join([_host_id(), labkit_id, sys.version])
        self._pid = os.getpid()
        self._sessions: dict[str, _Session] = {}
        self._imports: dict[str, LocalImports] = {}  # local_imports by code, for this runner's build
        # The lab files read since the caller last emptied it (name in lab/ -> lab_text_digest of the text read, or
        # UNREAD): what a lesson's content depends on of lab/ (lessonkit.pipeline.memo keeps it beside the content).
        self.reads: dict[str, str] = {}

    def run(self, file: str, timeout: float, problems: list[Problem], where: Problem, block: str = "lab") -> LabRun | None:
        """Run `lab/<file>` (or take its cached result); author errors become problems at the lab's own line.

        `where` is the line naming the file; `block` the type of the block whose "timeout:" sets the limit.
        """
        read = self._read(file, problems, where)
        if read is None:
            return None
        rel, code = read
        if self.outside_imports(code, problems, Problem(rel, 0, "")):
            return None
        session = self._session(rel, code, timeout, block)
        lab = LabRun(file, rel, code, session=session)
        try:
            reply = session.result()
        except LabError as exc:
            problems.append(Problem(rel, exc.line or 1, exc.message))
            return lab
        lab.output, lab.charts, lab.ok = reply["output"], reply["charts"], True
        return lab

    def read(self, file: str, problems: list[Problem], where: Problem) -> str | None:
        """The code of `lab/<file>`, or None and a problem at `where`."""
        read = self._read(file, problems, where)
        return read[1] if read else None

    def _read(self, file: str, problems: list[Problem], where: Problem) -> tuple[str, str] | None:
        """(rel, code) of `lab/<file>`, or None and a problem at `where`: a Python file inside lab/."""
        path = self.lab_dir / file
        self.reads[Path(file).as_posix()] = UNREAD  # until it is read
        rel = shown(path, self.root)
        if Path(file).is_absolute() or ".." in Path(file).parts:
            lab_rel = shown(self.lab_dir, self.root)  # here and below: for the message only
            problems.append(Problem(where.path, where.line, f'lab file "{file}" is outside {lab_rel}/ — lab files '
                                    f'live in {lab_rel}/: move it there and write "file: {Path(file).name}"'))
            return None
        if outside(path, self.lab_dir):
            lab_rel = shown(self.lab_dir, self.root)
            problems.append(Problem(where.path, where.line, f'lab file "{rel}" is a link to a file outside {lab_rel}/ '
                                    f"— the build publishes only what is in {lab_rel}/: copy the file there instead"))
            return None
        if not path.is_file() or path.suffix != ".py":
            lab_rel = shown(self.lab_dir, self.root)
            available = ", ".join(sorted(p.name for p in self.lab_dir.glob("*.py"))) or "none"
            problems.append(Problem(where.path, where.line, f'lab file "{rel}" not found — create it or fix '
                                    f'"file:" (Python files in {lab_rel}/: {available})'))
            return None
        code, problem = read_text(path, rel)
        if code is None:
            problems.append(problem)  # type: ignore[arg-type]  # read_text gives one or the other
            return None
        self.reads[Path(file).as_posix()] = lab_text_digest(code)
        return rel, code

    def check(self, code: str, filename: str, checks: list[dict[str, Any]], modules: dict[str, str], timeout: float,
              problems: list[Problem], where: Problem) -> dict[str, Any] | None:
        """labkit's check report for code against checks (secret ones revealed; `modules`: the lab files they import),
        from the cache or a child process; None and a problem at `where` when the process fails (past every limit)."""
        if self.outside_imports(code, problems, where):
            return None
        request = {"op": "check", "code": code, "filename": filename, "checks": checks, "modules": modules,
                   "check_timeout": timeout, "words": labkit_words()}
        sources = [f"{name}\0{text}" for name, text in self.local_imports(code)]  # lab files the code imports
        key = hashlib.sha256("\0".join([self.salt, json.dumps(request, sort_keys=True), *sources]).encode())
        key = key.hexdigest()[:32]
        path = self.cache_dir / f"check-{key}.json"
        try:
            return json.loads(path.read_text(encoding="utf-8"))["report"]
        except (OSError, ValueError, KeyError, TypeError):
            pass
        limit = (len(checks) + 1) * timeout + CHECK_GRACE  # each part has its own limit, checked in the process
        host = None
        try:
            host = LabHost(self.lab_dir)
            reply = host.ask(request, limit, where.path, "exercise")
        except LabError as exc:
            problems.append(Problem(where.path, where.line, f"checking the exercise: {exc.message}"))
            return None
        finally:
            if host is not None:
                host.stop()
        if not reply["ok"]:
            error = reply["error"]
            problems.append(Problem(where.path, where.line, f"checking the exercise failed: {error.get('type')}: "
                                    f"{excerpt(str(error.get('message', '')), 300)}"))
            return None
        atomic_write(path, json.dumps({"report": reply["report"]}, ensure_ascii=False).encode())
        return reply["report"]

    def _session(self, rel: str, code: str, timeout: float, block: str) -> _Session:
        """One session per lab content in this process (a course may use one lab in many lessons).

        Its answers are kept under the code of the file and of every lab module it imports (a widget's file imports
        the lab's starter code, whose changes must change the widget).
        """
        if os.getpid() != self._pid:  # a forked renderer: the parent's hosts are not ours to use or stop
            self._pid, self._sessions = os.getpid(), {}
        sources = [f"{name}\0{text}" for name, text in self.local_imports(code)]
        words = labkit_words()
        worded = json.dumps(words, sort_keys=True)
        key = hashlib.sha256("\0".join([self.salt, rel, repr(timeout), worded, code, *sources]).encode()).hexdigest()[:32]
        if key not in self._sessions:
            self._sessions[key] = _Session(key, rel, code, timeout, self.lab_dir, self.cache_dir, block, words)
        return self._sessions[key]

    def local_imports(self, code: str) -> list[tuple[str, str]]:
        """local_imports(code, lab/)'s modules, each code's once: a runner serves one build, which reads the lab folder
        once (every block of every lesson that runs or checks a lab asks for the files it imports)."""
        return self._local(code).found

    def outside_imports(self, code: str, problems: list[Problem], where: Problem) -> bool:
        """Whether the code imports, directly or through another lab module, a module in lab/ whose file is a link to a
        file outside it (which the build would run and an exercise would publish): a problem at each such import, in
        the lab module that has it, or for the code itself at `where` (at the import's own line when where.line is 0).
        """
        links = self._local(code).outside
        lab_rel = shown(self.lab_dir, self.root)
        for importer, line, name in links:
            at = Problem(shown(self.lab_dir / f"{importer}.py", self.root), line, "") if importer \
                else Problem(where.path, where.line or line, "")
            problems.append(Problem(at.path, at.line, f'lab module "{shown(self.lab_dir / f"{name}.py", self.root)}" '
                                    f"(imported here) is a link to a file outside {lab_rel}/ — the build publishes only "
                                    f"what is in {lab_rel}/: copy the file there instead"))
        return bool(links)

    def _local(self, code: str) -> LocalImports:
        found = self._imports.get(code)
        if found is None:
            found = self._imports[code] = local_imports(code, self.lab_dir)
        self.reads.update((f"{name}.py", lab_text_digest(text)) for name, text in found.found)
        self.reads.update((f"{name}.py", UNREAD) for _, _, name in found.outside)
        return found

    def close(self) -> None:
        """Stop this process's hosts and keep their new answers in the cache."""
        if os.getpid() != self._pid:
            return
        for session in self._sessions.values():
            session.close()
        self._sessions = {}


_memory: OrderedDict[str, dict[str, Any]] = OrderedDict()  # key -> {"run": reply, "answers": {request: reply}}


class _Session:
    """One lab's answers: from memory, from .cache/labs, or from a host started on the first miss."""

    def __init__(self, key: str, rel: str, code: str, timeout: float, lab_dir: Path, cache_dir: Path,
                 block: str = "lab", words: dict[str, Any] | None = None) -> None:
        self.key, self.rel, self.code, self.timeout, self.block = key, rel, code, timeout, block
        self.words = words if words is not None else labkit_words()
        self.lab_dir, self.path = lab_dir, cache_dir / f"{key}.json"
        self.entry = _memory.get(key) or self._read()
        self.failure: LabError | None = None
        self.host: LabHost | None = None
        self.dirty = False

    def _read(self) -> dict[str, Any]:
        try:
            entry = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return entry if isinstance(entry, dict) and isinstance(entry.get("answers"), dict) else {}

    def result(self) -> dict[str, Any]:
        """The run's reply (output and charts); LabError when the lab does not run cleanly."""
        if "run" in self.entry:
            return self.entry["run"]
        self._live()
        return self.entry["run"]

    def ask(self, request: dict[str, Any]) -> Any:
        """The value for a get or call request."""
        key = json.dumps(request, sort_keys=True, ensure_ascii=False)
        reply = self.entry.get("answers", {}).get(key)
        if reply is None:
            try:
                reply = self._live().ask(request, self.timeout, self.rel, self.block)
            except LabError as exc:  # the host is gone: later questions get the same answer, not another wait
                self.failure, self.host = exc, None
                raise
            if not reply["ok"]:
                raise _error(reply["error"], request)
            self.entry.setdefault("answers", {})[key] = reply
            self._remember()
        return reply["value"]

    def _live(self) -> LabHost:
        """A host that has run this lab cleanly (started now if need be)."""
        if self.failure is not None:
            raise self.failure
        if self.host is None:
            try:
                self.host = LabHost(self.lab_dir)
                reply = self.host.ask({"op": "run", "code": self.code, "filename": self.rel, "words": self.words},
                                      self.timeout, self.rel, self.block)
                if not reply["ok"]:
                    raise _error(reply["error"], {"op": "run"})
                stray = self.host.stray()
                if stray:
                    raise LabError(None, f'the lab wrote "{excerpt(stray)}" straight to its process\'s output '
                                   "(os.write, sys.__stdout__ or a C extension), which the page never shows — use print()")
            except LabError as exc:
                self.failure = exc
                self.close()
                raise
            if "run" not in self.entry:
                self.entry = {"run": {"output": reply["output"], "charts": reply["charts"]}, "answers": {}}
                self._remember()
        return self.host

    def _remember(self) -> None:
        _memory[self.key] = self.entry
        _memory.move_to_end(self.key)
        while len(_memory) > MEMORY_KEEP:
            _memory.popitem(last=False)
        self.dirty = True

    def close(self) -> None:
        """Stop the host; write new answers to the cache."""
        if self.host is not None:
            self.host.stop()
            self.host = None
        if self.dirty and "run" in self.entry:
            atomic_write(self.path, json.dumps(self.entry, ensure_ascii=False).encode())
            self.dirty = False


def _error(error: dict[str, Any], request: dict[str, Any]) -> LabError:
    """The problem a host's failed reply stands for."""
    kind, line = error.get("type"), error.get("line")
    message = excerpt(str(error.get("message", "")), 300)  # one line, even for a long or multi-line exception
    if request["op"] == "run":
        if kind == "output":
            return LabError(line, f"the lab prints more than the page shows ({message}) — print less")
        if kind == "text":
            return LabError(line, "the lab prints text that is not valid Unicode (a lone surrogate such as "
                            "\"\\udcff\", e.g. from bytes decoded with errors=\"surrogateescape\") — print text "
                            'decoded with errors="replace"')
        if kind == "SystemExit":
            return LabError(line, f"the lab exits early (SystemExit: {message}) — the build runs it to its end: "
                            "remove the exit")
        return LabError(line, f"{kind}{': ' if message else ''}{message} — the lab must run unchanged")
    if kind == "missing":
        return LabError(None, f"the lab {message}", "missing")
    if kind == "value":
        return LabError(None, message, "value")
    return LabError(line, f"{kind}{': ' if message else ''}{message}", "raised")


def labkit_words() -> dict[str, Any]:
    """What labkit words its own text with in the page being built (labkit._words WORDED, from its catalog)."""
    return messages.current().labkit_words(WORDED)


UNREAD = "unread"  # a lab file named but not read (missing, outside lab/, not UTF-8): no text is ever its digest


def lab_text_digest(text: str) -> str:
    """What tells two texts of a lab file apart."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def lab_file_digest(lab_dir: Path, name: str) -> str:
    """lab_text_digest of lab/<name> as it is now (read as local_imports reads it; a file read strictly by the
    runner has the same text when it decodes), or UNREAD."""
    try:
        return lab_text_digest((lab_dir / name).read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return UNREAD


def _host_id() -> str:
    """Changes when the host's or this module's code changes (their answers may differ)."""
    h = hashlib.sha256()
    for file in (HOST, Path(__file__)):
        h.update(file.read_bytes())
    return h.hexdigest()
