"""Run a learner's lab code safely-ish and read its output: shared by the build (CPython) and the browser (Pyodide)."""

from labkit._chart import chart_data
from labkit._run import NO_INPUT_MESSAGE, precompile, run_code
from labkit._stdlib import install_stdlib_fallback
from labkit._worker import make_runner

__all__ = ["NO_INPUT_MESSAGE", "chart_data", "install_stdlib_fallback", "make_runner", "precompile", "run_code"]
__version__ = "0.1.0"
