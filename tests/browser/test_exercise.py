"""An exercise in Chromium: Check's report, hints, the gated solution, saved state, faults and keyboard use.

The course is a fixture (tests/course.py EXERCISE: write mean(xs); a check compares it with the lab file's own
function, one check is secret), built and served like the real site.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from course import EXERCISE, build, write_exercise
from playwright.sync_api import Locator, Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import assert_no_axe_violations, wait_until

BOOT_TIMEOUT = 60_000
CHECK_TIMEOUT = 30_000
RIGHT = "def mean(xs):\n    return sum(xs) / len(xs)\n"


class Exercise:
    """The fixture's exercise as a learner meets it."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.root = page.locator('[data-block="exercise"]')
        self.check_button = self.root.get_by_role("button", name="Check", exact=True)
        self.status = self.root.get_by_role("status")
        self.report = self.root.get_by_role("region", name="Check results")

    @property
    def editor(self) -> Locator:
        """The code editor (CodeMirror)."""
        return self.root.get_by_role("textbox", name="Your code")

    def ready(self) -> None:
        """Scroll to it as a learner does; wait for its editor."""
        # Again until the editor shows: content above it may still be laying out after the first scroll.
        def editor_shown() -> bool:
            self.root.evaluate("r => (r.querySelector('.cm-editor') || r.querySelector('[data-exercise-code]'))"
                               ".scrollIntoView({block: 'center'})")
            return self.root.locator(".cm-editor").is_visible()

        wait_until(editor_shown, page=self.page, timeout=BOOT_TIMEOUT / 1000, interval=0.5,
                   message="the exercise's code editor")

    def set_code(self, code: str) -> None:
        """Select all in the editor and paste."""
        self.editor.click()
        self.page.keyboard.press("ControlOrMeta+a")
        self.page.keyboard.insert_text(code)

    def check(self, code: str | None = None) -> str:
        """Optionally set code, press Check and wait for the report's summary; returns it."""
        if code is not None:
            self.set_code(code)
        count = self.reports()
        self.check_button.click()
        wait_until(lambda: self.reports() > count, page=self.page, timeout=BOOT_TIMEOUT / 1000,
                   message="the check's report")
        return str(self.report.locator("[data-exercise-summary]").text_content())

    def reports(self) -> int:
        """How many Check reports came back."""
        return int(self.page.evaluate("document.querySelector('[data-block=exercise]').exerciseController.reports"))

    def results(self) -> list[str]:
        """Each check's line, as read."""
        return [" ".join(t.split()) for t in self.report.get_by_role("listitem").all_text_contents()]


