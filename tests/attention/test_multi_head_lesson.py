"""The multi-head lesson in Chromium, as a learner uses it: read it, switch the number of heads in its three tables
with the mouse and the keyboard (the weights matrix's second parameter too: weights or scores, shaded), run its Lab
(one heatmap per head) and make the matrix panel's edit its steps ask for.

These read the real lesson (like test_lesson.py for the seed): its text and numbers are the ones a learner meets.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import multi_head as lab  # the lesson's own lab (lab/ is on the path): its numbers, not typed ones
import pytest
from browser.helpers import assert_no_axe_violations
from browser.test_lab import Lab
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser
PAGE = "multi-head-attention.html"
SECTIONS = [
    "Goal", "One head, one mixture", "Split the width into heads", "Predict", "Heads side by side",
    "Join the heads, then project", "Run several heads in the Lab", "Quick Check", "Explain it back", "Key Takeaways",
    "Next Lesson", "References",
]
# Each head's weights for query 3 (one row of the weights table per head), by number of heads.
QUERY_3 = {
    "1": [["9.0%", "66.5%", "24.5%"]],
    "2": [["5.3%", "89.4%", "5.3%"], ["16.4%", "16.4%", "67.3%"]],
    "4": [["33.3%", "33.3%", "33.3%"], ["1.8%", "96.5%", "1.8%"], ["46.8%", "6.3%", "46.8%"], ["6.3%", "46.8%", "46.8%"]],
}


def widget(page: Page, block: str):
    return page.locator(f"#widget-{block}")


def rows(page: Page, block: str) -> list[list[str]]:
    """A widget table's body cells as text (its no-break spaces as spaces)."""
    return widget(page, block).locator("tbody[data-widget-rows] tr").evaluate_all(
        "rows => rows.map(r => [...r.cells].map(c => c.textContent.replace(/\\u00a0/g, ' ').trim()))")


def heads_control(page: Page, block: str):
    return widget(page, block).get_by_role("group", name=re.compile("^Heads h"))


def test_every_section_in_order_with_its_figures(page: Page) -> None:
    page.goto(PAGE)
    expect(page.get_by_role("heading", level=1)).to_have_text("Multi-Head Attention")
    headings = page.get_by_role("heading", level=2).all_text_contents()
    assert [h for h in headings if h.lower() != "on this page"] == SECTIONS
    prose = page.locator("main p, main li, main figcaption, main legend").all_text_contents()
    assert not [t for t in prose if "[[" in t]  # every figure was computed
    expect(page.get_by_text("and its dot products with the three keys are [0, 4, 2]: the raw scores of the first lesson")
           ).to_be_visible()
    assert page.locator(".math-display math").count() >= 4
    fraction = page.locator(".math-display math").first  # head_i = softmax(Q_i K_i^T / √d_k) V_i
    assert fraction.bounding_box()["height"] > 30


def test_the_heads_control_switches_each_table(page: Page) -> None:
    """h = 2 is pre-rendered; 1 and 4 redraw the caption and the rows: one row per head and query."""
    page.goto(PAGE)
    control = heads_control(page, "heads")
    expect(control.get_by_role("radio", name="2")).to_be_checked()
    for h in ["1", "4", "2"]:
        control.get_by_role("radio", name=h, exact=True).check()
        d_k = 4 // int(h)
        expect(widget(page, "heads").locator("[data-widget-caption]")).to_have_text(
            f"h = {h}: d_k = {d_k}, so each head divides its scores by √{d_k} = {d_k ** 0.5:.2f}")
        table = rows(page, "heads")
        assert [r[0] for r in table] == [f"Head {n} · query {i}" for n in range(1, int(h) + 1) for i in (1, 2, 3)]
        assert [r[1:] for r in table[2::3]] == QUERY_3[h]

    # The second parameter, a labelled option: the scores each head's softmax was given, on a diverging scale.
    show = widget(page, "heads").get_by_role("group", name="Show")
    show.get_by_role("radio", name=re.compile("^Scores")).check()
    layer = lab.multi_head(lab.tokens, 2)
    expected = [[f"{s / 2 ** 0.5:.2f}".replace("-", "−") for s in part[2]] for part in layer["scores"]]
    assert [r[1:] for r in rows(page, "heads")[2::3]] == expected
    shaded = widget(page, "heads").locator("td.heat")
    expect(shaded).to_have_count(3 * 3 * 2)
    show.get_by_role("radio", name=re.compile("^Scores")).focus()
    page.keyboard.press("ArrowUp")  # the keyboard moves within the group, back to the weights
    expect(show.get_by_role("radio", name=re.compile("^Weights"))).to_be_checked()
    assert [r[1:] for r in rows(page, "heads")[2::3]] == QUERY_3["2"]

    proj = heads_control(page, "proj")
    proj.get_by_role("radio", name="4", exact=True).check()
    assert [r[0] for r in rows(page, "proj")] == ["x"] + [f"{v}{s}" for s in "₁₂₃₄" for v in "qkvs"]
    assert rows(page, "proj")[1] == ["q₁", "[0]", "[2]", "[0]"]

    heads_control(page, "out").get_by_role("radio", name="1", exact=True).check()
    assert rows(page, "out") == [["Head 1 output", "[0.335, 0.910, 0.335, 0.910]"],
                                 ["Joined", "[0.335, 0.910, 0.335, 0.910]"],
                                 ["Head 1 × its rows of W_O", "[0.670, 1.820, 0.335, 0.910]"],
                                 ["Output: joined × W_O", "[0.670, 1.820, 0.335, 0.910]"]]


