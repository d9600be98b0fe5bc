"""`build.py serve`: the server (lessonkit.hosting.server) in dev mode, a watcher that polls the sources, and rebuilds
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

from lessonkit.hosting.devendpoints import DEFAULT_DEV_SCRIPT
from lessonkit.hosting.events import DevState
from lessonkit.hosting.server import HOST, start_server

WATCH_DIRS = ("lesson", "lab", "templates", "static")
# A save is seen at the next poll and rebuilt once one more poll finds nothing new (an editor's save-all is one
# burst): 50-100 ms from saving to the rebuild's start, for a poll that stats every watched file (a few ms for a
# course of 200 lessons).
POLL_INTERVAL = 0.05
DEBOUNCE = 0.05


def _snapshot(paths: Iterable[Path]) -> dict[str, tuple[int, int]]:
    """(mtime_ns, size) of every watched file; editor droppings and caches are ignored."""
    seen: dict[str, tuple[int, int]] = {}
    for base in paths:
        if not base.exists():
            continue
        files = [base] if base.is_file() else base.rglob("*")
        for file in files:
            name = file.name
            if (name.startswith((".", "#")) or name.endswith(("~", ".swp", ".swx", ".pyc", ".tmp"))
                    or "__pycache__" in file.parts or "node_modules" in file.parts):
                continue
            try:
                st = file.stat()
            except OSError:
                continue  # deleted between listing and stat
            if stat.S_ISREG(st.st_mode):
                seen[str(file)] = (st.st_mtime_ns, st.st_size)
    return seen


class Watcher(threading.Thread):
    """Polls mtimes (stdlib only) and calls `on_change()` once edits have settled for `debounce` seconds.

    Nothing ends the loop but `stop()`: whatever a poll or `on_change` raises (SystemExit and KeyboardInterrupt
    included) goes to `on_error` and the next edit is watched for as before.
    """

    def __init__(self, paths: Iterable[Path], on_change: Callable[[], object], *, interval: float = POLL_INTERVAL,
                 debounce: float = DEBOUNCE, on_error: Callable[[BaseException], object] | None = None) -> None:
        super().__init__(name="lessonkit-watch", daemon=True)
        self.paths = [Path(p) for p in paths]
        self.on_change = on_change
        self.on_error = on_error
        self.interval = interval
        self.debounce = debounce
        self._stop_event = threading.Event()
        self._last: dict[str, tuple[int, int]] | None = None
        self._changed_at: float | None = None

    def start(self) -> None:
        """Note the state of the files now, then poll: an edit saved before the first poll is an edit too."""
        try:
            self._last = _snapshot(self.paths)
        except BaseException as exc:  # the first poll takes the state instead
            self._report(exc)
        super().start()

    def run(self) -> None:
        """Poll loop; a burst of saves (editor save-all) leads to one rebuild."""
        while True:
            try:
                self._poll()
            except BaseException as exc:  # a dead watcher would leave the author editing blind
                self._report(exc)
            if self._stop_event.wait(self.interval):
                return

    def _poll(self) -> None:
        current = _snapshot(self.paths)
        if self._last is None:
            self._last = current  # the state when watching started
            return
        if current != self._last:
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


def run_rebuild(rebuild: Callable[[], list[str]], dev: DevState | None, *, out: TextIO | None = None) -> list[str]:
    """Call `rebuild`, turn crashes into problems, report to the terminal and to open pages.

    Anything `rebuild` raises is a problem, BaseException included (a lab calling sys.exit() must not end the dev
    server), except KeyboardInterrupt on the main thread: that is the author's Ctrl-C.
    """
    out = out if out is not None else sys.stderr
    started = time.perf_counter()
    try:
        problems = [str(problem) for problem in rebuild()]
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
          out: TextIO | None = None, base: str = "/", idle: Callable[[threading.Event], object] | None = None) -> None:
    """Run the local server until Ctrl-C; with `watch`, rebuild on edits and live-reload open pages.

    `watch_paths` defaults to lesson/, lab/, templates/ and static/ under `root`; `initial_build=False` when the
    caller has just built. `idle(cancel)` runs beside the server after a rebuild has been published (what the rebuild
    left for later: the search index, lessonkit.build.memo); the next edit sets `cancel` and waits for it to return
    before rebuilding. What it raises is reported like a rebuild's crash.
    """
    out = out if out is not None else sys.stdout
    root, site = Path(root), Path(site)
    dev_script = root / "static" / "js" / "page" / "dev-reload.js"
    if not dev_script.is_file():
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
        if initial_build:
            run_rebuild(rebuild, handle.dev, out=out)
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
                problems = run_rebuild(rebuild, handle.dev, out=out)
                if idle is not None and not problems:
                    cancel = threading.Event()
                    thread = threading.Thread(target=run_idle, args=(idle, handle.dev, out, cancel),
                                              name="lessonkit-after-rebuild", daemon=True)
                    thread.start()
                    later = (thread, cancel)
    except KeyboardInterrupt:
        print("\nStopped.", file=out, flush=True)
    finally:
        if later is not None:
            later[1].set()
            later[0].join()
        if watcher is not None:
            watcher.stop()
        handle.stop()
