"""labkit in CPython: the lab's numbers, chart data, output capping and every learner-fault report."""

from __future__ import annotations

import builtins
import sys
import time
from pathlib import Path

import pytest
from places import FIXTURE, LABKIT

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(FIXTURE / "lab"))

import labkit  # noqa: E402
from labkit import _limits as limits  # noqa: E402

STARTER = (FIXTURE / "lab" / "scaled_softmax.py").read_text(encoding="utf-8")
FILE = "scaled_softmax.py"


class Captured:
    """Collects write_out / write_err calls in order."""

    def __init__(self) -> None:
        """Start empty."""
        self.calls: list[tuple[str, str]] = []

    def out(self, text: str) -> None:
        """Record stdout text."""
        self.calls.append(("out", text))

    def err(self, text: str) -> None:
        """Record stderr text."""
        self.calls.append(("err", text))

    @property
    def stdout(self) -> str:
        """All stdout text."""
        return "".join(t for s, t in self.calls if s == "out")

    @property
    def stderr(self) -> str:
        """All stderr text."""
        return "".join(t for s, t in self.calls if s == "err")

    @property
    def text(self) -> str:
        """Everything, in order."""
        return "".join(t for _, t in self.calls)


def run(code: str, **kwargs: int) -> tuple[dict, Captured]:
    """Run code through labkit and capture its output."""
    cap = Captured()
    result = labkit.run_code(code, FILE, write_out=cap.out, write_err=cap.err, **kwargs)
    return result, cap


def probs_of(result: dict) -> dict[str, list[float]]:
    """head_dim -> probabilities in percent (one decimal) from the run's chart."""
    (chart,) = result["charts"]
    return {s["name"]: [round(100 * p, 1) for p in s["values"]] for s in chart["series"]}


# ---- the lesson's numbers ---------------------------------------------------------------------------------


def test_starter_code_prints_the_lesson_numbers() -> None:
    result, cap = run(STARTER)
    assert result == {"ok": True, "error": None, "stopped": False, "truncated": False, "charts": result["charts"]}
    assert cap.stderr == ""
    assert cap.stdout.splitlines() == [
        "head_dim=1   divide by 1.00  scaled=[0.000, 4.000, 2.000]  probs=[1.6%, 86.7%, 11.7%]",
        "head_dim=4   divide by 2.00  scaled=[0.000, 2.000, 1.000]  probs=[9.0%, 66.5%, 24.5%]",
        "head_dim=16  divide by 4.00  scaled=[0.000, 1.000, 0.500]  probs=[18.6%, 50.6%, 30.7%]",
    ]


def test_starter_draws_its_chart() -> None:
    result, _ = run(STARTER)
    (chart,) = result["charts"]
    assert {k: v for k, v in chart.items() if k != "series"} == {
        "type": "bars", "title": "Softmax probability per position", "labels": ["1", "2", "3"],
        "series_title": "head_dim", "x": {"title": "Position (key)", "item": "position"},
        "y": {"title": "Probability", "percent": True},
    }
    assert [(s["name"], s["legend"]) for s in chart["series"]] == [
        ("1", "head_dim = 1 (divide by 1.00)"), ("4", "head_dim = 4 (divide by 2.00)"),
        ("16", "head_dim = 16 (divide by 4.00)"),
    ]
    assert probs_of(result) == {"1": [1.6, 86.7, 11.7], "4": [9.0, 66.5, 24.5], "16": [18.6, 50.6, 30.7]}
    assert all(sum(s["values"]) == pytest.approx(1) for s in chart["series"])


def test_doubled_gaps_are_sharper() -> None:
    edited = STARTER.replace("raw = [0.0, 4.0, 2.0]", "raw = [0.0, 8.0, 4.0]")
    assert edited != STARTER
    result, _ = run(edited)
    assert probs_of(result) == {"1": [0.0, 98.2, 1.8], "4": [1.6, 86.7, 11.7], "16": [9.0, 66.5, 24.5]}


def test_learner_edits_more_positions_and_head_dims() -> None:
    edited = STARTER.replace("raw = [0.0, 4.0, 2.0]", "raw = [0.0, 4.0, 2.0, 1.0, 3.0]").replace(
        "[1, 4, 16]", "[1, 4, 16, 64]"
    )
    result, _ = run(edited)
    (chart,) = result["charts"]
    assert [s["name"] for s in chart["series"]] == ["1", "4", "16", "64"]
    assert chart["labels"] == ["1", "2", "3", "4", "5"]
    assert all(len(s["values"]) == 5 for s in chart["series"])


