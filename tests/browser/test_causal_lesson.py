"""A causal-masking lesson as a new author writes one (tests/course.py CAUSAL), in Chromium: on a 390 px phone, in both
schemes, everything fits or scrolls in its own box and shows that it does (display math, the widget's six columns, a
markdown table, a printed table, long code), the page never scrolls sideways and the 5 × 5 values panel fits the
screen; every chart's title is text above it, and the heatmaps call a masked cell what the lab calls it; the widget's
table takes each value's shape (n × n); and a prediction about one cell of a heatmap is asked and checked."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from course import build, write_causal
from playwright.sync_api import Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import assert_no_axe_violations
from .test_instructor import Tools

PHONE = 390
TITLES = ["Masked scores", "Causal attention weights (masked cells hatched)", "Each query's weights"]


@pytest.fixture(scope="module")
def causal_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(write_causal(tmp_path_factory.mktemp("causal")))


@pytest.fixture
def open_causal(causal_site: Path, start_module_server: Callable[..., ServerHandle],
                new_page: Callable[..., Page]) -> Callable[..., Page]:
    server = start_module_server(causal_site, isolated=True)

    def open_page(width: int = 1280, scheme: str = "light") -> Page:
        page = new_page(server.url, viewport={"width": width, "height": 900}, color_scheme=scheme)
        page.goto("causal.html")
        expect(page.locator("[data-lab-current] .lab-chart-figure")).to_have_count(len(TITLES))  # the build's charts
        return page

    return open_page


def _box(page: Page, selector: str, n: int = 0) -> dict:
    return page.locator(selector).nth(n).evaluate("""el => {
        el.scrollIntoView({block: "center"});
        const style = getComputedStyle(el), box = el.getBoundingClientRect();
        return {overflows: el.scrollWidth > el.clientWidth + 1, left: box.left, right: box.right,
                overflowX: style.overflowX, shadows: (style.backgroundImage.match(/radial-gradient/g) || []).length,
                whiteSpace: style.whiteSpace, lines: el.textContent.split("\\n").filter(Boolean).length,
                lineHeight: parseFloat(style.lineHeight), height: el.clientHeight};
    }""")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_on_a_phone_everything_fits_or_scrolls_in_its_own_box(open_causal: Callable[..., Page], scheme: str) -> None:
    page = open_causal(PHONE, scheme)
    page.evaluate("document.querySelectorAll('.part').forEach(p => p.classList.add('part-shown'))")
    wide = {
        "the two matrices' display": (".math-display", 3),
        "the widget's six columns": ("#widget-mask .table-wrap", 0),
        "the markdown table": (".lesson > .part .table-wrap:not(#widget-mask .table-wrap)", 0),
        "the printed table": ("[data-lab-current] .lab-pre", 0),
    }
    for what, (selector, n) in wide.items():
        box = _box(page, selector, n)
        assert box["overflows"], what  # wider than the phone: it scrolls …
        assert box["overflowX"] == "auto" and 0 <= box["left"] and box["right"] <= PHONE, (what, box)  # … in its box
        assert box["shadows"] == 2, what  # … and shows the edge with more beyond it
    printed = _box(page, "[data-lab-current] .lab-pre")
    assert printed["whiteSpace"] == "pre" and printed["lines"] == 6
    assert printed["height"] < (printed["lines"] + 1.5) * printed["lineHeight"]  # one line each: nothing wrapped
    option = page.get_by_role("radio", name=re.compile(r"^scores\.masked_fill")).locator("xpath=..")
    option.scroll_into_view_if_needed()
    box = option.bounding_box()
    assert box and box["x"] + box["width"] <= PHONE  # the long code in the answer breaks inside it
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), "the page scrolls sideways"

    tools = Tools(page)
    expect(tools.run_button).to_be_enabled(timeout=60_000)
    grid = tools.root.get_by_role("group", name="Scores: one row per query")
    inputs = grid.get_by_role("spinbutton")
    expect(inputs).to_have_count(25)
    grid.scroll_into_view_if_needed()
    for cell in inputs.all():
        box = cell.bounding_box()
        assert box and 0 <= box["x"] and box["x"] + box["width"] <= PHONE, cell.get_attribute("aria-label")
        assert box["width"] >= 40  # room for "-0.5"
    assert _box(page, ".instr-matrix-wrap")["overflows"] is False  # the 5 × 5 fits: nothing to scroll
    expect(grid.get_by_role("spinbutton", name="mats, mats")).to_have_value("2.0")
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), "the page scrolls sideways"
    assert_no_axe_violations(page, context="main")


def test_every_chart_has_its_title_in_sight_and_masked_cells_in_the_labs_words(open_causal: Callable[..., Page]) -> None:
    page = open_causal()
    figures = page.locator("[data-lab-current] .lab-chart-figure")
    for n, title in enumerate(TITLES):
        figure = figures.nth(n)
        shown = figure.locator(".lab-chart-title")
        expect(shown).to_have_text(title)
        expect(shown).to_be_visible()
        above, chart = shown.bounding_box(), figure.locator("svg").first.bounding_box()
        assert above and chart and above["y"] + above["height"] <= chart["y"] + 1  # above its chart
        expect(figure.get_by_role("img").first).to_have_attribute("aria-label", re.compile(rf"^Chart of the build "
                                                                                            rf"output\. {re.escape(title)}\. "))
    weights = figures.nth(1)
    expect(weights.locator(".lab-heat-key")).to_have_text("masked: not attended to")
    assert weights.locator("rect.lab-heat-masked title").first.text_content() == "Query The, Key cat: masked: not attended to"
    weights.get_by_text("Chart data as a table").click()
    expect(weights.get_by_role("row", name=re.compile(r"^Query The"))).to_contain_text("masked: not attended to")


def test_the_widgets_table_takes_each_values_shape(open_causal: Callable[..., Page]) -> None:
    """n = 4 is a 4 × 4 table with its sum; n = 2 and n = 5 swap in their own header and rows, shaded as theirs."""
    page = open_causal()
    widget = page.locator("#widget-mask")
    table = widget.get_by_role("table")

    def header() -> list[str]:
        return table.locator("thead th").all_text_contents()

    assert header() == ["Query", "The", "cat", "sat", "on", "Sum"]
    widget.get_by_role("radio", name="2", exact=True).check()
    expect(widget.locator("[data-widget-caption]")).to_have_text("n = 2: the last token keeps 81.8% for itself")
    assert header() == ["Query", "The", "cat", "Sum"]
    expect(table.locator("tbody tr")).to_have_count(2)
    expect(table.locator("tbody tr").nth(1)).to_have_text(re.compile(r"cat\s*18\.2%\s*81\.8%\s*100\.0%"))
    widget.get_by_role("radio", name="Scores, masked").check()
    widget.get_by_role("radio", name="5", exact=True).check()
    assert header() == ["Query", "The", "cat", "sat", "on", "mats", "Sum"]
    expect(table.locator("tbody tr")).to_have_count(5)
    expect(table.locator("tbody tr").nth(4)).to_have_text(re.compile(r"mats\s*1\.5\s*−1\.0\s*0\.5\s*1\.0\s*2\.0\s*4\.0"))
    expect(table.locator("tbody tr").nth(0).locator("td.heat-masked")).to_have_count(4)


def test_a_prediction_about_one_cell_of_a_heatmap(open_causal: Callable[..., Page]) -> None:
    """cat's score for itself from 2 to 4: asked how cat's weight on itself moves, "more" holds, by the cell's
    values in the lesson's heatmap and the run's."""
    page = open_causal()
    tools = Tools(page)
    tools.wait_ready()
    cell = tools.root.get_by_role("spinbutton", name="cat, cat")
    cell.fill("4")
    expect(tools.editor).to_contain_text("[0.5, 4.0, 1.0, 0.0, 1.5]")
    before = tools.runs()
    tools.run_button.click()
    question = tools.root.get_by_role("group", name=re.compile(r"^Before you run"))
    expect(question).to_contain_text("how will cat's weight on itself move?")
    question.get_by_role("radio", name="more").check()
    question.get_by_role("button", name="Run with this prediction").click()
    tools.wait_runs(before + 1)
    expect(tools.tool_note).to_have_text("Your prediction held: cat attends more to itself (cat, cat: 81.8% → 97.1%).")
