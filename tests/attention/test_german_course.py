"""This course built in German (course.yaml's `language: de`, its lessons left in English) in Chromium, by role and
visible text: the head-dimension widget reads its probabilities the German way ("66,5 %"), as does the lab's chart,
and the toolkit says no English word around the author's English (tests/browser/english.py)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from browser.english import Authored, english_on
from browser.helpers import LESSON_PAGE, site_opener
from playwright.sync_api import Page, expect

from lessonkit.pipeline.site import build_site

pytestmark = pytest.mark.browser
COURSE = Path(__file__).resolve().parents[2]
PARTS = ("course.yaml", "lesson", "lab", "static", "templates")
BOOT_TIMEOUT = 120_000
NBSP = "\u00a0"
# The widget's probabilities for each head dimension, as a German page writes them.
PROBABILITIES = {"1": ["1,6 %", "86,7 %", "11,7 %"], "4": ["9,0 %", "66,5 %", "24,5 %"],
                 "16": ["18,6 %", "50,6 %", "30,7 %"]}
AUTHORED = Authored([*COURSE.glob("lesson/*.md"), *COURSE.glob("lab/*.py"), *COURSE.glob("templates/*.html"),
                     COURSE / "course.yaml"])


@pytest.fixture(scope="module")
def german_course(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This course's folder copied with `language: de` added to its course.yaml, and built."""
    root = tmp_path_factory.mktemp("attention-de") / "course"
    for part in PARTS:
        source = COURSE / part
        if source.is_dir():
            shutil.copytree(source, root / part)
        else:
            root.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, root / part)
    config = root / "course.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "language: de\n", encoding="utf-8")
    build_site(root, root / "site")
    return root / "site"


@pytest.fixture
def open_german(german_course: Path, start_module_server: Callable[..., object],
                new_page: Callable[..., Page]) -> Callable[..., Page]:
    return site_opener(german_course, start_module_server, new_page)


def probabilities(page: Page) -> list[str]:
    """The widget table's "Softmax probability" column, as read."""
    table = page.get_by_role("table").filter(has=page.get_by_role("columnheader", name="Softmax probability"))
    rows = table.get_by_role("row").all()[1:]
    return [row.get_by_role("cell").last.inner_text().strip() for row in rows]


def test_the_german_attention_course_reads_its_numbers_the_german_way(open_german: Callable[..., Page]) -> None:
    page = open_german(LESSON_PAGE)
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.get_by_role("navigation", name="Auf dieser Seite")).to_be_attached()
    control = page.get_by_role("group", name=re.compile("^Head dimension"))
    expect(control.get_by_role("radio", name="4")).to_be_checked()
    assert probabilities(page) == [p.replace(" ", NBSP) for p in PROBABILITIES["4"]]
    for dim in ("1", "16", "4"):
        control.get_by_role("radio", name=dim, exact=True).check()
        expect(page.get_by_role("table").filter(has_text="Softmax probability").get_by_role("row").nth(2)).to_contain_text(
            PROBABILITIES[dim][1].replace(" ", NBSP))
        assert probabilities(page) == [p.replace(" ", NBSP) for p in PROBABILITIES[dim]]
    assert english_on(page, AUTHORED) == []
    # The lab: its chart's numbers the German way, its controls German.
    lab = page.get_by_role("region", name=re.compile(r"^Python-Labor"))
    expect(lab.get_by_role("status")).to_contain_text("Bereit", timeout=BOOT_TIMEOUT)
    expect(lab.get_by_role("button", name="Ausführen", exact=True)).to_be_visible()
    chart = lab.get_by_role("img").first
    expect(chart).to_have_attribute("aria-label", re.compile(f"position 2 66,5{NBSP}%"))
    assert english_on(page, AUTHORED) == []