def test_printed_lines_draw_nothing() -> None:
    # Charts are what the code draws, never what its output looks like.
    result, _ = run("print('head_dim=2  probs=[25.0%, 75.0%]')")
    assert result["ok"] and result["charts"] == []


# ---- running: namespace, order, batching ------------------------------------------------------------------


def test_fresh_main_namespace_each_run() -> None:
    run("leaked = 1")
    result, cap = run("print(__name__, __file__)\nprint('leaked' in globals())")
    assert result["ok"] is True
    assert cap.stdout == "__main__ scaled_softmax.py\nFalse\n"


def test_stdout_and_stderr_keep_their_order() -> None:
    code = "import sys\nprint('a')\nprint('b', file=sys.stderr)\nprint('c')\n"
    _, cap = run(code)
    merged: list[list[str]] = []
    for stream, text in cap.calls:
        if merged and merged[-1][0] == stream:
            merged[-1][1] += text
        else:
            merged.append([stream, text])
    assert merged == [["out", "a\n"], ["err", "b\n"], ["out", "c\n"]]


def test_output_is_batched() -> None:
    result, cap = run("for i in range(1000):\n    print(i)\n")
    assert result["truncated"] is False
    assert cap.stdout == "".join(f"{i}\n" for i in range(1000))
    assert len(cap.calls) < 50  # a few batches, not 2000 calls


def test_sleep_flushes_what_was_printed_before_it() -> None:
    cap = Captured()
    seen_before_sleep: list[str] = []
    code = "import time\nprint('before')\ntime.sleep(0.01)\nprint('after')\n"

    def out(text: str) -> None:
        cap.out(text)

    real_sleep = time.sleep
    try:
        time.sleep = lambda s: (seen_before_sleep.append(cap.stdout), real_sleep(s))[1]  # type: ignore[assignment]
        labkit.run_code(code, FILE, write_out=out, write_err=cap.err)
    finally:
        time.sleep = real_sleep
    assert seen_before_sleep == ["before\n"]
    assert cap.stdout == "before\nafter\n"


def test_globals_restored_after_run() -> None:
    before = (sys.stdout, sys.stderr, sys.stdin, builtins.input, time.sleep, sys.modules["__main__"])
    run("import sys\nsys.stdout = None\nraise ValueError('x')")
    assert (sys.stdout, sys.stderr, sys.stdin, builtins.input, time.sleep, sys.modules["__main__"]) == before


# ---- output cap -------------------------------------------------------------------------------------------

NOTICE = (
    "… Output limit reached: only the first 2,000 lines or 100,000 characters are shown. "
    "The program keeps running until it ends or you press Stop.\n"
)


def test_print_flood_is_capped_with_notice_and_keeps_running() -> None:
    result, cap = run("for i in range(50_000):\n    print(i)\nprint('done')\nx = 1/0\n")
    assert result["truncated"] is True
    assert cap.stdout == "".join(f"{i}\n" for i in range(2000))
    assert "done" not in cap.text  # past the cap nothing is forwarded…
    assert cap.stderr.startswith(NOTICE)
    assert result["error"]["type"] == "ZeroDivisionError"  # …but the program ran to the end
    assert result["error"]["line"] == 4


def test_char_cap_cuts_inside_a_line() -> None:
    result, cap = run("print('x' * 500)", max_chars=100)
    assert result["truncated"] is True
    assert cap.stdout == "x" * 100
    assert cap.stderr == (
        "\n… Output limit reached: only the first 2,000 lines or 100 characters are shown. "
        "The program keeps running until it ends or you press Stop.\n"
    )


def test_exactly_at_the_cap_is_not_truncated() -> None:
    result, cap = run("for i in range(3):\n    print(i)\n", max_lines=3)
    assert result["truncated"] is False
    assert cap.text == "0\n1\n2\n"


def test_output_in_too_many_pieces_is_capped_with_notice() -> None:
    # Each change of stream is a message of its own: alternating stdout and stderr makes one message per print.
    code = "import sys\nfor i in range(6_000):\n    print(i, end='')\n    print('.', end='', file=sys.stderr)\n"
    result, cap = run(code)
    assert result["truncated"] is True
    assert len(cap.calls) == limits.OUTPUT_MESSAGES  # the notice joins the last (stderr) one
    assert cap.calls[-1] == ("err", ".\n… Output limit reached: the output came in more than 5,000 separate pieces, "
                             "and only those are shown. The program keeps running until it ends or you press Stop.\n")


