"""labkit's worker runner in CPython: every run starts from the same clean state, and every failure is a clean result."""

from __future__ import annotations

import builtins
import gc
import json
import logging
import math
import os
import signal
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from places import FIXTURE

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(FIXTURE / "lab"))

import labkit  # noqa: E402
from labkit import _run  # noqa: E402
from labkit._run import OUT_OF_MEMORY as OUT_OF_MEMORY_KEY  # noqa: E402
from labkit._run import TOO_DEEP_TO_REPORT as TOO_DEEP_KEY  # noqa: E402
from labkit._worker import MAX_MESSAGE_CHARS  # noqa: E402
from lessonkit.core.messages import Messages  # noqa: E402

OUT_OF_MEMORY, TOO_DEEP_TO_REPORT = (Messages("en").text(key) for key in (OUT_OF_MEMORY_KEY, TOO_DEEP_KEY))

FILE = "lab.py"
STARTER = (FIXTURE / "lab" / "scaled_softmax.py").read_text(encoding="utf-8")


class Session:
    """A runner used as the worker uses it: run, hand the result out, settle."""

    def __init__(self, scratch: list[str]) -> None:
        """Make the runner; its output is collected in order."""
        self.calls: list[tuple[str, str]] = []
        self.runner = labkit.make_runner(lambda t: self.calls.append(("out", t)),
                                         lambda t: self.calls.append(("err", t)), scratch=scratch)

    def run(self, code: str, *, settle: bool = True) -> tuple[dict, str]:
        """Run code; return the parsed result and everything it wrote (stdout and stderr, in order)."""
        before = len(self.calls)
        result = json.loads(self.runner(code, FILE))
        if settle:
            self.runner.settle()
        return result, "".join(text for _, text in self.calls[before:])


