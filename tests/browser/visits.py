"""Returning visits: the browser contexts a test module keeps for new_page's pages (browser/fixtures.py).

A test's page of a site the module has visited before (with the same context options: a viewport, a colour scheme,
...) is a new tab in the context kept for them, the site's data (local storage, IndexedDB, cookies, service workers)
cleared, its Cache Storage and the browser's HTTP cache kept: a returning learner's visit, whose lab boots from the
Python snapshot an earlier visit saved and whose files come from the HTTP cache (the immutable ones without asking).
That load costs less than a first visit's (which boots Python fresh and takes the snapshot), and for a test about a
quiz, a widget or the lab's tools the two visits read the same. The module's first page of a site is a first visit. A
test about what a first visit does asks for one (`new_page(..., first_visit=True)`), as does a page with service
workers: those get a fresh context, and with LESSON_FIRST_VISITS=1 every page does (the whole suite as first visits).

The kept context also keeps its site's renderer process: the session's Chromium runs with one process per site
(SHARED_PROCESSES), and a blank tab of the site (the keeper: an empty document a route answers with the headers the
site's own page has) holds that process open between tests. A returning visit's tab then opens in a process that has
compiled Pyodide's WebAssembly and loaded the page's fonts before, as a tab of a site already open in the browser does.

A context stays clean from test to test: the test's tabs are closed at its end, and a context a test changed for
every later page (an init script, a route, offline, permissions, a CDP session, ...) is closed rather than kept. A
second page of the same site in one test is a second browser (a fresh context), never a tab beside the first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from playwright.sync_api import Browser, BrowserContext, Error, Page, Route

from .helpers import PageErrors

# What a returning visit starts without: every kind of site data but Cache Storage (the lab's saved snapshot).
SITE_DATA = "cookies,indexeddb,local_storage,service_workers,file_systems,websql,shared_storage"
# A context's methods whose effect outlives the test that calls them: a context they were called on is not kept.
CHANGES = ("add_init_script", "route", "route_from_har", "route_web_socket", "set_offline", "grant_permissions",
           "set_extra_http_headers", "set_geolocation", "expose_binding", "expose_function", "add_cookies",
           "new_cdp_session", "set_default_timeout", "set_default_navigation_timeout", "close")
# The session's Chromium: one renderer process per site, so that a kept context's tabs of a site share one.
SHARED_PROCESSES = ("--process-per-site",)
# The headers that decide which process may hold a document: the keeper's are the site's.
PROCESS_HEADERS = ("cross-origin-opener-policy", "cross-origin-embedder-policy", "origin-agent-cluster")
KEPT_CONTEXTS = 4  # kept at once: a module's sites (a course, sometimes a second build) and their context options


class ErrorsOfTheTest:
    """Where a shared context's watch reports: the PageErrors of the test using the context now."""

    def __init__(self) -> None:
        self.current = PageErrors()

    def add(self, kind: str, text: str) -> None:
        self.current.add(kind, text)

    @property
    def offsite(self) -> list[str]:
        return self.current.offsite


@dataclass
class _Site:
    context: BrowserContext
    errors: ErrorsOfTheTest
    keeper: Page | None = None  # the blank tab that keeps the site's process
    changed: list[str] = field(default_factory=list)  # the CHANGES called on it
    in_use: bool = False


class ReturningVisits:
    """A module's kept contexts, one per site (base URL) and context options, at most KEPT_CONTEXTS."""

    def __init__(self, browser: Browser, watch: Callable[[BrowserContext, Any], None]) -> None:
        self._browser = browser
        self._watch = watch  # fixtures._watch, collecting the test's errors
        self._sites: dict[str, _Site] = {}  # by base URL and options, least recently used first

    def page(self, base_url: str, errors: PageErrors, options: dict[str, Any]) -> Page | None:
        """A new tab of the context kept for base_url and the context options, the site's data cleared, its errors
        reported to `errors`; None when this test already has a tab there (its next page of the site is a second
        browser: a fresh context)."""
        key = f"{base_url} {sorted(options.items())!r}"
        site = self._sites.pop(key, None)
        if site is not None and site.in_use:
            self._sites[key] = site
            return None
        if site is None:
            site = self._open(base_url, options)
        self._sites[key] = site
        site.in_use = True
        site.errors.current = errors
        page = site.context.new_page()
        cdp = BrowserContext.new_cdp_session(site.context, page)  # the class's: not counted as a change
        parts = urlsplit(base_url)
        cdp.send("Storage.clearDataForOrigin", {"origin": f"{parts.scheme}://{parts.netloc}", "storageTypes": SITE_DATA})
        cdp.detach()
        return page

    def end_test(self, late: Callable[[Page], None]) -> None:
        """The test is over: its tabs are checked (`late`) and closed; a context it changed is closed."""
        for key, site in list(self._sites.items()):
            if not site.in_use:
                continue
            for open_page in site.context.pages:
                if open_page is site.keeper:
                    continue
                late(open_page)
                try:
                    open_page.close()
                except Error:
                    pass
            site.in_use = False
            site.errors.current = PageErrors()
            if site.changed:
                self._close(key)

    def close(self) -> None:
        """Close every kept context (the module is over)."""
        for key in list(self._sites):
            self._close(key)

    def _open(self, base_url: str, options: dict[str, Any]) -> _Site:
        idle = [key for key, site in self._sites.items() if not site.in_use]  # least recently used first
        for old in idle[:max(0, len(self._sites) + 1 - KEPT_CONTEXTS)]:
            self._close(old)
        errors = ErrorsOfTheTest()
        context = self._browser.new_context(service_workers="block", base_url=base_url, **options)
        self._watch(context, errors)
        site = _Site(context, errors, keeper=_keeper(context, base_url))
        for name in CHANGES:
            original = getattr(context, name)

            def changing(*args: Any, _name: str = name, _original: Callable[..., Any] = original, **kwargs: Any) -> Any:
                site.changed.append(_name)
                return _original(*args, **kwargs)

            setattr(context, name, changing)
        return site

    def _close(self, key: str) -> None:
        site = self._sites.pop(key)
        try:
            site.context.close()
        except Error:
            pass


def _keeper(context: BrowserContext, base_url: str) -> Page:
    """A blank tab of base_url's site: an empty text document the route answers with the process headers of the
    site's own page (read once from the server), so that the site's pages may open in the keeper's process."""
    keeper = context.new_page()

    def blank(route: Route) -> None:
        site = route.fetch(url=base_url)
        headers = {name: value for name, value in site.headers.items() if name.lower() in PROCESS_HEADERS}
        route.fulfill(status=200, content_type="text/plain", body="", headers=headers)

    keeper.route("**/*", blank)
    keeper.goto(urljoin(base_url, "lessonkit-test-keeper"))
    return keeper