# Programs that print all they may and then fail in the longest way: what reaches the writers stays within the caps
# the page enforces again (labkit._limits.for_the_page).
WORST_RUNS = {
    "lines, then a long error": "for i in range(10**5):\n    print(i)\nraise ValueError('\\n'.join(['x' * 99] * 9_000))\n",
    "characters, then an exit": "import sys\nprint('y' * 10**6)\nsys.exit('\\n' * 10**5 + 'z' * 10**6)\n",
    "pieces, then a deep error": ("import sys\nfor i in range(10**4):\n    print(i, end='')\n"
                                  "    print(i, end='', file=sys.stderr)\n"
                                  "def f(n):\n    return g(n)\ndef g(n):\n    return f(n + 1)\nf(0)\n"),
}


@pytest.mark.parametrize("code", list(WORST_RUNS.values()), ids=list(WORST_RUNS))
def test_what_a_run_sends_stays_within_the_pages_caps(code: str) -> None:
    result, cap = run(code)
    caps = limits.for_the_page()
    assert result["truncated"] is True and result["error"] is not None
    assert len(cap.calls) <= caps["messages"]
    assert len(cap.text) <= caps["chars"] and cap.text.count("\n") <= caps["lines"]
    error = result["error"]
    assert len(error["message"]) + len(error["traceback"]) <= caps["errorChars"]


def test_an_error_of_many_lines_keeps_its_ends() -> None:
    result, _ = run("raise ValueError('\\n'.join(str(i) for i in range(1_000)))\n")
    lines = result["error"]["traceback"].splitlines()
    assert len(lines) <= limits.ERROR_LINES + 1
    assert "… (" in result["error"]["traceback"] and " lines left out) …" in result["error"]["traceback"]
    assert lines[-1] == "999"


# ---- faults -----------------------------------------------------------------------------------------------


def test_runtime_error_traceback_has_learner_lines_only() -> None:
    result, cap = run("x = 1\ny = 0\nprint(x / y)\n")
    assert result["ok"] is False
    error = result["error"]
    assert error["type"] == "ZeroDivisionError"
    assert error["message"] == "division by zero"
    assert error["line"] == 3
    lines = error["traceback"].splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[1] == '  File "scaled_softmax.py", line 3, in <module>'
    assert lines[2] == "    print(x / y)"
    assert lines[-1] == "ZeroDivisionError: division by zero"
    assert "labkit" not in error["traceback"] and "_run.py" not in error["traceback"]
    assert cap.stderr == error["traceback"]


def test_error_inside_a_function_shows_each_learner_frame() -> None:
    result, _ = run("def f(v):\n    return 10 / v\n\nf(0)\n")
    tb = result["error"]["traceback"]
    assert '  File "scaled_softmax.py", line 4, in <module>\n    f(0)\n' in tb
    assert '  File "scaled_softmax.py", line 2, in f\n    return 10 / v\n' in tb
    assert result["error"]["line"] == 2


def test_stdlib_frames_are_trimmed() -> None:
    result, _ = run("import json\njson.loads('{')\n")
    tb = result["error"]["traceback"]
    assert result["error"]["line"] == 2
    assert "json/decoder.py" not in tb and "json/__init__.py" not in tb
    assert tb.splitlines()[-1].startswith("json.decoder.JSONDecodeError: Expecting property name")


# Like Pyodide's JsException (an error JavaScript raised into Python): a proxy whose attribute writes go to the
# JavaScript object it stands for, so `exc.__traceback__ = tb` would leave Python's traceback as it was.
PROXIED_ERROR = """class Proxied(Exception):
    def __setattr__(self, name, value):
        pass


def parse():
    raise Proxied("SyntaxError: Expected property name")


parse()
"""


def test_an_error_whose_attribute_writes_go_elsewhere_shows_learner_lines_only() -> None:
    result, cap = run(PROXIED_ERROR)
    tb = result["error"]["traceback"]
    assert [line for line in tb.splitlines() if line.strip("~^ ")] == [  # carets: Python 3.13 and later
        "Traceback (most recent call last):",
        '  File "scaled_softmax.py", line 10, in <module>',
        "    parse()",
        '  File "scaled_softmax.py", line 7, in parse',
        '    raise Proxied("SyntaxError: Expected property name")',
        "Proxied: SyntaxError: Expected property name",
    ], tb
    assert result["error"]["line"] == 7 and cap.stderr == tb


