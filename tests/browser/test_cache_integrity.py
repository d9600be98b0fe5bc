"""Only what the build wrote runs in the page: a poisoned offline copy is dropped, a swapped module is refused.

Cache Storage is writable by any script of the site's origin. These tests stand in for an attacker who got that far:
from the page's main thread they replace entries of the service worker's cache with bodies that would leave a
marker if they ever ran, then visit the lesson the ways a learner does.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, Route, expect

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE, RUNTIME_DIR, PageErrors, wait_until
from .test_lab import Lab
from .test_offline import FAVICON, SW_TIMEOUT, _linked_copy, wait_controlled

PYODIDE_MJS = f"{RUNTIME_DIR}/pyodide.mjs"
MARKERS = "tampered"  # the cache a tampered body writes to when it runs (not the worker's: it must outlive drops)
# A body that records that it ran (in any window or worker of the origin) and is otherwise a valid module.
RAN_JS = 'await caches.open("tampered").then((c) => c.put("/{name}", new Response("ran")));\n'
TAMPERED_PAGE = ('<!DOCTYPE html><title>Tampered</title><p id="tampered">tampered</p>'
                 '<script>caches.open("tampered").then((c) => c.put("/index.html", new Response("ran")));</script>')
SRI_REFUSED = "Failed to find a valid digest in the 'integrity' attribute"

# From the page's main thread: put bodies into the worker's cache (the build's cache name is the only lessonkit-*).
TAMPER_JS = """async (entries) => {
  const name = (await caches.keys()).find((n) => /^lessonkit-[0-9a-f]{12}$/.test(n));
  const cache = await caches.open(name);
  for (const [url, body, type] of entries) {
    await cache.put(new URL(url, document.baseURI).href, new Response(body, { headers: { "content-type": type } }));
  }
}"""
# The sha256 of each URL's entry in the worker's cache (null when there is none).
CACHED_JS = """async (urls) => {
  const name = (await caches.keys()).find((n) => /^lessonkit-[0-9a-f]{12}$/.test(n));
  const cache = await caches.open(name);
  const out = {};
  for (const url of urls) {
    const hit = await cache.match(new URL(url, document.baseURI).href);
    const digest = hit && new Uint8Array(await crypto.subtle.digest("SHA-256", await hit.arrayBuffer()));
    out[url] = digest ? Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("") : null;
  }
  return out;
}"""
# True when no Python of the page's lab is booting (or the page has no lab running one).
SETTLED = """(() => {
  const lab = document.querySelector("[data-lab]");
  const python = lab && lab.labController && lab.labController.python;
  return !python || !python.booting;
})()"""
# True when the page's lab keeps every spare Python it wants booted, none of them busy.
ALL_BOOTED = """(() => {
  const lab = document.querySelector("[data-lab]");
  const python = lab && lab.labController && lab.labController.python;
  return Boolean(python && python.settled);
})()"""
RAN = f"caches.open('{MARKERS}').then((c) => c.keys()).then((keys) => keys.map((r) => new URL(r.url).pathname))"


def _static(site: Path) -> str:
    """The site's static/<hash> prefix."""
    return "static/" + next((site / "static").iterdir()).name


def _tampered(site: Path, urls: list[str]) -> list[tuple[str, str, str]]:
    """(url, body, content type) replacing each URL with something that records that it ran."""
    out = []
    for url in urls:
        name = url.rsplit("/", 1)[-1]
        if url.endswith(".html"):
            out.append((url, TAMPERED_PAGE, "text/html"))
        else:
            body = RAN_JS.format(name=name)
            if url.endswith(".mjs"):
                body += 'export async function loadPyodide() { throw new Error("tampered"); }\n'
            out.append((url, body, "text/javascript"))
    return out


def _built(site: Path, urls: list[str]) -> dict[str, str]:
    """The sha256 of the files the build wrote at these URLs."""
    return {url: hashlib.sha256((site / url).read_bytes()).hexdigest() for url in urls}


def _installed(new_page: Callable[..., Page], server: ServerHandle) -> Page:
    """A page whose lab is ready and whose service worker has installed the offline copy."""
    page = new_page(server.url, service_workers="allow")
    page.goto(LESSON_PAGE)
    Lab(page).wait_ready()
    wait_controlled(page)
    return page


def _wait_replaced_or_ran(page: Page, urls: list[str], site: Path) -> None:
    """Wait until the cache holds the build's files again, or a tampered body ran (which the caller then reports)."""
    built = _built(site, urls)
    wait_until(lambda: page.evaluate(RAN) or page.evaluate(CACHED_JS, urls) == built, page=page,
               timeout=SW_TIMEOUT, interval=0.2, message="the tampered entries to be replaced by the build's files")


def _restart_worker(page: Page) -> None:
    """Stop the service worker, as time does between visits: the next request starts it with nothing checked yet.
    First the open pages' labs settle (no Python booting: a spare that cannot boot offline has failed): a worker
    stopped in the middle of a boot's downloads fails them, which no visit does."""
    for open_page in page.context.pages:
        wait_until(lambda p=open_page: p.evaluate(SETTLED), page=open_page, timeout=SW_TIMEOUT,
                   message="the page's Pythons to be done booting")
    cdp = page.context.new_cdp_session(page)
    cdp.send("ServiceWorker.enable")
    cdp.send("ServiceWorker.stopAllWorkers")
    cdp.detach()


