"""The built site published in a folder (/course/, as a GitHub Pages project site), with and without COOP/COEP.

Every URL in the pages is relative, so nothing may be asked for outside the folder: the server answers 404 there,
and each test checks the server's log. The lesson page is found from the build's output (a page holding a lab),
never named here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urljoin

import pytest
from playwright.sync_api import Page, expect

from lessonkit.hosting import headers
from lessonkit.serve.server import ServerHandle

from .helpers import assert_isolation, wait_until
from .test_lab import RUN_TIMEOUT, Lab
from .test_offline import CACHE_NAME, SW_TIMEOUT, _linked_copy, _write_sw, wait_controlled

BASE = "/course/"


def lab_page(site: Path) -> str:
    """The first page of the build (by name) that holds a lab: a lesson, not the course's index; one whose Python
    loads no packages (such a page saves no snapshot in Cache Storage)."""
    pages = sorted(p for p in site.glob("*.html") if p.name not in ("index.html", "404.html"))
    found = [p.name for p in pages if 'data-block="lab"' in (text := p.read_text(encoding="utf-8"))
             and not re.search(r'"packages": \["', text) and not re.search(r'"requirements": \["', text)]
    assert found, f"no lesson page with a lab in {site}"
    return found[0]


def outside(server: ServerHandle) -> list[str]:
    """Requests the server saw that were not inside the folder, or that failed."""
    return [f"{status} {path}" for _, path, status in server.log if not path.startswith(BASE) or status >= 400]


@pytest.fixture(params=["isolated", "plain"])
def isolated(request: pytest.FixtureRequest) -> bool:
    """With COOP/COEP (the lab's soft interrupt) and without (a host that cannot set headers: GitHub Pages)."""
    return request.param == "isolated"


def test_lab_runs_in_a_folder(new_page: Callable[..., Page], site_dir: Path, isolated: bool,
                              start_test_server: Callable[..., ServerHandle]) -> None:
    """Run → the same output the build showed; the runtime, worker and wheels all came from inside the folder."""
    server = start_test_server(site_dir, isolated=isolated, base=BASE)
    page = new_page(server.url)
    page.goto(lab_page(site_dir))
    assert page.url == server.url + lab_page(site_dir)
    lab = Lab(page)
    built = lab.output_text()
    assert built.strip()
    lab.wait_ready()
    assert_isolation(page, isolated)
    lab.run(timeout=RUN_TIMEOUT / 1000)
    expect(lab.current).to_have_accessible_name(re.compile(r"^This run"))
    assert lab.output_text() == built
    assert any(path.startswith(BASE + "runtime/") and path.endswith(".wasm") for _, path, _ in server.log)
    assert outside(server) == []


def test_offline_in_a_folder(new_page: Callable[..., Page], site_dir: Path,
                             start_test_server: Callable[..., ServerHandle]) -> None:
    """The service worker's scope is the folder; offline, the lesson reloads from its cache and the lab runs."""
    server = start_test_server(site_dir, isolated=True, base=BASE)
    page = new_page(server.url, service_workers="allow")
    lesson = lab_page(site_dir)
    page.goto(lesson)
    heading = page.get_by_role("heading", level=1).inner_text()
    Lab(page).wait_ready()
    wait_controlled(page)
    registration = page.evaluate("""navigator.serviceWorker.ready.then((r) =>
      ({scope: r.scope, script: r.active.scriptURL}))""")
    assert registration == {"scope": server.url, "script": server.url + "sw.js"}
    page.context.set_offline(True)
    served = len(server.log)
    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text(heading)
    lab = Lab(page)
    lab.wait_ready()
    lab.run(timeout=RUN_TIMEOUT / 1000)
    assert lab.output_text().strip()
    # Nothing reached the server once offline but the browser's own update check of the worker script.
    assert [path for _, path, _ in server.log[served:] if path != BASE + "sw.js"] == []
    assert outside(server) == []


def test_links_stay_in_the_folder(new_page: Callable[..., Page], site_dir: Path,
                                  start_test_server: Callable[..., ServerHandle]) -> None:
    """From a lesson to the course's index by its link, and every page's own links lead to pages of the folder."""
    server = start_test_server(site_dir, isolated=True, base=BASE)
    page = new_page(server.url)
    page.goto(lab_page(site_dir))
    to_index = page.locator('a[href="index.html"], a[href="./"]').first
    expect(to_index).to_be_visible()
    to_index.click()
    expect(page).to_have_url(re.compile("^" + re.escape(server.url) + r"(index\.html)?$"))
    seen: set[str] = set()
    queue = [page.url]
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        response = page.goto(url)
        assert response is not None and response.status == 200, url
        hrefs = page.eval_on_selector_all("a[href]", "(links) => links.map((a) => a.getAttribute('href'))")
        for href in hrefs:
            target = urljoin(url, href).split("#", 1)[0]
            if target.startswith("http://127.0.0.1") and target not in seen:
                assert target.startswith(server.url), f"{url} links outside the folder: {href}"
                queue.append(target)
    assert len(seen) >= 2
    assert outside(server) == []


def _two_sites(site_dir: Path, origin: Path) -> None:
    """The build in origin/a/ and origin/b/, served as one origin: the server sends the policy both builds need, as
    a host sends each folder the headers its build wrote."""
    for folder in ("a", "b"):
        _linked_copy(site_dir, origin / folder)
    hashes = sorted({h for folder in ("a", "b") for h in headers.site_script_hashes(origin / folder)})
    (origin / headers.MARKER).write_text(headers.marker_text(hashes), encoding="utf-8")


def test_sites_in_two_folders_keep_their_offline_copies(new_page: Callable[..., Page], site_dir: Path,
                                                        tmp_path: Path,
                                                        start_test_server: Callable[..., ServerHandle]) -> None:
    """Two builds on one origin (/a/ and /b/, as two project sites of one GitHub user): the second worker to take
    over leaves the first one's precache alone, and /a/ still opens offline."""
    origin = tmp_path / "origin"
    _two_sites(site_dir, origin)
    sw = (origin / "b" / "sw.js").read_text(encoding="utf-8")
    name = CACHE_NAME.search(sw)
    assert name
    other = "lessonkit-" + name.group(1).removeprefix("lessonkit-")[::-1]  # another build's cache name
    _write_sw(origin / "b", sw.replace(name.group(0), f'const CACHE = "{other}";'))
    server = start_test_server(origin, isolated=True)
    page = new_page(server.url, service_workers="allow")
    lesson = lab_page(site_dir)
    page.goto(f"a/{lesson}")
    heading = page.get_by_role("heading", level=1).inner_text()
    first = wait_controlled(page)
    page.goto(f"b/{lesson}")
    wait_controlled(page)  # by /b/'s worker: its scope is the only one holding the page
    # The second worker has activated (it controls the page): whatever it dropped is gone by now.
    assert sorted(n for n in page.evaluate("caches.keys()") if n.startswith("lessonkit-")) == sorted([first, other])
    page.context.set_offline(True)
    page.goto(f"a/{lesson}")
    expect(page.get_by_role("heading", level=1)).to_have_text(heading)


SNAPSHOTS = """caches.open("lab-python-snapshot").then((c) => c.keys()).then((keys) => keys.map((r) => {
  const url = new URL(r.url);
  return url.pathname + (url.searchParams.get("index") || "").replace(/^.*\\/(?=runtime\\/)/, " ");
}))"""


def test_sites_in_two_folders_keep_their_python_snapshots(new_page: Callable[..., Page], site_dir: Path,
                                                          tmp_path: Path,
                                                          start_test_server: Callable[..., ServerHandle]) -> None:
    """The lab's Python snapshot is saved under its site's folder: a lab in /b/ saving its own leaves /a/'s."""
    origin = tmp_path / "origin"
    _two_sites(site_dir, origin)
    server = start_test_server(origin, isolated=True)
    page = new_page(server.url)
    lesson = lab_page(site_dir)
    for folder in ("a", "b"):
        page.goto(f"{folder}/{lesson}")
        Lab(page).wait_ready()
        wait_until(lambda f=folder: any(k.startswith(f"/{f}/") for k in page.evaluate(SNAPSHOTS)), page=page,
                   timeout=SW_TIMEOUT, message=f"the lab in /{folder}/ to save its snapshot")
    keys = page.evaluate(SNAPSHOTS)
    runtime = next(k.split(" ")[1] for k in keys)
    assert sorted(keys) == [f"/a/__lab-python-snapshot__ {runtime}", f"/b/__lab-python-snapshot__ {runtime}"]
