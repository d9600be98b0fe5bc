"""Build-time labs run in a child process: every way a lab can end is a `path:line` problem, never a hung build."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from course import EXERCISE, LAB_LESSON, ROOT, build, edit, line_of, problems, write_course

from lessonkit.labs import process as labprocess
from lessonkit.labs import runner as labs

WIDGET_LESSON = LAB_LESSON + """
```{widget}
id: scale
file: demo.py
function: table
parameter:
  label: Divisor
  options: [1, 4]
bar: Weight
timeout: 1
```
"""
GOOD_LAB = "import math\n\nraw = [0.0, 4.0]\n\n\ndef softmax(xs):\n    exps = [math.exp(x) for x in xs]\n" \
           "    return [e / sum(exps) for e in exps]\n\n\ndef table(d):\n" \
           "    return [{'Key': i + 1, 'Weight': w} for i, w in enumerate(softmax([x / d for x in raw]))]\n\n\n" \
           "print('ran')\n"


def lab_problems(tmp_path: Path, code: str | bytes, lesson: str = LAB_LESSON) -> list[str]:
    """The problems of a course whose one lesson has a lab running `code`."""
    write_course(tmp_path, {"a.md": lesson}, {"demo.py": code})
    return problems(tmp_path)


# Each endless loop is on one line: a loop's jump back belongs to its `while` line, its body to the next.
@pytest.mark.parametrize("code", ["x = 0\n\nwhile True: x += 1\n",
                                  "import re\n\nre.match(r'(a+)+$', 'a' * 40 + 'b')  # never returns to Python\n"])
def test_a_lab_that_never_ends_is_stopped_at_the_line_it_was_running(tmp_path: Path, code: str) -> None:
    """The lab's time limit (`timeout:`) ends it, in Python or stuck in C, and names the line it was on."""
    line = 3
    assert lab_problems(tmp_path, code, LAB_LESSON.replace("timeout: 1", "timeout: 0.5")) == [
        f"lab/demo.py:{line}: the lab did not finish within 0.5 s (it was running this line) — make it end sooner, "
        'or allow more time in its {lab} block, e.g. "timeout: 20"',
    ]


EXITS = {
    "sys.exit": ("import sys\n\nsys.exit(3)\n", 3, "the lab exits early (SystemExit: 3) — the build runs it to its "
                 "end: remove the exit"),
    "raise SystemExit": ("def done():\n    raise SystemExit('bye')\n\n\ndone()\n", 2, "the lab exits early "
                         "(SystemExit: bye) — the build runs it to its end: remove the exit"),
    "exit()": ("print('a')\nexit(2)\n", 2, "the lab exits early (SystemExit: 2) — the build runs it to its end: "
               "remove the exit"),
    "os._exit": ("import os\n\nos._exit(3)\n", 3, "the lab ended its Python process (exit status 3, as os._exit "
                 "does) — the build runs it to its end: remove the exit"),
    "segfault": ("import ctypes\n\nctypes.string_at(0)\n", 3, "the lab's Python process crashed (SIGSEGV; a C "
                 "extension or ctypes call?) — the build runs the lab to its end: fix what crashes it"),
    "killed": ("import os, signal\n\nos.kill(os.getpid(), signal.SIGKILL)\n", 1, "the lab's Python process crashed "
               "(SIGKILL; out of memory?) — the build runs the lab to its end: fix what crashes it"),
    "fd 1": ("import os\n\nos.write(1, b'straight to the terminal')\n", 1, 'the lab wrote "straight to the '
             "terminal\" straight to its process's output (os.write, sys.__stdout__ or a C extension), which the "
             "page never shows — use print()"),
    "import": ("import math\nimport numpy_that_is_not_here\n", 2, "ModuleNotFoundError: No module named "
               "'numpy_that_is_not_here': this lab runs Python's standard library only (and the packages this "
               "lesson lists). — the lab must run unchanged"),
    "not UTF-8": ("print('fine')\nprint(b'caf\\xe9'.decode('utf-8', 'surrogateescape'))\n", 2, "the lab prints "
                  'text that is not valid Unicode (a lone surrogate such as "\\udcff", e.g. from bytes decoded with '
                  'errors="surrogateescape") — print text decoded with errors="replace"'),
    "100 MB": ("print('ok')\nprint('x' * 100_000_000)\n", 2, "the lab prints more than the page shows (2,000 lines "
               "or 100,000 characters) — print less"),
    "many lines": ("for i in range(10**7):\n    print(i)\n", 2, "the lab prints more than the page shows (2,000 "
                   "lines or 100,000 characters) — print less"),
    "memory": ("big = bytearray(8 << 30)\n", 1, "MemoryError: Python ran out of memory: the program keeps too much data "
               "at once — the lab must run unchanged"),
    "two-line error": ("raise ValueError('first\\nsecond')\n", 1, "ValueError: first second — the lab must run "
                       "unchanged"),
    "the build's pipe": ("import os\n\nos.write(int(open('/proc/self/cmdline').read().split('\\0')[-3]), b'{}\\n')\n",
                         1, "the lab's process answered something the build cannot read (did the lab write to a file "
                         "descriptor it did not open?) — leave the process's files alone"),
}


