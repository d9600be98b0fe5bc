"""Screenshots of a German and a right-to-left (Arabic) lesson page, 390 and 1280 px wide, light and dark, for a
person to look at: the page's top, its widget, its lab after a run, and another lesson's heatmaps. Opt-in:
`LESSON_SHOTS=<folder> pytest tests/browser/test_language_shots.py` writes them there
(<language>-<width>-<scheme>-<part>.png); without the variable the test skips."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from .helpers import LESSON_PAGE, wait_until

SHOTS = os.environ.get("LESSON_SHOTS", "")
pytestmark = pytest.mark.skipif(not SHOTS, reason="LESSON_SHOTS=<folder> takes the screenshots")
BOOT_TIMEOUT = 120_000
HEIGHTS = {390: 844, 1280: 900}
HEATMAPS = "multi-head-attention.html"  # its lab draws a heatmap per head
# Each language's lab, by its region's name, its Run button's (Arabic: the course's `strings:`) and the prediction's
# "Skip and run".
LABS = {"de": (r"^Python-Labor", "Ausführen", "Überspringen und ausführen"), "ar": (r"^Python lab", "تشغيل", "Skip and run")}


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("language", ["de", "ar"])
def test_screenshots(language: str, width: int, scheme: str, request: pytest.FixtureRequest) -> None:
    opener: Callable[..., Page] = request.getfixturevalue("open_german" if language == "de" else "open_rtl")
    page = opener(LESSON_PAGE, viewport={"width": width, "height": HEIGHTS[width]}, color_scheme=scheme)
    folder = Path(SHOTS)
    folder.mkdir(parents=True, exist_ok=True)
    name = f"{language}-{width}-{scheme}"
    region, run, skip_name = LABS[language]
    lab = page.get_by_role("region", name=re.compile(region))
    expect(lab.get_by_role("button", name=run, exact=True)).to_be_enabled(timeout=BOOT_TIMEOUT)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=folder / f"{name}-top.png")
    widget = page.locator('[data-block="widget"]').first
    widget.scroll_into_view_if_needed()
    widget.screenshot(path=folder / f"{name}-widget.png")
    runs = "document.querySelector('[data-lab]').labController.runs.length"
    lab.get_by_role("button", name=run, exact=True).click()
    skip = lab.get_by_role("button", name=skip_name)
    if skip.count():
        skip.click()
    wait_until(lambda: int(page.evaluate(runs)) > 0, page=page, timeout=BOOT_TIMEOUT / 1000, message="the run")
    lab.scroll_into_view_if_needed()
    lab.screenshot(path=folder / f"{name}-lab.png")
    page.goto(HEATMAPS)
    figure = page.locator(".lab-heatmap-figure").first
    expect(figure).to_be_visible(timeout=BOOT_TIMEOUT)
    figure.scroll_into_view_if_needed()
    figure.screenshot(path=folder / f"{name}-heatmap.png")