@pytest.mark.parametrize("visit", ["reload", "new tab", "?nosw"])
def test_a_poisoned_offline_copy_never_runs_online(visit: str, new_page: Callable[..., Page], server: ServerHandle,
                                                   page_errors: PageErrors) -> None:
    page_errors.expect(FAVICON)
    site = server.site
    static = _static(site)
    urls = [f"{static}/js/main.js", f"{static}/js/lab.js", PYODIDE_MJS, LESSON_PAGE]
    page = _installed(new_page, server)
    page.reload()  # a visit under the worker, which checks what it serves and keeps what it checked
    Lab(page).wait_ready()
    page.evaluate(TAMPER_JS, _tampered(site, urls))
    assert page.evaluate(CACHED_JS, urls) != _built(site, urls)

    # The running worker serves the Blobs it checked: the tampered entries are never read.
    page.reload()
    lab = Lab(page)
    lab.wait_ready()
    lab.run()
    assert page.evaluate(RAN) == []

    # A later visit starts the worker anew: it reads the entries, drops the tampered ones and fetches the build's.
    _restart_worker(page)
    if visit == "reload":
        page.reload()
    elif visit == "new tab":
        page = page.context.new_page()
        page.goto(LESSON_PAGE)
    else:
        # The page and its modules still come through the worker, which ?nosw then removes: the lab's worker,
        # started after that, fetches the runtime from the network and the tampered entry stays unread.
        page.goto(LESSON_PAGE + "?nosw")
        urls.remove(PYODIDE_MJS)
    _wait_replaced_or_ran(page, urls, site)
    assert page.evaluate(RAN) == []
    assert page.evaluate(CACHED_JS, urls) == _built(site, urls)
    lab = Lab(page)
    lab.wait_ready()
    lab.run()
    assert page.evaluate(RAN) == []
    if visit == "?nosw":
        # The next visit registers the worker again; its install keeps the good entries and fetches the rest anew.
        page.goto(LESSON_PAGE)
        urls.append(PYODIDE_MJS)
        _wait_replaced_or_ran(page, urls, site)
        assert page.evaluate(RAN) == []


def test_a_poisoned_offline_copy_never_runs_offline(new_page: Callable[..., Page], server: ServerHandle,
                                                    page_errors: PageErrors) -> None:
    site = server.site
    static = _static(site)
    # Offline, a dropped entry cannot be fetched again: its request fails like any other network error.
    page_errors.expect(FAVICON).expect(f"net::ERR_FAILED ({server.url}{static}/js/")
    scripts, page_urls = [f"{static}/js/main.js", f"{static}/js/lab.js"], [LESSON_PAGE]
    page = _installed(new_page, server)
    witness = page.context.new_page()  # stays on the site while the other tab fails to load
    witness.goto(LESSON_PAGE)
    # Every spare Python of both tabs booted first: a boot after this point would fetch the runtime into the
    # browser's HTTP cache again, which would then answer for the network.
    for open_page in (page, witness):
        wait_until(lambda p=open_page: p.evaluate(ALL_BOOTED), page=open_page, timeout=SW_TIMEOUT,
                   message="the page's spare Pythons to be booted")
    # Nor may the browser's HTTP cache answer for the network (it keeps the immutable files too, for a while).
    page.context.new_cdp_session(page).send("Network.clearBrowserCache")
    page.context.set_offline(True)
    # Each visit below starts the worker anew (a running one serves what it checked before the tampering).

    # A runtime file the lab worker imports (no integrity attribute can cover a worker's imports).
    page.evaluate(TAMPER_JS, _tampered(site, [PYODIDE_MJS]))
    _restart_worker(page)
    page.reload()
    expect(Lab(page).status).to_contain_text("Could not load Python", timeout=SW_TIMEOUT * 1000)
    assert page.evaluate(RAN) == []
    assert page.evaluate(CACHED_JS, [PYODIDE_MJS]) == {PYODIDE_MJS: None}

    # The page's own modules: the lesson text still shows (the page itself is this build's), its scripts do not run.
    page.evaluate(TAMPER_JS, _tampered(site, scripts))
    _restart_worker(page)
    page.reload()
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    wait_until(lambda: page.evaluate(RAN) or page.evaluate(CACHED_JS, scripts) == dict.fromkeys(scripts),
               page=page, timeout=SW_TIMEOUT, message="the tampered modules to be dropped")
    assert page.evaluate(RAN) == []
    assert page.evaluate(CACHED_JS, scripts) == dict.fromkeys(scripts)

    # The page: offline there is no good copy left, so the visit fails as without a network.
    page.evaluate(TAMPER_JS, _tampered(site, page_urls))
    _restart_worker(page)
    with pytest.raises(PlaywrightError):
        page.reload()
    assert witness.evaluate(RAN) == []
    assert witness.evaluate(CACHED_JS, page_urls) == {LESSON_PAGE: None}

    # Back online, everything is the build's again and the lab works.
    page.context.set_offline(False)
    page.goto(server.url + LESSON_PAGE)
    lab = Lab(page)
    lab.wait_ready()
    every = [*scripts, PYODIDE_MJS, *page_urls]
    wait_until(lambda: page.evaluate(CACHED_JS, every) == _built(site, every), page=page, timeout=SW_TIMEOUT,
               message="the offline copy to be whole again")
    assert page.evaluate(RAN) == []


