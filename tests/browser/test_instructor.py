"""Lab tools in Chromium: logits panel, Live mode, presenter mode, share links, saved code, predict-then-run."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE, SHARED_NOTE, PageErrors, assert_no_axe_violations, wait_until
from .test_lab import LINES_4_2, LINES_8_4, Lab

RUN_TIMEOUT = 20.0  # s
LESSON = "scaled-dot-product-attention"
LAB = "scaled-softmax"
STORE_KEY = f"lessonkit:v1:{LESSON}:{LAB}:code"
VERDICT_8_4 = (
    "Your prediction held: every distribution got sharper "
    "(head_dim 1: 86.7% → 98.2%, 4: 66.5% → 86.7%, 16: 50.6% → 66.5%)."
)

class Tools(Lab):
    """One lab and its tools, found by role and visible name (the lab's own locators come from Lab)."""

    def __init__(self, page: Page) -> None:
        """Find the lab and its tools on page."""
        super().__init__(page)
        self.logits = self.root.get_by_role("group", name=re.compile(r"^Raw scores"))
        self.add = self.root.get_by_role("button", name="Add position")
        self.remove = self.root.get_by_role("button", name="Remove position")
        self.live = self.root.get_by_role("checkbox", name="Live: re-run after each edit")
        self.presenter = self.root.get_by_role("button", name="Presenter mode")
        self.copy = self.root.get_by_role("button", name="Copy link")
        self.link = self.root.get_by_role("textbox", name="Link to this code")
        self.note = self.root.locator("[data-lab-restore]")
        self.tool_note = self.root.locator(".instr-note")

    def logit(self, n: int) -> Locator:
        """The input for position n (1-based)."""
        return self.root.get_by_role("spinbutton", name=f"Position {n} logit", exact=True)

    def logit_count(self) -> int:
        """Number of logit inputs."""
        return self.root.get_by_role("spinbutton", name=re.compile(r"^Position \d+ logit$")).count()

    def wait_ready(self) -> None:
        """Wait for Python, the editor and the tools."""
        super().wait_ready()
        expect(self.copy).to_be_visible()

    def evaluate(self, expr: str) -> Any:
        """Evaluate on the lab's controller (`c`)."""
        return self.page.evaluate(f"(() => {{ const c = document.querySelector('[data-lab]').labController; return {expr}; }})()")

    def runs(self) -> int:
        """Finished runs."""
        return int(self.evaluate("c.runs.length"))

    def code(self) -> str:
        """The editor's code."""
        return str(self.evaluate("c.getCode()"))

    def original(self) -> str:
        """The starter code."""
        return str(self.evaluate("c.original"))

    def set_code(self, code: str) -> None:
        """Replace the code like a learner: select all in the editor and paste."""
        self.editor.click()
        self.page.keyboard.press("ControlOrMeta+a")
        self.page.keyboard.insert_text(code)
        assert self.code() == code

    def run(self, *, skip_prediction: bool = False) -> None:
        """Press Run (skipping the prediction question when asked to) and wait for that run to finish."""
        before = self.runs()
        self.run_button.click()
        if skip_prediction:
            self.root.get_by_role("button", name="Skip and run").click()
        self.wait_runs(before + 1)

    def wait_runs(self, n: int) -> None:
        """Wait until n runs have finished."""
        wait_until(lambda: self.runs() >= n, page=self.page, timeout=RUN_TIMEOUT, message=f"{n} finished runs")

    def lines(self, panel: Locator | None = None) -> list[str]:
        """Lines of the current (or given) output panel."""
        return (panel or self.current).locator("pre").text_content().splitlines()


def edited_starter(tools: Tools, raw: str) -> str:
    """The starter code with another raw line."""
    original = tools.original()
    code = original.replace("raw = [0.0, 4.0, 2.0]", raw)
    assert code != original
    return code


# ---- logits panel ---------------------------------------------------------------------------------------------



def page_with_saved_code(new_page: Callable[..., Page], server: ServerHandle, saved: dict[str, Any]) -> Page:
    """A page whose first load finds `saved` in storage; later loads see what the page itself saved."""
    page = new_page(server.url)
    page.add_init_script(
        f"if (!sessionStorage.getItem('seeded')) {{ sessionStorage.setItem('seeded', '1'); "
        f"localStorage.setItem({json.dumps(STORE_KEY)}, {json.dumps(json.dumps(saved))}); }}"
    )
    return page

def test_logits_panel_rewrites_the_raw_line_and_runs(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    assert [tools.logit(i).input_value() for i in (1, 2, 3)] == ["0.0", "4.0", "2.0"]
    tools.logit(2).fill("8")
    tools.logit(3).fill("4")
    assert "raw = [0.0, 8.0, 4.0]" in tools.code()
    assert tools.code() == edited_starter(tools, "raw = [0.0, 8.0, 4.0]")
    tools.run(skip_prediction=True)
    assert tools.lines() == LINES_8_4


def test_editing_the_code_updates_the_panel_and_add_remove(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    tools.set_code(edited_starter(tools, "raw = [1.5, -2.0, 3.0, 0.25]"))
    expect(tools.logit(4)).to_have_value("0.25")
    assert [tools.logit(i).input_value() for i in (1, 2, 3, 4)] == ["1.5", "-2.0", "3.0", "0.25"]

    tools.add.click()
    expect(tools.logit(5)).to_have_value("0.0")
    assert "raw = [1.5, -2.0, 3.0, 0.25, 0.0]" in tools.code()
    for _ in range(3):
        tools.remove.click()
    assert tools.logit_count() == 2
    assert "raw = [1.5, -2.0]" in tools.code()
    expect(tools.remove).to_have_attribute("aria-disabled", "true")
    tools.remove.press("Enter")  # at the minimum: nothing happens, focus stays
    assert tools.logit_count() == 2
    expect(tools.remove).to_be_focused()

    # A list past the panel's max (code edited or shared so): the panel is off, saying so, with no input per value.
    tools.set_code("raw = [" + ", ".join(["1.0"] * 5000) + "]\n")
    expect(tools.logits).to_contain_text(re.compile(r"This panel is off: raw has 5,000 values, more than the \d+ it "
                                                    r"shows\. Reset code brings it back\."))
    assert tools.logit_count() == 0

    tools.set_code("print('no raw line here')")
    expect(tools.logits).to_contain_text("This panel is off")
    expect(tools.add).to_be_disabled()
    assert tools.logit_count() == 0
    tools.reset_button.click()
    expect(tools.logit(3)).to_have_value("2.0")
    expect(tools.add).to_be_enabled()


# ---- Live mode -------------------------------------------------------------------------------------------------


def test_live_mode_reruns_after_an_edit(open_tools: Callable[..., Tools], page_errors: PageErrors) -> None:
    tools = open_tools()
    tools.live.check()
    before = tools.runs()
    tools.logit(2).fill("8")
    tools.logit(3).fill("4")  # two quick edits: one debounced run
    tools.root.get_by_role("button", name="Skip and run").click()  # the prediction Live asks for first, skipped
    tools.wait_runs(before + 1)
    expect(tools.status).to_have_text(re.compile(r"^Run finished"), timeout=RUN_TIMEOUT * 1000)
    assert tools.lines() == LINES_8_4
    tools.page.wait_for_timeout(800)
    assert tools.runs() == before + 1, "one run per burst of edits"
    expect(tools.root.get_by_role("group", name=re.compile("^Before you run"))).to_have_count(0)  # asked once

    # An error: the last good output stays visible for comparison.
    tools.set_code(tools.code().replace("raw = [0.0, 8.0, 4.0]", "raw = [0.0, 8.0, 4.0]\nboom("))
    tools.wait_runs(before + 2)
    expect(tools.tool_note).to_contain_text("Live: this edit has an error on line 6")
    assert tools.lines() == LINES_8_4, "the failing run left the last good output in place"
    assert tools.evaluate("c.runs.at(-1).keptOutput") is True
    # A second error in a row: still the last good output, not the first error's.
    tools.set_code(tools.code().replace("boom(", "boom(("))
    tools.wait_runs(before + 3)
    expect(tools.tool_note).to_contain_text("Live: this edit has an error on line 6")
    assert tools.lines() == LINES_8_4

    # Edits while a run is in flight: no second run in parallel, no run replaced, and exactly one more run
    # afterwards, with the latest code. (The sleep is long enough for both edits to land inside it.)
    tools.set_code("import time\ntime.sleep(4)\nprint('first')")
    expect(tools.status).to_have_text("Running…", timeout=RUN_TIMEOUT * 1000)
    n = tools.runs()
    tools.set_code("print('second')")
    tools.page.wait_for_timeout(450)
    tools.set_code("print('third')")
    tools.page.wait_for_timeout(600)
    assert tools.runs() == n, "the running run was not replaced"
    tools.wait_runs(n + 2)
    tools.page.wait_for_timeout(1000)
    assert tools.runs() == n + 2
    assert tools.lines() == ["third"]
    # One burst of Live edits since the first: it is compared with the output from before it (baseline.js).
    expect(tools.root.get_by_role("group", name="Previous run: before these Live edits")).to_be_visible()
    assert tools.lines(tools.previous) == LINES_4_2
    assert not tools.evaluate("c.runs.some((r) => r.stopped)")


# ---- presenter mode --------------------------------------------------------------------------------------------


def font_px(page: Page, selector: str) -> float:
    """Computed font size of the first element matching selector."""
    return float(page.evaluate(f"parseFloat(getComputedStyle(document.querySelector({json.dumps(selector)})).fontSize)"))


def test_presenter_mode_scales_text_and_persists_in_storage(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    page = tools.page
    selectors = [".lesson p", ".lab .cm-content", ".lab-pre"]
    before = {s: font_px(page, s) for s in selectors}
    expect(tools.presenter).to_have_attribute("aria-pressed", "false")
    tools.presenter.click()
    expect(tools.presenter).to_have_attribute("aria-pressed", "true")
    assert "present" not in page.url
    for s in selectors:
        assert font_px(page, s) >= 1.25 * before[s] - 0.01, s
    # Its one entry in storage, beside the lesson opened last (for the course index).
    assert sorted(page.evaluate("Object.keys(localStorage)")) == ["lessonkit:v1:course:last", "lessonkit:v1:course:presenter"]
    assert_no_axe_violations(page)

    page.reload()
    tools.wait_ready()
    expect(tools.presenter).to_have_attribute("aria-pressed", "true")
    assert font_px(page, ".lesson p") >= 1.25 * before[".lesson p"] - 0.01
    tools.presenter.click()
    assert page.evaluate("Object.keys(localStorage)") == ["lessonkit:v1:course:last"]
    assert font_px(page, ".lesson p") == pytest.approx(before[".lesson p"])


def test_presenter_mode_at_320px_has_no_horizontal_scroll(new_page: Callable[..., Page], server: ServerHandle,
                                                          open_tools: Callable[..., Tools]) -> None:
    page = new_page(server.url, viewport={"width": 320, "height": 640})
    page.add_init_script("localStorage.setItem('lessonkit:v1:course:presenter', 'true')")
    tools = open_tools(page=page)
    page = tools.page
    assert page.evaluate("document.documentElement.classList.contains('presenting')")
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"page scrolls sideways by {overflow}px at 320px in presenter mode"


# ---- share links -----------------------------------------------------------------------------------------------


def test_copy_link_opens_the_same_code_without_running_it(
    open_tools: Callable[..., Tools], new_page: Callable[..., Page], server: ServerHandle
) -> None:
    tools = open_tools(permissions=["clipboard-read", "clipboard-write"])
    code = edited_starter(tools, "raw = [0.0, 8.0, 4.0]")
    tools.set_code(code)
    tools.copy.click()
    expect(tools.tool_note).to_contain_text("Link copied")
    url = tools.page.evaluate("navigator.clipboard.readText()")
    # An edit of the lesson's code (share.js's version 2): a link short enough for a QR code.
    assert re.search(r"#lab=scaled-softmax&v=2&b=[0-9a-f]{12}&d=[A-Za-z0-9_-]+$", url), url
    expect(tools.link).to_have_value(url)

    # A learner opens it in a fresh browser.
    learner = new_page(server.url)
    shared = open_tools(url.removeprefix(server.url.rstrip("/") + "/"), page=learner)
    assert shared.code() == code
    expect(shared.note).to_contain_text(SHARED_NOTE)
    expect(shared.logit(2)).to_have_value("8.0")
    learner.wait_for_timeout(500)
    assert shared.runs() == 0
    expect(shared.current).to_contain_text("Output from the build (before you run)")
    assert shared.lines() == LINES_4_2
    assert_no_axe_violations(learner)

    shared.run(skip_prediction=True)
    assert shared.lines() == LINES_8_4

    # Back to the lesson's code; the fragment leaves the address bar once the code is the learner's.
    shared.note.get_by_role("button", name="Back to the lesson’s code").click()
    assert shared.code() == shared.original()
    assert "#lab=" not in learner.url


def test_copy_link_without_clipboard_selects_the_link(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    tools.page.evaluate(
        "Object.defineProperty(navigator, 'clipboard', {value: {writeText: () => Promise.reject(new Error('no'))}})"
    )
    tools.copy.click()
    expect(tools.tool_note).to_contain_text("the link is selected below")
    expect(tools.link).to_be_focused()
    value = tools.link.input_value()
    assert re.search(r"#lab=scaled-softmax&v=2&b=[0-9a-f]{12}$", value), value  # the lesson's code as it is
    selected = tools.page.evaluate(
        "(() => { const f = document.activeElement; return f.value.slice(f.selectionStart, f.selectionEnd); })()"
    )
    assert selected == value


@pytest.mark.parametrize(
    "fragment",
    ["#lab=scaled-softmax&v=1&c=not*base64", "#lab=scaled-softmax&v=1&c=AAAA", "#lab=scaled-softmax&v=9&c=AAAA",
     "#lab=scaled-softmax&v=1", "#lab=scaled-softmax&v=2&b=000000000000", "#lab=scaled-softmax&v=2",
     "#lab=scaled-softmax&v=2&b={base}&d=AAAA", "#lab=scaled-softmax&v=2&b={base}&d=Q1YqULIyNAABHaViJStTHaVcJSulCqVaAA"],
)
def test_garbled_link_keeps_the_starter(open_tools: Callable[..., Tools], page_errors: PageErrors, fragment: str) -> None:
    if "{base}" in fragment:  # a link made from this lesson's code, with an edit that does not fit it
        probe = open_tools()
        base = probe.page.evaluate("JSON.parse(document.querySelector('[data-lab-config]').textContent).codeHash")
        fragment = fragment.replace("{base}", base[:12])
    tools = open_tools(LESSON_PAGE + fragment)
    expect(tools.note).to_contain_text("This shared link could not be read")
    assert tools.code() == tools.original()
    assert tools.runs() == 0


# ---- saved code ------------------------------------------------------------------------------------------------


def test_saved_code_is_restored_after_reload_and_reset_clears_it(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    code = edited_starter(tools, "raw = [0.0, 6.0, 3.0]")
    tools.set_code(code)
    wait_until(lambda: tools.page.evaluate(f"localStorage.getItem({json.dumps(STORE_KEY)})"), page=tools.page,
               message="the code to be saved")
    entry = json.loads(tools.page.evaluate(f"localStorage.getItem({json.dumps(STORE_KEY)})"))
    assert entry["schema"] == 1 and entry["code"] == code and entry["savedAt"]
    assert entry["base"] == tools.page.evaluate("JSON.parse(document.querySelector('[data-lab-config]').textContent).codeHash")

    tools.page.reload()
    tools.wait_ready()
    assert tools.code() == code
    expect(tools.note).to_contain_text("Restored your edited code from your last visit.")
    expect(tools.logit(2)).to_have_value("6.0")
    assert tools.runs() == 0

    tools.note.get_by_role("button", name="Start from the lesson’s code").click()
    assert tools.code() == tools.original()
    wait_until(lambda: tools.page.evaluate(f"localStorage.getItem({json.dumps(STORE_KEY)}) === null"),
               page=tools.page, message="the saved entry to be cleared")
    tools.page.reload()
    tools.wait_ready()
    assert tools.code() == tools.original()
    expect(tools.note).to_be_hidden()


def test_saved_code_flushes_on_pagehide_and_lab_reset_clears(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    code = edited_starter(tools, "raw = [0.0, 5.0, 1.0]")
    tools.set_code(code)
    tools.page.reload()  # inside the 300 ms debounce: pagehide must save it
    tools.wait_ready()
    assert tools.code() == code
    tools.reset_button.click()
    expect(tools.note).to_be_hidden()
    tools.page.reload()
    tools.wait_ready()
    assert tools.code() == tools.original()


def test_changed_starter_loads_new_code_and_offers_the_old_edit(open_tools: Callable[..., Tools],
                                                                 new_page: Callable[..., Page],
                                                                 server: ServerHandle) -> None:
    old = {"schema": 1, "base": "0123456789abcdef", "code": "raw = [0.0, 1.0]\nprint('my old edit')\n",
           "savedAt": "2024-01-01T00:00:00.000Z"}
    page = page_with_saved_code(new_page, server, old)
    tools = open_tools(page=page)
    assert tools.code() == tools.original()
    expect(tools.note).to_contain_text("The lesson’s code changed since your last visit.")
    assert json.loads(page.evaluate(f"localStorage.getItem({json.dumps(STORE_KEY)})")) == old  # not dropped

    tools.note.get_by_role("button", name="Restore my edited version").click()
    assert tools.code() == old["code"]
    expect(tools.note).to_contain_text("Restored your edited version")
    expect(tools.logit(2)).to_have_value("1.0")
    entry = json.loads(page.evaluate(f"localStorage.getItem({json.dumps(STORE_KEY)})"))
    assert entry["code"] == old["code"]
    assert entry["base"] == page.evaluate("JSON.parse(document.querySelector('[data-lab-config]').textContent).codeHash")

    page.reload()
    tools.wait_ready()
    assert tools.code() == old["code"]
    expect(tools.note).to_contain_text("Restored your edited code from your last visit.")


def test_edit_after_changed_starter_keeps_the_old_edit(open_tools: Callable[..., Tools],
                                                      new_page: Callable[..., Page], server: ServerHandle) -> None:
    old = {"schema": 1, "base": "0123456789abcdef", "code": "print('my old edit')\n", "savedAt": "2024-01-01"}
    page = page_with_saved_code(new_page, server, old)
    tools = open_tools(page=page)
    new_edit = edited_starter(tools, "raw = [0.0, 2.0, 1.0]")
    tools.set_code(new_edit)  # edits the new starter without deciding about the old edit
    page.reload()
    tools.wait_ready()
    assert tools.code() == new_edit
    expect(tools.note).to_contain_text("An edit you made before the lesson’s code changed is kept too.")
    tools.note.get_by_role("button", name="Switch to that older edit").click()
    assert tools.code() == old["code"]
    tools.note.get_by_role("button", name="Switch back").click()
    assert tools.code() == new_edit


# ---- predict, then run -----------------------------------------------------------------------------------------


def test_predict_then_run_asks_once_and_checks_the_prediction(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    page = tools.page
    tools.run()  # unchanged logits: no question
    question = tools.root.get_by_role("group", name=re.compile(r"^Before you run"))
    expect(question).to_have_count(0)

    tools.set_code(edited_starter(tools, "raw = [0.0, 8.0, 4.0]"))
    before = tools.runs()
    tools.run_button.click()
    expect(question).to_be_visible()
    expect(question).to_contain_text("doubling all score gaps will make each distribution")
    expect(question.get_by_role("radio", name="sharper")).to_be_focused()
    page.wait_for_timeout(300)
    assert tools.runs() == before, "no run before the learner answers"
    assert_no_axe_violations(page)

    question.get_by_role("button", name="Run with this prediction").click()  # nothing chosen yet
    expect(question).to_contain_text("Choose sharper, flatter or unchanged first")
    question.get_by_role("radio", name="sharper").check()
    question.get_by_role("button", name="Run with this prediction").click()
    expect(question).to_have_count(0)
    expect(tools.run_button).to_be_focused()
    tools.wait_runs(before + 1)
    assert tools.lines() == LINES_8_4
    expect(tools.tool_note).to_have_text(VERDICT_8_4)

    # Asked once per page load.
    tools.set_code(edited_starter(tools, "raw = [0.0, 1.0, 0.5]"))
    tools.run()
    expect(question).to_have_count(0)


def test_predict_can_be_skipped_and_a_wrong_prediction_is_named(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    question = tools.root.get_by_role("group", name=re.compile(r"^Before you run"))
    tools.set_code(edited_starter(tools, "raw = [0.0, 2.0, 1.0]"))
    before = tools.runs()
    tools.run_button.click()
    expect(question).to_contain_text("how will the largest probability move for each head_dim?")
    question.get_by_role("button", name="Skip and run").click()
    tools.wait_runs(before + 1)
    expect(tools.tool_note).not_to_contain_text("prediction")
    tools.set_code(edited_starter(tools, "raw = [0.0, 8.0, 4.0]"))
    tools.run()
    expect(question).to_have_count(0)

    # A fresh visit: a wrong answer is named as such.
    tools.page.reload()
    tools.wait_ready()
    before = tools.runs()
    tools.run_button.click()  # the reloaded page restored [0, 8, 4]
    question.get_by_role("radio", name="flatter").check()
    question.get_by_role("button", name="Run with this prediction").click()
    tools.wait_runs(before + 1)
    expect(tools.tool_note).to_have_text(re.compile(r"^Your prediction \(flatter\) did not hold: every distribution got sharper"))


def test_escape_backs_out_without_running(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools()
    question = tools.root.get_by_role("group", name=re.compile(r"^Before you run"))
    tools.set_code(edited_starter(tools, "raw = [0.0, 8.0, 4.0]"))
    tools.run_button.click()
    expect(question).to_be_visible()
    tools.page.keyboard.press("Escape")
    expect(question).to_have_count(0)
    expect(tools.run_button).to_be_focused()
    assert tools.runs() == 0
    tools.run_button.click()  # asked again: Escape is not an answer
    expect(question).to_be_visible()


def test_tools_are_accessible_in_dark_mode(open_tools: Callable[..., Tools]) -> None:
    tools = open_tools(color_scheme="dark")
    tools.live.check()
    tools.copy.click()
    assert_no_axe_violations(tools.page)
    for control in (tools.add, tools.remove, tools.copy, tools.presenter, tools.logit(1)):
        box = control.bounding_box()
        assert box and box["height"] >= 24 and box["width"] >= 24
