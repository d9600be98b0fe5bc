"""The server's tests (no browser): each gets a fresh fake site (fake_site.py) and, if it asks, a production or a
dev server over it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_site import make_site

from lessonkit.serve.server import ServerHandle, start_server


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A fresh fake site."""
    return make_site(tmp_path / "site")


@pytest.fixture
def server(site: Path) -> Iterator[ServerHandle]:
    """Production-mode server over the fake site."""
    with start_server(site) as handle:
        yield handle


@pytest.fixture
def dev_server(site: Path) -> Iterator[ServerHandle]:
    """Dev-mode server (live reload injected) over the fake site."""
    with start_server(site, dev=True) as handle:
        yield handle
