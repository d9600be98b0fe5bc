"""Extra pure-Python requirements install offline with micropip, in every Python; lessons without any never load micropip."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from places import FIXTURE, FIXTURES
from playwright.sync_api import Page, expect

from lessonkit.pipeline.site import build_site
from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE, requested
from .test_lab import Lab

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def requires_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site built from the fixture lesson that declares `requires: ["tabulate==0.9.0"]`."""
    out = tmp_path_factory.mktemp("requires") / "site"
    build_site(FIXTURES / "requires", out, lessons=FIXTURES / "requires", labs=FIXTURE / "lab")
    return out


def test_required_package_installs_offline(requires_site: Path, new_page: Callable[..., Page],
                                           start_test_server: Callable[..., ServerHandle]) -> None:
    """micropip installs tabulate from the site itself; no request leaves 127.0.0.1."""
    assert sorted(p.name for p in (requires_site / "runtime" / "wheels").glob("tabulate-*.whl")) == [
        "tabulate-0.9.0-py3-none-any.whl"]
    server = start_test_server(requires_site)
    page = new_page(server.url)
    page.goto("needs-a-package.html")
    lab = Lab(page)
    lab.wait_ready()
    code = "from tabulate import tabulate\nprint(tabulate([[1, 86.7]], headers=['head_dim', 'max %']))\n"
    lab.run(code)
    expect(lab.current).to_contain_text("head_dim    max %")
    assert requested(server.log, "runtime/wheels/micropip-")
    assert requested(server.log, "runtime/wheels/tabulate-0.9.0-py3-none-any.whl", 200)
    # The next run's Python booted from the snapshot the first one took before installing, then installed too.
    lab.run(code)
    expect(lab.current).to_contain_text("head_dim    max %")
    assert page.evaluate("document.querySelector('[data-lab]').labController.python.diagnostics.snapshot") is True


def test_lesson_without_requirements_never_loads_micropip(new_page: Callable[..., Page], server: ServerHandle) -> None:
    """The default lab boots without micropip (fastest boot)."""
    page = new_page(server.url)
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    lab.wait_ready()
    lab.run()
    assert not requested(server.log, "micropip")
