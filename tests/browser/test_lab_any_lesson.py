"""A lab of another lesson in Chromium: its own chart drawn from what its code declares, and no panel or question.

The course is a fixture of this test (a sigmoid's steepness k), built and served like the real site: nothing here
depends on the seed lesson, and nothing of the seed lesson's shows up in it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from course import build, write_course
from playwright.sync_api import Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import assert_no_axe_violations, wait_until
from .test_lab import RUN_TIMEOUT, Lab

LESSON = """---
title: How steep is a sigmoid?
order: 1
---

## The lab

Change the steepness `k` and run.

```{lab}
id: sigmoid
file: sigmoid.py
title: Sigmoid steepness lab
```
"""

LAB = '''"""How the steepness k shapes the sigmoid 1 / (1 + e^(-k x))."""

import math

import labkit

xs = [-4, -2, 0, 2, 4]
curves = {}
for k in [0.25, 1, 4]:
    curves[k] = [1 / (1 + math.exp(-k * x)) for x in xs]
    print(f"k={k:<4}  " + "  ".join(f"{y:.3f}" for y in curves[k]))

labkit.bars(curves, labels=[str(x) for x in xs], series_title="k", x_title="Input x", item="input",
            y_title="Sigmoid output", title="Sigmoid output per input")
'''

OUTPUT = [
    "k=0.25  0.269  0.378  0.500  0.622  0.731",
    "k=1     0.018  0.119  0.500  0.881  0.982",
    "k=4     0.000  0.000  0.500  1.000  1.000",
]
TABLE = [
    ["0.25", "0.269", "0.378", "0.500", "0.622", "0.731"],
    ["1", "0.018", "0.119", "0.500", "0.881", "0.982"],
    ["4", "0.000", "0.000", "0.500", "1.000", "1.000"],
]


@pytest.fixture(scope="module")
def sigmoid_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture course, built once for this module."""
    root = write_course(tmp_path_factory.mktemp("sigmoid"), {"sigmoid.md": LESSON, "course.yaml": "title: Fixtures\n"},
                        {"sigmoid.py": LAB})
    return build(root)


@pytest.fixture
def sigmoid(sigmoid_site: Path, start_module_server: Callable[..., ServerHandle],
            new_page: Callable[..., Page]) -> Iterator[Lab]:
    """The fixture lesson's lab, ready."""
    server = start_module_server(sigmoid_site, isolated=True)
    page = new_page(server.url)
    page.goto("sigmoid.html")
    lab = Lab(page)
    lab.wait_ready()
    yield lab


def table(lab: Lab) -> tuple[list[str], list[list[str]]]:
    """The current panel's chart table: its header row and its body."""
    grid = lab.current.locator("table")
    head = grid.locator("thead th").all_text_contents()
    body = grid.locator("tbody tr").evaluate_all("rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    return head, body


def test_the_build_draws_the_labs_own_chart(sigmoid: Lab) -> None:
    lab = sigmoid
    assert lab.output_text().splitlines() == OUTPUT
    chart = lab.current.get_by_role("img")
    expect(chart).to_have_attribute("aria-label", "Chart of the build output. Sigmoid output per input. "
                                    "k 0.25: input -4 0.269, input -2 0.378, input 0 0.500, input 2 0.622, input 4 0.731; "
                                    "k 1: input -4 0.018, input -2 0.119, input 0 0.500, input 2 0.881, input 4 0.982; "
                                    "k 4: input -4 0.000, input -2 0.000, input 0 0.500, input 2 1.000, input 4 1.000.")
    assert table(lab) == (["k", "Input -4", "Input -2", "Input 0", "Input 2", "Input 4"], TABLE)
    expect(lab.current.get_by_role("list", name="Legend")).to_have_text(re.compile(r"k = 0\.25\s*k = 1\s*k = 4"))
    assert chart.locator("rect title").first.text_content() == "k 0.25, input -4: 0.269"
    assert_no_axe_violations(lab.page, context="[data-lab]")


def test_run_draws_the_chart_and_never_asks_a_question(sigmoid: Lab) -> None:
    lab = sigmoid
    lab.run()
    expect(lab.status).to_have_text(re.compile(r"^Run finished in \d+ ms$"))
    assert lab.output_text().splitlines() == OUTPUT
    expect(lab.current.get_by_role("img")).to_have_attribute("aria-label", re.compile(r"^Chart of this run\. Sigmoid output"))
    assert table(lab)[1] == TABLE

    # Changed values, as a learner would: no panel offers them, and no question comes before the run.
    code = lab.code().replace("for k in [0.25, 1, 4]:", "for k in [0.5, 2]:")
    lab.set_code(code)
    before = lab.runs()
    lab.run_button.click()
    wait_until(lambda: lab.runs() > before, page=lab.page, timeout=RUN_TIMEOUT / 1000, message="the run to finish")
    assert lab.root.get_by_role("group", name=re.compile("^Before you run")).count() == 0
    assert lab.root.get_by_role("button", name="Skip and run").count() == 0
    assert table(lab)[1] == [["0.5", "0.119", "0.269", "0.500", "0.731", "0.881"],
                             ["2", "0.000", "0.018", "0.500", "0.982", "1.000"]]
    expect(lab.previous.get_by_role("img")).to_have_attribute("aria-label", re.compile(r"^Chart of the previous run\. "))


def test_the_tools_have_no_values_panel(sigmoid: Lab) -> None:
    lab = sigmoid
    expect(lab.root.get_by_role("button", name="Copy link")).to_be_visible()
    expect(lab.root.get_by_role("checkbox", name="Live: re-run after each edit")).to_be_visible()
    expect(lab.root.get_by_role("button", name="Presenter mode")).to_be_visible()
    assert lab.root.get_by_role("spinbutton").count() == 0
    assert lab.root.locator("[data-lab-tools] fieldset").count() == 0
    text = lab.root.locator("[data-lab-tools]").text_content()
    assert "head_dim" not in text and "logit" not in text.lower()
