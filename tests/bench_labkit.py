#!/usr/bin/env python3
"""Micro-benchmark of labkit's runner: what a run of the lesson's code costs, and what putting Python back costs.

Usage: .venv/bin/python tests/bench_labkit.py [--runs 200] [--no-node]
Prints medians for CPython (this interpreter) and for Pyodide under Node (the browser's wasm, without a browser: the
prebuilt runtime and labkit wheel the pages boot, from the installed lessonkit):
a run as the worker makes it (its result ready, the core of the clean state back), settle (the rest, done after the
result is handed out), and run_code putting nothing back (about what a run cost before runs were isolated); then the
first run of the lesson's code in a fresh interpreter, after the runner's warm-up (as the worker boots) and without it.
A benchmark, never a test: it always exits 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository: its root is the attention course, whose lab is run
LAB = ROOT / "lab"  # the course's lab folder
sys.path.insert(0, str(LAB))  # first on the path, as the build's lab host puts it

# Runs in both interpreters; prints one JSON line of medians in ms.
_MEASURE = r"""
import json, os, time
import labkit
from labkit import _run

def median_ms(fn, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    times.sort()
    return round(times[len(times) // 2] * 1000, 3)

def measure(code, runs):
    runner = labkit.make_runner(lambda t: None, lambda t: None)
    runner(code, "lab.py")  # the first call takes the clean state
    runner.settle()
    runs_t, settles_t = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        runner(code, "lab.py")
        t1 = time.perf_counter()
        runner.settle()
        t2 = time.perf_counter()
        runs_t.append(t1 - t0)
        settles_t.append(t2 - t1)
    runs_t.sort()
    settles_t.sort()
    plain = median_ms(lambda: _run.run_code(code, "lab.py", write_out=lambda t: None, write_err=lambda t: None,
                                            baseline=_NO_RESTORE), runs)
    return {"run": round(runs_t[runs // 2] * 1000, 3), "settle": round(settles_t[runs // 2] * 1000, 3),
            "bare": plain}

class _NoRestore:
    # run_code with nothing put back: its own streams are the only state it swaps (and they stay swapped here).
    def guarded(self, body, namespace):
        try:
            body()
        except BaseException as exc:
            return exc
    def restore_rest(self):
        pass
    def drop(self, caught):
        pass
    def settle(self):
        pass

_NO_RESTORE = _NoRestore()
import sys as _sys
_stdout, _stderr = _sys.stdout, _sys.stderr
report = {
    "lesson code": measure(CODE, RUNS),
    "error": measure("x = 1\nprint(x / 0)\n", max(RUNS // 4, 5)),
    "modules": len(_sys.modules),
}
_sys.stdout, _sys.stderr = _stdout, _stderr
print(json.dumps(report))
"""


# One fresh interpreter's first run of the lesson's code, as the worker's boot leaves it: the starter compiled, the
# runner made and (WARM) warmed up by labkit's own code, or its clean state taken by a run that does nothing.
_FIRST = r"""
import json, time, labkit
runner = labkit.make_runner(lambda t: None, lambda t: None)
labkit.precompile(CODE, "lab.py")
if WARM:
    runner.warm_up()
else:
    runner("pass", "<nothing>")
runner.settle()
t0 = time.perf_counter()
result = json.loads(runner(CODE, "lab.py"))
ms = (time.perf_counter() - t0) * 1000
assert result["ok"], result
print(json.dumps({"first": round(ms, 3)}))
"""
FIRST_REPEATS = 3


def first_runs(code: str, node: bool) -> dict[str, dict[str, float]]:
    """Median first-run ms per interpreter ("CPython", "Pyodide under Node"), with and without the warm-up."""
    import statistics
    import subprocess

    out: dict[str, dict[str, float]] = {}
    for warm in (True, False):
        program = f"CODE = {code!r}\nWARM = {warm}\n" + _FIRST
        key = "warm-up" if warm else "no warm-up"
        times = []
        for _ in range(FIRST_REPEATS):
            proc = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(LAB)!r})\n{program}"],
                                  capture_output=True, text=True, check=True)
            times.append(json.loads(proc.stdout.strip().splitlines()[-1])["first"])
        out.setdefault(f"CPython {sys.version.split()[0]}", {})[key] = statistics.median(times)
        if node:
            reports = [pyodide_program(program) for _ in range(FIRST_REPEATS)]
            if all(r is not None for r in reports):
                out.setdefault("Pyodide under Node", {})[key] = statistics.median(r["first"] for r in reports)
    return out


def pyodide_program(program: str) -> dict | None:
    """Run program in a fresh Pyodide under Node: the default release's prebuilt runtime as the build unpacks it
    (trimmed, precompiled stdlib) and its prebuilt labkit wheel (refused unless made from the installed labkit)."""
    from lessonkit import runtime
    from lessonkit.prebuild.node import node_boot_check

    try:
        prepared = runtime.runtime_dir()
        report = node_boot_check(prepared, prepared / runtime.STDLIB, program, [runtime.labkit_wheel()])
    except Exception as exc:  # a benchmark reports what it could not measure and goes on
        print(f"  Pyodide under Node: not measured ({str(exc).strip().splitlines()[-1]})")
        return None
    return json.loads(report["stdout"].strip().splitlines()[-1])


def _program(code: str, runs: int) -> str:
    """The measuring program for one lab's code."""
    return f"CODE = {code!r}\nRUNS = {runs}\n" + _MEASURE


def cpython(code: str, runs: int) -> dict:
    """Medians in this interpreter."""
    namespace: dict = {"__name__": "bench"}
    out = tempfile.TemporaryFile("w+")
    real = sys.stdout
    sys.stdout = out
    try:
        exec(_program(code, runs), namespace)  # our own measuring program
    finally:
        sys.stdout = real
    out.seek(0)
    return json.loads(out.read().strip().splitlines()[-1])


def pyodide(code: str, runs: int) -> dict | None:
    """Medians in Pyodide under Node, with the prepared (trimmed, precompiled) stdlib and the labkit wheel."""
    return pyodide_program(_program(code, runs))


def print_rows(name: str, report: dict | None) -> None:
    """One block of rows per interpreter."""
    if report is None:
        return
    print(f"{name} ({report['modules']} modules loaded)")
    for case in ("lesson code", "error"):
        r = report[case]
        print(f"  {case:<12} run {r['run']:7.3f} ms   settle {r['settle']:7.3f} ms   "
              f"run_code putting nothing back {r['bare']:7.3f} ms")


def main(argv: list[str] | None = None) -> int:
    """Measure and print; always 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--no-node", action="store_true", help="CPython only")
    args = parser.parse_args(argv)
    code = (LAB / "scaled_softmax.py").read_text(encoding="utf-8")
    print(f"labkit runner, medians of {args.runs} runs of lab/scaled_softmax.py (error: 1/4 as many)")
    print_rows(f"CPython {sys.version.split()[0]}", cpython(code, args.runs))
    if not args.no_node:
        print_rows("Pyodide under Node", pyodide(code, args.runs))
    print(f"First run of lab/scaled_softmax.py in a fresh interpreter, median of {FIRST_REPEATS}")
    for name, row in first_runs(code, not args.no_node).items():
        print(f"  {name:<20} after the warm-up {row['warm-up']:7.3f} ms   without it {row['no warm-up']:7.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
