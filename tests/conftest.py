"""Shared pytest setup: the repo ROOT, the `browser` marker, a built site, and a user cache of the suite's own."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest
from places import BUILD_STATE, FIXTURE

ROOT = Path(__file__).resolve().parent.parent

# lessonkit and labkit are the installed package (pip install -e .). The suite keeps its downloads and unpacked
# runtime in a user cache of its own, shared by its runs, never the person's.
os.environ.setdefault("LESSONKIT_CACHE", str(ROOT / ".cache" / "user"))

# The browser fixtures, for tests/browser and the course's own browser tests (tests/attention).
pytest_plugins = ["browser.fixtures"]


def pytest_configure(config: pytest.Config) -> None:
    """Register markers here too so the suite runs without pyproject settings."""
    config.addinivalue_line("markers", "browser: needs Chromium via Playwright (tests/browser)")


# Build state at the repository's root (the course's root) when the run started: a run that adds any fails, since a
# test handed the root itself as a build's state folder (tests/test_layout.py checks the tree as it is).
_STATE_BEFORE: set[str] = set()
_STATE_LEFT: list[str] = []  # what the run added, for the summary


def _root_state() -> set[str]:
    return {name for name in BUILD_STATE if (ROOT / name).exists()}


def pytest_sessionstart(session: pytest.Session) -> None:
    """Note the build state already at the root (the controller's view, before any worker starts)."""
    _STATE_BEFORE.update(_root_state())


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run that left build state at the repository's root (named in the summary)."""
    if hasattr(session.config, "workerinput"):
        return
    _STATE_LEFT[:] = sorted(_root_state() - _STATE_BEFORE)
    if _STATE_LEFT:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# Where the suite's time goes, by test module: setup, call and teardown summed over its tests (in whichever worker
# ran them), printed after the run for every module, the largest first.
_SESSION_SECONDS: defaultdict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add one phase of one test to its module's time (xdist's workers report to the controller, which sums)."""
    _SESSION_SECONDS[report.nodeid.split("::", 1)[0]] += report.duration


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """Print every module's time, the largest first (its tests' time summed, so parallel runs add up past the wall
    clock)."""
    if _STATE_LEFT:
        terminalreporter.section("build state left at the repository's root", red=True)
        terminalreporter.write_line(f"{', '.join(_STATE_LEFT)} — a test must give the code that wrote it a tmp folder as "
                                    "its build state", red=True)
    seconds = _SESSION_SECONDS
    if not seconds or hasattr(config, "workerinput"):
        return
    terminalreporter.section("time by test module (tests' seconds summed)")
    for module, total in sorted(seconds.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"{total:8.1f} s  {module}")
    terminalreporter.write_line(f"{sum(seconds.values()):8.1f} s  all {len(seconds)} modules")


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


@pytest.fixture(autouse=True, scope="session")
def labkit_in_english() -> None:
    """labkit in this process speaks the English catalog's words, as the build's lab host does for an English page
    (lessonkit.labs.runner.labkit_words) and the worker for an English page (its init's config.words)."""
    from labkit import _words
    from lessonkit.core.messages import Messages
    from lessonkit.labs.limits import WORDED

    _words.use(**Messages("en").labkit_words(WORDED))
