"""Offline after the first visit: the service worker precaches the lesson and the runtime; a broken one is harmless."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from lessonkit.hosting.offline import write_service_worker
from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE, PageErrors, assert_isolation, requested, wait_until
from .test_lab import LINES_4_2, RUN_TIMEOUT, Lab

SW_TIMEOUT = 60.0  # s: the install and the lesson's runtime, ~12 MB into Cache Storage on a loaded 2-vCPU machine
# A rebuild's worker replaces the last one after the reloaded page registers it (once its lab is Ready, a second later
# and in an idle slice: page/offline.js), the browser's update check and the new worker's install of the site's files.
UPDATE_TIMEOUT = 2 * SW_TIMEOUT
SW_WORKERS = """navigator.serviceWorker.getRegistration().then((r) => r
  && { installing: r.installing && r.installing.state, waiting: r.waiting && r.waiting.state,
         active: r.active && r.active.state })"""
# The pages have no icon link, so Chromium asks for /favicon.ico (404) a while after load; not ours to judge here.
FAVICON = "/favicon.ico"
CACHE_NAME = re.compile(r'const CACHE = "(lessonkit-[0-9a-f]{12})";')
LINE_16 = "head_dim=16  divide by 4.00  scaled=[0.000, 1.000, 0.500]  probs=[18.6%, 50.6%, 30.7%]"


# The service worker's caches (the lab worker keeps its Python memory snapshot in a cache of its own).
SW_CACHES = "caches.keys().then((names) => names.filter((n) => n.startsWith('lessonkit-')))"


def _linked_copy(site: Path, dest: Path) -> Path:
    """A copy of a built site made of hard links (cheap); files a test rewrites must be unlinked first."""
    shutil.copytree(site, dest, copy_function=os.link)
    return dest


def _write_sw(site: Path, text: str | None = None) -> None:
    """Replace site/sw.js (generated when text is None, for the wheels the build's own precaches) without touching a
    hard-linked original; the digests it remembers go beside the copy (its build state), never into a course."""
    sw = site / "sw.js"
    lessons_found = re.search(r"^const LESSONS = (\{.*?\});$", sw.read_text(encoding="utf-8"), re.M | re.S)
    lessons = {page: urls for page, urls in json.loads(lessons_found.group(1)).items() if page} if lessons_found else {}
    wheels = sorted({u for urls in lessons.values() for u in urls if u.startswith("runtime/wheels/")})
    sw.unlink(missing_ok=True)
    (site / "sw.js.br").unlink(missing_ok=True)  # the build's precompressed copy would be served instead
    if text is None:
        write_service_worker(site, site.parent, wheels, lessons=lessons)  # each page's runtime URLs name its files
    else:
        sw.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def offline_site(site_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built site with sw.js: the real one once the build writes it, else a copy with sw.js added."""
    if (site_dir / "sw.js").is_file():
        return site_dir
    site = _linked_copy(site_dir, tmp_path_factory.mktemp("offline") / "site")
    _write_sw(site)
    return site


@pytest.fixture
def offline_server(offline_site: Path, site_dir: Path, request: pytest.FixtureRequest,
                   start_test_server: Callable[..., ServerHandle]) -> Iterator[ServerHandle]:
    """The session's isolated server when it already serves sw.js, else a server for the copy."""
    if offline_site == site_dir:
        yield request.getfixturevalue("server")
    else:
        yield start_test_server(offline_site, isolated=True)


def wait_controlled(page: Page) -> str:
    """Wait until the service worker is active and controls the page; return its cache name."""
    # Polled with evaluate: wait_for_function evaluates a string, which the page's CSP forbids.
    wait_until(lambda: page.evaluate("navigator.serviceWorker.controller !== null"), page=page, timeout=SW_TIMEOUT,
               interval=0.2, message="the service worker to control the page")
    if page.evaluate("document.querySelector('[data-lab]') !== null"):  # and to keep this lesson's Python
        wait_until(lambda: page.evaluate("document.documentElement.dataset.offline") in ("lesson", "course"), page=page,
                   timeout=SW_TIMEOUT, interval=0.2, message="the lesson's runtime kept for offline use")
    return str(page.evaluate(
        "navigator.serviceWorker.ready.then(() => caches.keys()).then((k) => k.find((n) => n.startsWith('lessonkit-')))"
    ))


def test_offline_reload_shows_the_lesson_and_runs_the_lab(new_page: Callable[..., Page], page_errors: PageErrors,
                                                         offline_server: ServerHandle) -> None:
    page_errors.expect(FAVICON)
    page = new_page(offline_server.url, service_workers="allow")
    page.goto(LESSON_PAGE)
    heading = page.get_by_role("heading", level=1).inner_text()
    lab = Lab(page)
    lab.wait_ready()
    cache = wait_controlled(page)
    assert cache and cache.startswith("lessonkit-")
    assert cache in (offline_server.site / "sw.js").read_text()
    # Page requests start while the worker starts up (navigation preload), not after it.
    assert page.evaluate("navigator.serviceWorker.ready.then((r) => r.navigationPreload.getState())")["enabled"]

    page.context.set_offline(True)
    served = len(offline_server.log)
    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text(heading)
    # Headers come from the cache: still cross-origin isolated (soft Stop), wasm still application/wasm.
    assert_isolation(page, True)
    lab = Lab(page)
    lab.wait_ready()
    lab.run(timeout=RUN_TIMEOUT / 1000)
    assert LINE_16 in lab.output_text().splitlines()
    assert lab.output_text().splitlines() == LINES_4_2
    types = page.evaluate("""async () => {
      const runtime = JSON.parse(document.getElementById("lesson-data").textContent).runtime;
      const wasm = await fetch(runtime.indexURL + "pyodide.asm.wasm");
      const html = await fetch("index.html");
      return [wasm.status, wasm.headers.get("content-type"), html.headers.get("cross-origin-embedder-policy")];
    }""")
    assert types == [200, "application/wasm", "require-corp"]
    # Everything came from the service worker: nothing reached the server once offline except the browser's own
    # update check of sw.js (DevTools offline emulation does not cover it; a real outage fails it harmlessly).
    assert [entry for entry in offline_server.log[served:] if entry[1] != "/sw.js"] == []

    # Back online, pages are network-first: the next reload asks the server again.
    page.context.set_offline(False)
    page.reload()
    wait_until(lambda: any(p.endswith(LESSON_PAGE) for _, p, _ in offline_server.log[served:]), page=page,
               message="the page to be fetched from the network again")


BROKEN = {
    "missing": None,  # sw.js answers 404
    "throws": 'throw new Error("broken service worker");\n',
    "bad-precache": "",  # a precached URL that 404s: addAll fails, the worker never activates
}


@pytest.mark.parametrize("kind", list(BROKEN))
def test_a_broken_service_worker_leaves_the_page_working(kind: str, new_page: Callable[..., Page], site_dir: Path,
                                                         tmp_path: Path, page_errors: PageErrors,
                                                         start_test_server: Callable[..., ServerHandle]) -> None:
    page_errors.expect(FAVICON)
    site = _linked_copy(site_dir, tmp_path / "site")
    if kind == "missing":
        (site / "sw.js").unlink(missing_ok=True)
        # Chromium's own console note about the 404; page scripts cannot silence it (offline.js only warns).
        page_errors.expect("A bad HTTP response code (404) was received when fetching the script")
    elif kind == "throws":
        _write_sw(site, BROKEN[kind])
    else:
        _write_sw(site)
        text = (site / "sw.js").read_text()
        _write_sw(site, text.replace('const PRECACHE = [', 'const PRECACHE = [\n  "runtime/not-there.bin",', 1))
    server = start_test_server(site, isolated=True)
    page = new_page(server.url, service_workers="allow")
    warnings: list[str] = []

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "warning":
            warnings.append(msg.text)

    page.on("console", on_console)
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    lab.wait_ready()
    if kind == "bad-precache":
        # Registration succeeds; the install fails and the registration is dropped, leaving no cache.
        # (main.js may have registered before we look, so watch the server for the install's failing request.)
        wait_until(lambda: requested(server.log, "/runtime/not-there.bin", 404), page=page, timeout=SW_TIMEOUT,
                   message="the install to try the missing file")
        registered = "navigator.serviceWorker.getRegistration().then((r) => r !== undefined)"
        wait_until(lambda: not page.evaluate(registered), page=page, timeout=SW_TIMEOUT, interval=0.2,
                   message="the failed install to drop the registration")
        assert page.evaluate(SW_CACHES) == []
    else:
        wait_until(lambda: any(w.startswith("offline:") for w in warnings), page=page,
                   message="the registration failure to be logged as a warning")
    assert page.evaluate("navigator.serviceWorker.controller") is None
    page.reload()
    lab = Lab(page)
    lab.wait_ready()
    lab.run()
    assert lab.output_text().splitlines() == LINES_4_2
    # The new_page fixture fails the test on any console error, uncaught error or CSP violation.


def test_a_rebuild_shows_at_once_and_replaces_the_cache(new_page: Callable[..., Page], site_dir: Path,
                                                       tmp_path: Path, page_errors: PageErrors,
                                                       start_test_server: Callable[..., ServerHandle]) -> None:
    page_errors.expect(FAVICON)
    site = _linked_copy(site_dir, tmp_path / "site")
    _write_sw(site)
    server = start_test_server(site, isolated=True)
    page = new_page(server.url, service_workers="allow")
    page.goto(LESSON_PAGE)
    old = wait_controlled(page)

    # An author's rebuild: new text and so a new sw.js. Online, pages are network-first: no stale lesson.
    index = site / LESSON_PAGE
    html = index.read_text(encoding="utf-8")
    index.unlink()
    index.write_text(html.replace("</main>", '<p id="rebuilt">Rebuilt paragraph.</p></main>', 1), encoding="utf-8")
    _write_sw(site)
    new = CACHE_NAME.search((site / "sw.js").read_text())
    assert new and new.group(1) != old
    page.reload()
    expect(page.locator("#rebuilt")).to_have_text("Rebuilt paragraph.")
    try:
        wait_until(lambda: page.evaluate(SW_CACHES) == [new.group(1)], page=page, timeout=UPDATE_TIMEOUT,
                   interval=0.2, message="the new cache to replace the old one")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; caches {page.evaluate(SW_CACHES)}, workers {page.evaluate(SW_WORKERS)}") from None
    # ...and the offline copy is the new page.
    page.context.set_offline(True)
    page.reload()
    expect(page.locator("#rebuilt")).to_have_text("Rebuilt paragraph.")


def test_nosw_removes_the_worker(new_page: Callable[..., Page], page_errors: PageErrors,
                                 offline_server: ServerHandle) -> None:
    page_errors.expect(FAVICON)
    page = new_page(offline_server.url, service_workers="allow")
    page.goto(LESSON_PAGE)
    wait_controlled(page)
    # The escape hatch for a learner or author stuck with a bad worker: ?nosw unregisters it.
    page.goto(LESSON_PAGE + "?nosw")
    wait_until(lambda: page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r === undefined)"),
               page=page, message="?nosw to unregister the worker")
    page.reload()
    assert page.evaluate("navigator.serviceWorker.controller") is None


