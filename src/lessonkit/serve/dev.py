"""`lessonkit serve`: the server (lessonkit.serve.server) in dev mode, a watcher that polls the sources, and rebuilds
on the main thread, each reported to the terminal and to open pages; nothing a rebuild raises ends the server."""

from __future__ import annotations

import stat
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO

from lessonkit.core.errors import SourcesChangedError
from lessonkit.serve.devendpoints import DEFAULT_DEV_SCRIPT
from lessonkit.serve.events import DevState
from lessonkit.serve.server import HOST, start_server

WATCH_DIRS = ("lesson", "lab", "templates", "static", "blocks")
# The poll (where the kernel's file events are not to be had): a save is seen at the next poll and rebuilt once one
# more poll finds nothing new (an editor's save-all is one burst), each poll a stat of every watched file.
POLL_INTERVAL = 0.05
# How long the watched files stay quiet before a rebuild starts: an editor's save-all is one burst, one rebuild.
DEBOUNCE = 0.02
GROUP_LIMIT = 1.6  # seconds: a burst of saves longer than this is rebuilt in parts
EVENT_TIMEOUT = 0.5  # seconds between the event watcher's looks for watched folders that did not exist yet


def _ignored(path: Path) -> bool:
    """Editor droppings and caches: never a source."""
    name = path.name
    return (name.startswith((".", "#")) or name.endswith(("~", ".swp", ".swx", ".pyc", ".tmp"))
            or "__pycache__" in path.parts or "node_modules" in path.parts)


def _snapshot(paths: Iterable[Path]) -> dict[str, tuple[int, int]]:
    """(mtime_ns, size) of every watched file; editor droppings and caches are ignored."""
    seen: dict[str, tuple[int, int]] = {}
    for base in paths:
        if not base.exists():
            continue
        files = [base] if base.is_file() else base.rglob("*")
        for file in files:
            if _ignored(file):
                continue
            try:
                st = file.stat()
            except OSError:
                continue  # deleted between listing and stat
            if stat.S_ISREG(st.st_mode):
                seen[str(file)] = (st.st_mtime_ns, st.st_size)
    return seen


def holding_still(paths: Iterable[Path]) -> Callable[[], bool]:
    """Whether the files under `paths` are still as they are now (each one's mtime and size, as the watcher compares
    them): a rebuild asks before it publishes, so a site is made only of sources that held still while it read them."""
    paths = list(paths)
    before = _snapshot(paths)
    return lambda: _snapshot(paths) == before


