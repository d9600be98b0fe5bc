"""A chart's series colours in Chromium, as drawn: every series a chart draws (bars and lines, eight of them) has a
colour of its own in the light and the dark scheme, one that stands out from the panel it is drawn on (3:1) and from
every other series as readers see them, colour-blind readers included (protanopia, deuteranopia, tritanopia, as
Machado et al. 2009 simulate them, by colour-science), the legend showing the same colour as the chart."""

from __future__ import annotations

import itertools
import re
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from course import build, write_course
from playwright.sync_api import Page, expect

from lessonkit.core.colour import contrast
from lessonkit.serve.server import ServerHandle

with warnings.catch_warnings():  # colour-science says which of its optional parts (SciPy, Matplotlib) are missing
    warnings.simplefilter("ignore")
    import colour

DRAWN = 8  # series a chart draws (DRAWN_SERIES in static/js/lab/chart.js and lines.js); more are in the table only
LEAST_DIFFERENCE = 12.0  # CIEDE2000, the least between two series' colours, as seen and under each simulation
VISION = ("Protanomaly", "Deuteranomaly", "Tritanomaly")  # at severity 1: the dichromacies

LAB = f'''"""Nine series, each a bar chart's and a line chart's."""

import labkit

series = {{f"s{{k}}": [k + 1, k + 2, k + 3] for k in range({DRAWN + 1})}}
labkit.bars(series, labels=["a", "b", "c"], series_title="series", title="Bars of nine series")
labkit.lines(series, x=[1, 2, 3], series_title="series", title="Lines of nine series")
'''
LESSON = """---
title: Colours
slug: colours
---

## Lab

```{lab}
id: colours
file: colours.py
```
"""


@pytest.fixture(scope="module")
def colours_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(write_course(tmp_path_factory.mktemp("colours"), {"colours.md": LESSON}, {"colours.py": LAB}))


@pytest.fixture
def open_colours(colours_site: Path, start_module_server: Callable[..., ServerHandle],
                 new_page: Callable[..., Page]) -> Callable[[str], Page]:
    server = start_module_server(colours_site, isolated=True)

    def open_page(scheme: str) -> Page:
        page = new_page(server.url, color_scheme=scheme)
        page.goto("colours.html")
        expect(page.locator("[data-lab-current] .lab-chart-figure")).to_have_count(2)  # the build's charts, drawn
        return page

    return open_page


def _hex(css: str) -> str:
    """#rrggbb of a computed rgb(…) colour."""
    found = re.fullmatch(r"rgba?\((\d+), (\d+), (\d+)(?:, 1)?\)", css)
    assert found, css
    return "#" + "".join(f"{int(c):02x}" for c in found.groups())


def _lab(hex_colour: str, vision: str | None) -> np.ndarray:
    """CIE L*a*b* of a colour as seen, or as a dichromat sees it (Machado 2009, in linear RGB)."""
    rgb = np.array([int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    linear = colour.models.eotf_sRGB(rgb)
    if vision:
        with warnings.catch_warnings():  # it notes that its tritanomaly is an approximation (of tritanopia here)
            warnings.simplefilter("ignore")
            matrix = colour.blindness.matrix_cvd_Machado2009(vision, 1.0)
        linear = np.clip(matrix @ linear, 0, 1)
    return colour.XYZ_to_Lab(colour.RGB_to_XYZ(linear, colour.RGB_COLOURSPACES["sRGB"], apply_cctf_decoding=False))


def least_difference(colours: list[str]) -> tuple[float, str]:
    """The smallest CIEDE2000 difference between two of the colours, as seen and under each simulation, and where."""
    found = []
    for vision in (None, *VISION):
        labs = [_lab(c, vision) for c in colours]
        for (i, a), (j, b) in itertools.combinations(enumerate(labs), 2):
            found.append((float(colour.delta_E(a, b, method="CIE 2000")), f"series {i} and {j} ({vision or 'seen'})"))
    return min(found)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_series_a_chart_draws_has_a_colour_of_its_own(open_colours: Callable[[str], Page], scheme: str) -> None:
    page = open_colours(scheme)
    bars, lines = (page.locator("[data-lab-current] .lab-chart-figure").nth(n) for n in (0, 1))
    drawn = {
        "bars": [_hex(bars.locator(f"rect.lab-series-{k}").first.evaluate("r => getComputedStyle(r).fill"))
                 for k in range(DRAWN)],
        "bar legend": [_hex(c) for c in bars.locator(".lab-chart-swatch").evaluate_all(
            "s => s.map(e => getComputedStyle(e).backgroundColor)")],
        "lines": [_hex(lines.locator(f"polyline.lab-line-{k}").evaluate("l => getComputedStyle(l).stroke"))
                  for k in range(DRAWN)],
        "line legend": [_hex(c) for c in lines.locator(".lab-line-swatch").evaluate_all(
            "s => s.map(e => getComputedStyle(e).borderTopColor)")],
    }
    assert drawn["bars"] == drawn["bar legend"] == drawn["lines"] == drawn["line legend"], drawn
    expect(bars.locator(".lab-chart-more")).to_have_text(
        f"The chart shows the first {DRAWN} of {DRAWN + 1} series; the table lists them all.")
    colours = drawn["bars"]
    assert len(set(colours)) == DRAWN, colours
    panel = _hex(bars.evaluate("f => getComputedStyle(f.closest('.lab-run-panel')).backgroundColor"))
    ground = bars.evaluate("f => getComputedStyle(f.closest('.lab')).getPropertyValue('--lab-bg').trim()")
    for k, c in enumerate(colours):
        assert contrast(c, panel) >= 3 and contrast(c, ground) >= 3, (k, c, panel, ground)
    difference, where = least_difference(colours)
    assert difference >= LEAST_DIFFERENCE, (scheme, where, round(difference, 1), colours)


def test_the_measure_tells_the_old_dark_palette_apart() -> None:
    """The dark scheme's series 1 and 5 were one sky blue (and blue and purple, one colour to protanopes): the measure
    fails them, so a palette that passes is one colour-blind readers can tell apart."""
    old_dark = ["#56b4e9", "#ff8c42", "#3fd0a0", "#e29ac6", "#56b4e9", "#e69f00", "#5d5d5d", "#9467bd"]
    assert least_difference(old_dark)[0] == 0
    old_light = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#56b4e9", "#e69f00", "#5d5d5d", "#9467bd"]
    difference, where = least_difference(old_light)
    assert difference < 3 and where == "series 0 and 7 (Protanomaly)"