@pytest.fixture
def lab(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Session]:
    """A runner whose working directory, and only scratch folder, is this test's own."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "given.txt").write_text("here before the runner")
    monkeypatch.chdir(work)
    yield Session([str(work)])


# ---- the result is the worker's JSON ----------------------------------------------------------------------------


def test_a_run_returns_the_result_as_json(lab: Session) -> None:
    result, out = lab.run(STARTER)
    assert list(result) == ["ok", "error", "stopped", "truncated", "charts"]
    assert result["ok"] is True and [s["name"] for s in result["charts"][0]["series"]] == ["1", "4", "16"]
    assert out.splitlines()[1].startswith("head_dim=4 ")


# ---- the warm-up: the toolkit's own code, before any learner code -------------------------------------------------


def test_the_warm_up_runs_the_toolkits_own_code_and_draws_a_chart(lab: Session) -> None:
    result = json.loads(lab.runner.warm_up())
    lab.runner.settle()
    assert result["ok"] is True and result["error"] is None
    (chart,) = result["charts"]
    assert chart["series_title"] == "k" and [s["name"] for s in chart["series"]] == ["0.5", "1", "2"]
    assert "".join(text for _, text in lab.calls).startswith("k=0.5  values=[26.9%, ")


def test_the_warm_up_takes_the_clean_state_before_its_code(lab: Session) -> None:
    lab.runner.warm_up()
    lab.runner.settle()
    assert lab.run("print([name in dir() for name in ('curve', 'series', 'xs')])")[1] == "[False, False, False]\n"
    result, out = lab.run(STARTER)
    assert result["ok"] and len(result["charts"]) == 1 and out.count("\n") == 3


# ---- runs do not leak into each other -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "said", "changed", "check", "expected"),
    [
        ("import builtins\nbuiltins.print = lambda *a, **k: None\nprint('hidden')\n", "", (builtins, "print"),
         "print('back')", "back\n"),
        # The run's own result is still made: the runner's JSON encoder was taken before any learner code.
        ("import json\njson.dumps = None\nprint('still a result')\n", "still a result\n", (json, "dumps"),
         "import json\nprint(json.dumps({'a': 1}))", '{"a": 1}\n'),
    ],
    ids=["print", "json.dumps"],
)
def test_a_replaced_function_is_back_for_the_next_run(
    lab: Session, change: str, said: str, changed: tuple[object, str], check: str, expected: str
) -> None:
    real = getattr(*changed)
    result, out = lab.run(change)
    assert result["ok"] and out == said
    assert getattr(*changed) is real
    assert lab.run(check)[1] == expected


def test_a_changed_stdlib_module_is_put_back(lab: Session) -> None:
    lab.run("import math\nmath.pi = 3\ndel math.tau\n")
    assert math.pi == 3.141592653589793 and math.tau == 2 * math.pi
    assert lab.run("import math\nprint(math.pi, math.tau)")[1] == f"{math.pi} {math.tau}\n"


def test_a_replaced_sys_stdout_is_put_back(lab: Session) -> None:
    real = sys.stdout, sys.stderr, sys.__stdout__
    lab.run("import io, sys\nsys.stdout = io.StringIO()\nsys.__stdout__ = None\nsys.stderr = None\n")
    assert (sys.stdout, sys.stderr, sys.__stdout__) == real
    out = lab.run("import sys\nprint('out')\nprint('err', file=sys.stderr)\n")[1]
    assert out == "out\nerr\n"


def test_a_lowered_recursion_limit_is_put_back(lab: Session) -> None:
    limit = sys.getrecursionlimit()
    # The limit is set just above where the code runs (however deep the test runner calls it): the report of its own
    # error must still be made.
    result, out = lab.run("import sys\nsys.setrecursionlimit(len(__import__('traceback').extract_stack()) + 30)\n"
                          "def f(n):\n    return f(n + 1)\nf(0)\n")
    assert result["error"]["type"] == "RecursionError" and result["error"]["line"] == 4, result
    assert sys.getrecursionlimit() == limit
    result, out = lab.run("import sys\ndef depth(n):\n    return n if n == 500 else depth(n + 1)\nprint(depth(0))")
    assert out == "500\n"


def test_files_written_in_a_run_are_gone_for_the_next(lab: Session) -> None:
    code = "import os\nopen('notes.txt', 'w').write('x')\nos.makedirs('data/deep')\nopen('data/deep/f', 'w').close()\n"
    assert lab.run(code)[0]["ok"]
    assert sorted(os.listdir(".")) == ["given.txt"]
    out = lab.run("import os\nprint(sorted(os.listdir('.')), open('given.txt').read())")[1]
    assert out == "['given.txt'] here before the runner\n"


def test_the_working_directory_and_environment_are_put_back(lab: Session) -> None:
    work = os.getcwd()
    lab.run("import os\nos.chdir('/')\nos.environ['LAB_LEAK'] = '1'\ndel os.environ['PATH']\n")
    assert os.getcwd() == work and "LAB_LEAK" not in os.environ and "PATH" in os.environ
    assert lab.run("import os\nprint(os.getcwd(), 'LAB_LEAK' in os.environ)")[1] == f"{work} False\n"


@pytest.fixture
def unimported(monkeypatch: pytest.MonkeyPatch) -> None:
    """colorsys as a module this process has not imported (a library another test loaded may have imported it), before
    the lab's session takes its state."""
    monkeypatch.delitem(sys.modules, "colorsys", raising=False)


def test_a_module_imported_by_a_run_is_imported_afresh_by_the_next(unimported: None, lab: Session) -> None:
    assert "colorsys" not in sys.modules
    lab.run("import colorsys\ncolorsys.rgb_to_hsv = None\n")
    assert "colorsys" not in sys.modules
    assert lab.run("import colorsys\nprint(colorsys.rgb_to_hsv(1, 0, 0))")[1] == "(0.0, 1.0, 1)\n"


def test_import_machinery_emptied_by_a_run_is_put_back(lab: Session) -> None:
    lab.run("import sys\nsys.path.clear()\nsys.meta_path.clear()\nsys.path_importer_cache.clear()\n"
            "sys.modules.pop('math')\nsys.modules['json'] = None\n")
    out = lab.run("import colorsys, json, math\nprint(json.dumps(math.floor(2.5)))")[1]
    assert out == "2\n"


