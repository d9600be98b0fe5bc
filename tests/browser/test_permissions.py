"""The site's Permissions-Policy in Chromium: what a lesson never uses is off, what the page needs is not, and the
browser knows every feature it names (it warns about any other)."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from lessonkit.hosting import headers as H  # noqa: N812 (as in test_serve.py)
from lessonkit.serve.server import ServerHandle

KEPT = ("clipboard-write", "cross-origin-isolated", "fullscreen", "sync-xhr", "clipboard-read")


def test_what_a_lesson_never_uses_is_off_and_what_it_needs_is_not(new_page: Callable[..., Page],
                                                                    server: ServerHandle) -> None:
    page = new_page(server.url)
    said: list[str] = []
    page.on("console", lambda message: said.append(message.text))
    page.goto("index.html")
    known = set(page.evaluate("document.featurePolicy.features()"))
    assert set(H.PERMISSIONS_OFF) <= known, set(H.PERMISSIONS_OFF) - known
    allowed = page.evaluate("names => names.map((name) => document.featurePolicy.allowsFeature(name))",
                            [*H.PERMISSIONS_OFF, *KEPT])
    assert dict(zip([*H.PERMISSIONS_OFF, *KEPT], allowed, strict=True)) == {
        **dict.fromkeys(H.PERMISSIONS_OFF, False), **dict.fromkeys(KEPT, True)}
    assert page.evaluate("crossOriginIsolated") is True
    assert not [text for text in said if "Permissions-Policy" in text or "feature" in text.lower()], said
