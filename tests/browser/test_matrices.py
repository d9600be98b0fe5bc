"""Matrices in Chromium: a lab's heatmaps (masked cells announced and distinct, the data table, dark mode, axe) and
line chart (its title in sight above it), and a widget over two parameters with a labelled option, switched by mouse
and keyboard and right with JavaScript off — on the causal-masking fixture course (tests/course.py MASK), built and
served like the real site."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from course import MASK, MASK_LAB, MASK_WIDGET, build, edit, write_course, write_masking
from playwright.sync_api import Page, expect

from lessonkit.core.colour import contrast
from lessonkit.serve.server import ServerHandle

from .helpers import assert_no_axe_violations
from .test_lab import Lab

WEIGHTS_BEFORE = [  # T = 1, masked before softmax: the page's default table
    ["The", "100.0%", "−∞ (masked)", "−∞ (masked)", "−∞ (masked)", "100.0%"],
    ["cat", "18.2%", "81.8%", "−∞ (masked)", "−∞ (masked)", "100.0%"],
    ["sat", "24.5%", "9.0%", "66.5%", "−∞ (masked)", "100.0%"],
    ["down", "8.5%", "23.2%", "5.2%", "63.1%", "100.0%"],
]
ZEROED_AFTER_T2 = [
    ["The", "43.4%", "0.0%", "0.0%", "0.0%", "43.4%"],
    ["cat", "19.3%", "40.9%", "0.0%", "0.0%", "60.2%"],
    ["sat", "24.8%", "15.0%", "40.9%", "0.0%", "80.7%"],
    ["down", "16.3%", "26.8%", "12.7%", "44.2%", "100.0%"],
]


@pytest.fixture(scope="module")
def masking_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(write_masking(tmp_path_factory.mktemp("masking")))


@pytest.fixture
def serve_masking(masking_site: Path, start_module_server: Callable[..., ServerHandle],
                  new_page: Callable[..., Page]) -> Callable[..., Page]:
    """Factory: a page of the masking lesson (new_page's options: color_scheme, viewport, java_script_enabled)."""
    server = start_module_server(masking_site, isolated=True)

    def open_page(**options: object) -> Page:
        page = new_page(server.url, **options)
        page.goto("masking.html")
        return page

    return open_page


def widget_rows(page: Page) -> list[list[str]]:
    return page.locator("#widget-mask tbody[data-widget-rows] tr").evaluate_all(
        "rows => rows.map(r => [...r.cells].map(c => c.textContent))")


def heatmaps(page: Page):
    return page.locator("[data-lab-current] .lab-heatmap-figure")


# ---- the lab's heatmaps ----------------------------------------------------------------------------------------

def test_the_labs_heatmaps_are_drawn_with_masked_cells_announced_and_distinct(serve_masking: Callable[..., Page]) -> None:
    page = serve_masking()
    figures = heatmaps(page)
    expect(figures).to_have_count(3)
    weights = figures.nth(1).get_by_role("img", name=re.compile("Weights, mask before softmax"))
    expect(weights).to_have_attribute("aria-label", re.compile(
        r"^Chart of the build output\. Weights, mask before softmax\. Heatmap of 4 rows \(Query\) by 4 columns \(Key\), "
        r"values from 5\.2% to 100\.0%; 6 cells are masked\. Query The: Key The 100\.0%, Key cat masked, Key sat "
        r"masked, Key down masked; Query cat: Key The 18\.2%, Key cat 81\.8%, Key sat masked"))
    cells = weights.locator("rect.lab-heat-cell")
    expect(cells).to_have_count(16)
    fills = cells.evaluate_all("rs => rs.map(r => [r.getAttribute('fill'), r.querySelector('title').textContent])")
    masked = [f for f in fills if f[1].endswith(": masked")]
    assert [f[1] for f in masked][:2] == ["Query The, Key cat: masked", "Query The, Key sat: masked"]
    assert len(masked) == 6 and all(f[0].startswith("url(#lab-hatch-") for f in masked)
    shaded = {f[0] for f in fills if f not in masked}
    assert all(re.fullmatch(r"#[0-9a-f]{6}", f) for f in shaded)  # a colour of the scale, never the hatch
    # The hatch is drawn: its lines have a colour of their own against the cell's ground.
    hatch = weights.locator("pattern line").evaluate("l => getComputedStyle(l).stroke")
    ground = weights.locator("pattern rect").evaluate("r => getComputedStyle(r).fill")
    assert hatch != ground
    legend = figures.nth(1).locator(".lab-heat-legend")
    expect(legend).to_contain_text("0.0%")
    expect(legend).to_contain_text("100.0%")
    expect(legend.locator(".lab-heat-key")).to_have_text("masked")  # what the lab calls a masked cell (its default)
    expect(legend.get_by_role("img", name="Colour scale: from 0.0% (dark blue) to 100.0% (yellow)")).to_be_visible()


def test_a_heatmaps_data_table_names_masked_cells(serve_masking: Callable[..., Page]) -> None:
    page = serve_masking()
    figure = heatmaps(page).nth(1)
    figure.get_by_text("Chart data as a table").click()
    table = figure.get_by_role("table")
    expect(table).to_be_visible()
    assert table.locator("thead th").all_text_contents() == ["Query \\ Key", "Key The", "Key cat", "Key sat", "Key down"]
    assert table.locator("tbody tr").evaluate_all("rows => rows.map(r => [...r.cells].map(c => c.textContent))") == [
        ["Query The", "100.0%", "masked", "masked", "masked"],
        ["Query cat", "18.2%", "81.8%", "masked", "masked"],
        ["Query sat", "24.5%", "9.0%", "66.5%", "masked"],
        ["Query down", "8.5%", "23.2%", "5.2%", "63.1%"],
    ]
    # Scores of both signs: a diverging scale, with a real minus sign.
    scores = heatmaps(page).nth(0)
    expect(scores.get_by_role("img", name=re.compile(r"^Colour scale: from −2 \(blue\) through 0 \(grey\) to 2"))).to_be_visible()
    expect(scores.locator("svg")).to_contain_text("−0.500")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_heatmap_text_keeps_its_contrast_and_axe_is_clean(serve_masking: Callable[..., Page], scheme: str) -> None:
    page = serve_masking(color_scheme=scheme)
    expect(heatmaps(page)).to_have_count(3)
    pairs = page.locator("[data-lab-current] .lab-heatmap-svg").evaluate_all("""svgs => svgs.flatMap(svg =>
        [...svg.querySelectorAll('text.lab-heat-value')].map(t => {
          const r = [...svg.querySelectorAll('rect.lab-heat-cell')].find(c => {
            const x = +c.getAttribute('x'), y = +c.getAttribute('y'), w = +c.getAttribute('width');
            const tx = +t.getAttribute('x'), ty = +t.getAttribute('y');
            return tx > x && tx < x + w && ty > y && ty < y + w;
          });
          return [r.getAttribute('fill'), t.getAttribute('fill'), t.textContent];
        }))""")
    assert len(pairs) == 10 + 10 + 10  # every unmasked value of the three 4 × 4 matrices is printed in its cell
    for background, text, value in pairs:
        assert contrast(background, text) >= 4.5, (background, text, value)
    dark = page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
    assert dark == (scheme == "dark")
    ground = heatmaps(page).first.locator("pattern rect").evaluate("r => getComputedStyle(r).fill")
    page_bg = page.locator("[data-lab]").evaluate("el => getComputedStyle(el).getPropertyValue('--lab-bg').trim()")
    assert (page_bg == "#16181c") == dark and ground != ""
    page.locator("[data-lab-current] details.lab-chart-table").evaluate_all("ds => ds.forEach(d => d.open = true)")
    assert_no_axe_violations(page, context="[data-lab]")
    assert_no_axe_violations(page, context="#widget-mask")


def test_the_line_chart_and_a_run_draw_them_again(serve_masking: Callable[..., Page]) -> None:
    page = serve_masking()
    lines = page.locator("[data-lab-current] .lab-lines-figure")
    title = lines.locator(".lab-chart-title")  # its title is text in sight, above the chart
    expect(title).to_have_text("Query 4's weights as the temperature grows")
    expect(title).to_be_visible()
    above, chart = title.bounding_box(), lines.locator("svg").first.bounding_box()
    assert above and chart and above["y"] + above["height"] <= chart["y"] + 1
    expect(lines.get_by_role("img")).to_have_attribute("aria-label", re.compile(
        r"^Chart of the build output\. Query 4's weights as the temperature grows\. Line chart of 4 curves over 4 "
        r"Temperature values from 0\.5 to 4\. key The: Temperature 0\.5 1\.6%, Temperature 1 8\.5%"))
    expect(lines.locator("polyline")).to_have_count(4)
    expect(lines.get_by_role("list", name="Legend")).to_have_text(re.compile(r"key = The\s*key = cat\s*key = sat\s*key = down"))
    lab = Lab(page)
    lab.wait_ready()
    lab.run()
    expect(lab.current.locator(".lab-heatmap-figure")).to_have_count(3)
    expect(lab.current.get_by_role("img", name=re.compile(r"^Chart of this run\. Masked scores\."))).to_be_visible()
    expect(lab.previous.get_by_role("img", name=re.compile(r"^Chart of the previous run\. Masked scores\."))).to_be_visible()


# ---- the widget over two parameters ------------------------------------------------------------------------------

def test_a_labelled_option_switched_by_mouse_and_keyboard(serve_masking: Callable[..., Page]) -> None:
    page = serve_masking()
    widget = page.locator("#widget-mask")
    caption = widget.locator("[data-widget-caption]")
    assert widget_rows(page) == WEIGHTS_BEFORE
    show = widget.get_by_role("group", name="Show")
    temperature = widget.get_by_role("group", name=re.compile(r"^Temperature"))
    expect(show.get_by_role("radio", name="Mask before softmax")).to_be_checked()

    show.get_by_text("Zero after softmax").click()  # the mouse, on the option's label
    expect(show.get_by_role("radio", name="Zero after softmax")).to_be_checked()
    temperature.get_by_role("radio", name="2").click()
    expect(caption).to_have_text("T = 2: query 4 keeps 44.2% for itself")
    assert widget_rows(page) == ZEROED_AFTER_T2
    expect(widget.locator("[data-widget-legend]")).not_to_contain_text("masked")  # nothing is masked after softmax

    # The keyboard: arrows move within a group, and each group keeps its own choice.
    show.get_by_role("radio", name="Zero after softmax").focus()
    page.keyboard.press("ArrowLeft")
    expect(show.get_by_role("radio", name="Mask before softmax")).to_be_checked()
    expect(show.get_by_role("radio", name="Mask before softmax")).to_be_focused()
    expect(widget.locator("tbody[data-widget-rows] tr").first).to_contain_text("masked")
    temperature.get_by_role("radio", name="2").focus()
    page.keyboard.press("ArrowLeft")
    expect(temperature.get_by_role("radio", name="1")).to_be_checked()
    expect(caption).to_have_text("T = 1: query 4 keeps 63.1% for itself")
    assert widget_rows(page) == WEIGHTS_BEFORE
    page.keyboard.press("ArrowLeft")
    expect(temperature.get_by_role("radio", name="0.5")).to_be_checked()
    show.get_by_role("radio", name="Mask before softmax").focus()
    page.keyboard.press("ArrowLeft")
    expect(show.get_by_role("radio", name=re.compile(r"^Scores"))).to_be_checked()
    rows = widget_rows(page)
    assert rows[3] == ["down", "0.0", "2.0", "−1.0", "4.0", "5.0"]  # the option's own format, the real minus sign
    expect(widget.locator(".heat-legend")).to_contain_text("−4.0")
    assert_no_axe_violations(page, context="#widget-mask")


def test_right_with_javascript_off(serve_masking: Callable[..., Page]) -> None:
    page = serve_masking(java_script_enabled=False)
    widget = page.locator("#widget-mask")
    expect(widget.locator("[data-widget-caption]")).to_have_text("T = 1: query 4 keeps 63.1% for itself")
    assert widget_rows(page) == WEIGHTS_BEFORE
    expect(widget.get_by_role("radio", name="Mask before softmax")).to_be_checked()
    expect(widget.get_by_role("radio", name="1", exact=True)).to_be_checked()
    shaded = widget.locator("td.heat:not(.heat-masked)").first
    assert shaded.evaluate("td => getComputedStyle(td).backgroundColor") == "rgb(254, 232, 56)"  # 100.0%: the top
    masked = widget.locator("td.heat-masked").first
    assert "repeating-linear-gradient" in masked.evaluate("td => getComputedStyle(td).backgroundImage")
    expect(widget.locator(".heat-legend")).to_contain_text("−∞: masked")


def test_the_slider_value_stays_on_its_line_and_the_page_never_scrolls_sideways(
        tmp_path: Path, start_test_server: Callable[..., ServerHandle], new_page: Callable[..., Page]) -> None:
    lesson = edit(MASK, "    options: [0.5, 1, 2]\n", "    range: {min: 0.5, max: 2, step: 0.5}\n")
    site = build(write_course(tmp_path, {"masking.md": lesson}, {"masking.py": MASK_LAB,
                                                                 "masking_widget.py": MASK_WIDGET}))
    server = start_test_server(site, isolated=True)
    for width in (320, 390, 1280):
        page = new_page(server.url, viewport={"width": width, "height": 800})
        page.goto("masking.html")
        slider = page.get_by_role("slider", name=re.compile(r"^Temperature"))
        expect(slider).to_be_enabled()
        box, value = slider.bounding_box(), page.locator("[data-widget-value]").bounding_box()
        assert box and value
        assert value["y"] < box["y"] + box["height"] and box["y"] < value["y"] + value["height"], width  # one line
        assert value["x"] >= box["x"] + box["width"] - 1, width
        slider.focus()
        page.keyboard.press("ArrowRight")
        expect(page.locator("[data-widget-value]")).to_have_text("1.5")
        expect(page.locator("#widget-mask [data-widget-caption]")).to_have_text(re.compile(r"^T = 1\.5: "))
        assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), width


@pytest.mark.parametrize("width", [390, 1280])
def test_bars_start_at_one_x_whatever_their_number(page: Page, width: int) -> None:
    """The seed lesson's widget: 9.0%, 66.5% and 100.0% (head_dim 1's 86.7%) leave their bars in one column."""
    page.set_viewport_size({"width": width, "height": 900})
    page.goto("scaled-dot-product-attention.html")
    for option in ("1", "4", "16"):
        page.locator("#widget-head-dim").get_by_role("radio", name=option, exact=True).check()
        lefts = page.locator("#widget-head-dim td.bar-cell .bar").evaluate_all(
            "bars => bars.map(b => Math.round(b.getBoundingClientRect().left))")
        assert len(set(lefts)) == 1, (option, lefts)
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
