"""The benchmark's own wiring (tests/bench.py, which asserts nothing of the timings it prints): the installed path is
measured whether or not the course builds, every timed install finds the dependencies in pip's cache, and its budget
is printed. Nothing here times anything: the measurements are stood in for."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import bench
import pytest
from bench_install import Install

INSTALL_BUDGET = "pip install → new → first page served <= 30 s (dependencies cached)"


def test_the_installed_path_is_measured_when_the_course_does_not_build(monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    measured: list[int] = []

    def installs(report: bench.Report, work: Path, runs: int) -> None:
        measured.append(runs)
        report.add("install_to_page", "ours", 31_000)

    monkeypatch.setattr(bench, "measure_builds", lambda report, work, runs, quick: None)  # no site: nothing served
    monkeypatch.setattr(bench, "measure_installs", installs)
    monkeypatch.setattr(bench, "node_boot_seconds", lambda root: None)
    assert bench.main(["--quick"]) == 0
    assert measured == [1]
    printed = [line.strip() for line in capsys.readouterr().out.splitlines()]
    assert f"FAIL  {INSTALL_BUDGET}: 31.0 s" in printed  # printed, never asserted


def test_every_timed_install_finds_pip_s_cache_warm(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls: list[str] = []
    wheel = tmp_path / "lessonkit-0-py3-none-any.whl"
    wheel.write_bytes(b"wheel")

    def install(work: Path, given: Path) -> Any:
        calls.append("timed")
        return Install(5, 1.0, 2.0, 3.0, 0.5)

    monkeypatch.setattr(bench, "make_wheel", lambda out: wheel)
    monkeypatch.setattr(bench, "warm_pip_cache", lambda work, given: calls.append("untimed"))
    monkeypatch.setattr(bench, "measure_install", install)
    report = bench.Report()
    bench.measure_installs(report, tmp_path, 2)
    assert calls == ["untimed", "timed", "timed"]
    assert report.values("install_to_page") == [2000.0, 2000.0]
