"""labkit's facts, for the build and the page: labkit/_limits.py is their one home. The build reads that file
(it imports nothing, so loading it runs no lab code), checks authors' declarations against it, and writes what the
page needs into the generated module generated/labkit.js (lessonkit.assets.scripts), which the page imports."""

from __future__ import annotations

import importlib.util
import json
from typing import Any

from lessonkit.core.places import labkit_package

SOURCE = labkit_package() / "_limits.py"
MODULE = "labkit.js"  # in static/js/generated/


def _load() -> dict[str, Any]:
    """labkit's for_the_build(), from its file."""
    spec = importlib.util.spec_from_file_location("lessonkit_labkit_limits", SOURCE)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load labkit's limits from {SOURCE}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module.for_the_build())


FACTS = _load()
CHART = FACTS["chart"]  # {charts, series, labels, text, side, points}: what one run may draw
IDENTIFIER: str = FACTS["identifier"]  # a Python name, as a block declares one
CHECK_TIMEOUT: float = FACTS["exercise"]["timeout"]  # an exercise's default seconds
CHECK_ATTEMPTS: int = FACTS["exercise"]["attempts"]  # failed checks before the solution may be revealed


def page_module() -> str:
    """The ES module the page imports labkit's facts from (static/js/generated/labkit.js)."""
    return ("// Made by the build from labkit's limits (labkit/_limits.py, lessonkit.labs.limits): never retyped.\n"
            f"export const LABKIT = Object.freeze({json.dumps(FACTS, indent=2, sort_keys=True)});\n")
