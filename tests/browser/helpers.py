"""Browser-test helpers: finding Chromium (which reaches nothing off this machine), collecting page errors, and axe-core."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml
from places import FIXTURE
from playwright.sync_api import Browser, Error, Page, Playwright

from lessonkit import runtime

ROOT = Path(__file__).resolve().parents[2]
# The Pyodide release the course's course.yaml chooses, and its folder in the built site.
RELEASE = runtime.get_release(yaml.safe_load((FIXTURE / "course.yaml").read_text(encoding="utf-8")).get("pyodide"))
RUNTIME_DIR = f"runtime/{runtime.site_dirname(RELEASE)}"
# The real site's lesson the browser tests of the seed lesson open (index.html is the course's index).
LESSON_PAGE = "scaled-dot-product-attention.html"
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
AXE_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa")
# No host but 127.0.0.1 resolves, IP literals included: no request of a page, a worker or a service worker leaves the
# machine (a test's context records any that is tried: fixtures._watch). A rule of the browser, not a route of the
# test's context, so that pages keep the browser's HTTP cache, as a learner's do (Playwright's routes turn it off).
OFF_MACHINE = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"
CHROMIUM_ARGS = [
    OFF_MACHINE,
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SYSTEM_CHROMIUMS = ("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome")
# Chromium's headless shell (Debian's chromium-headless-shell, built from the same sources as its chromium): the same
# Blink and V8 without the browser's windowing layer, what Playwright itself runs for headless tests. Tried first for
# a headless launch unless a test asks for the full browser.
HEADLESS_SHELLS = ("/usr/bin/chromium-headless-shell",)
LOCAL_HOST = "127.0.0.1"
# Schemes that never touch the network.
_OFFLINE_SCHEMES = frozenset({"data", "blob", "about", "chrome", "devtools"})

# Reported on the page (main world) and to Python via a binding; the array is there for debugging in devtools.
CSP_LISTENER_JS = """
(() => {
  window.__cspViolations = [];
  document.addEventListener("securitypolicyviolation", (e) => {
    const v = `${e.effectiveDirective} blocked ${e.blockedURI || "(inline)"} at ${e.sourceFile || "?"}:${e.lineNumber}`;
    window.__cspViolations.push(v);
    if (typeof window.__lessonkitCspViolation === "function") window.__lessonkitCspViolation(v);
  });
})();
"""


@dataclass
class HeaderlessHost:
    """The built site served with a Content-Type and nothing else (no CSP, no COOP/COEP, no caching rules)."""

    url: str
    log: list[str] = field(default_factory=list)


@dataclass
class Elsewhere:
    """A server on another loopback port (another origin): the paths it was asked for, as they arrive."""

    origin: str
    log: list[str] = field(default_factory=list)


class ChromiumNotFoundError(RuntimeError):
    """No usable Chromium; the message says how to install one."""


def launch_chromium(playwright: Playwright, *, headless: bool = True, args: Sequence[str] = (),
                    full: bool = False) -> Browser:
    """Launch Chromium (CHROMIUM_ARGS and `args`): $LESSON_CHROMIUM / $CHROME_PATH, then (headless, unless `full`)
    the system's headless shell, the system's Chromium, then Playwright's own download."""
    flags = [*CHROMIUM_ARGS, *args]
    tried: list[str] = []
    for var in ("LESSON_CHROMIUM", "CHROME_PATH"):
        value = os.environ.get(var)
        if value:
            if not Path(value).is_file():
                raise ChromiumNotFoundError(f"${var} points to {value!r}, which does not exist.")
            # An explicit choice must work; do not silently fall back to another browser.
            return playwright.chromium.launch(executable_path=value, headless=headless, args=flags)
    for path in (*(HEADLESS_SHELLS if headless and not full else ()), *SYSTEM_CHROMIUMS):
        if not Path(path).is_file():
            continue
        try:
            return playwright.chromium.launch(executable_path=path, headless=headless, args=flags)
        except Error as exc:
            tried.append(f"{path}: {str(exc).splitlines()[0]}")
    try:
        return playwright.chromium.launch(headless=headless, args=flags)
    except Error as exc:
        tried.append(f"Playwright's bundled Chromium: {str(exc).splitlines()[0]}")
    raise ChromiumNotFoundError(
        "No usable Chromium for the browser tests. Install one with `sudo apt-get install chromium "
        "chromium-headless-shell` (Debian/Ubuntu) or `.venv/bin/playwright install chromium`, or set "
        "LESSON_CHROMIUM=/path/to/chrome.\n"
        + "\n".join(f"  tried {t}" for t in tried)
    )


def is_local_url(url: str) -> bool:
    """True if loading `url` cannot leave this machine (127.0.0.1 or a data:/blob: URL)."""
    parts = urlsplit(url)
    if parts.scheme in _OFFLINE_SCHEMES:
        return True
    return parts.scheme in ("http", "https", "ws", "wss") and parts.hostname == LOCAL_HOST


