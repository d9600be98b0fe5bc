"""The attention course's own tests: its labs compute what its lessons say, and its lesson pages work in Chromium as a
learner meets them. Unlike the toolkit's tests (tests/, which build their own fixture courses), these read the
course in this repository: lesson/, lab/ and course.yaml. Its browser tests run on the suite's browser fixtures
(tests/browser/fixtures.py), with `site_dir` built from this course and servers of their own for it: a session-wide
server is kept by the fixture that made it, so the toolkit's `server` (of its fixture course) never serves here."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser.fixtures import serve_site

from lessonkit.serve.server import ServerHandle

COURSE = Path(__file__).resolve().parents[2]  # this repository's root is the course folder
# The course's lab modules, importable by the CPython tests of its labs (as the build's lab host imports them).
if str(COURSE / "lab") not in sys.path:
    sys.path.insert(0, str(COURSE / "lab"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests here that use a browser carry the `browser` marker, like everything under tests/browser."""
    here = Path(__file__).parent
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        if here in Path(str(item.fspath)).parents and uses & {"page", "new_page", "browser", "server", "site_dir"}:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This course's site, built once per session."""
    from lessonkit.core.errors import BuildError
    from lessonkit.pipeline.site import build_site

    out = tmp_path_factory.mktemp("attention") / "site"
    try:
        build_site(COURSE, out)
    except BuildError as exc:
        pytest.fail("the course does not build:\n" + "\n".join(f"  {p}" for p in exc.problems), pytrace=False)
    return out


@pytest.fixture(scope="session")
def server(site_dir: Path) -> Iterator[ServerHandle]:
    """This course's site with production headers, cross-origin isolated (COOP/COEP/CORP)."""
    yield from serve_site(site_dir, isolated=True)