@pytest.mark.parametrize("case", EXITS)
def test_every_way_a_lab_ends_is_a_problem_at_its_line(tmp_path: Path, case: str) -> None:
    """Exits, crashes, stray output, imports, invalid text, floods: each a problem at the lab's own line."""
    code, line, message = EXITS[case]
    assert lab_problems(tmp_path, code) == [f"lab/demo.py:{line}: {message}"]


def test_an_exit_with_status_0_is_a_normal_end_as_on_the_page(tmp_path: Path) -> None:
    """sys.exit() and exit(0) end a run without error in the browser: the build agrees, and keeps what was printed."""
    write_course(tmp_path, {"a.md": LAB_LESSON}, {"demo.py": "print('before')\nimport sys\nsys.exit(0)\nprint('after')\n"})
    html = (build(tmp_path) / "a.html").read_text()
    assert re.search(r"<pre class=\"lab-pre\" data-lab-pre tabindex=\"0\">(.*?)</pre>", html, re.S).group(1) == "before\n"


def test_a_lab_that_breaks_modules_breaks_only_its_own_process(tmp_path: Path) -> None:
    """Replacing json.dumps or print, or clearing sys.modules, once took the build down with the lab."""
    code = "import builtins, json, sys\n\nprint('ran')\njson.dumps = builtins.print = None\nsys.modules.clear()\n"
    write_course(tmp_path, {"a.md": LAB_LESSON}, {"demo.py": code})
    assert "ran" in (build(tmp_path) / "a.html").read_text()


def test_build_py_exits_1_and_prints_the_problem_of_a_lab_that_exits(tmp_path: Path) -> None:
    """`lessonkit build` with a lab that exits: exit status 1 and the problem printed (it was 0, silently, no site)."""
    write_course(tmp_path, {"a.md": LAB_LESSON}, {"demo.py": "import sys\nsys.exit(5)\n"})
    out = tmp_path / "site"
    result = subprocess.run([sys.executable, "-m", "lessonkit", "build", "--course", str(tmp_path)], cwd=tmp_path,
                            capture_output=True, text=True, check=False)
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == ("lab/demo.py:2: the lab exits early (SystemExit: 5) — the build runs it to its "
                                            "end: remove the exit")
    assert not out.exists()


@pytest.mark.parametrize("value", ["0", "-1", "soon", "601", "true"])
def test_the_time_limit_is_checked(tmp_path: Path, value: str) -> None:
    """`timeout:` is a number of seconds, more than 0 and at most 600."""
    lesson = LAB_LESSON.replace("timeout: 1", f"timeout: {value}")
    assert lab_problems(tmp_path, "x = 1\n", lesson) == [
        f'lesson/a.md:{line_of(lesson, "timeout:")}: "timeout:" is the seconds the lab may run at build time, more '
        'than 0 and at most 600, e.g. "timeout: 20"',
    ]


def test_lab_files_outside_the_lab_folder_are_refused(tmp_path: Path) -> None:
    """`file: ../x.py`, an absolute path, and a link out of lab/ would run and publish code from anywhere."""
    (tmp_path / "elsewhere.py").write_text("print('not a lab')\n")
    lesson = LAB_LESSON + "".join(f"\n```{{lab}}\nid: lab-{n}\nfile: {f}\n```\n" for n, f in
                                  enumerate(["../elsewhere.py", str(tmp_path / "elsewhere.py"), "link.py"]))
    write_course(tmp_path, {"a.md": lesson}, {"demo.py": "x = 1\n"})
    (tmp_path / "lab" / "link.py").symlink_to(tmp_path / "elsewhere.py")
    lines = [line_of(lesson, f"id: lab-{n}") + 1 for n in range(3)]  # each "file:" line
    assert problems(tmp_path) == [
        f'lesson/a.md:{lines[0]}: lab file "../elsewhere.py" is outside lab/ — lab files live in lab/: move it there '
        'and write "file: elsewhere.py"',
        f'lesson/a.md:{lines[1]}: lab file "elsewhere.py" is outside lab/ — lab files live in lab/: move it there '
        'and write "file: elsewhere.py"',  # the absolute path, less the test's folder
        f'lesson/a.md:{lines[2]}: lab file "lab/link.py" is a link to a file outside lab/ — the build publishes '
        "only what is in lab/: copy the file there instead",
    ]


