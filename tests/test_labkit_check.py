"""labkit's check runner in CPython: what a learner sees for each kind of check outcome (labkit's own words by key,
worded here as an English page words them), and what cannot fool it."""

from __future__ import annotations

import builtins
import sys
import time
from pathlib import Path

import pytest
from places import FIXTURE

from lessonkit.core.messages import Messages

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(FIXTURE / "lab"))


import labkit  # noqa: E402
from labkit import _check  # noqa: E402
from labkit import _limits as limits  # noqa: E402

FILE = "exercise.py"
GOOD = "def double(x):\n    return 2 * x\n"


def check(code: str, *checks: str | tuple[str, str] | dict, timeout: float = 2.0, reveal: bool = False) -> dict:
    """Run code against checks given as code (named c1, c2, …), (name, code) or dicts."""
    listed = []
    for n, c in enumerate(checks, 1):
        if isinstance(c, str):
            c = {"name": f"c{n}", "code": c}
        elif isinstance(c, tuple):
            c = {"name": c[0], "code": c[1]}
        listed.append(c)
    return labkit.check_code(code, FILE, listed, timeout=timeout, reveal=reveal)


ENGLISH = Messages("en")
HIDDEN = ENGLISH.text("check.hidden")
NOT_RUN = ENGLISH.text("check.not_run")
EXITED = ENGLISH.text("check.exited")


def shown(item: dict) -> str:
    """What the page shows of a check's or an error's outcome, in English: labkit's said, worded, else its message."""
    return ENGLISH.said(item["said"]) if item.get("said") else item["message"]


def statuses(report: dict) -> list[tuple[str, str]]:
    """(status, what it says) per check."""
    return [(c["status"], shown(c)) for c in report["checks"]]


def test_passing_checks() -> None:
    report = check(GOOD, ("doubles 2", "assert double(2) == 4"), ("doubles 0", "assert double(0) == 0"))
    assert report == {"ok": True, "passed": 2, "total": 2, "error": None, "output": "", "truncated": False,
                      "checks": [{"name": "doubles 2", "secret": False, "status": "passed", "message": "",
                                  "said": None, "traceback": ""},
                                 {"name": "doubles 0", "secret": False, "status": "passed", "message": "",
                                  "said": None, "traceback": ""}]}


def test_a_bare_comparison_says_expected_and_got() -> None:
    report = check("def double(x):\n    return x + 1\n", "assert double(3) == 6", "assert double(3) > 10",
                   "assert 'z' in 'abc'", "assert double(1)")
    assert statuses(report) == [("failed", "expected 6, got 4"), ("failed", "expected 4 > 10"),
                                ("failed", "expected 'z' in 'abc'"), ("passed", "")]
    assert report["passed"] == 1 and report["ok"] is False


def test_the_assertions_own_message_wins_and_a_plain_assert_says_it_failed() -> None:
    report = check(GOOD, "assert double(1) == 3, 'double(1) should be 3 here'", "assert not double(1)")
    assert statuses(report) == [("failed", "double(1) should be 3 here"), ("failed", "the check's assertion failed")]


def test_long_values_are_trimmed() -> None:
    report = check("def f():\n    return list(range(1000))\n", "assert f() == []")
    (message,) = [shown(c) for c in report["checks"]]
    assert report["checks"][0]["said"]["key"] == "check.expected"
    assert message.startswith("expected [], got [0, 1, 2") and message.endswith("…")
    assert len(message) < 120


def test_close_compares_numbers_and_lists_within_a_tolerance() -> None:
    report = check("xs = [0.1 + 0.2, 1.0]\n", "assert close(xs, [0.3, 1.0])", "assert close(xs[0], 0.31, 0.001)",
                   "assert close(xs, [0.3])")
    assert statuses(report) == [("passed", ""), ("failed", "expected 0.31 (within 0.001), got 0.30000000000000004"),
                                    ("failed", "expected [0.3] (within 1e-06), got [0.30000000000000004, 1.0]")]
    assert labkit.close(0.1 + 0.2, 0.3) and not labkit.close([1, 2], [1]) and not labkit.close("1", 1)


def test_secret_checks_are_named_with_a_generic_message() -> None:
    secret = {"name": "hidden case", "code": "assert double(5) == 11, 'the answer is 11'", "secret": True}
    report = check(GOOD, secret)
    assert report["checks"] == [{"name": "hidden case", "secret": True, "status": "failed", "message": "",
                                 "said": {"key": "check.hidden", "values": {}}, "traceback": ""}]
    assert shown(report["checks"][0]) == HIDDEN
    assert "11" not in str(report)
    assert check(GOOD, secret, reveal=True)["checks"][0]["message"] == "the answer is 11"


