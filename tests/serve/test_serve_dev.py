"""The dev server over the fake site (fake_site.py): the live-reload script, rebuilds that fail or race their sources,
the events long poll, and the watcher that starts rebuilds."""


from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fake_site import Sink, fetch, make_site, until
from places import STATIC

from lessonkit.serve.dev import Watcher, holding_still, run_rebuild
from lessonkit.serve.devendpoints import DEV_SCRIPT_URL
from lessonkit.serve.events import DevState
from lessonkit.serve.server import ServerHandle, start_server


def test_dev_script_injected_only_in_dev(server: ServerHandle, dev_server: ServerHandle, site: Path) -> None:
    on_disk = (site / "index.html").read_bytes()
    _, _, prod = fetch(server, "/index.html")
    assert prod == on_disk
    assert b"__lessonkit" not in prod
    status, _, _ = fetch(server, DEV_SCRIPT_URL)
    assert status == 404
    status, _, _ = fetch(server, "/__lessonkit/events")
    assert status == 404

    _, _, dev = fetch(dev_server, "/index.html")
    assert dev_server.dev is not None
    tag = f'<script type="module" src="{DEV_SCRIPT_URL}?epoch={dev_server.dev.epoch}"></script>'.encode()
    assert dev.count(tag) == 1
    assert dev.index(tag) < dev.index(b"</body>")
    assert (site / "index.html").read_bytes() == on_disk  # never written into site files
    _, _, dev2 = fetch(dev_server, "/second.html")  # upper-case </BODY>
    assert dev2.index(b"dev-reload.js") < dev2.index(b"</BODY>")
    status, headers, script = fetch(dev_server, DEV_SCRIPT_URL)
    assert status == 200
    assert headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert headers["Cache-Control"] == "no-store"
    assert script == (STATIC / "js/page/dev-reload.js").read_bytes()


def test_dev_script_has_no_inner_html() -> None:
    source = (STATIC / "js/page/dev-reload.js").read_text(encoding="utf-8")
    assert "innerHTML" not in source and "insertAdjacentHTML" not in source
    assert 'role", "alert"' in source and "textContent" in source


def test_failed_rebuild_keeps_old_site_and_reports(dev_server: ServerHandle, site: Path) -> None:
    dev = dev_server.dev
    assert dev is not None
    _, _, before = fetch(dev_server, "/index.html")
    status, _, body = fetch(dev_server, "/__lessonkit/events")
    first = json.loads(body)
    assert status == 200 and first["problems"] == [] and first["epoch"] == dev.epoch

    problems = ["lesson/attention.md:3:8: front matter: expected \"key: value\""]
    out = Sink()
    assert run_rebuild(lambda: problems, dev, out=out) == problems
    assert "still serving the last good build" in out.text and problems[0] in out.text
    _, _, after = fetch(dev_server, "/index.html")
    assert after == before
    _, _, body = fetch(dev_server, f"/__lessonkit/events?epoch={first['epoch']}&seq={first['seq']}")
    state = json.loads(body)
    assert state == {"epoch": first["epoch"], "seq": first["seq"] + 1, "problems": problems}

    # A crashing build is a problem too, not a dead server.
    def crash() -> list[str]:
        raise RuntimeError("boom")

    assert run_rebuild(crash, dev, out=out) == ["build crashed: RuntimeError: boom"]

    # Fix → new epoch, problems cleared, new content served with the new epoch in the script URL.
    make_site(site, title="Fixed lesson")
    assert run_rebuild(lambda: [], dev, out=out) == []
    _, _, body = fetch(dev_server, "/__lessonkit/events")
    fixed = json.loads(body)
    assert fixed["epoch"] == first["epoch"] + 1 and fixed["problems"] == []
    _, _, page = fetch(dev_server, "/index.html")
    assert b"Fixed lesson" in page and f"epoch={fixed['epoch']}".encode() in page


