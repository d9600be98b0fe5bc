"""Shared pytest setup: import paths for lessonkit and labkit, the repo ROOT, and the `browser` marker."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# lessonkit lives at the repo root; labkit is imported from lab/ exactly as the build does.
for _path in (ROOT / "lab", ROOT):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))


def pytest_configure(config: pytest.Config) -> None:
    """Register markers here too so the suite runs without pyproject settings."""
    config.addinivalue_line("markers", "browser: needs Chromium via Playwright (tests/browser)")


@pytest.fixture(scope="session")
def root() -> Path:
    """The repository root."""
    return ROOT