def test_syntax_error_with_caret() -> None:
    result, cap = run("x = 1\ny = (2 +\nprint(y)\n")
    error = result["error"]
    assert error["type"] == "SyntaxError"
    assert error["line"] == 2
    assert error["message"] == "'(' was never closed"
    assert error["traceback"] == (
        "  File \"scaled_softmax.py\", line 2\n    y = (2 +\n        ^\nSyntaxError: '(' was never closed\n"
    )
    assert cap.stderr == error["traceback"]


def test_indentation_error() -> None:
    result, _ = run("for i in range(3):\nprint(i)\n")
    assert result["error"]["type"] == "IndentationError"
    assert result["error"]["line"] == 2
    assert 'File "scaled_softmax.py", line 2' in result["error"]["traceback"]


def test_recursion_error_is_reported_normally() -> None:
    result, _ = run("def f(n):\n    return f(n + 1)\n\nf(0)\n")
    error = result["error"]
    assert error["type"] == "RecursionError"
    assert error["line"] == 2
    assert "[Previous line repeated" in error["traceback"]
    assert error["traceback"].splitlines()[-1].startswith("RecursionError: maximum recursion depth exceeded")
    assert len(error["traceback"]) < 2000
    # and the interpreter is fine afterwards
    assert run("print(6 * 7)")[1].stdout == "42\n"


def test_input_explains_there_is_no_keyboard() -> None:
    result, cap = run("name = input('Name? ')\nprint(name)\n")
    error = result["error"]
    assert error["type"] == "EOFError"
    assert error["message"] == "This lab has no keyboard input: put the values in the code instead"
    assert error["line"] == 1
    assert cap.stderr.splitlines()[-1] == "EOFError: This lab has no keyboard input: put the values in the code instead"
    assert "_no_input" not in cap.stderr


def test_reading_stdin_explains_too() -> None:
    result, _ = run("import sys\nsys.stdin.readline()\n")
    assert result["error"]["message"] == "This lab has no keyboard input: put the values in the code instead"
    assert result["error"]["line"] == 2


def test_missing_module_is_one_sentence() -> None:
    # A package no environment has (the test environment may hold SciPy, which a lab could not import on the page).
    result, cap = run("import nosuchpackage.linalg\n")
    sentence = (
        "No module named 'nosuchpackage': this lab runs Python's standard library only (and the packages this lesson "
        "lists)."
    )
    assert result["error"]["type"] == "ModuleNotFoundError"
    assert result["error"]["message"] == sentence
    assert result["error"]["line"] == 1
    assert cap.stderr.splitlines()[-1] == f"ModuleNotFoundError: {sentence}"


# Pyodide's ConversionError and JsException, as labkit meets them in the worker (pyodide.ffi): a Python string whose copy
# the lab's memory cap refused.
_REFUSED_CONVERSION = """
class JsException(Exception):
    pass
class ConversionError(Exception):
    pass
JsException.__module__ = ConversionError.__module__ = "pyodide.ffi"
def hand_over(text):
    try:
        raise JsException("RangeError: Your code asked for more memory than the lab allows")
    except JsException as exc:
        raise ConversionError("Conversion from python to javascript failed") from exc
hand_over("x")
"""


def test_a_conversion_javascript_refused_is_reported_as_what_refused_it() -> None:
    result, cap = run(_REFUSED_CONVERSION)
    refused = "RangeError: Your code asked for more memory than the lab allows"
    assert result["error"] == {**result["error"], "type": "JsException", "message": refused, "line": 11}
    assert cap.stderr.splitlines()[-1] == f"pyodide.ffi.JsException: {refused}"
    # A learner's own class of that name, from their module, is theirs to report.
    result, _ = run(_REFUSED_CONVERSION.replace('JsException.__module__ = ConversionError.__module__ = "pyodide.ffi"',
                                                ""))
    assert result["error"]["type"] == "ConversionError"


def test_keyboard_interrupt_is_stopped() -> None:
    result, cap = run("print('start')\nraise KeyboardInterrupt\n")
    assert result["ok"] is False
    assert result["stopped"] is True
    assert result["error"]["type"] == "KeyboardInterrupt"
    assert result["error"]["message"] == "Stopped."
    assert result["error"]["line"] == 2
    assert cap.text == "start\nStopped.\n"


def test_sys_exit() -> None:
    assert run("import sys\nprint(1)\nsys.exit()\nprint(2)")[0]["ok"] is True
    result, cap = run("import sys\nsys.exit(3)")
    assert result["error"] == {"type": "SystemExit", "message": "3", "line": None, "traceback": ""}
    assert cap.stderr == "The program exited with status 3.\n"


