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
    """open_tools(**context_options) -> the lab's Tools, Python ready, on a fresh page of the lesson."""

    def opener(**options: Any) -> Tools:
        page = new_page(server.url, **options)
        page.goto(LESSON_PAGE)
        tools = Tools(page)
        tools.wait_ready()
        return tools

    return opener