def test_a_lab_module_that_links_outside_the_lab_folder_is_refused_at_each_import(tmp_path: Path) -> None:
    """A module in lab/ that is a link out of it (say, to a file of secrets) would run at build time, and an
    exercise's check importing it would publish its source with the checks: each import of it is refused at its line,
    in the lab file, the lab module or the check that has it."""
    (tmp_path / "secret.py").write_text("TOKEN = 'never on the page'\n")
    check = "      from stats import mean as reference, values\n"
    lesson = edit(EXERCISE, check, check + "      import helpers\n") + LAB_LESSON[LAB_LESSON.index("## Lab"):]
    write_course(tmp_path, {"averages.md": lesson}, {
        "demo.py": "x = 1\nimport helpers\n", "stats.py": "from shared import values\n\n\ndef mean(xs):\n"
        "    return sum(xs) / len(xs)\n", "shared.py": "values = [2.0, 4.0]\n\nfrom helpers import TOKEN\n"})
    (tmp_path / "lab" / "helpers.py").symlink_to(tmp_path / "secret.py")
    refused = ('lab module "lab/helpers.py" (imported here) is a link to a file outside lab/ — the build publishes only '
               "what is in lab/: copy the file there instead")
    assert problems(tmp_path) == [f"lab/demo.py:2: {refused}", f"lab/shared.py:3: {refused}",
                                  f"lesson/averages.md:{line_of(lesson, check) - 1}: {refused}"]


@pytest.mark.parametrize(("call", "message"), [
    ("subprocess.run([sys.executable, '-c', 'pass'], preexec_fn=lambda: None)",
     "RuntimeError: a build-time lab cannot run Python in a copy of the lab's process (subprocess's preexec_fn runs "
     "in one, which shares its channel to the build): start the program without preexec_fn"),
    ("ctypes.CDLL(None).fork()",
     "RuntimeError: a build-time lab cannot fork the lab's process (the copy would share its channel to the build and "
     "run on after it): compute in this process, or start a program with subprocess"),
], ids=["preexec_fn", "ctypes"])
def test_a_lab_that_would_copy_its_process_is_refused_at_its_line(tmp_path: Path, call: str, message: str) -> None:
    code = f"import ctypes, subprocess, sys\n\n{call}\n"
    assert lab_problems(tmp_path, code) == [f"lab/demo.py:3: {message} — the lab must run unchanged"]


def test_a_lab_with_a_byte_order_mark_runs_and_is_shown_without_it(tmp_path: Path) -> None:
    """A BOM is not part of the code (it was a SyntaxError at U+FEFF)."""
    write_course(tmp_path, {"a.md": LAB_LESSON}, {"demo.py": b"\xef\xbb\xbfprint('hello from the lab')\n"})
    html = (build(tmp_path) / "a.html").read_text()
    assert "hello from the lab" in html and "\ufeff" not in html


def test_files_a_lab_writes_stay_out_of_the_project(tmp_path: Path) -> None:
    """The lab runs in a folder of its own (it ran in the build's working directory, the project)."""
    write_course(tmp_path, {"a.md": LAB_LESSON}, {"demo.py": "open('lab-wrote-this.txt', 'w').write('x')\n"})
    build(tmp_path)
    assert not list(ROOT.glob("lab-wrote-this.txt")) and not list(tmp_path.rglob("lab-wrote-this.txt"))


# --- values the build asks a lab for ------------------------------------------------------------------------------

def widget_states(site: Path) -> dict[str, list[str]]:
    """The widget's shown bar values per option, from its templates."""
    states = re.findall(r'<template data-widget-state="([^"]+)">(.*?)</template>', (site / "a.html").read_text(), re.S)
    return {key: re.findall(r"<span data-value>(.*?)</span>", html) for key, html in states}


@pytest.mark.parametrize(("change", "message"), [
    ("    return [e / sum(exps) for e in exps]", "table(1) raised ZeroDivisionError: division by zero (at "
     "lab/demo.py:8) — fix the function: the build calls it once per value"),
    ("    while True: xs = list(xs)", "table(1) did not finish within 0.5 s (at lab/demo.py:8) — make it end sooner, or "
     'allow more time with "timeout:" in the {widget} block, e.g. "timeout: 20"'),
])
def test_a_lab_function_that_fails_for_the_widget_names_the_lab_s_line(tmp_path: Path, change: str,
                                                                       message: str) -> None:
    """An error or an endless loop inside the function the widget calls: at its "function:", naming the lab's line."""
    code = GOOD_LAB.replace("    return [e / sum(exps) for e in exps]", change)
    if "while" not in change:
        code = code.replace("    exps = [math.exp(x) for x in xs]\n", "    exps = [math.exp(x) for x in xs]\n    1 / 0\n")
    lesson = WIDGET_LESSON.replace("timeout: 1", "timeout: 0.5")
    assert lab_problems(tmp_path, code, lesson) == [f'lesson/a.md:{line_of(lesson, "function: table")}: {message}']


