"""What a run is compared with, in Chromium: a burst of Live edits compares with the run before the burst, a pinned
baseline stays under "Previous run" until unpinned, Enter in a value's field runs, and the prediction's verdict is on
screen after "Run with this prediction"."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect

from .test_instructor import Tools

BURST = "Previous run: before these Live edits"
PINNED = "Previous run: the pinned baseline"


def scaled(tools: Tools, panel: Any) -> str:
    """The first line's scaled scores, as the lab prints them."""
    found = re.search(r"scaled=\[[^\]]*\]", tools.lines(panel)[0])
    assert found, tools.lines(panel)
    return found.group(0)


def test_a_burst_of_live_edits_compares_with_the_run_before_it(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    tools.run()
    assert scaled(tools, tools.current) == "scaled=[0.000, 4.000, 2.000]"
    tools.live.check()
    n = tools.runs()
    tools.logit(2).fill("8")
    tools.root.get_by_role("button", name="Skip and run").click()  # Live asks for the prediction before its first run
    tools.wait_runs(n + 1)
    tools.logit(3).fill("1")
    tools.wait_runs(n + 2)
    expect(tools.current.locator("pre")).to_contain_text("scaled=[0.000, 8.000, 1.000]")
    # The half-edited [0, 8, 2] is not what the class compares with: the run before the burst is.
    expect(tools.root.get_by_role("group", name=BURST)).to_be_visible()
    assert scaled(tools, tools.previous) == "scaled=[0.000, 4.000, 2.000]"
    # Live off ends the burst: the next run pushes this one down.
    tools.live.uncheck()
    tools.run()  # the prediction was asked for (and skipped) once, in Live
    expect(tools.root.get_by_role("group", name="Previous run", exact=True)).to_be_visible()
    assert scaled(tools, tools.previous) == "scaled=[0.000, 8.000, 1.000]"


def test_a_pinned_baseline_stays_until_unpinned(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    tools.run()
    pin = tools.root.get_by_role("button", name="Pin as baseline")
    pin.click()
    expect(pin).to_have_attribute("aria-pressed", "true")
    for value in ("8", "6"):
        tools.logit(2).fill(value)
        tools.run(skip_prediction=value == "8")
        expect(tools.root.get_by_role("group", name=PINNED)).to_be_visible()
        assert scaled(tools, tools.previous) == "scaled=[0.000, 4.000, 2.000]"
    assert scaled(tools, tools.current) == "scaled=[0.000, 6.000, 2.000]"
    pin.click()
    expect(pin).to_have_attribute("aria-pressed", "false")
    tools.logit(2).fill("5")
    tools.run()
    assert scaled(tools, tools.previous) == "scaled=[0.000, 6.000, 2.000]"


def test_enter_in_a_value_field_runs(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    n = tools.runs()
    tools.logit(2).fill("8")
    tools.logit(2).press("Enter")
    tools.root.get_by_role("button", name="Skip and run").click()  # changed values: the prediction is asked first
    tools.wait_runs(n + 1)
    expect(tools.current.locator("pre")).to_contain_text("scaled=[0.000, 8.000, 2.000]")


@pytest.mark.parametrize("size", [(1280, 720), (390, 844)], ids=["1280x720", "phone-390"])
def test_the_verdict_is_on_screen_after_run_with_this_prediction(open_tools: Callable[..., Tools],
                                                                  size: tuple[int, int]) -> None:
    width, height = size
    phone = {"is_mobile": True, "has_touch": True} if width < 600 else {}
    tools = open_tools(viewport={"width": width, "height": height}, **phone)
    tools.logit(2).fill("8")
    tools.logit(3).fill("4")
    n = tools.runs()
    tools.run_button.click()
    question = tools.root.get_by_role("group", name=re.compile(r"^Before you run"))
    question.get_by_role("radio", name="sharper").check()
    question.get_by_role("button", name="Run with this prediction").click()
    tools.wait_runs(n + 1)
    expect(tools.tool_note).to_contain_text("Your prediction held")
    box = tools.tool_note.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= height, f"the verdict is off screen: {box}"
    assert 0 <= box["x"] and box["x"] + box["width"] <= width + 0.5, f"the verdict is off screen: {box}"


def test_live_reruns_are_not_read_aloud_at_every_edit(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    tools.live.check()
    n = tools.runs()
    tools.logit(2).fill("8")
    tools.root.get_by_role("button", name="Skip and run").click()  # Live asks for the prediction before its first run
    tools.wait_runs(n + 1)
    expect(tools.status).to_have_text(re.compile(r"^Run finished"))  # shown…
    expect(tools.status).to_have_attribute("aria-live", "off")  # …not said at every edit
    # A failing edit is said once, by Live's note; the status line shows it without saying it again.
    tools.set_code(tools.code() + "\nboom(\n")
    tools.wait_runs(n + 2)
    expect(tools.tool_note).to_contain_text("Live: this edit has an error")
    expect(tools.status).to_have_attribute("aria-live", "off")
    # A run the instructor asks for is said as ever.
    tools.live.uncheck()
    tools.set_code(tools.original())
    tools.run()
    expect(tools.status).to_have_attribute("aria-live", "polite")


def test_reset_code_brings_back_the_output_the_lessons_code_makes(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    build_output = tools.lines()
    tools.logit(2).fill("8")
    tools.run(skip_prediction=True)
    tools.logit(2).fill("6")
    tools.run()
    assert scaled(tools, tools.current) == "scaled=[0.000, 6.000, 2.000]"
    tools.reset_button.click()
    assert tools.code() == tools.original()
    # The output on screen was the edited code's: the lesson's own output takes its place, with its chart.
    expect(tools.current).to_contain_text("Output from the build (before you run)")
    assert tools.lines() == build_output
    expect(tools.current.get_by_role("img", name=re.compile(r"^Chart of the build output"))).to_be_visible()
    expect(tools.previous).to_be_hidden()
    tools.run()
    expect(tools.root.get_by_role("group", name="Previous run (output from the build)")).to_be_visible()