def test_a_rebuild_whose_sources_changed_as_it_read_them_publishes_nothing(dev_server: ServerHandle) -> None:
    """A save landed while the build read the sources (lessonkit.serve.dev.holding_still): the site and open pages are
    left as they were, the terminal says so, and the caller builds again (None)."""
    from lessonkit.core.errors import SourcesChangedError

    dev = dev_server.dev
    assert dev is not None
    before = dev.snapshot()
    _, _, page = fetch(dev_server, "/index.html")

    def torn() -> list[str]:
        raise SourcesChangedError

    out = Sink()
    assert run_rebuild(torn, dev, out=out) is None
    assert out.text == "Files changed during the rebuild; building again.\n"
    assert dev.snapshot() == before and fetch(dev_server, "/index.html")[2] == page


def test_holding_still_sees_a_file_written_or_added_since(tmp_path: Path) -> None:
    (tmp_path / "lesson").mkdir()
    (tmp_path / "lesson" / "a.md").write_text("one")
    still = holding_still([tmp_path / "lesson"])
    assert still()
    (tmp_path / "lesson" / "a.md").write_text("two, longer")
    assert not still()
    again = holding_still([tmp_path / "lesson"])
    (tmp_path / "lesson" / "b.md").write_text("new")
    assert not again()
    settled = holding_still([tmp_path / "lesson"])
    (tmp_path / "lesson" / ".a.md.swp").write_text("an editor's")  # not a source
    assert settled()


def test_events_long_poll_wakes_on_publish(dev_server: ServerHandle) -> None:
    assert dev_server.dev is not None
    state = dev_server.dev.snapshot()
    result: dict[str, object] = {}

    def poll() -> None:
        t0 = time.monotonic()
        _, _, body = fetch(dev_server, f"/__lessonkit/events?epoch={state['epoch']}&seq={state['seq']}")
        result.update(json.loads(body), took=time.monotonic() - t0)

    thread = threading.Thread(target=poll)
    thread.start()
    time.sleep(0.3)
    assert thread.is_alive()  # still waiting: nothing changed
    dev_server.publish([])
    thread.join(5)
    assert result["epoch"] == state["epoch"] + 1
    assert 0.25 < float(result["took"]) < 3  # type: ignore[arg-type]
    status, _, _ = fetch(dev_server, "/__lessonkit/events?epoch=abc")
    assert status == 400


def test_dev_state_wait_times_out_and_close_releases() -> None:
    dev = DevState()
    snap = dev.snapshot()
    t0 = time.monotonic()
    assert dev.wait(snap["epoch"], snap["seq"], timeout=0.2) == snap
    assert 0.15 < time.monotonic() - t0 < 2
    dev.close()
    t0 = time.monotonic()
    dev.wait(snap["epoch"], snap["seq"], timeout=10)
    assert time.monotonic() - t0 < 1


def test_stop_releases_long_polls(site: Path) -> None:
    handle = start_server(site, dev=True)
    assert handle.dev is not None
    snap = handle.dev.snapshot()
    thread = threading.Thread(
        target=lambda: fetch(handle, f"/__lessonkit/events?epoch={snap['epoch']}&seq={snap['seq']}"))
    thread.start()
    time.sleep(0.2)
    t0 = time.monotonic()
    handle.stop()
    thread.join(5)
    assert not thread.is_alive() and time.monotonic() - t0 < 3


@pytest.mark.parametrize("events", [True, False], ids=["kernel events", "poll"])
def test_watcher_debounces_a_burst(tmp_path: Path, events: bool) -> None:
    (tmp_path / "lesson").mkdir()
    target = tmp_path / "lesson" / "a.md"
    target.write_text("0", encoding="utf-8")
    calls: list[float] = []
    watcher = Watcher([tmp_path / "lesson", tmp_path / "missing"], lambda: calls.append(time.monotonic()),
                      interval=0.05, debounce=0.2, events=events)
    assert watcher.backend == ("events" if events else "poll")
    watcher.start()
    try:
        time.sleep(0.2)
        for i in range(5):  # an editor's save-all: several writes in quick succession
            target.write_text(f"{i} " * (i + 2), encoding="utf-8")
            (tmp_path / "lesson" / f"new{i}.md").write_text("x", encoding="utf-8")
            time.sleep(0.03)
        (tmp_path / "lesson" / ".a.md.swp").write_text("ignored", encoding="utf-8")
        deadline = time.monotonic() + 3
        while not calls and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.6)
        assert len(calls) == 1
        (tmp_path / "lesson" / ".hidden.swp").write_text("still ignored", encoding="utf-8")
        time.sleep(0.5)
        assert len(calls) == 1
        target.unlink()  # deletions count as changes
        deadline = time.monotonic() + 3
        while len(calls) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(calls) == 2
    finally:
        watcher.stop()
        watcher.join(2)


