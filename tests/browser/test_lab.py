"""The Python lab in Chromium: boot, runs, faults, Stop, output safety and accessibility, isolated and plain."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from playwright.sync_api import Locator, Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE, PageErrors, assert_isolation, assert_no_axe_violations, wait_until

BOOT_TIMEOUT = 60_000  # ms: a cold Pyodide boot on a loaded 2-vCPU CI machine
RUN_TIMEOUT = 20_000
LINES_4_2 = [
    "head_dim=1   divide by 1.00  scaled=[0.000, 4.000, 2.000]  probs=[1.6%, 86.7%, 11.7%]",
    "head_dim=4   divide by 2.00  scaled=[0.000, 2.000, 1.000]  probs=[9.0%, 66.5%, 24.5%]",
    "head_dim=16  divide by 4.00  scaled=[0.000, 1.000, 0.500]  probs=[18.6%, 50.6%, 30.7%]",
]
LINES_8_4 = [
    "head_dim=1   divide by 1.00  scaled=[0.000, 8.000, 4.000]  probs=[0.0%, 98.2%, 1.8%]",
    "head_dim=4   divide by 2.00  scaled=[0.000, 4.000, 2.000]  probs=[1.6%, 86.7%, 11.7%]",
    "head_dim=16  divide by 4.00  scaled=[0.000, 2.000, 1.000]  probs=[9.0%, 66.5%, 24.5%]",
]
# Pyodide reports its own fatal errors on the console; tests that crash it on purpose allow these.
FATAL_CONSOLE = ("fatal error", "Maximum call stack size exceeded", "The cause of the fatal error", "at wasm://")


class Lab:
    """Locators for one lab, found by role and visible name."""

    def __init__(self, page: Page) -> None:
        """Find the lab on page."""
        self.page = page
        self.root = page.get_by_role("region", name=re.compile(r"^Python lab"))
        self.status = self.root.get_by_role("status")
        self.run_button = self.root.get_by_role("button", name="Run", exact=True)
        self.stop_button = self.root.get_by_role("button", name="Stop", exact=True)
        self.reset_button = self.root.get_by_role("button", name="Reset code", exact=True)
        self.retry_button = self.root.get_by_role("button", name="Retry", exact=True)
        self.output = self.root.get_by_role("region", name="Lab output")
        self.current = self.output.get_by_role("group", name=re.compile(r"^(This run|Output from the build)"))
        self.previous = self.output.get_by_role("group", name=re.compile(r"^Previous run"))
        self.editor = self.root.get_by_role("textbox", name="Lab code")

    def wait_ready(self) -> None:
        """Wait for Python to be ready, then scroll to the lab as a learner does and wait for its code editor."""
        expect(self.status).to_contain_text("Ready", timeout=BOOT_TIMEOUT)
        expect(self.run_button).to_be_enabled()
        # To the code itself, again until the editor shows: the section is taller than a screen, and a reloaded page
        # may be put back at its old scroll position after our scroll, as content above it finishes laying out.
        def editor_shown() -> bool:
            self.root.locator("[data-lab-editor]").scroll_into_view_if_needed()
            return self.root.locator(".cm-editor").is_visible()

        wait_until(editor_shown, page=self.page, timeout=BOOT_TIMEOUT / 1000, interval=0.5,
                   message="the lab's code editor")

    def runs(self) -> int:
        """Number of finished runs (from the controller API: the last kept record's number, as the lab keeps only
        its latest records)."""
        return int(self.page.evaluate(
            "(runs => runs.length ? runs[runs.length - 1].runId : 0)(document.querySelector('[data-lab]').labController.runs)"))

    def set_code(self, code: str) -> None:
        """Replace the code the way a learner does: select all in the editor and paste."""
        self.editor.click()
        self.page.keyboard.press("ControlOrMeta+a")
        self.page.keyboard.insert_text(code)
        assert self.code() == code

    def code(self) -> str:
        """The editor's code."""
        return str(self.page.evaluate("document.querySelector('[data-lab]').labController.getCode()"))

    def run(self, code: str | None = None, *, timeout: float = RUN_TIMEOUT / 1000) -> None:
        """Optionally set code, press Run and wait until that run has finished."""
        if code is not None:
            self.set_code(code)
        before = self.runs()
        self.run_button.click()
        skip = self.root.get_by_role("button", name="Skip and run")  # the lab's one-time "predict first" question
        if skip.count():
            skip.click()
        wait_until(lambda: self.runs() > before, page=self.page, timeout=timeout, message="the run to finish")

    def start(self, code: str) -> None:
        """Set code, press Run and wait until it is running."""
        self.set_code(code)
        self.run_button.click()
        expect(self.status).to_have_text("Running…", timeout=BOOT_TIMEOUT)

    def output_text(self, panel: Locator | None = None) -> str:
        """Text of the current (or given) output panel's <pre> (its DOM text: a part not laid out yet has no innerText)."""
        return (panel or self.current).locator("pre").text_content()


