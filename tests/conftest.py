"""Shared pytest setup: import paths for lessonkit and labkit, the repo ROOT, the `browser` marker, a built site."""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
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


@pytest.fixture(scope="session")
def built_site() -> Iterator[Path]:
    """The real site, built once per session, in a folder any user can read (nginx may run as `nobody`)."""
    from lessonkit.build.pipeline import build_site
    from lessonkit.content.errors import BuildError

    # Not tmp_path: pytest makes its base folder private to this user.
    work = Path(tempfile.mkdtemp(prefix="lessonkit-site-"))
    work.chmod(0o755)
    try:
        try:
            build_site(ROOT, work / "site")
        except BuildError as exc:
            pytest.fail("the site does not build:\n" + "\n".join(f"  {p}" for p in exc.problems), pytrace=False)
        yield work / "site"
    finally:
        shutil.rmtree(work, ignore_errors=True)
