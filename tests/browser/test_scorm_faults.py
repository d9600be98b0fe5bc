"""An LMS that errors or is lost mid-session, frames that take things away, and a lesson's state too large for
suspend_data: the lesson keeps working from this browser, and says once on the console what the LMS refused, in the
LMS's words. The lab runs inside the LMS's frame, also where the LMS serves the package with Moodle's table of types."""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Page, expect

from .helpers import PageErrors, wait_until
from .scorm_lms import LESSON_1, Host, InFrame, LMSServer, Package, choose, option_checked, scorm_package, serve_lms
from .test_lab import BOOT_TIMEOUT, Lab
from .test_scorm_lessons import suspended

__all__ = ["scorm_package"]


@pytest.fixture(scope="module")
def lms(scorm_package: Package) -> Iterator[LMSServer]:
    yield from serve_lms(scorm_package.folder)


@pytest.fixture
def host(new_page: Callable[..., Page], lms: LMSServer) -> Callable[..., tuple[Host, list[str]]]:
    """Factory: a test LMS page and the console's warnings."""
    def make(**kwargs: object) -> tuple[Host, list[str]]:
        page = new_page(lms.url, **kwargs)  # the LMS's origin: a returning visit after the module's first
        warnings: list[str] = []
        page.on("console", lambda m: m.type == "warning" and warnings.append(m.text))
        return Host(page, lms), warnings
    return make


FAILURES = [
    ("Commit:391", "open", 'lessonkit: the LMS refused Commit: error 391 error 391 (the test LMS) (the test LMS failed '
     "this call with 391); progress stays saved in this browser."),
    ("http:391", "open", "lessonkit: the LMS refused Commit: error 391 General Commit Failure"),
    ("SetValue:cmi.suspend_data:351", "open", 'lessonkit: the LMS refused SetValue("cmi.suspend_data"): error 351 '
     "error 351 (the test LMS) (the test LMS failed this call with 351); progress stays saved in this browser."),
    ("SetValue:cmi.interactions.0.id:351", "open", 'lessonkit: the LMS refused SetValue("cmi.interactions.0.id"): '
     "error 351"),
    ("GetValue:cmi.suspend_data:101", "open", 'lessonkit: the LMS refused GetValue("cmi.suspend_data"): error 101'),
    ("Initialize:102", "refused", "lessonkit: the LMS refused Initialize: error 102 error 102 (the test LMS) (the test "
     "LMS failed this call with 102); progress stays saved in this browser."),
]


@pytest.mark.parametrize(("fail", "state", "said"), FAILURES, ids=[f[0] for f in FAILURES])
def test_an_lms_that_errors_leaves_the_lesson_working_from_this_browser(
        host: Callable[..., tuple[Host, list[str]]], fail: str, state: str, said: str) -> None:
    lms, warnings = host()
    lms.open(f"fail={fail}")
    frame = lms.lesson(state)
    choose(frame, "predict", 1, 2)
    expect(frame.locator("#quiz-predict [data-feedback]")).to_contain_text("Not quite.")
    wait_until(lambda: [w for w in warnings if w.startswith(said)], page=lms.page, message="the LMS's refusal said")
    # Again: the LMS refuses again (its log shows it), and the console says nothing more.
    refusals = lambda: len([e for e in lms.lms_state()["log"] if "failed by the test LMS" in e["event"]  # noqa: E731
                            or (fail.startswith("http") and e["event"] == "Commit")])
    before = refusals()
    choose(frame, "quick-check", 1, 2)
    frame.get_by_role("textbox", name="Your explanation").fill("Kept in this browser.")
    if fail.split(":")[0] not in ("Initialize", "GetValue"):  # refused once per launch, by their nature
        wait_until(lambda: refusals() > before, page=lms.page, message="the LMS refusing again")
    expect(frame.locator("#quiz-quick-check [data-feedback]").first).to_contain_text("Correct.")
    assert len([w for w in warnings if w.startswith(said)]) == 1, warnings
    stored = frame.evaluate("Object.entries(localStorage).filter(([k]) => k.includes(':predict:')).map(([, v]) => v)")
    assert stored == ['{"1":{"answer":"2","first":"2","tries":1}}']
    if state == "refused":
        assert [e["event"] for e in lms.lms_state()["log"]] == ["Initialize failed by the test LMS"]
    # Reloaded in the frame (the LMS's session is over: a reload is no new launch), it works from this browser.
    frame = lms.reload_lesson("refused")
    assert option_checked(frame, "predict", 1, 2) and option_checked(frame, "quick-check", 1, 2)
    expect(frame.get_by_role("textbox", name="Your explanation")).to_have_value("Kept in this browser.")


