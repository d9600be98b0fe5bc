"""Live reload in a real browser: a failed rebuild shows a banner over the old page, a good one reloads."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import (
    PageErrors,
    assert_isolation,
    assert_no_axe_violations,
    format_violations,
    requested,
    run_axe,
    wait_until,
)

PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>{title}</title></head>
<body><main><h1>{title}</h1></main></body>
</html>
"""


def write_page(site: Path, title: str) -> None:
    """The whole fake site: one page."""
    site.mkdir(parents=True, exist_ok=True)
    (site / "index.html").write_text(PAGE.format(title=title), encoding="utf-8")


def test_banner_on_failure_then_reload_on_fix(tmp_path: Path, start_test_server: Callable[..., ServerHandle],
                                              new_page: Callable[..., Page]) -> None:
    site = tmp_path / "site"
    write_page(site, "Version one")
    server = start_test_server(site, dev=True)
    page = new_page(server.url)
    page.goto("/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Version one")
    # The first events answer comes at once; after it the page holds a long-poll open.
    wait_until(lambda: requested(server.log, "/__lessonkit/events", 200), message="the page's first events poll")
    page.evaluate("window.__sameDocument = true")

    problem = 'lesson/attention.md:3:8: front matter: expected "key: value" <b>not markup</b>'
    server.publish([problem])
    banner = page.get_by_role("alert")
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("Build failed")
    expect(banner.locator("li")).to_have_text(problem)  # text, never parsed as HTML
    assert banner.locator("b").count() == 0
    # Still the old page, same document: a failed build never reloads.
    expect(page.get_by_role("heading", level=1)).to_have_text("Version one")
    assert page.evaluate("window.__sameDocument") is True

    write_page(site, "Version two")
    server.publish([])
    expect(page.get_by_role("heading", level=1)).to_have_text("Version two")
    assert page.evaluate("window.__sameDocument") is None
    expect(page.get_by_role("alert")).to_have_count(0)


def test_page_opened_during_failure_shows_banner(tmp_path: Path, start_test_server: Callable[..., ServerHandle],
                                                 new_page: Callable[..., Page]) -> None:
    site = tmp_path / "site"
    write_page(site, "Last good")
    server = start_test_server(site, dev=True, isolated=False)
    server.publish(["templates/page.html:12: undefined variable 'x'"])
    page = new_page(server.url)
    page.goto("/")
    expect(page.get_by_role("alert")).to_contain_text("undefined variable 'x'")
    expect(page.get_by_role("heading", level=1)).to_have_text("Last good")
    page.get_by_role("button", name="Dismiss").click()
    expect(page.get_by_role("alert")).to_have_count(0)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_banner_is_readable_over_the_lesson(site_dir: Path, start_test_server: Callable[..., ServerHandle],
                                                new_page: Callable[..., Page], scheme: str) -> None:
    # Over the real lesson page, whose stylesheet styles code, lists and buttons: the banner keeps its own look.
    server = start_test_server(site_dir, dev=True)
    server.publish(['lesson/attention.md:41: unknown key "hnit" in the {widget} block (did you mean "hint"?)',
                    "lab/scaled_softmax.py:7: the lab raised ValueError: no"])
    page = new_page(server.url, color_scheme=scheme)
    page.goto("index.html")
    banner = page.get_by_role("alert")
    expect(banner).to_contain_text("Build failed (2 problems)")
    expect(banner.locator("li").first).to_contain_text('unknown key "hnit"')
    assert_no_axe_violations(page, context="#lessonkit-dev-banner")
    page.get_by_role("button", name="Dismiss").focus()
    assert_no_axe_violations(page, context="#lessonkit-dev-banner")


# -- self-checks of the browser harness (collectors, network guard, isolation, axe) -------------------------------

HARNESS_PAGE = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Harness</title></head>
<body><main><h1>Harness</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<script>window.inlineRan = true;</script></main></body>
</html>
"""


def test_harness_collects_csp_errors_and_offsite_requests(
        tmp_path: Path, start_test_server: Callable[..., ServerHandle], new_page: Callable[..., Page],
        page_errors: PageErrors) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(HARNESS_PAGE, encoding="utf-8")
    server = start_test_server(site)
    page = new_page(server.url)
    page.goto("/")
    assert page.evaluate("window.inlineRan") is None  # the CSP header blocked the inline script
    wait_until(lambda: any(kind == "csp" for kind, _ in page_errors.entries), page=page, message="a CSP violation")
    assert any("script-src" in text for kind, text in page_errors.entries if kind == "csp")
    page.evaluate("setTimeout(() => { throw new Error('harness-boom'); })")
    wait_until(lambda: any("harness-boom" in t for k, t in page_errors.entries if k == "pageerror"),
               page=page, message="the uncaught error")
    page.evaluate("console.error('harness-console')")
    wait_until(lambda: any("harness-console" in t for k, t in page_errors.entries if k == "console"),
               page=page, message="the console error")
    page_errors.expect("script-src").expect("inline").expect("harness-boom").expect("harness-console")
    assert page_errors.unexpected() == []

    assert_isolation(page, True)
    violations = run_axe(page)  # injected despite the strict CSP
    assert [v["id"] for v in violations] == ["image-alt"], format_violations(violations)
    assert "image-alt" in format_violations(violations)

    try:
        page.goto("http://example.invalid/cdn/pyodide.mjs")
    except PlaywrightError:
        pass
    assert page_errors.offsite == ["http://example.invalid/cdn/pyodide.mjs"]
    page_errors.offsite.clear()  # deliberate; any other offsite request fails the test at teardown


def test_harness_plain_server_is_not_isolated(
        tmp_path: Path, start_test_server: Callable[..., ServerHandle], new_page: Callable[..., Page]) -> None:
    site = tmp_path / "site"
    write_page(site, "Plain")
    server = start_test_server(site, isolated=False)
    page = new_page(server.url)
    page.goto("/")
    assert_isolation(page, False)
    assert_no_axe_violations(page)
