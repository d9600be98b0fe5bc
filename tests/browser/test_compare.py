"""What changed between the two runs shown, in Chromium: the printed lines that differ carry a marker (read as
"changed", never part of the output's text), a note counts them, and the chart's bars whose values changed are
outlined with their earlier value in their tooltip."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from course import MASK_LAB, MASK_WIDGET, build, mask_with_panel, write_course
from playwright.sync_api import Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import assert_no_axe_violations
from .test_instructor import Tools
from .test_lab import Lab


def test_the_lines_and_bars_that_changed_are_marked(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools(viewport={"width": 1280, "height": 900})
    tools.run()
    # The lesson's own code again: nothing differs from the build's output.
    expect(tools.current.get_by_text("The same output as “Previous run (output from the build)”.")).to_be_visible()
    expect(tools.current.locator("[data-lab-mark]")).to_have_count(0)
    expect(tools.current.get_by_text(re.compile(r"^No value changed since the previous run"))).to_be_visible()

    tools.logit(2).fill("8")
    tools.run(skip_prediction=True)
    now, before = tools.lines(tools.current), tools.lines(tools.previous)
    differ = [i for i, line in enumerate(now) if i >= len(before) or before[i] != line]
    assert differ, (now, before)
    count = f"{len(differ)} line{'s' if len(differ) != 1 else ''} differ{'' if len(differ) != 1 else 's'}"
    expect(tools.current.get_by_text(f"{count} from “Previous run” (marked ▸)")).to_be_visible()
    # One marker per changed line, in both runs; the output's own text is as printed.
    expect(tools.current.locator("pre [data-lab-mark]")).to_have_count(len(differ))
    expect(tools.previous.locator("pre [data-lab-mark]")).to_have_count(len(differ))
    assert not any("changed" in line or "▸" in line for line in now)
    marked = tools.current.locator("pre").evaluate(
        "pre => [...pre.querySelectorAll('[data-lab-mark]')].map(m => "
        "getComputedStyle(m, '::before').content)")
    assert all(c == '"▸" / "changed"' for c in marked), marked
    # The chart: the bars whose values changed are outlined, their earlier value in their tooltip.
    note = tools.current.get_by_text(re.compile(r"^\d+ of \d+ values changed since the previous run"))
    expect(note).to_be_visible()
    changed = tools.current.locator(".lab-chart-bar.lab-changed")
    n = int(note.text_content().split(" ", 1)[0])
    expect(changed).to_have_count(n)
    assert re.search(r"\(changed: was \d+\.\d%\)$", changed.first.locator("title").text_content())
    # The values panel: the input that differs from the run under "Previous run" says what it was.
    expect(tools.logit(2)).to_have_accessible_description("was 4.0")
    expect(tools.logit(2).locator("xpath=..")).to_contain_text("was 4.0")
    expect(tools.logit(1)).not_to_have_attribute("aria-describedby", re.compile("."))
    assert_no_axe_violations(tools.page, context="[data-lab]")

    # The next run is compared afresh: a line it adds is the one marked, in this run only; the marks of the last
    # comparison are gone from the run pushed down, and its unchanged chart says so.
    tools.set_code(tools.code() + '\nprint("one more line")\n')
    tools.run()
    expect(tools.current.get_by_text("1 line differs from “Previous run” (marked ▸)")).to_be_visible()
    expect(tools.current.locator("pre [data-lab-mark]")).to_have_count(1)
    expect(tools.previous.locator("pre [data-lab-mark]")).to_have_count(0)
    assert tools.lines(tools.current)[-1] == "one more line"
    expect(tools.previous.locator("[data-lab-changes]")).to_have_count(0)
    expect(tools.previous.locator(".lab-changed")).to_have_count(0)
    expect(tools.current.get_by_text(re.compile(r"^No value changed since the previous run"))).to_be_visible()
    expect(tools.logit(2)).not_to_have_attribute("aria-describedby", re.compile("."))  # the same values as that run


def test_the_heatmap_cells_that_changed_are_outlined(tmp_path: Any, start_test_server: Callable[..., ServerHandle],
                                                     new_page: Callable[..., Page]) -> None:
    site = build(write_course(tmp_path, {"masking.md": mask_with_panel(2, 5)},
                              {"masking.py": MASK_LAB, "masking_widget.py": MASK_WIDGET}))
    server = start_test_server(site, isolated=True)
    page = new_page(server.url, viewport={"width": 1280, "height": 900})
    page.goto("masking.html")
    lab = Lab(page)
    lab.wait_ready()
    panel = lab.root.get_by_role("group", name="Scores: one row per query")
    cell = panel.get_by_role("spinbutton", name="cat, The", exact=True)
    lab.root.get_by_role("checkbox", name="Live: re-run after each edit").check()
    cell.fill("3")
    scores = lab.current.locator("figure").filter(
        has=page.get_by_role("img", name=re.compile(r"^Chart of this run\. Masked scores\.")))
    expect(scores.get_by_text(re.compile(r"^1 of 16 values changed since the previous run"))).to_be_visible()
    changed = scores.locator(".lab-heat-cell.lab-changed")
    expect(changed).to_have_count(1)
    expect(changed.locator("title")).to_have_text("Query cat, Key The: 3 (changed: was 0.500)")
    expect(cell).to_have_accessible_description("was 0.5")
