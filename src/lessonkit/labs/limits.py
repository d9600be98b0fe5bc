"""labkit's facts, for the build and the page: labkit/_limits.py is their one home, and labkit/_words.py that of the
message keys labkit speaks by. The build reads those files (they import nothing, so loading them runs no lab code),
checks authors' declarations against them, and writes what the page needs into the generated module
generated/labkit.js (lessonkit.assets.scripts), which the page imports."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from lessonkit.core.places import labkit_package

SOURCE = labkit_package() / "_limits.py"
WORDS = labkit_package() / "_words.py"
MODULE = "labkit.js"  # in static/js/generated/


def _module(path: Path, name: str) -> Any:
    """One of labkit's files that import nothing, loaded by its path."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load labkit's {path.name} from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load() -> dict[str, Any]:
    """labkit's for_the_build(), and its message keys: SAID (key -> the names of its values) and WORDED."""
    words = _module(WORDS, "lessonkit_labkit_words")
    return {**_module(SOURCE, "lessonkit_labkit_limits").for_the_build(),
            "said": {key: list(names) for key, names in words.SAID.items()},
            "worded": {key: list(names) for key, names in words.WORDED.items()}}


FACTS = _load()
SAID: dict[str, list[str]] = FACTS["said"]  # what labkit reports by key (labkit/_words.py), and its values' names
WORDED: dict[str, list[str]] = FACTS["worded"]  # what it words from the messages its host gives it
CHART = FACTS["chart"]  # {charts, series, labels, text, side, points}: what one run may draw
IDENTIFIER: str = FACTS["identifier"]  # a Python name, as a block declares one
CHECK_TIMEOUT: float = FACTS["exercise"]["timeout"]  # an exercise's default seconds
CHECK_ATTEMPTS: int = FACTS["exercise"]["attempts"]  # failed checks before the solution may be revealed


def page_module() -> str:
    """The ES module the page imports labkit's facts from (static/js/generated/labkit.js)."""
    return ("// Made by the build from labkit's limits (labkit/_limits.py, lessonkit.labs.limits): never retyped.\n"
            f"export const LABKIT = Object.freeze({json.dumps(FACTS, indent=2, sort_keys=True)});\n")
