"""Run a learner's lab code, stream its output and record its charts: the same in the build (CPython) and the page (Pyodide)."""

from labkit._chart import bars
from labkit._check import check_code, close
from labkit._run import NO_INPUT_MESSAGE, precompile, run_code
from labkit._stdlib import install_stdlib_fallback
from labkit._worker import make_runner

__all__ = ["NO_INPUT_MESSAGE", "bars", "check_code", "close", "install_stdlib_fallback", "make_runner", "precompile", "run_code"]
__version__ = "0.1.0"
