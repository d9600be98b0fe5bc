"""What a test needs beside the toolkit's own packages: missing, it skips on a developer's machine, saying how to get
it, and fails under CI (`CI` set; `.ci/run` sets it), where every test must run."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest


def in_ci() -> bool:
    """Whether the tests run under CI (`CI` set to anything but "", 0, false or no)."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


TEST_EXTRA = "pip install -e '.[test]'"  # the Python packages the tests use (pyproject.toml's test extra)


def require(module: str, install: str = TEST_EXTRA) -> ModuleType:
    """`module`, imported; missing, a failure under CI and a skip elsewhere (of the test, or of the module when it
    is called as the module is collected), both saying `install`."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if in_ci():
            pytest.fail(f"{module} is not installed ({exc}): CI must run this test ({install})", pytrace=False)
        pytest.skip(f"{module} is not installed ({install} to run this test; CI fails instead of skipping)",
                    allow_module_level=True)