def test_warning_filters_are_put_back(lab: Session) -> None:
    filters = list(warnings.filters)
    lab.run("import warnings\nwarnings.simplefilter('error')\n")
    assert warnings.filters == filters
    with warnings.catch_warnings(record=True):  # pytest records warnings: here, an error would be raised instead
        result, out = lab.run("import warnings\nwarnings.warn('careful')\nprint('after')\n")
    assert result["ok"] and out.endswith("after\n")


def test_tracing_gc_and_sigint_are_put_back(lab: Session) -> None:
    trace, handler = sys.gettrace(), signal.getsignal(signal.SIGINT)
    code = """
        import gc, signal, sys
        sys.settrace(lambda *a: None)
        sys.setprofile(lambda *a: None)
        gc.disable()
        gc.set_threshold(1)
        gc.callbacks.append(print)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Stop raises KeyboardInterrupt through this handler
    """
    assert lab.run(textwrap.dedent(code))[0]["ok"]
    assert sys.gettrace() is trace and sys.getprofile() is None
    assert gc.isenabled() and gc.get_threshold()[0] != 1 and print not in gc.callbacks
    assert signal.getsignal(signal.SIGINT) is handler


def test_logging_set_up_by_a_run_is_gone_for_the_next(lab: Session) -> None:
    handlers = list(logging.root.handlers)
    out = lab.run("import logging\nlogging.basicConfig(force=True, format='one:%(message)s')\n"
                  "logging.getLogger('lab.mine').warning('a')\n")[1]
    assert out == "one:a\n"
    assert logging.root.handlers == handlers and "lab.mine" not in logging.Logger.manager.loggerDict
    assert "one:" not in lab.run("import logging\nlogging.warning('b')\n")[1]


def test_random_is_seeded_afresh_for_each_run(lab: Session) -> None:
    lab.run("import random\nrandom.seed(1)\n")
    seeded = __import__("random").Random(1).random()
    assert lab.run("import random\nprint(random.random())")[1] != f"{seeded}\n"


def test_builtins_the_runner_uses_broken_by_a_run_still_give_its_report(lab: Session) -> None:
    code = """
        import builtins
        for name in ("len", "isinstance", "str", "BaseException", "Exception", "type", "id", "getattr"):
            setattr(builtins, name, None)
        del builtins.print
        1 / 0
    """
    result, out = lab.run(textwrap.dedent(code))
    assert result["error"]["type"] == "ZeroDivisionError" and result["error"]["line"] == 6
    assert out.endswith("ZeroDivisionError: division by zero\n")
    assert lab.run("print(len('abc'))")[1] == "3\n"


def test_labkit_changed_by_a_run_still_reports_it_and_the_next_run(lab: Session) -> None:
    code = """
        import labkit._run as r, labkit._clean as c, labkit._worker as w
        r._error_report = r._Sink.flush = r._Stream.write = r.traceback = None
        w.one_line.__code__ = (lambda text, limit=1: "X").__code__
        c.Baseline = w.Runner.__call__ = None
        raise ValueError("the learner's")
    """
    result, out = lab.run(textwrap.dedent(code))
    assert result["error"]["message"] == "the learner's" and result["error"]["line"] == 6
    assert out.endswith("ValueError: the learner's\n")
    assert lab.run("print('fine')")[1] == "fine\n"


def test_the_next_run_settles_first_when_settle_was_not_called(lab: Session) -> None:
    lab.run("import math\nmath.pi = 3\nopen('left.txt', 'w').close()\n", settle=False)
    assert lab.run("import math, os\nprint(math.pi, os.path.exists('left.txt'))")[1] == f"{math.pi} False\n"


# ---- internal errors are never shown as ours ----------------------------------------------------------------------


