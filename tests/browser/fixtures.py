"""Browser fixtures (Playwright sync API): one Chromium per session, the built site, servers, checked pages; a plugin of
the whole suite (tests/conftest.py)."""

from __future__ import annotations

import functools
import http.server
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from places import FIXTURE
from playwright.sync_api import Browser, BrowserContext, Error, Page, Playwright, Request, sync_playwright

from lessonkit.serve.server import ServerHandle, start_server

from .helpers import (
    CSP_LISTENER_JS,
    ChromiumNotFoundError,
    Elsewhere,
    HeaderlessHost,
    PageErrors,
    is_local_url,
    launch_chromium,
    server_log_problems,
)
from .visits import SHARED_PROCESSES, ErrorsOfTheTest, ReturningVisits

# LESSON_FIRST_VISITS=1: every page new_page makes is a first visit, in a fresh context (browser/visits.py).
FIRST_VISITS = os.environ.get("LESSON_FIRST_VISITS", "") not in ("", "0")
# Every server a fixture starts; page teardown checks their logs.
_SERVERS: list[ServerHandle] = []


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once per session ($LESSON_SITE reuses an existing build instead)."""
    prebuilt = os.environ.get("LESSON_SITE")
    if prebuilt:
        return Path(prebuilt).resolve()
    from lessonkit.core.errors import BuildError
    from lessonkit.pipeline.site import build_site

    out = tmp_path_factory.mktemp("build") / "site"
    try:
        build_site(FIXTURE, out)
    except BuildError as exc:
        pytest.fail("the site does not build:\n" + "\n".join(f"  {p}" for p in exc.problems), pytrace=False)
    return out


def _track(handle: ServerHandle) -> ServerHandle:
    _SERVERS.append(handle)
    return handle


def serve_site(site: Path, *, isolated: bool) -> Iterator[ServerHandle]:
    """A fixture's body: the site served until the fixture's scope ends."""
    handle = _track(start_server(site, isolated=isolated))
    yield handle
    handle.stop()


@pytest.fixture(scope="session")
def server(site_dir: Path) -> Iterator[ServerHandle]:
    """The built site with production headers, cross-origin isolated (COOP/COEP/CORP)."""
    yield from serve_site(site_dir, isolated=True)


@pytest.fixture(scope="session")
def plain_server(site_dir: Path) -> Iterator[ServerHandle]:
    """The built site without isolation headers (a host that cannot set COOP/COEP)."""
    yield from serve_site(site_dir, isolated=False)


def _serve(handler: Callable[..., http.server.BaseHTTPRequestHandler]) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Start an HTTP server on a free port of 127.0.0.1, in a thread; return it and its origin."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture(scope="module")
def headerless(site_dir: Path) -> Iterator[HeaderlessHost]:
    """A plain static server for site_dir on 127.0.0.1 (as GitHub Pages sends, no header of ours), recording paths."""
    log: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        extensions_map = {  # noqa: RUF012 (the stdlib's own class attribute)
            **http.server.SimpleHTTPRequestHandler.extensions_map,
            ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm",
            ".json": "application/json", ".zip": "application/zip", ".whl": "application/zip",
        }

        def log_message(self, format: str, *args: object) -> None:
            log.append(self.path)

    server, origin = _serve(functools.partial(Handler, directory=str(site_dir)))
    yield HeaderlessHost(f"{origin}/", log)
    server.shutdown()
    server.server_close()


@pytest.fixture
def elsewhere() -> Iterator[Elsewhere]:
    """Another origin (another loopback port) that answers every request with a module and records its path."""
    log: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            log.append(self.path)
            body = b"globalThis.__reached = true;\n"
            self.send_response(200)
            for name, value in (("Content-Type", "text/javascript"), ("Access-Control-Allow-Origin", "*"),
                                ("Cross-Origin-Resource-Policy", "cross-origin"), ("Content-Length", str(len(body)))):
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server, origin = _serve(Handler)
    yield Elsewhere(origin, log)
    server.shutdown()
    server.server_close()


def _server_factory(*, reuse: bool) -> Iterator[Callable[..., ServerHandle]]:
    started: list[ServerHandle] = []
    by_site: dict[tuple[Path, str], ServerHandle] = {}  # reuse: the one server of each site and options

    def factory(site: Path, **kwargs: Any) -> ServerHandle:
        key = (Path(site).resolve(), repr(sorted(kwargs.items())))
        if reuse and key in by_site:
            return by_site[key]
        handle = by_site[key] = _track(start_server(site, **kwargs))
        started.append(handle)
        return handle

    yield factory
    for handle in started:
        handle.stop()
        _SERVERS.remove(handle)


@pytest.fixture
def start_test_server() -> Iterator[Callable[..., ServerHandle]]:
    """Factory: start_server(site, ...) for a test's own site dir, a new server each call; stopped after the test."""
    yield from _server_factory(reuse=False)