@pytest.mark.parametrize("events", [True, False], ids=["kernel events", "poll"])
def test_watcher_says_which_files_changed(tmp_path: Path, events: bool) -> None:
    """What the rebuild reads again (lessonkit.pipeline.memo): the files added, edited and removed, not editors' files;
    a watched folder made after the watch began is watched too."""
    lesson = tmp_path / "lesson"
    lesson.mkdir()
    (lesson / "a.md").write_text("a", encoding="utf-8")
    (lesson / "c.md").write_text("c", encoding="utf-8")
    calls: list[int] = []
    watcher = Watcher([lesson, tmp_path / "lab"], lambda: calls.append(1), interval=0.05, debounce=0.05,
                      events=events)
    watcher.start()
    seen: set[Path] = set()

    def saw(*paths: Path) -> bool:
        seen.update(watcher.take_changes())
        return set(paths) <= seen

    try:
        (lesson / "a.md").write_text("a, edited", encoding="utf-8")
        (lesson / "b.md").write_text("b", encoding="utf-8")
        (lesson / "c.md").unlink()
        (lesson / ".a.md.swp").write_text("an editor's", encoding="utf-8")
        until(lambda: saw(lesson / "a.md", lesson / "b.md", lesson / "c.md"), "the three changes")
        until(lambda: calls, "a rebuild asked for")
        assert not any(p.name.startswith(".") for p in seen), seen
        lab = tmp_path / "lab"
        lab.mkdir()
        (lab / "x.py").write_text("x = 1\n", encoding="utf-8")
        until(lambda: saw() and any(p == lab or lab in p.parents for p in seen), "the new folder")
        seen.clear()

        def edited() -> bool:
            (lab / "x.py").write_text(f"x = {time.monotonic_ns()}\n", encoding="utf-8")
            return saw(lab / "x.py")

        until(edited, "an edit in the new folder")
    finally:
        watcher.stop()
        watcher.join(2)
    assert not watcher.is_alive()


def test_watcher_polls_when_the_kernel_events_fail(tmp_path: Path) -> None:
    """The kernel's events can fail (a limit on watches reached): that is reported, and the files are polled."""

    class Failing:
        @staticmethod
        def watch(*_: object, **__: object) -> Iterator[set[tuple[object, str]]]:
            raise OSError(28, "inotify watch limit reached")

    (tmp_path / "a.md").write_text("0", encoding="utf-8")
    calls: list[int] = []
    errors: list[BaseException] = []
    watcher = Watcher([tmp_path], lambda: calls.append(1), interval=0.05, debounce=0.05, on_error=errors.append)
    watcher.events = Failing()
    watcher.start()
    try:
        until(lambda: watcher.backend == "poll", "the poll taking over")
        (tmp_path / "a.md").write_text("1", encoding="utf-8")
        until(lambda: calls, "a rebuild asked for by the poll")
        assert watcher.take_changes() == {tmp_path / "a.md"}
    finally:
        watcher.stop()
        watcher.join(2)
    assert [str(e) for e in errors] == ["[Errno 28] inotify watch limit reached"]


class _UnprintableError(Exception):
    """An exception whose message itself raises (a hostile lab can define one)."""

    def __str__(self) -> str:
        raise SystemExit("from __str__")