def test_a_lesson_too_large_for_suspend_data_keeps_its_code_in_this_browser(
        host: Callable[..., tuple[Host, list[str]]]) -> None:
    lms, warnings = host()
    lms.open()
    frame = lms.lesson()
    lab = Lab(InFrame(frame))
    lab.wait_ready()
    rng = random.Random(7)
    big = "x = '" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(90_000)) + "'\n"
    lab.set_code(big)
    choose(frame, "predict", 1, 1)
    lms.wait_commit("count(cmi) === 2 && cmi.suspend_data.length > 0", "the answer")
    expect(frame.get_by_role("status").filter(has_text="too large for the LMS")).to_have_text(
        "Part of your work on this lesson (edited code or a long draft) is too large for the LMS to keep: it stays in "
        "this browser.")
    record = lms.end()["cmi"]
    assert len(record["suspend_data"]) <= 64_000
    part = suspended(record)["lessons"]["scaled-dot-product-attention"]
    assert part["local"] == ["scaled-softmax:code"] and "scaled-softmax:code" not in part["entries"]
    assert any(k.startswith("predict:") for k in part["entries"])
    assert [w for w in warnings if "too large for the LMS" in w] == [
        "lessonkit: this lesson's work is too large for the LMS's 64,000 characters: scaled-softmax:code stays in this "
        "browser only."]
    # The next launch in this browser keeps this browser's copy of the code, and the LMS's answers.
    lms.page.goto(f"{lms.lms.url}/host/host.html")
    lms.page.add_init_script(f"window.__savedCMI = {json.dumps({LESSON_1: {'cmi': record}})};")
    lms.page.reload()
    lms.page.wait_for_function("window.__lms && window.__lms.ready")
    frame = lms.lesson()
    assert option_checked(frame, "predict", 1, 1)
    lab = Lab(InFrame(frame))
    lab.wait_ready()
    assert lab.code() == big


@pytest.mark.parametrize("sandbox", ["allow-scripts allow-same-origin allow-forms", "allow-scripts allow-forms"],
                         ids=["same-origin", "opaque-origin"])
def test_a_sandboxed_frame(host: Callable[..., tuple[Host, list[str]]], page_errors: PageErrors, sandbox: str) -> None:
    """Same origin: the LMS is reached, as without a sandbox. An opaque origin (no allow-same-origin): the page's
    modules are requests from origin "null", which a package's files (no CORS headers) refuse, so the lesson is the
    page without JavaScript: readable, its answers and explanations in the page, and it calls no LMS."""
    lms, _ = host(service_workers="allow")
    lms.open(f"sandbox={sandbox.replace(' ', '+')}")
    if "allow-same-origin" in sandbox:
        frame = lms.lesson()
        choose(frame, "predict", 1, 1)
        lms.wait_commit("count(cmi) === 2", "the answer")
        assert lms.lms.asked("sw.js") == []
        return
    for refused in ("has been blocked by CORS policy", "requires the request to be CORS enabled", "net::ERR_FAILED"):
        page_errors.expect(refused)
    frame = lms.frame
    frame.wait_for_load_state()
    expect(frame.get_by_role("heading", level=1)).to_have_text("Scaled Dot-Product Attention")
    key = frame.locator("#quiz-predict").get_by_text("Show the answer")
    key.click()
    expect(frame.locator("#quiz-predict [data-answer-key]")).to_contain_text("Correct:")
    assert frame.evaluate("document.documentElement.dataset.lms") is None
    assert "Initialize" not in json.dumps(lms.lms_state()["log"]) and lms.lms.asked("sw.js") == []


