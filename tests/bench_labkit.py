#!/usr/bin/env python3
"""Micro-benchmark of labkit's runner: what a run of the lesson's code costs, and what putting Python back costs.

Usage: .venv/bin/python tests/bench_labkit.py [--runs 200] [--no-node]
Prints medians for CPython (this interpreter) and for Pyodide under Node (the browser's wasm, without a browser):
a run as the worker makes it (its result ready, the core of the clean state back), settle (the rest, done after the
result is handed out), and run_code putting nothing back (about what a run cost before runs were isolated).
A benchmark, never a test: it always exits 0.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "lab")]

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
    from lessonkit import runtime

    try:
        prepared = runtime.prepare_runtime(ROOT)
        with tempfile.TemporaryDirectory() as tmp:
            wheel = runtime.build_labkit_wheel(ROOT / "lab", Path(tmp))
            report = runtime.node_boot_check(prepared, prepared / runtime.STDLIB, _program(code, runs),
                                             [Path(tmp) / wheel])
    except Exception as exc:  # a benchmark reports what it could not measure and goes on
        print(f"  Pyodide under Node: not measured ({str(exc).strip().splitlines()[-1]})")
        return None
    return json.loads(report["stdout"].strip().splitlines()[-1])


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
    code = (ROOT / "lab" / "scaled_softmax.py").read_text(encoding="utf-8")
    print(f"labkit runner, medians of {args.runs} runs of lab/scaled_softmax.py (error: 1/4 as many)")
    print_rows(f"CPython {sys.version.split()[0]}", cpython(code, args.runs))
    if not args.no_node:
        print_rows("Pyodide under Node", pyodide(code, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
