"""A test's own requirement (tests/required.py): missing, it fails under CI and skips elsewhere."""

from __future__ import annotations

import pytest
from required import require

MISSING = "lessonkit_no_such_module"
INSTALL = "apt-get install it"


@pytest.mark.parametrize("ci", ["1", "true"])
def test_a_missing_requirement_fails_under_ci(monkeypatch: pytest.MonkeyPatch, ci: str) -> None:
    monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.fail.Exception, match=f"{MISSING} is not installed .*CI must run this test"):
        require(MISSING, INSTALL)


@pytest.mark.parametrize("ci", [None, "", "0", "false"])
def test_a_missing_requirement_skips_elsewhere(monkeypatch: pytest.MonkeyPatch, ci: str | None) -> None:
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.skip.Exception, match="CI fails instead of skipping"):
        require(MISSING, INSTALL)


def test_an_installed_requirement_is_the_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "1")
    assert require("json", INSTALL).__name__ == "json"