@pytest.fixture(scope="module")
def exercise_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture course, built once for this module."""
    return build(write_exercise(tmp_path_factory.mktemp("exercise")))


@pytest.fixture(scope="module")
def served(exercise_site: Path, start_module_server: Callable[..., ServerHandle]) -> ServerHandle:
    """The fixture course, served with the production headers, once for this module."""
    return start_module_server(exercise_site, isolated=True)


@pytest.fixture
def exercise(served: ServerHandle, new_page: Callable[..., Page]) -> Exercise:
    """The exercise, its editor ready."""
    page = new_page(served.url)
    page.goto("averages.html")
    ex = Exercise(page)
    ex.ready()
    return ex


def test_wrong_code_names_each_failure_and_right_code_passes(exercise: Exercise) -> None:
    ex = exercise
    assert ex.check() == "0 of 3 checks passed."
    assert ex.results() == [
        "✗ averages the lab's values did not pass: expected 5.0 (within 1e-06), got 0",
        "✗ one value did not pass: expected 7, got 0",
        "✗ negative numbers did not pass (hidden check): This check is hidden, and your code does not pass it: try "
        "your code on other inputs too.",
    ]
    # The live status says the count the report shows (a screen reader hears it without moving there).
    expect(ex.status).to_have_text("Checked: 0 of 3 checks passed. The results are below.")
    expect(ex.root.get_by_text("checks passed")).to_have_count(2)
    # The packed checks and solution are not in the page as text.
    html = ex.page.content()
    assert "sum(xs) / len(xs)" not in html and "assert mean([7]) == 7" not in html

    assert ex.check("def mean(xs):\n    print('averaging', xs)\n    return sum(xs) / max(len(xs) - 1, 1)\n") == \
        "1 of 3 checks passed."
    expect(ex.root.get_by_role("region", name="Your code's output")).to_contain_text("averaging [2.0, 4.0, 9.0]")

    assert ex.check(RIGHT) == "All 3 checks passed. Well done!"
    assert ex.results() == ["✓ averages the lab's values passed", "✓ one value passed",
                            "✓ negative numbers passed (hidden check)"]
    expect(ex.status).to_have_text("Checked: All 3 checks passed. Well done! The results are below. The remarks and a "
                                   "solution to compare with are below.")
    expect(ex.root.get_by_text("All 3 checks passed. Well done!", exact=True)).to_have_count(1)  # the report's
    expect(ex.root.get_by_text("Python's statistics.mean does the same.")).to_be_visible()
    expect(ex.root.get_by_role("region", name="A solution")).to_contain_text("return sum(xs) / len(xs)")


def test_an_error_in_the_learners_function_shows_their_own_lines(exercise: Exercise) -> None:
    ex = exercise
    ex.check("def mean(xs):\n    total = sum(xs)\n    return total / 0\n")
    first = ex.results()[0]
    assert first.startswith("✗ averages the lab's values did not pass: your code raised ZeroDivisionError: division by zero")
    assert 'File "mean.py", line 3, in mean' in first and "labkit" not in first


def test_hints_come_one_at_a_time_and_the_solution_after_the_attempts(exercise: Exercise) -> None:
    ex = exercise
    hint = ex.root.get_by_role("button", name="Hint")
    hints = ex.root.get_by_role("region", name="Hints").get_by_role("listitem")
    expect(hints.first).to_be_hidden()
    hint.click()
    expect(hints.nth(0)).to_have_text("Add the numbers with sum.")
    expect(hints.nth(1)).to_be_hidden()
    expect(ex.status).to_have_text("Hint 1 of 2 shown below.")  # its text is said once, in the list
    expect(ex.root.get_by_text("Add the numbers with sum.")).to_have_count(1)
    ex.root.get_by_role("button", name="Next hint (1 left)").click()
    expect(hints.nth(1)).to_be_visible()
    expect(ex.root.get_by_role("button", name=re.compile("hint", re.I))).to_have_count(0)

    show = ex.root.get_by_role("button", name="Show solution")
    expect(show).to_be_hidden()
    ex.check()
    expect(show).to_be_hidden()  # one failed check run of the two the exercise asks for
    ex.check()
    expect(ex.status).to_have_text(re.compile(r"^Checked: \d of 3 checks passed\. The results are below\. You may now "
                                              r"show the solution\.$"))
    show.click()
    expect(ex.root.get_by_text("Show the solution?")).to_be_visible()
    ex.root.get_by_role("button", name="Not yet").click()
    expect(ex.root.get_by_role("region", name="A solution")).to_be_hidden()
    show.click()
    ex.root.get_by_role("button", name="Yes, show it").click()
    expect(ex.root.get_by_role("region", name="A solution")).to_contain_text("return sum(xs) / len(xs)")
    expect(show).to_be_hidden()

    # Reload: the status, the hints and the solution come back.
    ex.page.reload()
    ex = Exercise(ex.page)
    expect(ex.status).to_have_text("Not solved yet: 2 checks that did not pass so far.")
    expect(hints.nth(1)).to_be_visible()
    expect(ex.root.get_by_role("region", name="A solution")).to_contain_text("return sum(xs) / len(xs)")
    stored = ex.page.evaluate("Object.entries(localStorage).filter(([k]) => k.startsWith('lessonkit:v1:averages:mean:'))")
    assert [v for k, v in stored if not k.endswith(":code")] == ['{"passed":false,"attempts":2,"hints":2,"solution":true}']


def test_reload_keeps_a_pass_and_the_code(exercise: Exercise) -> None:
    ex = exercise
    ex.check(RIGHT)
    ex.page.wait_for_timeout(600)  # the edit is saved a moment after the last keystroke
    ex.page.reload()
    ex = Exercise(ex.page)
    expect(ex.status).to_have_text("Solved: your code passed every check.")
    ex.ready()
    assert ex.page.evaluate("document.querySelector('[data-block=exercise]').exerciseController.getCode()") == RIGHT
    ex.root.get_by_role("button", name="Reset code").click()
    assert "return 0" in ex.page.evaluate("document.querySelector('[data-block=exercise]').exerciseController.getCode()")


FAULTS = {
    "an endless loop": ("def mean(xs):\n    while True:\n        pass\n", "took too long"),
    "a sleep": ("import time\n\ndef mean(xs):\n    time.sleep(60)\n", "took too long"),
    "a flood of output": ("def mean(xs):\n    while True:\n        print('x' * 100)\n", "took too long"),
    "sys.exit in a check": ("import sys\n\ndef mean(xs):\n    sys.exit(1)\n", "Your code called exit() during this check."),
}


@pytest.mark.parametrize("fault", FAULTS)
def test_faults_during_check_are_reported_and_the_next_check_works(exercise: Exercise, fault: str) -> None:
    ex = exercise
    code, said = FAULTS[fault]
    ex.check(code)
    assert said in ex.results()[0]
    assert ex.check(RIGHT) == "All 3 checks passed. Well done!"


def test_exiting_or_deleting_builtins_in_the_learners_code(exercise: Exercise) -> None:
    ex = exercise
    summary = ex.check("import sys\nsys.exit(3)\n")
    assert summary == "Your code stopped before the checks: SystemExit: 3"
    code = RIGHT + "import builtins\ndel builtins.len, builtins.sum\ndel __builtins__\n"
    assert ex.check(code) == "All 3 checks passed. Well done!"
    assert ex.check(RIGHT) == "All 3 checks passed. Well done!"


def test_keyboard_only(exercise: Exercise) -> None:
    ex = exercise
    ex.editor.focus()
    ex.page.keyboard.press("ControlOrMeta+a")
    ex.page.keyboard.insert_text(RIGHT)
    ex.page.keyboard.press("ControlOrMeta+Shift+Enter")
    expect(ex.report.locator("[data-exercise-summary]")).to_have_text("All 3 checks passed. Well done!",
                                                                      timeout=BOOT_TIMEOUT)
    ex.page.keyboard.press("Tab")  # leaves the editor for the next control
    expect(ex.root.get_by_role("button", name="Run")).to_be_focused()
    ex.page.keyboard.press("Enter")
    expect(ex.status).to_have_text(re.compile(r"^Run finished in \d+ ms"), timeout=CHECK_TIMEOUT)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing(served: ServerHandle, new_page: Callable[..., Page], scheme: str) -> None:
    page = new_page(served.url, color_scheme=scheme)
    page.goto("averages.html")
    ex = Exercise(page)
    ex.ready()
    ex.root.get_by_role("button", name="Hint").click()
    ex.check()
    ex.check(RIGHT)
    assert_no_axe_violations(page, context='[data-block="exercise"]')


LAB_AND_EXERCISE = EXERCISE + """
```{lab}
id: stats
file: stats.py
```
"""


# A device's memory in GB (navigator.deviceMemory) -> the most Pythons its page has at once: with one spare
# (lab/spares.js) the next boots when a request's has ended; with two, both booted ahead and the one serving.
MOST_PYTHONS = {2: 1, 8: 3}


@pytest.mark.parametrize("memory", sorted(MOST_PYTHONS))
def test_a_page_with_a_lab_and_an_exercise_shares_its_pythons_and_has_a_fresh_one_per_request(
        memory: int, tmp_path: Path, start_test_server: Callable[..., ServerHandle],
        new_page: Callable[..., Page]) -> None:
    site = build(write_exercise(tmp_path, LAB_AND_EXERCISE))
    page = new_page(start_test_server(site, isolated=True).url)
    page.add_init_script(f"Object.defineProperty(Navigator.prototype, 'deviceMemory', {{ get: () => {memory} }})")
    # What the page itself does, in its order: each worker it starts, and each it terminates (the browser's own
    # worker events reach the test later, and a new worker's start can come before the old one's end there).
    page.add_init_script("""(() => {
      const log = (window.__workerLog = []);
      const Native = window.Worker;
      window.Worker = class extends Native {
        constructor(...args) { super(...args); log.push("start"); }
        terminate() { log.push("end"); super.terminate(); }
      };
    })()""")
    ended: list[str] = []
    page.on("worker", lambda worker: worker.on("close", lambda w: ended.append(w.url)))
    page.goto("averages.html")
    lab = page.locator("[data-lab]")
    expect(lab.get_by_role("status")).to_contain_text("Ready", timeout=BOOT_TIMEOUT)
    ex = Exercise(page)
    ex.ready()
    assert ex.check(RIGHT) == "All 3 checks passed. Well done!"
    lab.get_by_role("button", name="Run").click()
    expect(lab.get_by_role("status")).to_have_text(re.compile(r"^Run finished"), timeout=CHECK_TIMEOUT)
    # The check's Python and the run's are gone; the lab and the exercise drew on one set of Pythons.
    wait_until(lambda: len(ended) >= 2, page=page, message="the check's and the run's Pythons to end")
    alive = [0]
    for event in page.evaluate("window.__workerLog"):
        alive.append(alive[-1] + (1 if event == "start" else -1))
    assert max(alive) <= MOST_PYTHONS[memory], alive
    assert page.evaluate("window.__workerLog").count("start") >= 3  # the first Python, the check's next, the run's next
    assert all(url.startswith("blob:") for url in ended), ended