def test_an_error_in_the_learners_function_shows_their_own_lines() -> None:
    code = "def double(x):\n    y = x * 2\n    return y / 0\n"
    (item,) = check(code, "assert double(1) == 2")["checks"]
    assert item["status"] == "error"
    assert item["said"] == {"key": "check.raised", "values": {"error": "ZeroDivisionError: division by zero"}}
    assert shown(item) == "your code raised ZeroDivisionError: division by zero"
    assert 'File "exercise.py", line 3, in double' in item["traceback"]
    assert "labkit" not in item["traceback"] and "<check>" not in item["traceback"]


def test_an_error_whose_attribute_writes_go_elsewhere_shows_the_learners_lines_only() -> None:
    # Like Pyodide's JsException: writes to the exception (its __traceback__ too) go to the object it stands for.
    code = ("class Proxied(Exception):\n    def __setattr__(self, name, value):\n        pass\n\n\n"
            "def double(x):\n    raise Proxied('SyntaxError')\n")
    (item,) = check(code, "assert double(1) == 2")["checks"]
    assert shown(item) == "your code raised Proxied: SyntaxError"
    assert item["traceback"].splitlines() == [
        "Traceback (most recent call last):", '  File "exercise.py", line 7, in double',
        "    raise Proxied('SyntaxError')", "Proxied: SyntaxError"], item["traceback"]


def test_an_error_in_the_check_itself_names_it() -> None:
    assert statuses(check(GOOD, "assert attend(1) == 2")) == [("error", "NameError: name 'attend' is not defined")]


def test_an_error_in_the_learners_code_skips_the_checks() -> None:
    report = check("def double(x):\n    return 2 * x\n\nprint(1 / 0)\n", "assert double(1) == 2")
    assert report["error"]["type"] == "ZeroDivisionError" and report["error"]["line"] == 4
    assert statuses(report) == [("skipped", NOT_RUN)]
    assert "ZeroDivisionError" in report["output"]


def test_rebinding_print_assert_helpers_and_builtins_cannot_make_checks_pass() -> None:
    code = GOOD.replace("2 * x", "3 * x") + (
        "import builtins\n"
        "builtins.AssertionError = type('Never', (Exception,), {})\n"
        "builtins.print = lambda *a: None\n"
        "builtins.len = lambda x: 99\n"
        "close = lambda *a, **k: True\n"
        "all = lambda *a: True\n"
        "def any(*a): return True\n"
    )
    report = check(code, "assert double(2) == 4", "assert close(double(1), 2)", "assert all([False])",
                   "assert len([1]) == 1")
    assert statuses(report) == [("failed", "expected 4, got 6"), ("failed", "expected 2 (within 1e-06), got 3"),
                                ("failed", "the check's assertion failed"), ("passed", "")]
    assert builtins.print is not None and builtins.AssertionError.__name__ == "AssertionError"


def test_deleting_builtins_in_the_learners_code_is_put_back_before_the_checks() -> None:
    code = GOOD + "import builtins\ndel builtins.len, builtins.print\ndel __builtins__\n"
    report = check(code, "assert len(str(double(21))) == 2", "print('checking'); assert double(2) == 4")
    assert statuses(report) == [("passed", ""), ("passed", "")]
    assert report["output"] == "checking\n"
    assert len("ok") == 2


def test_output_is_captured_apart_from_the_report() -> None:
    code = "print('top level')\ndef double(x):\n    print('called with', x)\n    return 2 * x\n"
    report = check(code, "assert double(4) == 8", "import sys; print('to stderr', file=sys.stderr)")
    assert report["output"] == "top level\ncalled with 4\nto stderr\n"
    assert report["ok"] is True


def test_a_flood_of_output_is_cut_and_the_checks_still_run() -> None:
    code = GOOD + "for i in range(5_000):\n    print(i)\n"
    report = check(code, "assert double(1) == 2", "for i in range(5_000): print('x' * 50)")
    assert report["truncated"] is True and report["ok"] is True
    assert len(report["output"]) <= limits.for_the_page()["checkChars"]
    assert report["output"].count("\n") <= limits.for_the_page()["checkLines"]


def test_an_exceptions_enormous_name_and_message_make_one_short_check_message() -> None:
    code = "def double(x):\n    raise type('E' * 100_000, (Exception,), {})('m' * 100_000)\n"
    (item,) = check(code, "assert double(1) == 2")["checks"]
    raised = item["said"]["values"]["error"]
    assert item["status"] == "error" and len(raised) == _check.MAX_MESSAGE and raised.endswith("…")
    assert len(item["traceback"]) <= limits.REPORT_CHARS