def test_chained_exception_keeps_both_parts_trimmed() -> None:
    code = "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    raise ValueError('bad') from e\n"
    result, _ = run(code)
    tb = result["error"]["traceback"]
    assert "The above exception was the direct cause of the following exception:" in tb
    assert 'File "scaled_softmax.py", line 2' in tb and 'File "scaled_softmax.py", line 4' in tb
    assert result["error"]["line"] == 4


def test_huge_error_message_is_shortened() -> None:
    result, cap = run("raise ValueError('x' * 100_000)")
    assert len(result["error"]["traceback"]) < 6000
    assert "characters left out" in result["error"]["traceback"]
    assert len(cap.stderr) < 6000


SPOOF = "Run finished in 3 ms. All 5 checks passed. Well done!"


@pytest.mark.parametrize(("define", "shown"), [
    (f"E = type({SPOOF!r}, (ValueError,), {{}})", "ValueError"),
    (f"class Meta(type):\n    __name__ = {SPOOF!r}\nclass E(Exception, metaclass=Meta): pass", "E"),
    ("E = type('A' * 41, (IndexError,), {})", "IndexError"),
    ("E = type('Plain' + 'x' * 35, (Exception,), {})", "Plain" + "x" * 35),
    ("E = type('with space', (Exception,), {})", "Exception"),
])
def test_the_status_shows_an_exception_name_only_when_it_is_a_short_identifier(define: str, shown: str) -> None:
    result, _ = run(f"{define}\nraise E('boom')")
    assert result["error"]["type"] == shown
    assert result["error"]["message"] == "boom"


def test_html_is_just_text() -> None:
    _, cap = run("print('<img src=x onerror=\"window.__pwned=1\">')")
    assert cap.stdout == '<img src=x onerror="window.__pwned=1">\n'


@pytest.mark.parametrize("code", ["print(1, end='')", "import sys\nsys.stdout.write('a')\nsys.stdout.flush()"])
def test_partial_lines(code: str) -> None:
    result, cap = run(code)
    assert result["ok"] is True
    assert cap.stdout in ("1", "a")


def test_very_deep_recursion_report_is_bounded() -> None:
    code = "import sys\nsys.setrecursionlimit(5000)\ndef f(n):\n    return f(n + 1)\nf(0)\n"
    result, _ = run(code)
    tb = result["error"]["traceback"]
    assert result["error"]["type"] == "RecursionError"
    assert "more calls left out …\nRecursionError: maximum recursion depth exceeded" in tb
    assert tb.count('File "scaled_softmax.py"') < 10  # identical frames are collapsed by traceback


# ---- import fallback for the trimmed stdlib ----------------------------------------------------------------


from labkit._stdlib import FullStdlibFinder  # noqa: E402