def test_a_huge_message_is_one_short_line_and_the_output_says_what_was_cut(lab: Session) -> None:
    result, out = lab.run("print('before')\nraise ValueError('x' * 100_000)")
    message = result["error"]["message"]
    assert len(message) == MAX_MESSAGE_CHARS and message.endswith("…") and "\n" not in message
    assert out.startswith("before\nTraceback (most recent call last):\n")
    assert "characters left out" in out and len(out) < 6000


def test_a_message_of_several_lines_is_its_first_line(lab: Session) -> None:
    result, out = lab.run("raise ValueError('first\\nsecond')")
    assert result["error"]["message"] == "first …"
    assert out.endswith("ValueError: first\nsecond\n")


def test_an_exception_whose_str_fails_is_still_reported(lab: Session) -> None:
    result = lab.run("class Odd(Exception):\n    def __str__(self):\n        raise RuntimeError\nraise Odd()")[0]
    assert result["error"]["type"] == "Odd" and result["error"]["line"] == 4
    assert result["error"]["message"] == "<exception str() failed>"


def test_a_long_exception_chain_is_reported(lab: Session) -> None:
    code = "e = None\nfor i in range(3000):\n    try:\n        raise ValueError(i) from e\n    except ValueError as x:\n" \
           "        e = x\nraise e\n"
    result, out = lab.run(code)
    assert result["error"]["message"] == "2999" and result["error"]["line"] == 4
    assert "characters left out" in out


def test_memory_error_in_the_code_is_a_clean_result(lab: Session) -> None:
    result, out = lab.run("print('kept')\ndata = [1] * 10\nraise MemoryError\n")
    assert result["error"] == {"type": "MemoryError", "message": OUT_OF_MEMORY, "line": 3, "traceback": out[5:]}
    assert out.startswith("kept\nTraceback") and out.endswith(f"MemoryError: {OUT_OF_MEMORY}\n")


def _failing_for_the_learner(fault: type[BaseException]) -> Callable[[BaseException, str], dict]:
    """labkit's report maker, raising fault for the learner's file (the runner's own warm-up reports still work).

    Set before the first run: the clean state is taken then, so the runner keeps this stand-in.
    """
    real = _run._error_report

    def report(exc: BaseException, filename: str) -> dict:
        if filename == FILE:
            raise fault
        return real(exc, filename)

    return report


@pytest.mark.parametrize(("fault", "kind", "message"), [(MemoryError, "MemoryError", OUT_OF_MEMORY),
                                                         (RecursionError, "RecursionError", TOO_DEEP_TO_REPORT)])
def test_running_out_while_making_the_report_is_a_clean_result(
    lab: Session, monkeypatch: pytest.MonkeyPatch, fault: type[BaseException], kind: str, message: str
) -> None:
    monkeypatch.setattr(_run, "_error_report", _failing_for_the_learner(fault))
    result, out = lab.run("print('kept')\n1 / 0\n")
    assert result["error"] == {"type": kind, "message": message, "line": None, "traceback": f"{kind}: {message}\n"}
    assert out == f"kept\n{kind}: {message}\n"
    assert lab.run("print('next')")[1] == "next\n"


def test_running_out_while_writing_the_json_is_a_clean_result(lab: Session) -> None:
    lab.run("print(1)")

    def fails(value: object) -> str:
        raise MemoryError

    lab.runner._encode = fails  # type: ignore[method-assign]
    result, _ = lab.run("print(2)")
    assert result["ok"] is False and result["error"]["message"] == OUT_OF_MEMORY


def test_a_stop_landing_after_the_code_ended_is_stopped(lab: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_run, "_error_report", _failing_for_the_learner(KeyboardInterrupt))
    result, out = lab.run("1 / 0")
    assert result["stopped"] is True and result["error"]["message"] == "Stopped." and out == "Stopped.\n"


