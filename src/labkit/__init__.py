"""Run a learner's lab code, stream its output and record its charts: the same in the build (CPython) and the page (Pyodide)."""

from labkit._chart import bars
from labkit._check import check_code, close
from labkit._heatmap import heatmap
from labkit._lines import lines
from labkit._run import precompile, run_code
from labkit._stdlib import install_stdlib_fallback
from labkit._worker import make_runner

__all__ = ["bars", "check_code", "close", "heatmap", "install_stdlib_fallback", "lines",
           "make_runner", "precompile", "run_code"]
__version__ = "0.1.0"

# What a lab's code calls: the rest of labkit is the runner's.
OFFERED = ("bars", "heatmap", "lines", "close")


def __getattr__(name: str) -> object:
    """An unknown name says what labkit offers (Python adds its own "Did you mean" to the report)."""
    import sys

    offered = ", ".join(f"labkit.{n}" for n in OFFERED[:-1]) + f" and labkit.{OFFERED[-1]}"
    raise AttributeError(f"module 'labkit' has no attribute {name!r}; a lab can use {offered}", name=name,
                         obj=sys.modules[__name__])