@pytest.fixture(scope="module")
def start_module_server() -> Iterator[Callable[..., ServerHandle]]:
    """Factory: start_server(site, ...) for a test module's own site dir, one server per site and options (its pages
    are one site's, so new_page's returning visits find it again); stopped after the module."""
    yield from _server_factory(reuse=True)


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    """The Playwright driver (sync API), once per session."""
    with sync_playwright() as pw:
        yield pw


def _launch(playwright: Playwright, *, full: bool = False) -> Browser:
    headless = os.environ.get("LESSON_HEADED", "") in ("", "0")
    try:
        return launch_chromium(playwright, headless=headless, args=SHARED_PROCESSES, full=full)
    except ChromiumNotFoundError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """One Chromium for the session, its headless shell where there is one (see helpers.launch_chromium)."""
    chromium = _launch(playwright)
    yield chromium
    chromium.close()


@pytest.fixture(scope="session")
def full_browser(playwright: Playwright) -> Iterator[Browser]:
    """The full Chromium, for a module whose tests are about when the browser paints: such a module makes it its
    `browser` (a module fixture of that name returning this one)."""
    chromium = _launch(playwright, full=True)
    yield chromium
    chromium.close()


@pytest.fixture
def page_errors() -> PageErrors:
    """This test's collected errors; call page_errors.expect("substring") for deliberate ones."""
    return PageErrors()


def _watch(context: BrowserContext, errors: PageErrors | ErrorsOfTheTest) -> None:
    """Collect console errors, uncaught errors, CSP violations and off-machine requests for a context (which the
    browser refuses: helpers.OFF_MACHINE)."""

    def on_console(msg: Any) -> None:
        if msg.type == "error":
            where = msg.location.get("url", "") if isinstance(msg.location, dict) else ""
            errors.add("console", f"{msg.text} ({where})" if where else msg.text)

    context.on("console", on_console)
    context.on("weberror", lambda err: errors.add("pageerror", str(err.error)))
    context.expose_binding("__lessonkitCspViolation", lambda _source, text: errors.add("csp", str(text)))
    context.add_init_script(CSP_LISTENER_JS)

    def on_request(request: Request) -> None:
        if not is_local_url(request.url) and request.url not in errors.offsite:
            errors.offsite.append(request.url)

    context.on("request", on_request)


@pytest.fixture(scope="module")
def _returning_visits(browser: Browser) -> Iterator[ReturningVisits]:
    """The module's kept contexts for new_page's plain pages (browser/visits.py)."""
    visits = ReturningVisits(browser, _watch)
    yield visits
    visits.close()