def _differences(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> set[Path]:
    """The files added, removed or changed between two snapshots."""
    return {Path(name) for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def _events() -> object | None:
    """watchfiles (the kernel's file events: inotify on Linux), or None where it is not installed."""
    try:
        import watchfiles
    except ImportError:
        return None
    return watchfiles


class Watcher(threading.Thread):
    """Watches the sources and calls `on_change()` once edits have settled for `debounce` seconds; `take_changes()`
    then says which files changed (what the rebuild may read again, lessonkit.pipeline.memo).

    The kernel's file events (watchfiles) where they are to be had, else (`events=False`, or watchfiles missing or
    failing) a poll of the files' mtimes every `interval`. Nothing ends the loop but `stop()`: whatever a poll or
    `on_change` raises (SystemExit and KeyboardInterrupt included) goes to `on_error` and the next edit is watched
    for as before.
    """

    def __init__(self, paths: Iterable[Path], on_change: Callable[[], object], *, interval: float = POLL_INTERVAL,
                 debounce: float = DEBOUNCE, on_error: Callable[[BaseException], object] | None = None,
                 events: bool = True) -> None:
        super().__init__(name="lessonkit-watch", daemon=True)
        self.paths = [Path(p) for p in paths]
        self.on_change = on_change
        self.on_error = on_error
        self.interval = interval
        self.debounce = debounce
        self.events = _events() if events else None
        self._stop_event = threading.Event()
        self._last: dict[str, tuple[int, int]] | None = None
        self._changed_at: float | None = None
        self._lock = threading.Lock()
        self._changes: set[Path] = set()

    @property
    def backend(self) -> str:
        """"events" (the kernel's) or "poll": what this watcher uses now."""
        return "events" if self.events is not None else "poll"

    def take_changes(self) -> set[Path]:
        """The files changed since the last call (added, edited or removed), and forget them."""
        with self._lock:
            changes, self._changes = self._changes, set()
        return changes

    def start(self) -> None:
        """Note the state of the files now, then watch: an edit saved before the watch begins is an edit too."""
        try:
            self._last = _snapshot(self.paths)
        except BaseException as exc:  # the first poll takes the state instead
            self._report(exc)
        super().start()

    def run(self) -> None:
        """Watch loop; a burst of saves (editor save-all) leads to one rebuild."""
        while self.events is not None and not self._stop_event.is_set():
            try:
                self._watch_events()
            except BaseException as exc:  # the kernel's events failed (a watch limit): poll from now on
                self._report(exc)
                self.events = None
        while not self._stop_event.is_set():
            try:
                self._poll()
            except BaseException as exc:  # a dead watcher would leave the author editing blind
                self._report(exc)
            if self._stop_event.wait(self.interval):
                return

    def _watch_events(self) -> None:
        """One watch of the folders that exist, until one that did not exists (then it is watched again)."""
        present = [p for p in self.paths if p.exists()]
        missing = [p for p in self.paths if not p.exists()]
        if not present:
            self._stop_event.wait(EVENT_TIMEOUT)
            self._note({p for p in self.paths if p.exists()})
            return
        first = self._last is not None
        for found in self.events.watch(*present, watch_filter=lambda _, path: not _ignored(Path(path)),
                                       step=max(1, round(1000 * self.debounce)), debounce=round(1000 * GROUP_LIMIT),
                                       rust_timeout=round(1000 * EVENT_TIMEOUT), yield_on_timeout=True,
                                       stop_event=self._stop_event, raise_interrupt=False):
            changes = {Path(path) for _, path in found}
            if first:  # saved between start() and the watch's beginning: seen by comparing with the first state
                first = False
                assert self._last is not None
                changes |= _differences(self._last, _snapshot(self.paths))
            appeared = {p for p in missing if p.exists()}
            self._note(changes | appeared)
            if appeared:
                return

    def _note(self, changes: set[Path]) -> None:
        """Some files changed: noted for take_changes(), then on_change() (what it raises is reported)."""
        if not changes:
            return
        with self._lock:
            self._changes |= changes
        try:
            self.on_change()
        except BaseException as exc:  # the next edit is watched for as before
            self._report(exc)

    def _poll(self) -> None:
        current = _snapshot(self.paths)
        if self._last is None:
            self._last = current  # the state when watching started
            return
        if current != self._last:
            with self._lock:
                self._changes |= _differences(self._last, current)
            self._last = current
            self._changed_at = time.monotonic()
            return
        if self._changed_at is not None and time.monotonic() - self._changed_at >= self.debounce:
            self._changed_at = None  # before the call: a failing rebuild is retried on the next edit, not forever
            self.on_change()
            # Edits made during the rebuild show up as a difference on the next poll.

    def _report(self, exc: BaseException) -> None:
        """Hand `exc` to on_error, else (or if that fails too) print it; never raise (that would end the loop)."""
        for report in (self.on_error, lambda e: traceback.print_exception(e, file=sys.stderr)):
            if report is None:
                continue
            try:
                report(exc)
                return
            except BaseException:  # noqa: S112 (try the next way of reporting it)
                continue

    def stop(self) -> None:
        """Ask the loop to end (returns at once)."""
        self._stop_event.set()


def run_rebuild(rebuild: Callable[[], list[str]], dev: DevState | None, *,
                out: TextIO | None = None) -> list[str] | None:
    """Call `rebuild`, turn crashes into problems, report to the terminal and to open pages; None when the sources
    changed while it read them (SourcesChangedError: nothing was published, and it is to be run again).

    Anything else `rebuild` raises is a problem, BaseException included (a lab calling sys.exit() must not end the dev
    server), except KeyboardInterrupt on the main thread: that is the author's Ctrl-C.
    """
    out = out if out is not None else sys.stderr
    started = time.perf_counter()
    try:
        problems = [str(problem) for problem in rebuild()]
    except SourcesChangedError:
        print("Files changed during the rebuild; building again.", file=out, flush=True)
        return None
    except KeyboardInterrupt:
        if threading.current_thread() is threading.main_thread():
            raise
        problems = [_crash_report(sys.exc_info()[1], out)]
    except BaseException as exc:  # a build bug or a hostile lab must not kill the dev server
        problems = [_crash_report(exc, out)]
    took = time.perf_counter() - started
    try:
        if problems:
            print(f"Build failed ({len(problems)} problem{'s' if len(problems) != 1 else ''}); "
                  "still serving the last good build:", file=out)
            for problem in problems:
                print(f"  {problem}", file=out)
        else:
            print(f"Rebuilt in {took:.2f} s; reloading open pages.", file=out)
        out.flush()
    finally:
        if dev is not None:  # the page's banner hears of it even if the terminal is gone
            dev.publish(problems)
    return problems


def run_idle(idle: Callable[[threading.Event], object], dev: DevState | None, out: TextIO,
             cancel: threading.Event) -> None:
    """Run what a published rebuild left for later (on its own thread); a crash is reported as a rebuild's is, and
    the server goes on."""
    try:
        idle(cancel)
    except BaseException as exc:  # the last published site stays; the next edit rebuilds it whole
        problem = _crash_report(exc, out)
        print(f"  {problem}", file=out, flush=True)
        if dev is not None:
            dev.publish([problem])


def _start_idle(idle: Callable[[threading.Event], object], dev: DevState | None,
                out: TextIO) -> tuple[threading.Thread, threading.Event]:
    """run_idle on a thread of its own; the thread and the event that stops it."""
    cancel = threading.Event()
    thread = threading.Thread(target=run_idle, args=(idle, dev, out, cancel), name="lessonkit-after-rebuild",
                              daemon=True)
    thread.start()
    return thread, cancel


def report_crash(exc: BaseException, dev: DevState | None, out: TextIO) -> None:
    """Something outside a rebuild failed (the watcher's own polling): terminal and open pages hear of it."""
    problem = _crash_report(exc, out, what="the file watcher failed")
    print(f"  {problem} (still watching)", file=out, flush=True)
    if dev is not None:
        dev.publish([problem])


def _crash_report(exc: BaseException | None, out: TextIO, what: str = "build crashed") -> str:
    """Print the traceback to the terminal; return the one-line problem for the page."""
    try:
        traceback.print_exception(exc, file=out)
    except BaseException:  # noqa: S110 (a hostile __str__ may raise anything; the one-line problem still gets out)
        pass
    if exc is None:
        return what
    try:
        message = str(exc)
    except BaseException:  # an exception whose str() fails is still reported
        message = "<the exception's message could not be shown>"
    return f"{what}: {type(exc).__name__}" + (f": {message}" if message else "")


def serve(root: Path, site: Path, port: int, rebuild: Callable[[], list[str]], *, isolated: bool = True,
          watch: bool = True, initial_build: bool = True, watch_paths: Iterable[Path] | None = None,
          out: TextIO | None = None, base: str = "/", idle: Callable[[threading.Event], object] | None = None,
          changed: Callable[[set[Path] | None], object] | None = None) -> None:
    """Run the local server until Ctrl-C; with `watch`, rebuild on edits and live-reload open pages.

    `watch_paths` defaults to the folders WATCH_DIRS names in the course folder `root`; `initial_build=False` when
    the caller has just built. `idle(cancel)` runs beside the server after the first build and after each rebuild
    published (what the rebuild left for later: the search index, lessonkit.pipeline.memo); the next edit sets `cancel`
    and waits for it to return before rebuilding. What it raises is reported like a rebuild's crash.
    `changed(paths)` is told before each rebuild which files the watcher saw change since the last one (None: not
    known), so the rebuild reads only those again (lessonkit.pipeline.memo).
    """
    out = out if out is not None else sys.stdout
    root, site = Path(root), Path(site)
    dev_script = DEFAULT_DEV_SCRIPT
    try:
        handle = start_server(site, port, isolated=isolated, dev=watch, dev_script=dev_script, echo=out, base=base)
    except OSError as exc:
        raise SystemExit(f"Cannot listen on {HOST}:{port}: {exc.strerror or exc}. "
                         f"Try another port, e.g. --port {port + 1}.") from exc
    watcher: Watcher | None = None
    # Rebuilds run here, on the main thread, where the build's time limit on markdown (lessonkit.content.bounds) has its
    # alarm; the watcher only asks for them. Edits saved during a rebuild ask for one more, after it.
    wanted = threading.Event()
    later: tuple[threading.Thread, threading.Event] | None = None  # what the last rebuild left, running
    try:
        problems = run_rebuild(rebuild, handle.dev, out=out) if initial_build else []
        if problems is None:
            wanted.set()
        elif idle is not None and not problems:  # the first build's too (the caller's, when it built)
            later = _start_idle(idle, handle.dev, out)
        if watch:
            paths = list(watch_paths) if watch_paths is not None else [root / d for d in WATCH_DIRS]
            watcher = Watcher(paths, wanted.set, on_error=lambda exc: report_crash(exc, handle.dev, out))
            watcher.start()
        mode = ", ".join(filter(None, [
            "live reload" if watch else "no watcher",
            "cross-origin isolated" if isolated else "not isolated",
        ]))
        print(f"Serving {site} at {handle.url} ({mode}). Press Ctrl-C to stop.", file=out, flush=True)
        while True:
            if wanted.wait(0.5):  # short waits keep Ctrl-C responsive
                wanted.clear()
                if later is not None:  # stopped, and waited for: a rebuild and it never write the site at once
                    later[1].set()
                    later[0].join()
                    later = None
                if changed is not None:
                    changed(watcher.take_changes() if watcher is not None else None)
                problems = run_rebuild(rebuild, handle.dev, out=out)
                if problems is None:  # a save landed while the sources were read: their next state is built
                    wanted.set()
                elif idle is not None and not problems:
                    later = _start_idle(idle, handle.dev, out)
    except KeyboardInterrupt:
        print("\nStopped.", file=out, flush=True)
    finally:
        if later is not None:
            later[1].set()
            later[0].join()
        if watcher is not None:
            watcher.stop()
        handle.stop()