@pytest.mark.parametrize(("change", "message"), [
    ("    return [{'Key'", 'table(1) is a set, which the build cannot read: use numbers, strings, lists and dicts'),
    ("def table(d):", 'lab/demo.py defines no function "table" — define it, or name a function it defines'),
])
def test_values_the_build_cannot_use_are_named(tmp_path: Path, change: str, message: str) -> None:
    """A set is not JSON; a name that is not a function cannot be called."""
    if change == "def table(d):":
        code = GOOD_LAB.replace("def table(d):\n", "table = 3\n\n\ndef unused(d):\n")
    else:
        code = GOOD_LAB.replace("    return [{'Key'", "    return {frozenset([1])} or [{'Key'")
    assert lab_problems(tmp_path, code, WIDGET_LESSON) == [
        f'lesson/a.md:{line_of(WIDGET_LESSON, "function: table")}: {message}']


# --- speed: answers are kept by content -------------------------------------------------------------------------------

def test_a_rebuild_takes_an_unchanged_lab_s_answers_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The second build starts no process; changing the lab's code runs it again."""
    write_course(tmp_path, {"a.md": WIDGET_LESSON}, {"demo.py": GOOD_LAB})
    site = build(tmp_path)
    assert widget_states(site)["1"] == ["1.8%", "98.2%"]  # raw and softmax, as JSON
    first = (site / "a.html").read_text()
    labs._memory.clear()  # as a new `build.py` process would start: the answers come from .cache/labs

    def no_process(*args: object) -> None:
        raise AssertionError("a lab process was started")

    monkeypatch.setattr(labprocess.LabHost, "__init__", no_process)
    assert (build(tmp_path) / "a.html").read_text() == first
    (tmp_path / "lab" / "demo.py").write_text(GOOD_LAB.replace("raw = [0.0, 4.0]", "raw = [0.0, 8.0]"))
    with pytest.raises(AssertionError, match="a lab process was started"):
        build(tmp_path)


# --- the dev server keeps working -----------------------------------------------------------------------------------

def test_the_dev_server_reports_a_looping_lab_and_builds_the_fix(tmp_path: Path) -> None:
    """`build.py serve` on a course whose lab loops: the problem is reported, and each later fix is built.

    Before, the rebuild thread spun at 100 % inside the lab for ever and no later edit was ever built.
    """
    looping = "print('start')\nx = 0\nwhile True: x += 1\n"
    write_course(tmp_path, {"a.md": LAB_LESSON.replace("timeout: 1", "timeout: 0.5")}, {"demo.py": looping})
    lab = tmp_path / "lab" / "demo.py"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "lessonkit", "serve", "--port", str(port), "--course",
                             str(tmp_path)],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})

    def get(path: str) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def state_when(predicate: Callable[[dict], bool], timeout: float = 60) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = json.loads(get("/__lessonkit/events")[1])
            if predicate(state):
                return state
            time.sleep(0.1)
        raise AssertionError("the dev server never reported the expected build")

    try:
        assert proc.stdout is not None
        started = []
        while not any("Ctrl-C" in line for line in started[-1:]):
            started.append(proc.stdout.readline())
            assert started[-1], "".join(started)
        assert "lab/demo.py:3: the lab did not finish within 0.5 s (it was running this line)" in "".join(started)
        assert get("/")[0] == 404  # nothing good was ever built
        first = state_when(lambda s: True)

        lab.write_text("print('fixed')\n")
        fixed = state_when(lambda s: s["epoch"] != first["epoch"])
        assert fixed["problems"] == [] and b"fixed" in get("/a.html")[1]

        lab.write_text(looping)
        broken = state_when(lambda s: s["seq"] != fixed["seq"])
        assert broken["problems"] == ["lab/demo.py:3: the lab did not finish within 0.5 s (it was running this line) — make "
                                      'it end sooner, or allow more time in its {lab} block, e.g. "timeout: 20"']
        assert b"fixed" in get("/a.html")[1]  # the last good site is still served

        lab.write_text("print('fixed again')\n")
        again = state_when(lambda s: s["epoch"] != fixed["epoch"])
        assert again["problems"] == [] and b"fixed again" in get("/a.html")[1]
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
    assert host_processes(tmp_path / "lab") == [], "a lab process outlived the server"


def host_processes(lab_dir: Path) -> list[str]:
    """Command lines of running lab hosts for this lab folder (read from /proc)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            args = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        if any(a.endswith(b"labhost.py") for a in args) and str(lab_dir.resolve()).encode() in args:
            found.append(b" ".join(args).decode(errors="replace"))
    return found