def _in_thread(fn: Callable[[], object]) -> object:
    """fn() on a worker thread, as the watcher calls rebuilds; its result, or what escaped it."""
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["result"] = fn()
        except BaseException as exc:  # what would have killed the watcher thread
            box["escaped"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(10)
    assert "escaped" not in box, f"escaped run_rebuild: {box.get('escaped')!r}"
    return box["result"]


@pytest.mark.parametrize(("raised", "problem"), [
    (SystemExit(3), "build crashed: SystemExit: 3"),
    (SystemExit(), "build crashed: SystemExit"),
    (KeyboardInterrupt(), "build crashed: KeyboardInterrupt"),
    (GeneratorExit("closed"), "build crashed: GeneratorExit: closed"),
    (_UnprintableError(), "build crashed: _UnprintableError: <the exception's message could not be shown>"),
])
def test_rebuild_that_raises_anything_is_a_problem(raised: BaseException, problem: str) -> None:
    """A lab calling sys.exit() (or worse) during a rebuild: reported in the terminal and the page, never fatal."""
    dev = DevState()
    before = dev.snapshot()
    out = Sink()

    def rebuild() -> list[str]:
        raise raised

    assert _in_thread(lambda: run_rebuild(rebuild, dev, out=out)) == [problem]
    assert problem in out.text and "Traceback" in out.text and "still serving the last good build" in out.text
    after = dev.snapshot()  # what /__lessonkit/events gives the page's banner
    assert after["problems"] == [problem] and after["seq"] == before["seq"] + 1 and after["epoch"] == before["epoch"]


def test_ctrl_c_during_a_rebuild_on_the_main_thread_still_stops_serve() -> None:
    """On the main thread KeyboardInterrupt is the author's Ctrl-C (serve's first build runs there)."""

    def rebuild() -> list[str]:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_rebuild(rebuild, None, out=Sink())


def test_watcher_keeps_watching_after_on_change_raises(tmp_path: Path) -> None:
    """Whatever on_change raises goes to on_error, and the next edit is still seen."""
    (tmp_path / "lesson").mkdir()
    lesson = tmp_path / "lesson" / "a.md"
    lesson.write_text("0", encoding="utf-8")
    raises = [SystemExit("lab exited"), KeyboardInterrupt(), None]
    calls: list[int] = []
    errors: list[BaseException] = []

    def on_change() -> None:
        calls.append(len(calls))
        exc = raises[len(calls) - 1]
        if exc is not None:
            raise exc

    watcher = Watcher([tmp_path / "lesson"], on_change, interval=0.05, debounce=0.1, on_error=errors.append)
    watcher.start()
    try:
        time.sleep(0.2)  # the watcher's first look at the folder
        for n in range(3):
            lesson.write_text(f"edit {n}", encoding="utf-8")
            until(lambda n=n: len(calls) > n, f"rebuild {n + 1}")
        until(lambda: len(errors) == 2, "both failures reported")
        assert [type(e) for e in errors] == [SystemExit, KeyboardInterrupt]
        assert watcher.is_alive()
    finally:
        watcher.stop()
        watcher.join(2)
    assert not watcher.is_alive()


def test_watcher_survives_a_failing_poll(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A poll that fails (a folder that cannot be listed) is reported; polling goes on."""
    import lessonkit.serve.dev as serve_module

    real = serve_module._snapshot
    failures = [PermissionError("lesson/: permission denied")]

    def flaky(paths: object) -> object:
        if failures:
            raise failures.pop()
        return real(paths)  # type: ignore[arg-type]

    monkeypatch.setattr(serve_module, "_snapshot", flaky)
    (tmp_path / "a.md").write_text("0", encoding="utf-8")
    calls: list[float] = []
    errors: list[BaseException] = []
    watcher = Watcher([tmp_path], lambda: calls.append(1), interval=0.05, debounce=0.1, on_error=errors.append,
                      events=False)
    watcher.start()
    try:
        until(lambda: errors, "the failing poll reported")
        time.sleep(0.2)
        (tmp_path / "a.md").write_text("1", encoding="utf-8")
        until(lambda: calls, "a rebuild after the failed poll")
    finally:
        watcher.stop()
        watcher.join(2)
    assert isinstance(errors[0], PermissionError)
