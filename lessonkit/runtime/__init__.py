"""The lab's Python runtime, vendored: Pyodide checked against vendor-manifest.json, the pyc stdlib, wheels."""

from lessonkit.runtime.vendor import *  # noqa: F403