_MANY_SMALL_STRINGS = """
import resource, sys, json
sys.path.insert(0, {lab!r})
import labkit
limit = 400 * 1024 * 1024
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
out = []
runner = labkit.make_runner(out.append, out.append)
runner.use_words({words!r})
code = "print('started')\\na = []\\nwhile True:\\n    a.append(str(len(a)) * 3)\\n"
first = json.loads(runner(code, "lab.py"))
runner.settle()
second = json.loads(runner("print(6 * 7)", "lab.py"))
print(json.dumps([first, second, "".join(out)]))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs RLIMIT_AS")
def test_running_out_of_memory_with_many_small_strings(tmp_path: Path) -> None:
    # A real MemoryError, in its own process with a small address space: the learner's list fills it.
    from lessonkit.labs.limits import WORDED

    words = json.dumps(Messages("en").labkit_words(WORDED))
    script = _MANY_SMALL_STRINGS.format(lab=str(FIXTURE / "lab"), words=words)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    first, second, out = json.loads(proc.stdout.splitlines()[-1])
    assert first["error"]["type"] == "MemoryError" and first["error"]["message"] == OUT_OF_MEMORY
    # Full to the last bytes, Python may fail to record where it ran out (the frame's traceback needs memory too).
    assert first["error"]["line"] in (4, None)
    assert out.startswith("started\n") and out.endswith(f"MemoryError: {OUT_OF_MEMORY}\n42\n")
    assert second["ok"] is True


# ---- the full stdlib, once mounted, stays on the clean sys.path ---------------------------------------------------


def test_the_mounted_full_stdlib_stays_on_sys_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import zipfile

    full = tmp_path / "full.zip"
    with zipfile.ZipFile(full, "w") as zf:
        zf.writestr("lkleftout/__init__.py", "VALUE = 'full'\n")
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    monkeypatch.setattr(sys, "path", list(sys.path))
    from labkit._stdlib import FullStdlibFinder

    monkeypatch.setattr(FullStdlibFinder, "_wanted", lambda self, name: name == "lkleftout")
    calls: list[str] = []
    runner = labkit.make_runner(calls.append, calls.append, lambda: str(full))
    for _ in range(2):
        result = json.loads(runner("import sys, lkleftout\nprint(lkleftout.VALUE, sys.path[-1].endswith('full.zip'))",
                                   FILE))
        runner.settle()
        assert result["ok"] and calls[-1] == "full True\n"
    assert str(full) in sys.path and "lkleftout" not in sys.modules


# ---- the same runner in Pyodide (the browser's Python, under Node) ---------------------------------------------

_IN_PYODIDE = r"""
import json, os, labkit
calls = []
runner = labkit.make_runner(calls.append, calls.append, scratch=(os.getcwd(), "/tmp"))
def run(code):
    before = len(calls)
    result = json.loads(runner(code, "lab.py"))
    runner.settle()
    return result, "".join(calls[before:])
outputs = {}
for name, (change, check) in CASES.items():
    run(change)
    outputs[name] = run(check)[1]