def test_an_lms_lost_mid_session_leaves_the_lesson_working_and_says_so(
        host: Callable[..., tuple[Host, list[str]]]) -> None:
    lms, warnings = host()
    lms.open()
    frame = lms.lesson()
    choose(frame, "predict", 1, 2)
    lms.wait_commit("count(cmi) === 2", "the first answer")
    commits = len(lms.commits())
    lms.page.evaluate("__lms.lose()")  # from now on every call of the API throws, as a torn-down LMS window's do
    choose(frame, "quick-check", 1, 2)
    expect(frame.locator("#quiz-quick-check [data-feedback]").first).to_contain_text("Correct.")
    wait_until(lambda: frame.evaluate("document.documentElement.dataset.lms") == "lost", page=lms.page,
               message="the connection lost")
    expect(frame.get_by_role("status").filter(has_text="stopped answering")).to_have_text(
        "The LMS stopped answering: your work from now on stays in this browser, and the LMS does not record it.")
    frame.get_by_role("textbox", name="Your explanation").fill("Kept in this browser.")
    lost = [w for w in warnings if w.startswith("lessonkit: the LMS stopped answering:")]
    assert len(lost) == 1 and "failed with TypeError: can't access dead object" in lost[0], warnings
    assert lost[0].endswith("; progress stays saved in this browser.")
    # The page called the API no more: scorm-again saw no Commit, and the page's own pagehide tries no Terminate.
    frame = lms.reload_lesson("refused")
    assert len(lms.commits()) == commits
    assert "Terminate" not in [e["event"] for e in lms.lms_state()["log"]]
    assert option_checked(frame, "predict", 1, 2) and option_checked(frame, "quick-check", 1, 2)
    expect(frame.get_by_role("textbox", name="Your explanation")).to_have_value("Kept in this browser.")


@pytest.mark.parametrize("pkg", ["/pkg/", "/pkg-moodle/"], ids=["usual-types", "moodle-types"])
def test_the_lab_runs_inside_the_lms_frame_and_stop_restarts_python(
        host: Callable[..., tuple[Host, list[str]]], pkg: str) -> None:
    """No COOP/COEP in an LMS: Stop restarts the worker. With Moodle's types (no .mjs, no application/wasm) too."""
    lms, warnings = host(service_workers="allow")
    start = len(lms.lms.log)
    lms.open(f"pkg={pkg}")
    frame = lms.lesson()
    assert frame.evaluate("[crossOriginIsolated, window.top === window]") == [False, False]
    lab = Lab(InFrame(frame))
    lab.wait_ready()
    lab.run("print(6 * 7)")
    assert lab.output_text() == "42\n"
    lab.start("while True:\n    pass\n")
    expect(lab.stop_button).to_be_enabled()
    lab.stop_button.click()
    expect(lab.status).to_contain_text("Python was restarted", timeout=BOOT_TIMEOUT)
    lab.run("print('after Stop')", timeout=BOOT_TIMEOUT / 1000)
    assert lab.output_text() == "after Stop\n"
    # The edited code is the learner's work: the LMS keeps it in suspend_data.
    cmi = lms.wait_commit("cmi.suspend_data.length > 0 && cmi.location !== undefined", "a report after the run")
    wait_until(lambda: "print('after Stop')" in json.dumps(suspended(lms.cmi())), page=lms.page,
               message="the lab's code in suspend_data")
    assert cmi["completion_status"] in ("incomplete", "completed")
    asked = lms.lms.log[start:]
    assert [path for path, _ in asked if "sw.js" in path or path.endswith(".mjs")] == []
    assert [(path, status) for path, status in asked if status != 200] == []
    assert [w for w in warnings if w.startswith("lessonkit")] == []