@dataclass
class PageErrors:
    """Console errors, page errors, CSP violations and off-machine requests seen during one test."""

    entries: list[tuple[str, str]] = field(default_factory=list)
    offsite: list[str] = field(default_factory=list)
    expected: list[str] = field(default_factory=list)

    def add(self, kind: str, text: str) -> None:
        """Record one problem (kind: console, pageerror, csp)."""
        self.entries.append((kind, text))

    def expect(self, substring: str) -> PageErrors:
        """Allow errors containing `substring` in this test (e.g. a deliberate failure)."""
        self.expected.append(substring)
        return self

    def unexpected(self) -> list[tuple[str, str]]:
        """Recorded problems not covered by expect()."""
        return [(k, t) for k, t in self.entries if not any(s in t for s in self.expected)]

    def report(self) -> str:
        """Readable summary for a failure message ('' when clean)."""
        lines = [f"  [{kind}] {text}" for kind, text in self.unexpected()]
        lines += [f"  [offsite request] {url}" for url in self.offsite]
        return "\n".join(lines)


def format_log(log: Iterable[tuple[str, str, int]]) -> str:
    """Server access log as lines."""
    return "\n".join(f"  {status} {method} {path}" for method, path, status in log)


def server_log_problems(log: Iterable[tuple[str, str, int]]) -> list[str]:
    """Requests in a server log that were not plain same-origin paths (e.g. proxy-style absolute URLs)."""
    return [f"{method} {path}" for method, path, _ in log if not path.startswith("/") or path.startswith("//")]


def wait_until(predicate: Callable[[], Any], *, page: Page | None = None, timeout: float = 10.0,
               interval: float = 0.05, message: str = "condition") -> Any:
    """Poll `predicate` until it is truthy and return its value.

    Pass `page` when the predicate depends on Playwright events (console, errors): the sync API only delivers
    events while a Playwright call is running, so the wait must go through page.wait_for_timeout.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {message}")
        if page is not None:
            page.wait_for_timeout(interval * 1000)
        else:
            time.sleep(interval)


def requested(log: Iterable[tuple[str, str, int]], path_part: str, status: int | None = None) -> bool:
    """True if the server log has a request whose path contains `path_part` (optionally with `status`)."""
    return any(path_part in path and (status is None or s == status) for _, path, s in log)


def assert_isolation(page: Page, expected: bool) -> None:
    """The page's crossOriginIsolated matches what the server was asked to send."""
    actual = page.evaluate("globalThis.crossOriginIsolated")
    assert actual is expected, f"crossOriginIsolated is {actual}, expected {expected}"


def run_axe(page: Page, tags: Iterable[str] = AXE_TAGS, *, context: str | None = None,
            rules: dict[str, dict[str, bool]] | None = None) -> list[dict[str, Any]]:
    """Inject axe-core with page.evaluate (not blocked by the page CSP) and return its violations."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE_JS.read_text(encoding="utf-8"))
    options: dict[str, Any] = {"runOnly": {"type": "tag", "values": list(tags)}, "resultTypes": ["violations"]}
    if rules:
        options["rules"] = rules
    result = page.evaluate(
        "([context, options]) => axe.run(context ?? document, options)", [context, options]
    )
    return list(result["violations"])


def format_violations(violations: list[dict[str, Any]]) -> str:
    """axe violations as readable lines: rule, impact, help, and the offending nodes."""
    lines: list[str] = []
    for v in violations:
        lines.append(f"{v['id']} ({v.get('impact')}): {v['help']} — {v['helpUrl']}")
        for node in v.get("nodes", [])[:10]:
            target = " ".join(str(t) for t in node.get("target", []))
            lines.append(f"    at {target}: {node.get('html', '')[:200]}")
            summary = (node.get("failureSummary") or "").replace("\n", " ")
            if summary:
                lines.append(f"       {summary[:300]}")
    return "\n".join(lines)


def assert_no_axe_violations(page: Page, tags: Iterable[str] = AXE_TAGS, **kwargs: Any) -> None:
    """Fail with a readable list if axe finds WCAG violations."""
    violations = run_axe(page, tags, **kwargs)
    assert not violations, f"axe found {len(violations)} violation(s):\n{format_violations(violations)}"


def site_opener(site: Path, start_server: Callable[..., Any], new_page: Callable[..., Page]) -> Callable[..., Page]:
    """opener(path="index.html", **context options) -> a page of `site`, served cross-origin isolated by
    `start_server` (the fixtures' start_module_server: one server for the module's pages of the site)."""
    server = start_server(site, isolated=True)

    def opener(path: str = "index.html", **options: object) -> Page:
        page = new_page(server.url, **options)
        page.goto(path)
        return page
    return opener


def commit_answer(option: Any) -> None:
    """Choose a quiz option (a radio's Locator) and commit it with its question's "Check answer", as a learner does:
    choosing alone only selects it."""
    option.check()
    option.locator("xpath=ancestor::fieldset[1]").get_by_role("button", name="Check answer").click()


# The note a lab shows over code from a shared link; it names the lines wider than the editor when there are any.
SHARED_NOTE = re.compile(r"^This code came from a shared link\.( .* wider than the editor .*\.)? Press Run to run it\.")