def test_a_first_visit_fetches_its_own_lesson_and_the_course_on_request(
        new_page: Callable[..., Page], page_errors: PageErrors, offline_site: Path,
        start_test_server: Callable[..., ServerHandle]) -> None:
    """A first visit to a lesson without NumPy never fetches NumPy (nor the other lesson's Python); "Save the course
    for offline use" on the index then keeps every lesson's, NumPy included."""
    page_errors.expect(FAVICON)
    server = start_test_server(offline_site, isolated=True)  # its own request log
    page = new_page(server.url, service_workers="allow")
    page.goto(LESSON_PAGE)
    Lab(page).wait_ready()
    wait_controlled(page)
    paths = [p for _, p, _ in server.log]
    assert not [p for p in paths if "numpy" in p], "a first visit to a lesson without NumPy fetched NumPy"
    assert not [p for p in paths if "pyodide-0.27.7" in p], "it fetched another lesson's Python"
    cached = page.evaluate("caches.keys().then((k) => caches.open(k.find((n) => n.startsWith('lessonkit-'))))"
                           ".then((c) => c.keys()).then((r) => r.map((q) => q.url))")
    assert not [u for u in cached if "numpy" in u]

    page.goto("index.html")
    save = page.get_by_role("button", name="Save the course for offline use")
    save.click()
    expect(page.get_by_role("status").filter(has_text="Saved")).to_have_text(
        "Saved: every lesson and its lab now work offline in this browser.", timeout=SW_TIMEOUT * 1000)
    cached = page.evaluate("caches.keys().then((k) => caches.open(k.find((n) => n.startsWith('lessonkit-'))))"
                           ".then((c) => c.keys()).then((r) => r.map((q) => q.url))")
    assert [u for u in cached if "numpy" in u], "the saved course keeps the NumPy lesson's NumPy"
