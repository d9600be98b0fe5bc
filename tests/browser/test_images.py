"""A lesson's own image, published by the build, loads under the site's Content-Security-Policy."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from course import LESSON, build, png, write_course
from playwright.sync_api import Page

from lessonkit.serve.server import ServerHandle


def test_a_lesson_image_loads_under_the_csp(tmp_path: Path, new_page: Callable[..., Page],
                                            start_test_server: Callable[..., ServerHandle]) -> None:
    """`![A plot](img/plot.png)` shows its pixels with production headers; no CSP violation (the page checks)."""
    write_course(tmp_path, {"a.md": f"{LESSON}\n![A plot](img/plot.png)\n", "img/plot.png": png(3, 2)})
    server = start_test_server(build(tmp_path))
    page = new_page(server.url)
    page.goto("a.html")
    image = page.get_by_role("img", name="A plot")
    image.scroll_into_view_if_needed()
    page.wait_for_function("el => el.complete", arg=image.element_handle())
    assert image.evaluate("el => [el.naturalWidth, el.naturalHeight]") == [3, 2]
