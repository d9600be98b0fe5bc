"""Everything under tests/browser carries the `browser` marker. The browser fixtures themselves (one Chromium per
session, the built site, servers, checked pages) are browser/fixtures.py's, a plugin of the whole suite (tests/
conftest.py), so that the course's own browser tests (tests/attention) share the one Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Select with -m browser / -m 'not browser'."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)
