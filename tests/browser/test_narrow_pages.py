"""A lesson on a phone (390 px wide, and 320): display math and a widget's table wider than the screen scroll inside
their own box, which shows that it does (a shadow at the edge with more beyond it), and the page itself never
scrolls sideways; an inline signed number such as −∞ reads as one (no gap after its minus)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from course import MASK, MASK_LAB, MASK_WIDGET, build, edit, write_course
from playwright.sync_api import Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import assert_no_axe_violations

WIDE = edit(MASK, "## Mask\n", r"""A masked score is $-\infty$, so its weight is $e^{-\infty} = 0$:

$$
\operatorname{softmax}(s)_j = \frac{e^{s_j / T}}{\sum_{k \le t} e^{s_k / T}} \quad\text{for } j \le t,
\qquad \operatorname{softmax}(s)_j = 0 \quad\text{for } j > t
$$

## Mask
""")


@pytest.fixture(scope="module")
def narrow_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_course(tmp_path_factory.mktemp("narrow"), {"masking.md": WIDE},
                        {"masking.py": MASK_LAB, "masking_widget.py": MASK_WIDGET})
    return build(root)


@pytest.fixture
def open_narrow(narrow_site: Path, start_module_server: Callable[..., ServerHandle],
                new_page: Callable[..., Page]) -> Callable[..., Page]:
    server = start_module_server(narrow_site, isolated=True)

    def open_page(width: int, scheme: str = "light") -> Page:
        page = new_page(server.url, viewport={"width": width, "height": 800}, color_scheme=scheme)
        page.goto("masking.html")
        expect(page.locator("#widget-mask")).to_be_visible()
        return page

    return open_page


def _scrolls(page: Page, selector: str) -> dict:
    return page.locator(selector).first.evaluate("""el => ({
        overflows: el.scrollWidth > el.clientWidth + 1, right: el.getBoundingClientRect().right,
        background: getComputedStyle(el).backgroundImage, attachment: getComputedStyle(el).backgroundAttachment,
        overflowX: getComputedStyle(el).overflowX, mask: getComputedStyle(el).maskImage,
        fade: [getComputedStyle(el).getPropertyValue("--fade-start"), getComputedStyle(el).getPropertyValue("--fade-end")]
    })""")


@pytest.mark.parametrize("width", [320, 390])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_what_is_wider_than_the_screen_scrolls_in_its_box_and_shows_it(open_narrow: Callable[..., Page], width: int,
                                                                      scheme: str) -> None:
    page = open_narrow(width, scheme)
    for selector in (".math-display", "#widget-mask .table-wrap"):
        box = _scrolls(page, selector)
        assert box["overflows"], (selector, width)  # wider than the screen: it scrolls …
        assert box["overflowX"] == "auto" and box["right"] <= width, selector  # … inside its own box
        # … and says so: a shadow at each edge with more beyond it (fixed to the box), which the content's own
        # background covers once that edge is reached (it scrolls with the content).
        assert box["background"].count("radial-gradient") == 2, selector
        assert box["attachment"] == "local, local, scroll, scroll", selector
        # Chromium ties the content's fade to scrolling: the end with more beyond it fades, so the hint shows over
        # opaque (shaded) cells too; the start, with nothing before it, does not.
        assert box["mask"].startswith("linear-gradient") and box["fade"] == ["0px", "40px"], (selector, box["fade"])
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), width
    table = page.locator("#widget-mask .table-wrap")
    table.scroll_into_view_if_needed()
    table.focus()  # a keyboard user scrolls it with the arrow keys
    last = table.get_by_role("columnheader", name="Sum")
    start = last.bounding_box()
    assert start and start["x"] + start["width"] > width  # the last column starts beyond the edge
    for _ in range(20):
        page.keyboard.press("ArrowRight")
    expect(last).to_be_in_viewport(ratio=1)
    assert _scrolls(page, "#widget-mask .table-wrap")["fade"] == ["40px", "0px"]  # now the start has more before it
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth && scrollX === 0"), width
    assert_no_axe_violations(page, context="main")


def test_a_leading_minus_sits_against_its_number(open_narrow: Callable[..., Page]) -> None:
    """$-\\infty$ and $e^{-\\infty}$: the minus is a prefix operator, with no space between it and ∞."""
    page = open_narrow(1280)
    gaps = page.locator("p math").evaluate_all("""maths => maths.flatMap(m => [...m.querySelectorAll('mo')]
        .filter(mo => mo.textContent === '−' && mo.nextElementSibling)
        .map(mo => [mo.nextElementSibling.getBoundingClientRect().left - mo.getBoundingClientRect().right,
                    parseFloat(getComputedStyle(mo).fontSize)]))""")
    assert len(gaps) >= 2
    for gap, size in gaps:
        assert gap < 0.1 * size, gaps  # an infix minus leaves about 0.22em on each side
