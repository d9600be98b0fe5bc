"""Shared pytest setup: the repo ROOT, the `browser` marker, a built site, and a user cache of the suite's own."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from places import FIXTURE

ROOT = Path(__file__).resolve().parent.parent

# lessonkit and labkit are the installed package (pip install -e .). The suite keeps its downloads and unpacked
# runtime in a user cache of its own, shared by its runs, never the person's.
os.environ.setdefault("LESSONKIT_CACHE", str(ROOT / ".cache" / "user"))

# The browser fixtures, for tests/browser and the course's own browser tests (tests/attention).
pytest_plugins = ["browser.fixtures"]


def pytest_configure(config: pytest.Config) -> None:
    """Register markers here too so the suite runs without pyproject settings."""
    config.addinivalue_line("markers", "browser: needs Chromium via Playwright (tests/browser)")


@pytest.fixture(scope="session")
def root() -> Path:
    """The repository root."""
    return ROOT


@pytest.fixture(scope="session")
def built_site() -> Iterator[Path]:
    """The real site, built once per session, in a folder any user can read (nginx may run as `nobody`)."""
    from lessonkit.core.errors import BuildError
    from lessonkit.pipeline.site import build_site

    # Not tmp_path: pytest makes its base folder private to this user.
    work = Path(tempfile.mkdtemp(prefix="lessonkit-site-"))
    work.chmod(0o755)
    try:
        try:
            build_site(FIXTURE, work / "site")
        except BuildError as exc:
            pytest.fail("the site does not build:\n" + "\n".join(f"  {p}" for p in exc.problems), pytrace=False)
        yield work / "site"
    finally:
        shutil.rmtree(work, ignore_errors=True)