def open_lab(new_page: Callable[..., Page], server: ServerHandle, **kwargs: object) -> Lab:
    """Open the lesson on server and wait for the lab."""
    page = new_page(server.url, **kwargs)
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    lab.wait_ready()
    return lab


@pytest.fixture(params=["isolated", "plain"])
def any_server(request: pytest.FixtureRequest) -> ServerHandle:
    """Both servers: with COOP/COEP (soft interrupt) and without (terminate + restart)."""
    return request.getfixturevalue("server" if request.param == "isolated" else "plain_server")


# ---- boot and the lesson's runs -------------------------------------------------------------------------------


def test_boot_then_run_unchanged(new_page: Callable[..., Page], server: ServerHandle) -> None:
    page = new_page(server.url)
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    # Before Python is ready the output is the build's, labelled as such.
    expect(lab.current).to_contain_text("Output from the build (before you run)")
    assert lab.output_text().splitlines() == LINES_4_2
    lab.wait_ready()
    assert_isolation(page, True)
    lab.run()
    expect(lab.status).to_have_text(re.compile(r"^Run finished in \d+ ms$"))
    expect(lab.current).to_contain_text("This run")
    assert lab.output_text().splitlines() == LINES_4_2
    chart = lab.current.get_by_role("img")
    expect(chart).to_have_attribute("aria-label", re.compile(r"head_dim 16: position 1 18\.6%, position 2 50\.6%"))
    table = lab.current.locator("table")
    cells = table.locator("tbody tr").evaluate_all("rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    assert cells == [["1", "1.6%", "86.7%", "11.7%"], ["4", "9.0%", "66.5%", "24.5%"], ["16", "18.6%", "50.6%", "30.7%"]]


def test_edit_compare_with_previous_run_then_reset(new_page: Callable[..., Page], server: ServerHandle) -> None:
    lab = open_lab(new_page, server)
    original = lab.code()
    lab.run()
    edited = original.replace("raw = [0.0, 4.0, 2.0]", "raw = [0.0, 8.0, 4.0]")
    assert edited != original
    lab.run(edited)
    assert lab.output_text().splitlines() == LINES_8_4
    expect(lab.previous).to_be_visible()
    expect(lab.previous).to_contain_text("Previous run")
    assert lab.output_text(lab.previous).splitlines() == LINES_4_2
    expect(lab.previous.get_by_role("img")).to_have_attribute("aria-label", re.compile(r"position 2 86\.7%"))
    lab.reset_button.click()
    assert lab.code() == original
    expect(lab.editor).to_contain_text("raw = [0.0, 4.0, 2.0]")


def test_ctrl_enter_runs_and_tab_leaves_the_editor(new_page: Callable[..., Page], server: ServerHandle) -> None:
    lab = open_lab(new_page, server)
    page = lab.page
    lab.set_code("print('via keyboard')")
    before = lab.runs()
    page.keyboard.press("Control+Enter")
    wait_until(lambda: lab.runs() > before, page=page, timeout=RUN_TIMEOUT / 1000, message="Ctrl+Enter run")
    assert lab.output_text() == "via keyboard\n"
    # Tab leaves the editor by default (no keyboard trap).
    lab.editor.click()
    page.keyboard.press("Tab")
    assert page.evaluate("!!document.activeElement.closest('.cm-editor')") is False
    # Indent mode: Tab indents; Esc then Tab still leaves.
    lab.editor.click()
    page.keyboard.press("Control+m")
    expect(lab.root.get_by_role("button", name="Tab key indents")).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("End")
    page.keyboard.press("Tab")
    assert page.evaluate("!!document.activeElement.closest('.cm-editor')") is True
    assert lab.code() != "print('via keyboard')"
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert page.evaluate("!!document.activeElement.closest('.cm-editor')") is False
    expect(lab.root).to_contain_text("Esc then Tab leaves the editor")


# ---- page cost: what happens when, never how long it takes ----------------------------------------------------

# Installed before the page's scripts: the first paint, the textarea's server-rendered height, when the editor and the
# build chart appear, and what existed when the controller announced itself.
FIRST_PAINT_PROBE = """
(() => {
  const P = (window.__probe = {
    fcp: null, editorAt: null, chartAt: null, atReady: null, textareaHeight: null, pythonReadyAt: null });
  document.addEventListener("lab:state", (ev) => {
    if (ev.detail.state === "ready" && P.pythonReadyAt === null) P.pythonReadyAt = performance.now();
  });
  new PerformanceObserver((list) => {
    for (const e of list.getEntriesByName("first-contentful-paint")) P.fcp = e.startTime;
  }).observe({ type: "paint", buffered: true });
  document.addEventListener("DOMContentLoaded", () => {
    P.textareaHeight = document.querySelector("[data-lab-code]").getBoundingClientRect().height;
    new MutationObserver(() => {
      if (P.editorAt === null && document.querySelector("[data-lab] .cm-editor")) P.editorAt = performance.now();
      if (P.chartAt === null && document.querySelector("[data-lab] [data-lab-chart] svg")) P.chartAt = performance.now();
    }).observe(document.body, { childList: true, subtree: true });
  });
  document.addEventListener("lab:ready", () => {
    P.atReady = {
      editor: Boolean(document.querySelector("[data-lab] .cm-editor")),
      chart: Boolean(document.querySelector("[data-lab] [data-lab-chart] svg")),
      textareaVisible: !document.querySelector("[data-lab-code]").hidden,
    };
  });
})();
"""


def test_editor_and_chart_are_built_after_the_first_paint(new_page: Callable[..., Page], server: ServerHandle) -> None:
    page = new_page(server.url)
    page.add_init_script(script=FIRST_PAINT_PROBE)
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    expect(lab.status).to_contain_text("Ready", timeout=BOOT_TIMEOUT)
    # A reader at the top of the lesson, screens above the lab, does not pay for the code editor.
    assert lab.root.evaluate("(e) => e.getBoundingClientRect().top > 2 * innerHeight + 900")
    page.wait_for_timeout(500)
    assert lab.root.locator(".cm-editor").count() == 0
    lab.wait_ready()
    expect(lab.root.locator(".cm-editor")).to_be_visible()
    expect(lab.current.get_by_role("img")).to_have_attribute("aria-label", re.compile(r"^Chart of the build output"))
    probe = page.evaluate("window.__probe")
    # The controller exists before any heavy work: the server-rendered textarea is still the editor then.
    assert probe["atReady"] == {"editor": False, "chart": False, "textareaVisible": True}
    # Order, not duration: the chart comes after the first contentful paint; the editor only once the learner
    # scrolled to the lab (wait_ready does), here after Python was ready, so it never competed with the boot.
    assert probe["fcp"] is not None
    assert probe["chartAt"] > probe["fcp"]
    assert probe["editorAt"] > probe["pythonReadyAt"] > probe["fcp"]
    # The editor takes the textarea's place at its height: nothing below the editor moves.
    editor_height = lab.root.locator(".cm-editor").evaluate("e => e.getBoundingClientRect().height")
    assert abs(editor_height - probe["textareaHeight"]) <= 2
    assert lab.root.locator("[data-lab-chart][data-lab-chart-pending]").count() == 0


def test_reaching_for_the_code_brings_the_editor_before_python(new_page: Callable[..., Page],
                                                                server: ServerHandle) -> None:
    page = new_page(server.url)
    page.route("**/pyodide.asm.wasm", lambda route: None)  # held: Python stays "loading" for this test
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    expect(lab.status).to_contain_text(re.compile(r"(Loading|Downloading) Python"))  # as far as it gets meanwhile
    # The learner reaches for the code once the page has stopped moving: every part laid out (page/parts.js).
    expect(page.locator(".part:not(.part-shown)")).to_have_count(0)
    page.get_by_label("Lab code").click()
    expect(lab.root.locator(".cm-editor")).to_be_visible()
    expect(lab.status).not_to_contain_text("Ready")
    # The click's focus moved into the editor, so the learner can type at once.
    page.keyboard.press("End")
    page.keyboard.type("  # edited")
    assert "# edited" in lab.code()


def test_a_run_moves_the_last_output_to_previous_without_redrawing(
    new_page: Callable[..., Page], server: ServerHandle
) -> None:
    lab = open_lab(new_page, server)
    page = lab.page
    keep = """() => {
        const cur = document.querySelector("[data-lab-current]");
        window.__kept = { figure: cur.querySelector("figure"), text: cur.querySelector("pre").firstChild };
        return Boolean(window.__kept.figure && window.__kept.text);
    }"""
    same = """() => {
        const prev = document.querySelector("[data-lab-previous]");
        const cur = document.querySelector("[data-lab-current]");
        return {
            figure: prev.querySelector("figure") === window.__kept.figure,
            text: prev.querySelector("pre").firstChild === window.__kept.text,
            newFigure: Boolean(cur.querySelector("figure")) && cur.querySelector("figure") !== window.__kept.figure,
            figures: document.querySelectorAll("[data-lab] figure").length,
        };
    }"""
    # A run's chart is drawn in the frame after its result, before that frame paints: the same frame as its text.
    next_frame = "() => new Promise((resolve) => requestAnimationFrame(() => resolve(true)))"
    assert page.evaluate(keep)  # the build's chart and output
    lab.run()
    assert page.evaluate(next_frame)
    assert page.evaluate(same) == {"figure": True, "text": True, "newFigure": True, "figures": 2}
    expect(lab.previous.get_by_role("img")).to_have_attribute("aria-label", re.compile(r"^Chart of the previous run\. "))
    expect(lab.previous).to_contain_text("Previous run (output from the build)")
    assert page.evaluate(keep)  # this run's chart
    lab.run()
    assert page.evaluate(next_frame)
    assert page.evaluate(same) == {"figure": True, "text": True, "newFigure": True, "figures": 2}
    expect(lab.previous.get_by_role("img")).to_have_attribute("aria-label", re.compile(r"^Chart of the previous run\. "))
    expect(lab.current.get_by_role("img")).to_have_attribute("aria-label", re.compile(r"^Chart of this run\. "))
    assert lab.output_text(lab.previous).splitlines() == LINES_4_2 == lab.output_text().splitlines()


# ---- faults -------------------------------------------------------------------------------------------------


def test_errors_show_learner_line_numbers(kept_lab: Lab) -> None:
    lab = kept_lab
    lab.run("x = 1\ny = (2 +\nprint(y)\n")
    text = lab.output_text()
    assert 'File "scaled_softmax.py", line 2' in text
    assert "SyntaxError: '(' was never closed" in text
    assert "^" in text
    expect(lab.status).to_have_text("Error on line 2: SyntaxError: '(' was never closed")
    lab.run("x = 1\ny = 0\nprint(x / y)\n")
    text = lab.output_text()
    assert text.startswith('Traceback (most recent call last):\n  File "scaled_softmax.py", line 3, in <module>\n')
    assert text.rstrip().endswith("ZeroDivisionError: division by zero")
    for internal in ("labkit", "_pyodide", "pyodide.asm", "/lib/python"):
        assert internal not in text
    expect(lab.status).to_have_text("Error on line 3: ZeroDivisionError: division by zero")
    assert lab.current.locator(".lab-stderr").count() >= 1  # styled apart from stdout, still text


def test_input_and_missing_module_messages(kept_lab: Lab) -> None:
    lab = kept_lab
    lab.run("name = input('Your name? ')\nprint(name)\n")
    assert "EOFError: This lab has no keyboard input: put the values in the code instead" in lab.output_text()
    lab.run("import numpy as np\n")
    last_line = lab.output_text().rstrip().splitlines()[-1]
    assert last_line == (
        "ModuleNotFoundError: No module named 'numpy': this lab runs Python's standard library only "
        "(and the packages this lesson lists)."
    )


def test_output_is_text_not_html(kept_lab: Lab) -> None:
    lab = kept_lab
    lab.run("print('<img src=x onerror=\"window.__pwned=1\">')\nprint('<b>bold</b>')")
    assert lab.output_text() == '<img src=x onerror="window.__pwned=1">\n<b>bold</b>\n'
    assert lab.output.locator("img").count() == 0 and lab.output.locator("b").count() == 0
    lab.page.wait_for_timeout(200)
    assert lab.page.evaluate("window.__pwned") is None


def test_deep_recursion_is_reported_and_the_next_run_works(
    kept_lab: Lab, page_errors: PageErrors
) -> None:
    for text in FATAL_CONSOLE:
        page_errors.expect(text)
    lab = kept_lab
    lab.run("def f(n):\n    return f(n + 1)\n\nf(0)\n")
    text = lab.output_text()
    assert "RecursionError: maximum recursion depth exceeded" in text
    assert "[Previous line repeated" in text
    expect(lab.status).to_have_text("Error on line 2: RecursionError: maximum recursion depth exceeded")
    # Recursion inside C (repr of a deeply nested list) overflows the wasm stack: Python crashes and restarts.
    lab.run("a = []\nfor i in range(10**6):\n    a = [a]\nprint(len(repr(a)))\n", timeout=60)
    expect(lab.status).to_contain_text("Python crashed")
    expect(lab.status).to_contain_text("Python was restarted")
    crash = lab.output_text()
    assert "ran out of stack space" in crash
    # Python's own crash report keeps only the learner's frames: no runner, no stdlib, none of its headers.
    assert "<exec>" not in crash and "/lib/python" not in crash and "most recent call first" not in crash, crash
    frames = [line.strip() for line in crash.splitlines() if line.strip().startswith("File ")]
    assert frames == ['File "scaled_softmax.py", line 4 in <module>'], crash
    lab.wait_ready()
    lab.run("print(6 * 7)")
    assert lab.output_text() == "42\n"


def test_print_flood_keeps_page_responsive(new_page: Callable[..., Page], server: ServerHandle) -> None:
    lab = open_lab(new_page, server)
    lab.start("for i in range(10**7):\n    print(i)\n")
    expect(lab.current).to_contain_text("Output limit reached", timeout=10_000)
    # The page still answers clicks while Python keeps printing.
    # Liveness, not speed (a frozen main thread would never answer; tests/bench.py measures the long tasks).
    radio = lab.page.get_by_role("radio").first
    radio.check(timeout=5000)
    expect(radio).to_be_checked()
    expect(lab.status).to_have_text("Running…")
    lab.stop_button.click()
    expect(lab.status).to_contain_text("Stopped", timeout=5000)
    text = lab.output_text()
    assert text.startswith("0\n1\n2\n")
    assert "1999\n" in text and "2000\n" not in text


# ---- Stop ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", ["while True:\n    pass\n", "import time\ntime.sleep(600)\n"], ids=["loop", "sleep"])
def test_stop_ends_any_run_within_a_second(new_page: Callable[..., Page], any_server: ServerHandle, code: str) -> None:
    lab = open_lab(new_page, any_server)
    assert_isolation(lab.page, any_server.isolated)
    lab.start(code)
    lab.page.wait_for_timeout(300)
    expect(lab.stop_button).to_be_enabled()
    lab.stop_button.click()
    # A liveness bound, not a speed goal: tests/bench.py measures Stop's latency (about 50 ms soft, 0.4 s hard).
    expect(lab.status).to_contain_text("Stopped", timeout=5000)
    hard = not any_server.isolated or "sleep" in code
    if hard:
        expect(lab.status).to_contain_text("Python was restarted")
    lab.run("print(6*7)", timeout=BOOT_TIMEOUT / 1000)
    assert lab.output_text() == "42\n"
    expect(lab.previous).to_contain_text("Stopped")


def test_second_run_replaces_the_first(new_page: Callable[..., Page], server: ServerHandle) -> None:
    lab = open_lab(new_page, server)
    # Flushed: the line reaches the page even when the replaced run outlasts the soft stop's grace and its worker is
    # ended (a busy machine); what stays in a batch of a worker that is ended is lost with it.
    lab.start("print('first', flush=True)\nwhile True:\n    pass\n")
    lab.set_code("print('second')")
    before = lab.runs()
    lab.run_button.click()
    wait_until(lambda: lab.runs() >= before + 2, page=lab.page, timeout=RUN_TIMEOUT / 1000, message="both runs")
    # The panels are written after the run's record (a frame later on a busy machine): waited for, as a learner reads.
    wait_until(lambda: lab.output_text() == "second\n", page=lab.page, timeout=RUN_TIMEOUT / 1000,
               message="the second run's output in its panel")
    wait_until(lambda: lab.output_text(lab.previous).startswith("first\n"), page=lab.page,
               timeout=RUN_TIMEOUT / 1000, message="the first run's output under Previous run")
    expect(lab.status).to_have_text(re.compile(r"^Run finished"))


# ---- loading failures, no JavaScript, protocol ----------------------------------------------------------------


def test_runtime_404_offers_retry_and_the_lesson_still_works(
    new_page: Callable[..., Page], server: ServerHandle, page_errors: PageErrors
) -> None:
    page_errors.expect("404")
    page = new_page(server.url)
    wasm = "**/pyodide.asm.wasm"
    page.context.route(wasm, lambda route: route.fulfill(status=404, body="missing"))
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    expect(lab.status).to_contain_text("Could not load Python", timeout=BOOT_TIMEOUT)
    expect(lab.retry_button).to_be_visible()
    expect(lab.run_button).to_be_disabled()
    lab.retry_button.scroll_into_view_if_needed()  # coming into view must not retry behind the learner's back
    page.wait_for_timeout(300)
    expect(lab.retry_button).to_be_visible()
    assert lab.output_text().splitlines() == LINES_4_2  # the build's numbers stay readable
    radio = page.get_by_role("radio").last
    radio.check()
    expect(radio).to_be_checked()
    page.context.unroute(wasm)
    lab.retry_button.click()
    lab.wait_ready()
    lab.run()
    assert lab.output_text().splitlines() == LINES_4_2


def test_without_javascript_the_build_output_is_shown(new_page: Callable[..., Page], server: ServerHandle) -> None:
    page = new_page(server.url, java_script_enabled=False)
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    expect(lab.run_button).to_be_disabled()
    expect(lab.root).to_contain_text("Running the lab needs JavaScript; here is its output from the build:")
    assert lab.output_text().splitlines() == LINES_4_2
    expect(lab.root.get_by_role("textbox", name=re.compile("Lab code"))).to_have_value(re.compile(r"raw = \[0\.0, 4"))


def test_worker_answers_malformed_messages_with_an_error(
    new_page: Callable[..., Page], server: ServerHandle, page_errors: PageErrors
) -> None:
    page_errors.expect("ignored a malformed message from the page")
    page = new_page(server.url)
    page.goto(LESSON_PAGE)
    replies = page.evaluate(
        """() => new Promise((resolve) => {
            const cfg = JSON.parse(document.getElementById("lesson-data").textContent).runtime;
            const w = new Worker(new URL(cfg.worker, document.baseURI), {type: "module"});
            const channel = new MessageChannel();
            const replies = [];
            channel.port1.onmessage = (e) => {
                replies.push(e.data);
                if (replies.length === 2) { resolve(replies); w.terminate(); }
            };
            w.postMessage({type: "init", id: 7, port: channel.port2}, [channel.port2]);
            channel.port1.postMessage({type: "bogus", id: 8});
            setTimeout(() => resolve(replies), 20000); // whatever came, if not both
        })"""
    )
    # The worker says its fault by key (the page words it); what was wrong is on the console.
    assert replies == [
        {"type": "error", "id": 7, "said": {"key": "worker.fault", "values": {}}},
        {"type": "error", "id": 8, "said": {"key": "worker.fault", "values": {}}},
    ]


# ---- accessibility ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_clean_when_loaded_and_after_an_error(new_page: Callable[..., Page], server: ServerHandle, scheme: str) -> None:
    lab = open_lab(new_page, server, color_scheme=scheme)
    assert_no_axe_violations(lab.page, context="[data-lab]")
    lab.run("print('ok')\n1/0\n")
    expect(lab.previous).to_be_visible()
    assert_no_axe_violations(lab.page, context="[data-lab]")


def test_controller_api_for_instructor_tools(new_page: Callable[..., Page], server: ServerHandle) -> None:
    lab = open_lab(new_page, server)
    page = lab.page
    page.evaluate(
        """() => {
            const section = document.querySelector("[data-lab]");
            window.__events = [];
            for (const name of ["lab:state", "lab:change", "lab:result"]) {
                section.addEventListener(name, (e) => window.__events.push([name, e.detail.state ?? e.detail.ok ?? null]));
            }
            window.__asked = [];
            section.labController.beforeRun = async (code) => { window.__asked.push(code); return false; };
        }"""
    )
    controller = "document.querySelector('[data-lab]').labController"
    assert page.evaluate(f"{controller}.state") == "ready"
    assert page.evaluate(f"{controller}.run()") is None  # the hook said no
    assert page.evaluate("window.__asked") == [lab.code()]
    page.evaluate(f"{controller}.beforeRun = async () => true")
    page.evaluate(f"{controller}.setCode('print(1 + 1)', {{silent: true}})")
    record = page.evaluate(f"{controller}.run()")
    assert record["ok"] is True and record["stdout"] == "2\n" and record["code"] == "print(1 + 1)"
    assert record["error"] is None and isinstance(record["ms"], int) and record["runId"] > 0
    page.evaluate(f"{controller}.setCode('print(3)')")
    page.evaluate(f"{controller}.reset()")
    assert page.evaluate(f"{controller}.getCode() === {controller}.original") is True
    assert page.evaluate("window.__events") == [
        ["lab:state", "running"],
        ["lab:state", "ready"],
        ["lab:result", True],
        ["lab:change", None],
        ["lab:change", None],
    ]
    assert lab.root.locator("[data-lab-tools]").count() == 1
    assert lab.root.locator("[data-lab-restore]").is_hidden()