# Without a service worker: a module or stylesheet swapped on the way (a compromised cache or proxy) is refused by
# the integrity attribute the page carries, for the modules the page imports later as for those in its HTML.
SWAPPED = {
    "main.js": ("js/main.js", "text/javascript"),
    "lab.js": ("js/lab.js", "text/javascript"),
    "lab-instructor.js": ("js/lab-instructor.js", "text/javascript"),
    "editor.js": ("js/editor.js", "text/javascript"),
    "site.css": ("css/site.css", "text/css"),
}
TAMPERED_CSS = ":root { --tampered: 1; }\n"


@pytest.mark.parametrize("name", list(SWAPPED))
def test_a_swapped_module_or_stylesheet_is_refused(name: str, new_page: Callable[..., Page], server: ServerHandle,
                                                   page_errors: PageErrors) -> None:
    page_errors.expect(SRI_REFUSED)
    # main.js's reports when lab.js or lab-instructor.js is refused
    page_errors.expect("The lab could not start").expect("The lab's instructor tools could not start")
    rel, ctype = SWAPPED[name]
    body = TAMPERED_CSS if ctype == "text/css" else RAN_JS.format(name=name)
    swapped: list[str] = []

    def swap(route: Route) -> None:
        swapped.append(route.request.url)
        route.fulfill(status=200, body=body, headers={"content-type": ctype})

    served = len(server.log)
    page = new_page(server.url)
    page.route(re.compile(rf"/{re.escape(_static(server.site))}/{re.escape(rel)}$"), swap)
    refused: list[str] = []
    page.on("console", lambda msg: SRI_REFUSED in msg.text and refused.append(msg.text))
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    if name in ("main.js", "lab.js"):
        expect(lab.run_button).to_be_disabled()  # the server-rendered lab stays as it was: no script runs it
    else:
        expect(lab.status).to_contain_text("Ready", timeout=60_000)
        lab.root.scroll_into_view_if_needed()  # the editor loads when the lab comes near
    wait_until(lambda: refused, page=page, timeout=30, message="the browser to refuse the swapped file")
    # Every fetch of a module is checked against the page's import map, whoever makes it. A module is fetched once,
    # except a lazy block's refused one: the head's preload fetched it, and the browser keeps no failed preload for
    # main.js's import(), which fetches it once more (checked again: one retry, never more, and never run).
    most = 2 if name == "lab.js" else 1
    assert 1 <= len(swapped) <= most, f"fetched {len(swapped)} times: {swapped}"
    for module in ("main.js", "lab.js", "lab-instructor.js", "editor.js"):
        hits = [p for _, p, _ in server.log[served:] if p == f"/{_static(server.site)}/js/{module}"]
        assert len(hits) <= 1, f"{module}: {hits}"
    assert page.evaluate(RAN) == []
    assert page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--tampered')") == ""
    if name == "editor.js":
        expect(lab.editor).to_be_editable()  # the plain text box stays the editor
        assert page.locator(".cm-editor").count() == 0
    if name == "site.css":
        expect(lab.run_button).to_be_enabled()  # unstyled, and everything else works


def test_a_page_of_another_build_never_enters_the_offline_copy(new_page: Callable[..., Page], site_dir: Path,
                                                               tmp_path: Path, page_errors: PageErrors,
                                                               start_test_server: Callable[..., ServerHandle]) -> None:
    page_errors.expect(FAVICON)
    site = _linked_copy(site_dir, tmp_path / "site")
    server = start_test_server(site, isolated=True)
    page = _installed(new_page, server)
    heading = page.get_by_role("heading", level=1).inner_text()

    # A page published without its sw.js (a host mid-upload, or one that rewrites pages): online it is shown as the
    # server sends it, but the worker keeps its own build's copy for offline use.
    index = site / LESSON_PAGE
    html = index.read_text(encoding="utf-8")
    index.unlink()  # a hard link to the session's build
    index.write_text(html.replace("</main>", '<p id="other">Another build.</p></main>', 1), encoding="utf-8")
    page.reload()
    expect(page.locator("#other")).to_have_text("Another build.")
    Lab(page).wait_ready()
    assert page.evaluate(CACHED_JS, [LESSON_PAGE]) == _built(site_dir, [LESSON_PAGE])

    page.context.new_cdp_session(page).send("Network.clearBrowserCache")
    page.context.set_offline(True)
    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text(heading)
    expect(page.locator("#other")).to_have_count(0)
    Lab(page).wait_ready()
