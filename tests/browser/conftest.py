"""Everything under tests/browser carries the `browser` marker. The browser fixtures themselves (one Chromium per
session, the built site, servers, checked pages) are browser/fixtures.py's, a plugin of the whole suite (tests/
conftest.py), so that the course's own browser tests (tests/attention) share the one Chromium."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE
from .test_instructor import Tools


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Select with -m browser / -m 'not browser'."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture
def open_tools(new_page: Callable[..., Page], server: ServerHandle) -> Callable[..., Tools]:
    """open_tools(url=LESSON_PAGE, page=None, ready=True, **context_options) -> the lab's Tools on `url` of the built
    site, in `page` or a fresh page made with the context options, Python and the tools ready unless ready=False."""

    def opener(url: str = LESSON_PAGE, *, page: Page | None = None, ready: bool = True, **options: Any) -> Tools:
        if page is None:
            page = new_page(server.url, **options)
        page.goto(url)
        tools = Tools(page)
        if ready:
            tools.wait_ready()
        return tools

    return opener