def test_an_endless_loop_in_a_check_or_the_learners_code_takes_too_long() -> None:
    started = time.monotonic()
    report = check("def spin():\n    n = 0\n    while True:\n        n += 1\n", "spin()", "assert 1 == 1", timeout=0.3)
    assert statuses(report) == [("timeout", "took too long (more than 0.3 s)"), ("passed", "")]
    report = check("n = 0\nwhile True:\n    n += 1\n", "assert 1 == 1", timeout=0.3)
    assert report["error"]["type"] == "TookTooLong"
    assert shown(report["error"]) == "your code took too long (more than 0.3 s)"
    assert statuses(report) == [("skipped", NOT_RUN)]
    assert time.monotonic() - started < 10  # not a timing assertion: an endless loop would never get here


def test_sleeping_past_the_limit_takes_too_long_at_once() -> None:
    started = time.monotonic()
    report = check("import time\ndef nap():\n    time.sleep(60)\n", "nap()", "import time; time.sleep(0.01)", timeout=0.2)
    assert statuses(report) == [("timeout", "took too long (more than 0.2 s)"), ("passed", "")]
    assert time.monotonic() - started < 30
    assert time.sleep is _check._real_sleep


def test_system_exit_in_the_learners_code_or_function() -> None:
    report = check("import sys\nsys.exit(2)\n", "assert 1 == 1")
    assert report["error"]["type"] == "SystemExit" and statuses(report) == [("skipped", NOT_RUN)]
    report = check("def leave():\n    raise SystemExit(1)\n", "leave()", "assert 2 == 2")
    assert statuses(report) == [("error", EXITED), ("passed", "")]
    report = check("import sys\nsys.exit(0)\n", "assert 1 == 1")
    assert report["ok"] is True


def test_each_check_has_a_namespace_of_its_own() -> None:
    report = check("value = 1\n", "value = 2\nleft = 1", "assert value == 1\nassert 'left' not in dir()")
    assert statuses(report) == [("passed", ""), ("passed", "")]


def test_a_check_with_a_syntax_error_is_refused_when_compiled() -> None:
    with pytest.raises(SyntaxError) as info:
        _check.compile_check("x = 1\nassert x ==\n")
    assert info.value.lineno == 2


def test_the_interpreter_is_clean_after_a_check_run() -> None:
    before = (sys.gettrace(), time.sleep, builtins.print, sys.stdout)
    check("import builtins\nbuiltins.print = None\n", "import sys; sys.settrace(None)", timeout=0.5)
    assert (sys.gettrace(), time.sleep, builtins.print, sys.stdout) == before


def test_a_check_may_import_the_lessons_lab_files_from_their_sources() -> None:
    lab = "print('the lab runs')\ndef reference(x):\n    return x + x\n"
    checks = [{"name": "like the lab", "code": "from some_lab import reference\nassert double(7) == reference(7)"}]
    report = labkit.check_code(GOOD, FILE, checks, modules={"some_lab": lab})
    assert statuses(report) == [("passed", "")] and report["output"] == ""
    assert "some_lab" not in sys.modules


def test_what_a_lab_file_draws_while_a_check_imports_it_is_not_the_check_s() -> None:
    """A lab that draws its charts at import (no `if __name__ == "__main__":`), imported by every check: no check
    pays for its charts, however many checks import it, and a run after them starts with none."""
    lab = "import labkit\nfor n in range(16):\n    labkit.heatmap([[n]])\nrows = [[0.5, 0.5]]\n"
    checks = [{"name": f"row {n} adds up to 1", "code": "from causal_masking import rows\nassert sum(rows[0]) == 1"}
              for n in range(3)]
    code = GOOD + "import labkit\nlabkit.bars({'a': [1]})\n"
    report = labkit.check_code(code, FILE, checks, modules={"causal_masking": lab})
    assert statuses(report) == [("passed", "")] * 3
    from labkit import _chart

    assert _chart._drawn == []


def test_an_error_while_a_check_imports_a_lab_file_says_the_import_raised_it() -> None:
    lab = "import labkit\nlabkit.bars({'a': [float('nan')]})\n"
    checks = [{"name": "imports the lab", "code": "import broken_lab"}]
    report = labkit.check_code(GOOD, FILE, checks, modules={"broken_lab": lab})
    assert statuses(report) == [("error", "ImportError: importing the lab file broken_lab.py raised ChartError: "
                                          "labkit.bars: value 1 of series 'a' is nan; a bar needs a finite number")]
