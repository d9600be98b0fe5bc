"""Live keeps the prediction moment, in Chromium: with a prediction declared and Live on, the first Live run of changed
values waits with the question shown (the focus left in the field being typed in), runs what the editor holds once it
is answered, and Live goes on for the rest of the burst without asking again."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import expect

from .test_instructor import Tools

BURST = "Previous run: before these Live edits"


def test_live_asks_for_the_prediction_before_its_first_run_then_goes_on(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools(viewport={"width": 1280, "height": 720})
    tools.live.check()
    n = tools.runs()
    tools.logit(2).fill("8")
    question = tools.root.get_by_role("group", name=re.compile(r"^Before you run"))
    expect(question).to_be_visible()
    expect(tools.tool_note).to_have_text(re.compile(r"^Live is paused: say what you expect"))
    expect(tools.logit(2)).to_be_focused()  # the instructor's typing is not interrupted
    tools.logit(3).fill("4")  # and goes on under the question
    expect(question).to_be_in_viewport()
    assert tools.runs() == n, "Live waits for the prediction"
    question.get_by_role("radio", name="sharper").check()
    question.get_by_role("button", name="Run with this prediction").click()
    tools.wait_runs(n + 1)
    # The run is of the code as it was when the prediction was made, and its verdict is given.
    expect(tools.current.locator("pre")).to_contain_text("scaled=[0.000, 8.000, 4.000]")
    expect(tools.tool_note).to_contain_text("Your prediction held: every distribution got sharper")
    expect(question).to_have_count(0)
    expect(tools.logit(2)).to_be_focused()
    # Live goes on for the rest of the burst, asking no more, compared with the run before the burst.
    tools.logit(2).fill("6")
    expect(tools.current.locator("pre")).to_contain_text("scaled=[0.000, 6.000, 4.000]")
    expect(tools.root.get_by_role("group", name=re.compile(r"^Before you run"))).to_have_count(0)
    expect(tools.root.get_by_role("group", name=BURST)).to_be_visible()
    expect(tools.previous.locator("pre")).to_contain_text("scaled=[0.000, 4.000, 2.000]")


def test_escape_backs_out_of_the_live_question_and_the_next_edit_asks_again(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    tools.live.check()
    n = tools.runs()
    tools.logit(2).fill("8")
    question = tools.root.get_by_role("group", name=re.compile(r"^Before you run"))
    question.get_by_role("radio", name="sharper").focus()
    tools.page.keyboard.press("Escape")
    expect(question).to_have_count(0)
    assert tools.runs() == n, "backing out runs nothing"
    tools.logit(2).fill("6")
    expect(question).to_be_visible()
    question.get_by_role("button", name="Skip and run").click()
    tools.wait_runs(n + 1)
    expect(tools.current.locator("pre")).to_contain_text("scaled=[0.000, 6.000, 2.000]")