print(json.dumps(outputs))
"""
PYODIDE_CASES = {  # a run that changes something, then the run that must not notice, and what it prints
    "print": ("import builtins\nbuiltins.print = None", "print('back')", "back\n"),
    "json": ("import json\njson.dumps = None", "import json\nprint(json.dumps([1]))", "[1]\n"),
    "math": ("import math\nmath.pi = 3", "import math\nprint(math.pi)", "3.141592653589793\n"),
    "limit": ("import sys\nsys.setrecursionlimit(60)", "import sys\nprint(sys.getrecursionlimit() > 60)", "True\n"),
    "files": ("open('a.txt', 'w').close()\nopen('/tmp/b', 'w').close()",
              "import os\nprint(os.path.exists('a.txt'), os.path.exists('/tmp/b'))", "False False\n"),
    "module": ("import statistics\nstatistics.mean = None", "import statistics\nprint(statistics.mean([1, 3]))", "2\n"),
    "warnings": ("import warnings\nwarnings.simplefilter('error')",
                 "import warnings\nwarnings.warn('w')\nprint('after')", "lab.py:2: UserWarning: w\n"
                 "  warnings.warn('w')\nafter\n"),
    "monitoring": ("import sys\nm = sys.monitoring\nm.use_tool_id(3, 'x')\n"
                   "m.register_callback(3, m.events.LINE, lambda *a: print('line'))\nm.set_events(3, m.events.LINE)",
                   "x = 1\nprint('no line events')", "no line events\n"),
    "sigint": ("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)",
               "import signal\nprint(signal.getsignal(signal.SIGINT) is signal.default_int_handler)", "True\n"),
}


@pytest.fixture(scope="session")
def prepared() -> Path:
    """The default release prepared from the repository (built once, ~1 min, when the cache is cold)."""
    from lessonkit.prebuild.prepare import prepare_runtime

    return prepare_runtime(ROOT)


def _labkit_wheel(out: Path) -> Path:
    """labkit's wheel for the default release, made from the installed labkit with its bytecode (as the prebuilt
    files carry it)."""
    from lessonkit import runtime
    from lessonkit.prebuild.labkit import build_labkit_wheel

    return out / build_labkit_wheel(ROOT, out, runtime.get_release())


def test_runs_start_clean_in_pyodide(tmp_path: Path, prepared: Path) -> None:
    from lessonkit import runtime
    from lessonkit.prebuild.node import node_boot_check

    cases = {name: (change, check) for name, (change, check, _) in PYODIDE_CASES.items()}
    report = node_boot_check(prepared, prepared / runtime.STDLIB, f"CASES = {cases!r}\n{_IN_PYODIDE}",
                             [_labkit_wheel(tmp_path)])
    outputs = json.loads(report["stdout"].splitlines()[-1])
    assert outputs == {name: expected for name, (_, _, expected) in PYODIDE_CASES.items()}


_JS_ERRORS = r"""
import json, os, labkit
calls = []
runner = labkit.make_runner(calls.append, calls.append, scratch=(os.getcwd(), "/tmp"))
ran = json.loads(runner("import js\nx = 1\njs.JSON.parse('{')\n", "lab.py"))
runner.settle()
spec = {"checks": [{"name": "parses", "code": "assert parse() == 1", "secret": False}], "modules": {}}
checked = json.loads(runner.check("def parse():\n    import js\n    return js.JSON.parse('{')\n", "lab.py",
                                  json.dumps(spec), 5.0))
runner.settle()
print(json.dumps({"run": ran["error"], "output": "".join(calls), "check": checked["checks"][0]}))
"""


def test_an_error_javascript_raises_shows_the_learners_frames_only_in_pyodide(tmp_path: Path, prepared: Path) -> None:
    from lessonkit import runtime
    from lessonkit.prebuild.node import node_boot_check

    report = node_boot_check(prepared, prepared / runtime.STDLIB, _JS_ERRORS, [_labkit_wheel(tmp_path)])
    found = json.loads(report["stdout"].splitlines()[-1])
    tail = "pyodide.ffi.JsException: SyntaxError: Expected property name or '}' in JSON at position 1"
    frames = [line for line in found["run"]["traceback"].splitlines() if line.startswith("  File ")]
    assert frames == ['  File "lab.py", line 3, in <module>'], found["run"]["traceback"]
    assert found["run"]["traceback"].endswith(tail + "\n") and found["output"] == found["run"]["traceback"]
    assert found["run"]["line"] == 3
    check = found["check"]
    assert check["status"] == "error" and check["said"]["key"] == "check.raised"
    assert check["said"]["values"]["error"].startswith("JsException: SyntaxError")
    frames = [line for line in check["traceback"].splitlines() if line.startswith("  File ")]
    assert frames == ['  File "lab.py", line 3, in parse'], check["traceback"]


def test_the_runner_hands_the_page_labkits_caps(lab: Session) -> None:
    from labkit import _limits

    assert json.loads(lab.runner.limits()) == _limits.for_the_page()
    assert _limits.for_the_page()["chars"] > _limits.OUTPUT_CHARS and _limits.for_the_page()["lines"] > _limits.OUTPUT_LINES