@pytest.fixture
def new_page(browser: Browser, page_errors: PageErrors,
             _returning_visits: ReturningVisits) -> Iterator[Callable[..., Page]]:
    """Factory: new_page(base_url=None, *, service_workers="block", first_visit=False, **context_options).

    A page of base_url is a returning learner's visit when the module has visited that site with the same context
    options before: a new tab of the module's context for them, the site's data cleared but the lab's saved snapshot
    and the browser's HTTP cache kept (browser/visits.py). first_visit=True or service workers make a fresh context,
    as does a second page of the same site in one test (a second browser). At teardown the test fails if any console
    error, uncaught error, CSP violation (not covered by page_errors.expect) or request leaving 127.0.0.1 was seen
    (the browser refuses them: helpers.OFF_MACHINE).
    """
    contexts: list[BrowserContext] = []

    def factory(base_url: str | None = None, *, service_workers: str = "block", first_visit: bool = False,
                **context_options: Any) -> Page:
        if base_url is not None and not (first_visit or FIRST_VISITS) and service_workers == "block":
            returning = _returning_visits.page(base_url, page_errors, context_options)
            if returning is not None:
                return returning
        if base_url is not None:
            context_options["base_url"] = base_url
        context = browser.new_context(service_workers=service_workers, **context_options)
        contexts.append(context)
        _watch(context, page_errors)
        return context.new_page()

    yield factory
    _returning_visits.end_test(lambda open_page: _late_violations(open_page, page_errors))
    for context in contexts:
        for open_page in context.pages:
            _late_violations(open_page, page_errors)
        try:
            context.close()
        except Error:
            pass
    _fail_on_problems(page_errors)


def _late_violations(page: Page, errors: PageErrors) -> None:
    """The binding reports CSP violations as they happen; this catches any that raced a navigation."""
    try:
        for text in page.evaluate("window.__cspViolations || []"):
            if ("csp", text) not in errors.entries:
                errors.add("csp", text)
    except Error:
        pass


def _fail_on_problems(page_errors: PageErrors) -> None:
    problems = page_errors.report()
    log_problems = [p for handle in _SERVERS for p in server_log_problems(handle.log)]
    if problems or log_problems:
        text = problems + "".join(f"\n  [server log] {p}" for p in log_problems)
        pytest.fail(f"browser reported problems during the test:\n{text}", pytrace=False)


@pytest.fixture(scope="module")
def _shared_context(browser: Browser, server: ServerHandle) -> Iterator[tuple[BrowserContext, ErrorsOfTheTest]]:
    """The browser context of a module's kept page, watched like new_page's, reporting to the test using it now."""
    errors = ErrorsOfTheTest()
    context = browser.new_context(service_workers="block", base_url=server.url)
    _watch(context, errors)
    yield context, errors
    context.close()


_CALL_PASSED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    """Remember whether a test's body passed (kept_page replaces a page a failed test may have left mid-way)."""
    report = yield
    if report.when == "call":
        item.stash[_CALL_PASSED] = report.passed
    return report


@pytest.fixture
def kept_page(_shared_context: tuple[BrowserContext, ErrorsOfTheTest], page_errors: PageErrors,
              request: pytest.FixtureRequest) -> Iterator[Page]:
    """The module's one page of the isolated server, kept from test to test as a learner keeps a lesson open and runs
    one piece of code after another: each run has a Python of its own, so a run cannot reach what a later test runs,
    and the page's load (its WebAssembly compiled, its first Python booted) is paid once. A test that needs a page of
    its own URL goes there when the page is elsewhere (`goto_kept`). Each test's console and CSP errors are its own; a
    page that crashed, or that a failed test left, is replaced by a fresh one."""
    context, errors = _shared_context
    errors.current = page_errors
    kept = [p for p in context.pages if not p.is_closed()]
    page = kept[0] if kept else context.new_page()
    try:
        page.evaluate("1")
    except Error:  # crashed
        page.close()
        page = context.new_page()
    yield page
    _late_violations(page, page_errors)
    if not request.node.stash.get(_CALL_PASSED, False):
        try:
            page.close()
        except Error:
            pass
    errors.current = PageErrors()
    _fail_on_problems(page_errors)


def goto_kept(page: Page, url: str) -> bool:
    """Go to `url` (relative to the server) unless the kept page is already there; True when it went."""
    if urlsplit(page.url).path.rsplit("/", 1)[-1] == url:
        return False
    page.goto(url)
    return True


@pytest.fixture
def page(new_page: Callable[..., Page], server: ServerHandle) -> Page:
    """A checked page in a fresh context whose base_url is the isolated server (goto("index.html"))."""
    return new_page(server.url)
