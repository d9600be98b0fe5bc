"""Everything under tests/browser carries the `browser` marker. The browser fixtures themselves (one Chromium per
session, the built site, servers, checked pages) are browser/fixtures.py's, a plugin of the whole suite (tests/
conftest.py), so that the course's own browser tests (tests/attention) share the one Chromium."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from course import build
from places import FIXTURE
from playwright.sync_api import Page

from lessonkit.serve.server import ServerHandle

from .fixtures import goto_kept
from .helpers import LESSON_PAGE, site_opener
from .test_instructor import Tools
from .test_lab import Lab

LRS = "http://127.0.0.1:9/xAPI/"  # a port nothing listens on: the German site's class is never joined


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


@pytest.fixture
def kept_lab(kept_page: Page) -> Lab:
    """The lesson's lab in the module's kept page (fixtures.kept_page), ready for the test's runs: for a test that
    only runs code and reads what the run shows."""
    lab = Lab(kept_page)
    if goto_kept(kept_page, LESSON_PAGE):
        lab.wait_ready()
    return lab


@pytest.fixture(scope="session")
def german_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture course built in German (its lessons left in English), once per session: test_language.py and
    test_language_lab.py read it."""
    root = tmp_path_factory.mktemp("german") / "course"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("site", ".lessonkit"))
    config = root / "course.yaml"
    # A class configured (its record store never reached: nobody joins), so a join link offers the class's panel.
    config.write_text(config.read_text(encoding="utf-8") + "language: de\nclass:\n  lrs: " + LRS + "\n",
                      encoding="utf-8")
    return build(root)


@pytest.fixture
def open_german(german_site: Path, start_module_server: Callable[..., object],
                new_page: Callable[..., Page]) -> Callable[..., Page]:
    """open_german(path, **context options) -> a page of the German site."""
    return site_opener(german_site, start_module_server, new_page)


# A right-to-left course: the fixture course in Arabic (its lessons left in English), a few of the toolkit's words
# given in Arabic with `strings:`, as the manual's example does (lessonkit has no Arabic catalog).
RTL_STRINGS = """language: ar
strings:
  lab.run: تشغيل
  lab.stop: إيقاف
  nav.lessons: الدروس
  nav.on_this_page: في هذه الصفحة
"""


@pytest.fixture(scope="session")
def rtl_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture course built right to left (Arabic), once per session."""
    root = tmp_path_factory.mktemp("arabic") / "course"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("site", ".lessonkit"))
    config = root / "course.yaml"
    config.write_text(config.read_text(encoding="utf-8") + RTL_STRINGS, encoding="utf-8")
    return build(root)


@pytest.fixture
def open_rtl(rtl_site: Path, start_module_server: Callable[..., object],
             new_page: Callable[..., Page]) -> Callable[..., Page]:
    """open_rtl(path, **context options) -> a page of the right-to-left site."""
    return site_opener(rtl_site, start_module_server, new_page)