@pytest.fixture
def full_stdlib(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    """A 'trimmed' package on sys.path and a 'full' zip holding more modules; undone after the test."""
    import zipfile

    trimmed = tmp_path / "trimmed"
    (trimmed / "lkpkg").mkdir(parents=True)
    (trimmed / "lkpkg" / "__init__.py").write_text("WHERE = 'trimmed'\n")
    full = tmp_path / "full.zip"
    with zipfile.ZipFile(full, "w") as zf:
        zf.writestr("lkpkg/__init__.py", "WHERE = 'full'\n")
        zf.writestr("lkpkg/extra.py", "from . import WHERE as PARENT\nVALUE = 'extra'\n")
        zf.writestr("lkmissing/__init__.py", "")
        zf.writestr("lkmissing/deep.py", "VALUE = 'deep'\n")
    monkeypatch.syspath_prepend(str(trimmed))
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield full, ["lkpkg", "lkpkg.extra", "lkmissing", "lkmissing.deep"]
    for name in [n for n in sys.modules if n.split(".")[0] in ("lkpkg", "lkmissing")]:
        del sys.modules[name]
    sys.path_importer_cache.pop(str(full), None)


def test_left_out_module_is_fetched_once(full_stdlib: tuple[Path, list[str]]) -> None:
    full, names = full_stdlib
    mounts: list[int] = []

    def mount() -> str:
        mounts.append(1)
        return str(full)

    finder = FullStdlibFinder(mount, names)
    sys.meta_path.append(finder)
    import lkmissing.deep  # type: ignore[import-not-found]  # a left-out package and its submodule
    import lkpkg  # type: ignore[import-not-found]
    import lkpkg.extra  # type: ignore[import-not-found]  # left-out submodule of a package the trimmed zip has

    assert lkmissing.deep.VALUE == "deep" and lkpkg.WHERE == "trimmed" and lkpkg.extra.PARENT == "trimmed"
    assert mounts == [1] and str(full) in sys.path and finder.root == str(full)


def test_unknown_module_never_fetches(full_stdlib: tuple[Path, list[str]]) -> None:
    _full, names = full_stdlib
    finder = FullStdlibFinder(lambda: pytest.fail("must not download for a module it does not hold"), names)
    sys.meta_path.append(finder)
    with pytest.raises(ModuleNotFoundError):
        import lknotthere  # type: ignore[import-not-found]  # noqa: F401
    result, cap = run("import lkpkg.nope\n")
    assert result["error"]["type"] == "ModuleNotFoundError" and "lkpkg.nope" in cap.stderr


def test_failed_download_is_one_clear_error(full_stdlib: tuple[Path, list[str]]) -> None:
    _full, names = full_stdlib

    def offline() -> str:
        raise OSError("NetworkError: Failed to execute 'send' on 'XMLHttpRequest'")

    sys.meta_path.append(FullStdlibFinder(offline, names))
    result, cap = run("import lkmissing\n")
    assert result["error"]["type"] == "ImportError"
    assert "part of Python's standard library" in result["error"]["message"]
    assert "could not download the rest of the standard library" in result["error"]["message"]
    assert "Failed to execute" not in cap.stderr  # the host's detail is its console's (lab/worker/runner.js)


def test_install_is_idempotent_and_defaults_to_stdlib_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    first = labkit.install_stdlib_fallback(lambda: "/nowhere")
    assert labkit.install_stdlib_fallback(lambda: "/elsewhere") is first and sys.meta_path[-1] is first
    # CPython has no _lessonkit_stdlib list: any module under a top-level stdlib name counts.
    assert first._wanted("xml.dom.minidom") and not first._wanted("numpy")


def test_labkit_imports_only_the_stdlib() -> None:
    # The browser boots with a trimmed stdlib: labkit must stay within what it holds (see test_runtime).
    import ast

    for path in (LABKIT).glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import | ast.ImportFrom) and getattr(node, "level", 0) == 0:
                for name in [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]:
                    top = name.split(".")[0]
                    assert top in sys.stdlib_module_names or top in ("labkit", "_lessonkit_stdlib"), (path, name)


# ---- compiled-code cache: a re-run of unchanged code skips compiling, and nothing else changes --------------------


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Filenames labkit compiles, in order (its compile() is counted, not replaced)."""
    from labkit import _run

    seen: list[str] = []
    real = builtins.compile

    def counting(source: str, filename: str, *args: object, **kwargs: object) -> object:
        seen.append(filename)
        return real(source, filename, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(_run, "compile", counting, raising=False)
    return seen


def test_rerunning_unchanged_code_reuses_its_bytecode(compiled: list[str]) -> None:
    code = "n = 0\nn += 1\nprint(n)\n"
    for _ in range(3):
        result, cap = run(code)
        assert result["ok"] and cap.stdout == "1\n"  # a fresh namespace every run: the cache holds bytecode only
    assert compiled == [FILE]
    run(code + "# edited\n")
    assert compiled == [FILE, FILE]


def test_the_starter_is_compiled_at_boot_not_at_the_first_run(monkeypatch: pytest.MonkeyPatch) -> None:
    from labkit import _run

    assert labkit.precompile("x = (\n", FILE) is False  # a starter that does not compile is simply not cached
    assert labkit.precompile(STARTER, FILE) is True
    monkeypatch.setattr(_run, "compile", lambda *a, **k: pytest.fail("compiled again"), raising=False)
    result, cap = run(STARTER)
    assert result["ok"] and "head_dim=16" in cap.stdout


@pytest.mark.filterwarnings("ignore:invalid escape sequence")  # the learner's warning, expected here
def test_code_that_warns_when_compiled_is_never_cached(compiled: list[str]) -> None:
    code = 'pattern = "\\d+"\nprint(pattern)\n'  # an invalid escape: the warnings machinery decides, every run
    for runs in (1, 2):
        result, cap = run(code)
        assert result["ok"] and cap.stdout == "\\d+\n"
        assert len(compiled) == 2 * runs  # recorded once to see the warning, then compiled as if uncached