def test_the_heads_control_is_keyboard_operable(page: Page) -> None:
    page.goto(PAGE)
    control = heads_control(page, "proj")
    control.get_by_role("radio", name="2").focus()
    page.keyboard.press("ArrowRight")
    expect(control.get_by_role("radio", name="4")).to_be_checked()
    expect(widget(page, "proj").locator("[data-widget-caption]")).to_have_text(
        "h = 4: each head's q, k and v have d_k = 4 / 4 = 1 numbers")
    expect(heads_control(page, "heads").get_by_role("radio", name="2")).to_be_checked()  # each widget its own


def test_the_lab_draws_a_heatmap_per_head_and_the_panel_edit_moves_only_head_1(
        new_page: Callable[..., Page], server) -> None:
    """The lesson's steps: run unchanged, then token 2's row set to 0 in the matrix panel, then heads = 4."""
    page = new_page(server.url)
    page.goto(PAGE)
    lab_ = Lab(page)
    built = lab_.output_text()
    lab_.wait_ready()
    lab_.run()
    assert lab_.output_text() == built
    charts = lab_.current.locator(".lab-heatmap-svg")
    expect(charts).to_have_count(2)
    weights = lab.multi_head(lab.tokens, 2)["weights"]
    expect(charts.first).to_have_attribute("aria-label", re.compile(
        r"Head 1 of 2: attention weights\. Heatmap of 3 rows \(Query \(token\)\) by 3 columns \(Key \(token\)\)"
        rf".*Query \(token\) 3: Key \(token\) 1 {100 * weights[0][2][0]:.1f}%, Key \(token\) 2 "
        rf"{100 * weights[0][2][1]:.1f}%"))

    panel = lab_.root.get_by_role("group", name=re.compile("^The tokens"))
    assert panel.get_by_role("rowheader").all_text_contents() == ["Token 1", "Token 2", "Token 3"]
    expect(panel.get_by_role("spinbutton", name="Token 2, x₂", exact=True)).to_have_value("1.0")
    panel.get_by_role("spinbutton", name="Token 2, x₂", exact=True).fill("0")
    assert "    [0.0, 0.0, 0.0, 0.0],\n" in lab_.code()
    lab_.run()
    head_1, head_2 = lab_.output_text().split("head 2 weights")
    assert "query 3:  33.3%   33.3%   33.3%" in head_1  # head 1 lost the key it looked for
    assert "query 3:  16.4%   16.4%   67.3%" in head_2  # head 2's row for query 3 did not move

    lab_.run(lab_.code().replace("heads = 2  #", "heads = 4  #"))
    expect(lab_.current.locator(".lab-heatmap-svg")).to_have_count(4)
    expect(lab_.current.locator(".lab-heatmap-svg").nth(3)).to_have_attribute("aria-label", re.compile("Head 4 of 4"))


def test_readable_without_javascript(new_page: Callable[..., Page], server) -> None:
    page = new_page(server.url, java_script_enabled=False)
    page.goto(PAGE)
    assert [r[1:] for r in rows(page, "heads")[2::3]] == QUERY_3["2"]
    expect(page.get_by_text("token 3, after W_O: [0.942, 1.784, 0.836, 0.836]")).to_be_visible()


@pytest.mark.parametrize("width", [320, 1280])
def test_no_horizontal_scrolling(new_page: Callable[..., Page], server, width: int) -> None:
    page = new_page(server.url, viewport={"width": width, "height": 800})
    page.goto(PAGE)
    assert page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0


@pytest.mark.parametrize(("scheme", "width"), [("light", 1280), ("dark", 390)])
def test_axe_finds_no_violations(new_page: Callable[..., Page], server, scheme: str, width: int) -> None:
    page = new_page(server.url, color_scheme=scheme, viewport={"width": width, "height": 900})
    page.goto(PAGE)
    heads_control(page, "heads").get_by_role("radio", name="4", exact=True).check()
    assert_no_axe_violations(page)
