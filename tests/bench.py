#!/usr/bin/env python3
"""Benchmark: build, serve, drive Chromium cold / warm / restart against a naive baseline, check budgets.

Usage: .venv/bin/python tests/bench.py [--runs 5] [--shaped] [--quick] [--builds] [--json FILE]
A benchmark, never a timed test: it always exits 0 and prints "N of M budgets pass".

The course measured is this repository's own (its root is a course folder: course.yaml, lesson/, lab/), built where
it is through lessonkit (in-process `build_site`, and the `lessonkit` command as an author runs it); the 200-lesson
course beside mkdocs and the edited ones are course folders copied from it. The naive baseline is the stock npm
Pyodide (node_modules/pyodide, the maintainers') in a plain page with the same lesson text.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent  # the repository: its root is the attention course (course.yaml, lesson/, lab/), the one measured
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from bench_browser import CHROMIUM, Target, Visit, paired_fcp, run_target  # noqa: E402 (needs the paths above)
from bench_build import (  # noqa: E402
    EDITS,
    build_and_mkdocs,
    build_cli,
    build_once,
    bytecode,
    make_course,
    pack_scorm,
    rebuild_after_edit,
    serve_edit_to_page,
)
from bench_hosts import nginx_missing, start_nginx, start_plain  # noqa: E402
from bench_install import make_wheel, measure_install, warm_pip_cache  # noqa: E402
from bench_lighthouse import INSTALL as LIGHTHOUSE_INSTALL  # noqa: E402
from bench_lighthouse import lighthouse_command, run_lighthouse  # noqa: E402
from bench_search import BUDGET as SEARCH_BUDGET  # noqa: E402
from bench_search import first_query  # noqa: E402
from bench_server import (  # noqa: E402
    Hit,
    Meter,
    Shaping,
    lesson_page,
    package_page,
    server_load,
    start_naive,
    start_ours,
    write_naive_site,
    write_nolab_page,
)

from lessonkit.pipeline.site import build_site  # noqa: E402

COURSE = ROOT  # the course measured: the repository's own (a course folder), built from where it is
LAB_CODE = COURSE / "lab" / "scaled_softmax.py"  # the first lesson's lab, which the naive page runs too
PYODIDE = ROOT / "node_modules" / "pyodide"  # the stock npm Pyodide of the naive page (the maintainers' node_modules)
GENERATED_LESSONS = 200
# What the lab needs and the text does not: the runtime, the lab modules, the editor bundle, the naive Pyodide.
_LAB_ASSET = re.compile(r"^/(runtime|pyodide)/|/js/(lab[\w-]*|editor)\.m?js(\?|$)|/js/worker/")
KB, MB = 1000, 1000 * 1000  # SI units, as in the performance notes


# -- samples ------------------------------------------------------------------------------------------------------

@dataclass
class PathInfo:
    """One path of the cold lesson visit: bytes on the wire, its Content-Encoding, and what brotli would give."""

    wire: int
    encoding: str
    brotli: int | None


@dataclass
class Report:
    """Every sample, keyed by metric then column ("ours" / "naive"), plus what could not be measured."""

    samples: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    notes: dict[str, list[str]] = field(default_factory=dict)
    blocking: dict[str, set[str]] = field(default_factory=dict)
    paths: dict[str, PathInfo] = field(default_factory=dict)
    site: Path | None = None
    long: dict[tuple[str, str, str], list[float]] = field(default_factory=dict)  # (page, window, script) -> ms

    def add(self, metric: str, column: str, value: float | None) -> None:
        """Record one sample (None = not measured this time)."""
        if value is not None:
            self.samples.setdefault(metric, {}).setdefault(column, []).append(float(value))

    def values(self, metric: str, column: str = "ours") -> list[float]:
        """All samples of one cell."""
        return self.samples.get(metric, {}).get(column, [])

    def median(self, metric: str, column: str = "ours") -> float | None:
        """Median of one cell, None when never measured."""
        values = self.values(metric, column)
        return statistics.median(values) if values else None

    def note(self, text: str) -> None:
        """Something the reader must know (failure, missing feature); repeats differing only in numbers merge."""
        self.notes.setdefault(re.sub(r"\d+(\.\d+)?", "#", text), []).append(text)


def _lab_asset(path: str) -> bool:
    return bool(_LAB_ASSET.search(path))


def _short(path: str) -> str:
    """Path without the content hash, so runs and builds line up."""
    return re.sub(r"/static/[0-9a-f]{8,64}/", "/static/<h>/", path.split("?", 1)[0])


def collect(report: Report, column: str, visits: dict[str, Visit], suffix: str = "") -> None:
    """Turn one target's visits into samples."""
    for kind, v in visits.items():
        report.add(f"fcp_{kind}{suffix}", column, v.fcp)
        report.add(f"ready_{kind}{suffix}", column, v.ready)
        report.add(f"bytes_{kind}{suffix}", column, v.bytes)
        report.add(f"requests_{kind}{suffix}", column, v.requests)
        report.add(f"longest_{kind}{suffix}", column, v.boot_longest)
        report.add("longest_boot", column, v.boot_longest)
        report.add(f"lcp_{kind}{suffix}", column, v.lcp)
        report.add(f"cls_{kind}{suffix}", column, v.cls)
        report.add(f"tbt_{kind}{suffix}", column, v.boot_tbt)
        report.add(f"python_longest{suffix}", column, v.python_longest)
        if v.worker_python_ms is not None:
            report.add(f"worker_python_{kind}{suffix}", column, v.worker_python_ms)
        if v.snapshot is not None:
            report.add(f"snapshot_{kind}{suffix}", column, 100.0 if v.snapshot else 0.0)
        if v.steady:
            report.add(f"steady_run_{kind}{suffix}", column, statistics.median(v.steady))
        if v.back_to_back:
            report.add(f"back_to_back_{kind}{suffix}", column, statistics.median(v.back_to_back))
        if v.checks:
            report.add(f"check_{kind}{suffix}", column, statistics.median(v.checks))
        if v.checks_back_to_back:
            report.add(f"check_back_to_back_{kind}{suffix}", column, statistics.median(v.checks_back_to_back))
        for size in v.worker_bytes:
            report.add(f"worker_bytes_{kind}{suffix}", column, size)
        if v.run_twice:
            report.add(f"run_twice_{kind}{suffix}", column, statistics.median(v.run_twice))
        if v.check_twice:
            report.add(f"check_twice_{kind}{suffix}", column, statistics.median(v.check_twice))
        if v.worker_ms:
            report.add(f"worker_ms_{kind}{suffix}", column, statistics.median(v.worker_ms))
        for error in v.errors:
            report.note(f"{column}{suffix} {kind}: {error}")
        for window, ms, by in v.long:
            report.long.setdefault((f"{column}{suffix}", f"{kind} {window}", by), []).append(ms)
    cold = visits.get("cold")
    if cold is None:
        return
    if cold.first_visit_bytes is not None:
        report.add(f"bytes_first_visit{suffix}", column, cold.first_visit_bytes)
    report.add(f"worker_at{suffix}", column, cold.worker_at)
    report.add(f"worker_boot{suffix}", column, cold.worker_ready_ms)
    report.add(f"first_run{suffix}", column, cold.first_run)
    runs_longest = [v.run_longest for v in visits.values() if v.run_longest is not None]
    if runs_longest:
        report.add(f"run_longest{suffix}", column, max(runs_longest))
    report.add(f"stop_longest{suffix}", column, cold.stop_longest)
    if cold.stop:
        report.add(f"stop_ms{suffix}", column, cold.stop["stopMs"])
        report.add(f"stop_ready_again{suffix}", column, cold.stop["readyAgainMs"])
    # Before the lab is needed = what the server answered before the page's first lab request (lab.js, the
    # worker, the runtime). Later page-side requests (the service worker's offline copy, after Ready) count apart.
    first_lab = min((h.end for h in cold.hits if _lab_asset(h.path)), default=float("inf"))
    page_hits = [h for h in cold.hits if not _lab_asset(h.path)]
    report.add(f"bytes_pre_lab{suffix}", column, sum(h.bytes for h in page_hits if h.end < first_lab))
    report.add(f"bytes_page_later{suffix}", column, sum(h.bytes for h in page_hits if h.end >= first_lab))
    if column == "ours" and not suffix:
        _remember_paths(report, cold.hits)


def _remember_paths(report: Report, hits: Iterable[Hit]) -> None:
    """Largest size seen per path: the per-request view behind the byte figures."""
    for hit in hits:
        key = _short(hit.path)
        known = report.paths.get(key)
        if known is None:
            report.paths[key] = PathInfo(hit.bytes, hit.encoding, _brotli_size(report.site, hit))
        elif hit.bytes > known.wire:
            known.wire = hit.bytes


def _brotli_size(site: Path | None, hit: Hit) -> int | None:
    """Brotli-11 size of a file sent uncompressed (what precompression would save); None if not applicable."""
    if site is None or hit.encoding or hit.status != 200:
        return None
    rel = hit.path.split("?", 1)[0].lstrip("/") or "index.html"
    file = site / rel
    if not file.is_file() or file.suffix not in {".html", ".js", ".mjs", ".css", ".json", ".svg", ".txt"}:
        return None
    import brotli  # a build dependency already; only needed for this estimate

    return len(brotli.compress(file.read_bytes(), quality=11))


# -- builds -------------------------------------------------------------------------------------------------------

def measure_builds(report: Report, work: Path, runs: int, quick: bool) -> Path | None:
    """Build the site to serve (timed), then the build figures; returns the site or None if it cannot build."""
    site = work / "site"
    try:
        report.add("build_first", "ours", 1000 * build_once(COURSE, site))
    except Exception as exc:
        report.note(f"build failed, no page measured: {type(exc).__name__}: {_first_line(exc)}")
        return None
    _try(report, "in-process build", lambda: [report.add("build_inproc", "ours", 1000 * build_once(COURSE, work / "b"))
                                              for _ in range(runs)])
    repeats = 1 if quick else min(runs, 3)
    bytecode()
    _try(report, "CLI build", lambda: [report.add("build_cli_1", "ours", 1000 * build_cli(COURSE, work / "c1"))
                                       for _ in range(repeats)])
    if not quick:
        _try(report, "200-lesson build beside mkdocs", lambda: measure_mkdocs(report, work, repeats))
        _try(report, "first search on the generated course",
             lambda: report.add("search_bytes_200", "ours", first_query(work / f"c{GENERATED_LESSONS}").bytes))  # its site
        _try(report, "edit to served page", lambda: [report.add("rebuild_served", "ours", 1000 * t)
                                                     for t in serve_edit_to_page(COURSE, work, GENERATED_LESSONS, repeats)])
        def per_kind() -> None:
            times, after = rebuild_after_edit(COURSE, work, GENERATED_LESSONS, repeats)
            for kind, samples in times.items():
                for t in samples:
                    report.add(f"rebuild_{EDITS.index(kind)}", "ours", 1000 * t)
            for t in after["lesson text"]:
                report.add("rebuild_settled", "ours", 1000 * t)
        _try(report, "rebuild per kind of edit", per_kind)
    _try(report, "SCORM package", lambda: _scorm(report, work))
    one, many = report.median("build_cli_1"), report.median("build_200")
    if one is not None and many is not None:
        lessons_in_course = max(1, len(list((COURSE / "lesson").glob("*.md"))))
        report.add("build_per_lesson", "ours", (many - one) / max(1, GENERATED_LESSONS - lessons_in_course))
    return site


def measure_mkdocs(report: Report, work: Path, runs: int) -> None:
    """The 200-lesson `lessonkit build` beside mkdocs's build of the same files, alternating in this process."""
    for ours, ours_cpu, mkdocs, mkdocs_cpu in build_and_mkdocs(COURSE, work, GENERATED_LESSONS, runs):
        report.add("build_200", "ours", 1000 * ours)
        report.add("build_200", "naive", 1000 * mkdocs)
        report.add("mkdocs_200", "ours", 1000 * mkdocs)
        report.add("build_200_ratio", "ours", ours / mkdocs)
        report.add("build_200_cpu", "ours", 1000 * ours_cpu)
        report.add("build_200_cpu", "naive", 1000 * mkdocs_cpu)
        report.add("mkdocs_200_cpu", "ours", 1000 * mkdocs_cpu)
        report.add("build_200_cpu_ratio", "ours", ours_cpu / mkdocs_cpu)


def measure_installs(report: Report, work: Path, runs: int) -> None:
    """The installed path: the wheel's size, install → new → first page served, the first and second build (after
    one untimed install, so that every timed one finds the dependencies in pip's cache)."""
    wheel = make_wheel(work / "dist")
    report.add("wheel_size", "ours", wheel.stat().st_size)
    warm_pip_cache(work, wheel)
    for _ in range(runs):
        found = measure_install(work, wheel)
        report.add("install_to_page", "ours", 1000 * found.to_page_s)
        report.add("install_pip", "ours", 1000 * found.install_s)
        report.add("new_build_first", "ours", 1000 * found.build_first_s)
        report.add("new_build_second", "ours", 1000 * found.build_second_s)


def _scorm(report: Report, work: Path) -> None:
    took, size, files = pack_scorm(COURSE, work)
    report.add("scorm_pack", "ours", 1000 * took)
    report.add("scorm_zip", "ours", size)
    report.add("scorm_files", "ours", files)


def measure_load(report: Report, site: Path, runs: int) -> None:
    """The dev server under a burst of 200 concurrent clients (page + wasm); one sample per run."""
    for _ in range(runs):
        for key, value in server_load(site).items():
            report.add(key, "ours", value)


def _try(report: Report, what: str, step: Callable[[], object]) -> None:
    """Run one measurement step; a failure becomes a note, never the end of the benchmark."""
    try:
        step()
    except Exception as exc:
        report.note(f"{what} not measured: {type(exc).__name__}: {_first_line(exc)}")


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [""])[-1][:300]


# -- pages --------------------------------------------------------------------------------------------------------

@dataclass
class Servers:
    """Both servers, their meters and the URLs of the three pages."""

    ours: Meter
    naive: Meter
    lesson_url: str
    nolab_url: str
    naive_url: str
    stops: list[Callable[[], None]]
    numpy_url: str | None = None  # a lesson whose lab loads NumPy (the course's 0.27.7 runtime), when it has one
    numpy_prints: str = "heads=2"  # what that lab prints when run unchanged (the course's NumPy lesson's)
    notes: list[str] = field(default_factory=list)
    core_314: tuple[str, Meter] | None = None  # the first lesson, the course rebuilt on the default Pyodide 314.0.7
    # The same site on real nginx with its generated nginx.conf, and on a host that sends none of its headers:
    # (lesson URL, index URL, meter), None when that host could not start (a note says why).
    nginx: tuple[str, str, Meter] | None = None
    plain: tuple[str, str, Meter] | None = None


def core_314_site(work: Path) -> Path | None:
    """The course without its course-wide `pyodide:` (so on the default 314.0.7) and without the lessons that require
    packages or pick a release of their own, built from a copy; None when the course is on the default already (its
    first lesson, measured above, is then on 314.0.7)."""
    config = (COURSE / "course.yaml").read_text(encoding="utf-8")
    if not re.search(r"^pyodide:", config, re.M):
        return None
    course = make_course(COURSE, work / "course-314", 0)
    (course / "course.yaml").write_text(re.sub(r"^pyodide:.*\n", "", config, flags=re.M), encoding="utf-8")
    for lesson in sorted((COURSE / "lesson").glob("*.md")):
        front = lesson.read_text(encoding="utf-8").split("\n---", 1)[0]
        if not re.search(r"^(requires|pyodide):", front, re.M):
            shutil.copyfile(lesson, course / "lesson" / lesson.name)
    build_once(course, work / "site-314")
    return work / "site-314"


def numpy_fixture_site(work: Path) -> Path:
    """The tests' course on Pyodide 0.27.7 whose lessons require NumPy (tests/fixtures/numpy, its labs in
    tests/fixtures/numpy-lab), copied into a course folder of its own and built."""
    fixtures = ROOT / "tests" / "fixtures"
    course = work / "course-numpy"
    shutil.rmtree(course, ignore_errors=True)
    (course / "lesson").mkdir(parents=True)
    for file in (fixtures / "numpy").iterdir():
        if file.is_file():
            shutil.copyfile(file, course / ("course.yaml" if file.name == "course.yaml" else f"lesson/{file.name}"))
    shutil.copytree(fixtures / "numpy-lab", course / "lab", ignore=shutil.ignore_patterns("__pycache__"))
    build_site(course, work / "site-numpy")
    return work / "site-numpy"


def start_servers(site: Path, work: Path) -> Servers:
    """Our server over the built site (+ a no-lab copy of the page), the naive server over its own folder."""
    nolab = write_nolab_page(site)
    naive_dir = work / "naive"
    write_naive_site(site, PYODIDE, LAB_CODE.read_text(encoding="utf-8"), naive_dir)
    ours_meter, naive_meter = Meter(), Meter()
    ours = start_ours(site, ours_meter)
    naive = start_naive(naive_dir, naive_meter)
    packages = package_page(site)
    servers = Servers(ours_meter, naive_meter, ours.url + lesson_page(site), ours.url + nolab, naive.url,
                      [ours.stop, naive.stop], ours.url + packages if packages else None)
    if packages is None:
        # The course loads no Pyodide package: NumPy is measured on the tests' course on 0.27.7 (tests/fixtures/numpy).
        numpy_site = numpy_fixture_site(work)
        numpy_server = start_ours(numpy_site, ours_meter)
        servers.numpy_url = numpy_server.url + str(package_page(numpy_site))
        servers.numpy_prints = "numpy 2.0.2"
        servers.stops.append(numpy_server.stop)
    page = lesson_page(site)
    missing = nginx_missing()
    if missing is None:
        meter = Meter()
        host = start_nginx(site, meter)
        servers.nginx = (host.url + page, host.url, meter)
        servers.stops.append(host.stop)
    else:
        servers.notes.append(f"nginx rows not measured: {missing}")
    meter = Meter()
    plain = start_plain(site, meter)
    servers.plain = (plain.url + page, plain.url, meter)
    servers.stops.append(plain.stop)
    site_314 = core_314_site(work)
    if site_314 is not None:
        meter = Meter()
        other = start_ours(site_314, meter)
        servers.core_314 = (other.url + lesson_page(site_314), meter)
        servers.stops.append(other.stop)
    return servers


def targets(servers: Servers, shaped: bool) -> list[tuple[str, str, Target, Shaping | None]]:
    """(column, row suffix, target, shaping) for every page variant measured in one repetition."""
    out: list[tuple[str, str, Target, Shaping | None]] = [
        ("ours", "", Target("ours", servers.lesson_url, servers.ours, stop_probe=True), None),
        ("naive", "", Target("naive", servers.naive_url, servers.naive), None),
        ("ours", "_nolab", Target("nolab", servers.nolab_url, servers.ours, lab=False, restart=False), None),
    ]
    if servers.numpy_url:
        out.append(("ours", "_numpy", Target("numpy", servers.numpy_url, servers.ours, restart=False, steady_runs=0,
                                           prints=servers.numpy_prints),
                    None))
    for suffix, host in (("_nginx", servers.nginx), ("_plain", servers.plain)):
        if host:
            out.append(("ours", suffix, Target(suffix[1:], host[0], host[2], restart=False, steady_runs=0), None))
    if servers.core_314:
        url, meter = servers.core_314
        out.append(("ours", "_314", Target("core-314", url, meter, restart=False, steady_runs=0), None))
    if shaped:
        link = Shaping()
        out += [
            ("ours", "_shaped", Target("ours-shaped", servers.lesson_url, servers.ours, restart=False,
                                       steady_runs=0), link),
            ("naive", "_shaped", Target("naive-shaped", servers.naive_url, servers.naive, restart=False,
                                        steady_runs=0), link),
        ]
    return out


FCP_PAIRS = 4  # A/B rounds per repetition for the first-paint comparison


def measure_pages(report: Report, site: Path, work: Path, runs: int, shaped: bool) -> None:
    """Interleave every variant within each repetition, rotating the order so drift hits all of them."""
    from playwright.sync_api import sync_playwright

    servers = start_servers(site, work)
    for text in servers.notes:
        report.note(text)
    plan = targets(servers, shaped)
    try:
        with sync_playwright() as pw:
            for rep in range(runs):
                order = plan[rep % len(plan):] + plan[:rep % len(plan)]
                ready: dict[str, float | None] = {}  # "<kind><column><suffix>" -> Ready of this repetition
                for column, suffix, target, shaping in order:
                    target.meter.shaping = shaping
                    timeout = 120000 if shaping else 60000  # generous: a shared VM can be very slow
                    try:
                        visits = run_target(pw, target, work / "profiles" / target.name, timeout)
                    finally:
                        target.meter.shaping = None
                    collect(report, column, visits, suffix)
                    for kind, v in visits.items():
                        ready[f"{kind}{column}{suffix}"] = v.ready
                    _progress(rep, runs, target.name, visits)
                    report.blocking.setdefault(target.name, set()).update(
                        _short(re.sub(r"^https?://[^/]+", "", u)) for v in visits.values() for u in v.blocking)
                add_ratios(report, ready)
                pairs = paired_fcp(pw, {"ours": servers.lesson_url, "nolab": servers.nolab_url}, FCP_PAIRS)
                for value in pairs["ours"]:
                    report.add("fcp_pair", "ours", value)
                for value in pairs["nolab"]:
                    report.add("fcp_pair_nolab", "ours", value)
        _try(report, "Lighthouse", lambda: measure_lighthouse(report, servers, runs))
    finally:
        for stop in servers.stops:
            stop()


# Ratios of one repetition's Ready figures (its visits ran next to each other, so drift hits both): row key ->
# (numerator, denominator), each "<kind><column><suffix>" as measure_pages keeps them.
RATIOS = {
    "ratio_cold": ("coldours", "coldnaive"),
    "ratio_warm": ("warmours", "warmnaive"),
    "ratio_cold_nginx": ("coldours_nginx", "coldnaive"),
    "ratio_warm_nginx": ("warmours_nginx", "warmnaive"),
    "ratio_cold_plain": ("coldours_plain", "coldnaive"),
    "ratio_warm_plain": ("warmours_plain", "warmnaive"),
    "ratio_cold_numpy": ("coldours_numpy", "coldours"),
    "ratio_warm_numpy": ("warmours_numpy", "warmours"),
}


def add_ratios(report: Report, ready: dict[str, float | None]) -> None:
    """One sample of each ratio row this repetition measured both sides of."""
    for key, (top, bottom) in RATIOS.items():
        a, b = ready.get(top), ready.get(bottom)
        if a is not None and b:
            report.add(key, "ours", a / b)


def measure_lighthouse(report: Report, servers: Servers, runs: int) -> None:
    """Lighthouse's performance score of the first lesson and the course index (nginx when it runs, else our
    server), mobile (its default) and desktop, once per repetition each; a note when Lighthouse is not installed."""
    command = lighthouse_command(ROOT)
    if command is None:
        report.note(f"Lighthouse not installed: its rows not measured ({LIGHTHOUSE_INSTALL}); "
                    "the cold visit's LCP and CLS rows are Chromium's own figures")
        return
    lesson, index = (servers.nginx[0], servers.nginx[1]) if servers.nginx else (servers.lesson_url,
                                                                               servers.lesson_url.rsplit("/", 1)[0] + "/")
    for _ in range(runs):
        for page, url in (("lesson", lesson), ("index", index)):
            for preset in ("mobile", "desktop"):
                audit = run_lighthouse(command, url, CHROMIUM, desktop=preset == "desktop")
                report.add(f"lh_{page}_{preset}", "ours", audit.score)
                for metric, value in audit.metrics.items():
                    report.add(f"lh_{page}_{preset}_{metric}", "ours", value)


def _progress(rep: int, runs: int, name: str, visits: dict[str, Visit]) -> None:
    parts = []
    for kind, v in visits.items():
        ready = f" ready {v.ready:.0f}" if v.ready is not None else ""
        fcp = f"fcp {v.fcp:.0f}" if v.fcp is not None else "fcp ?"
        parts.append(f"{kind}: {fcp}{ready} ms, {v.requests} req {v.bytes / KB:.1f} KB")
    print(f"[{rep + 1}/{runs}] {name:<12} " + "; ".join(parts), file=sys.stderr, flush=True)


# -- output -------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    """One table row: metric key, label, unit ("ms", "B", "n")."""

    key: str
    label: str
    unit: str = "ms"


def _lighthouse_rows() -> list[Row]:
    """Lighthouse's score of each page and preset, each followed by the metrics it is made of."""
    rows = []
    for page, label in (("lesson", "the first lesson"), ("index", "the course index")):
        for preset in ("mobile", "desktop"):
            rows.append(Row(f"lh_{page}_{preset}", f"Lighthouse performance, {label}, {preset}", "score"))
            rows += [Row(f"lh_{page}_{preset}_{metric}", f"  its {name}", "cls" if metric == "cls" else "ms")
                     for metric, name in (("fcp", "FCP"), ("lcp", "LCP"), ("tbt", "TBT"), ("cls", "CLS"))]
    return rows


ROWS = [
    Row("fcp_cold", "FCP cold (fresh profile)"),
    Row("fcp_cold_nolab", "  same page without the lab, cold"),
    Row("fcp_pair", "FCP, fresh contexts of one browser, A/B"),
    Row("fcp_pair_nolab", "  same page without the lab, A/B"),
    Row("fcp_warm", "FCP warm (new tab)"),
    Row("fcp_warm_nolab", "  same page without the lab, warm"),
    Row("fcp_restart", "FCP after browser restart"),
    Row("ready_cold", "Lab Ready cold (Run enabled + run done)"),
    Row("ready_warm", "Lab Ready warm (new tab)"),
    Row("ready_restart", "Lab Ready after browser restart"),
    Row("ready_cold_numpy", "Lab Ready with NumPy, cold (loadPackage numpy + import)"),
    Row("ready_warm_numpy", "Lab Ready with NumPy, warm (new tab)"),
    Row("ready_cold_314", "Lab Ready cold, the course on Pyodide 314.0.7 (core)"),
    Row("ready_warm_314", "Lab Ready warm, the course on Pyodide 314.0.7 (core)"),
    Row("ready_cold_nginx", "Lab Ready cold, nginx with the build's nginx.conf"),
    Row("ready_warm_nginx", "Lab Ready warm, nginx (new tab)"),
    Row("ready_cold_plain", "Lab Ready cold, a host that sends no headers (no caching rules, compression, isolation)"),
    Row("ready_warm_plain", "Lab Ready warm, the host that sends no headers (new tab)"),
    Row("ratio_cold", "Ready cold ÷ naive page, our server (per repetition)", "×"),
    Row("ratio_warm", "Ready warm ÷ naive page, our server (per repetition)", "×"),
    Row("ratio_cold_nginx", "Ready cold ÷ naive page, nginx", "×"),
    Row("ratio_warm_nginx", "Ready warm ÷ naive page, nginx", "×"),
    Row("ratio_cold_plain", "Ready cold ÷ naive page, the host that sends no headers", "×"),
    Row("ratio_warm_plain", "Ready warm ÷ naive page, the host that sends no headers", "×"),
    Row("ratio_cold_numpy", "Ready with NumPy ÷ the core lesson, cold (per repetition)", "×"),
    Row("ratio_warm_numpy", "Ready with NumPy ÷ the core lesson, warm (per repetition)", "×"),
    Row("snapshot_warm", "  warm: booted from the learner's own snapshot", "%"),
    Row("snapshot_restart", "  restart: booted from the learner's own snapshot", "%"),
    Row("worker_at", "  cold: page created the worker at"),
    Row("worker_boot", "  cold: worker's own boot time (ready.diagnostics.ms)"),
    Row("worker_python_cold", "    of which Python's start-up, after the downloads"),
    Row("worker_python_warm", "  warm: Python's start-up from the snapshot"),
    Row("first_run", "First run, click -> output"),
    Row("steady_run_warm", "Steady run, settled page, next Python ready (warm visit), median of 20"),
    Row("worker_ms_warm", "  of which reported by the lab (ms field)"),
    Row("steady_run_cold", "  same on the cold visit, V8 still optimizing the runtime"),
    Row("back_to_back_warm", "Back-to-back runs: each waits for a fresh Python (warm visit), median of 10"),
    Row("back_to_back_cold", "  same on the cold visit"),
    Row("run_twice_warm", "Run clicked twice: the second, click -> output (warm visit, settled page), median of 5"),
    Row("run_twice_cold", "  same on the cold visit"),
    Row("worker_bytes_warm", "A lab worker's memory (one Python: each spare costs this), settled page, warm", "B"),
    Row("check_warm", "Check, click -> report, settled page, next Python ready (warm visit), median of 20"),
    Row("check_cold", "  same on the cold visit"),
    Row("check_back_to_back_warm", "Check right after a Check: waits for a fresh Python (warm), median of 10"),
    Row("check_twice_warm", "Check clicked twice: the second, click -> report (warm visit, settled page), median of 5"),
    Row("longest_cold", "Longest main-thread task, boot cold"),
    Row("longest_warm", "Longest main-thread task, boot warm"),
    Row("longest_restart", "Longest main-thread task, boot restart"),
    Row("longest_boot", "Longest main-thread task, load -> first run's output, every visit and host (max)"),
    Row("tbt_cold", "Total blocking time, boot cold"),
    Row("tbt_warm", "Total blocking time, boot warm"),
    Row("run_longest", "Longest main-thread task, runs (cold and warm)"),
    Row("stop_longest", "Longest main-thread task, Stop + recovery"),
    Row("stop_ms", "Stop: click -> run ended"),
    Row("stop_ready_again", "Stop: click -> Ready again"),
    Row("python_longest", "Longest task attributed to Python (max)"),
    Row("lcp_cold", "Largest contentful paint, cold (Chromium's entry)"),
    Row("cls_cold", "Cumulative layout shift, cold, until the first run's output (Chromium's entries)", "cls"),
    Row("cls_warm", "Cumulative layout shift, warm", "cls"),
    Row("cls_cold_nginx", "Cumulative layout shift, cold, nginx", "cls"),
    *_lighthouse_rows(),
    Row("bytes_cold", "Bytes cold (headers + bodies)", "B"),
    Row("requests_cold", "Requests cold", "n"),
    Row("bytes_pre_lab", "  of which page, before the lab is needed", "B"),
    Row("bytes_page_later", "  of which page-side, later (offline copy)", "B"),
    Row("bytes_first_visit", "Bytes per first visit (its lesson kept offline)", "B"),
    Row("bytes_first_visit_numpy", "Bytes per first visit, lesson with NumPy", "B"),
    Row("bytes_cold_nolab", "Bytes cold, page without the lab", "B"),
    Row("bytes_cold_numpy", "Bytes cold, page with NumPy", "B"),
    Row("bytes_cold_314", "Bytes cold, the course on Pyodide 314.0.7", "B"),
    Row("bytes_warm", "Bytes warm revisit (new tab)", "B"),
    Row("requests_warm", "Requests warm revisit", "n"),
    Row("bytes_restart", "Bytes after browser restart", "B"),
    Row("requests_restart", "Requests after browser restart", "n"),
    Row("fcp_cold_shaped", "Shaped 20 Mbit/s 40 ms: FCP cold"),
    Row("ready_cold_shaped", "Shaped: Lab Ready cold"),
    Row("worker_python_cold_shaped", "  of which Python's start-up, after the downloads"),
    Row("ready_warm_shaped", "Shaped: Lab Ready warm"),
    Row("bytes_cold_shaped", "Shaped: bytes cold", "B"),
    Row("build_first", "Build, first in this process (serves the pages)"),
    Row("build_inproc", "Build, the course, in-process"),
    Row("build_cli_1", "Build, the course, `lessonkit build` wall"),
    Row("build_200", f"Build, {GENERATED_LESSONS} lessons, `lessonkit build` wall (baseline: mkdocs, same files)"),
    Row("mkdocs_200", f"mkdocs build, same {GENERATED_LESSONS} files, wall"),
    Row("build_200_ratio", f"Build ÷ mkdocs, {GENERATED_LESSONS} lessons (alternating runs)", "×"),
    Row("build_200_cpu", f"Build, {GENERATED_LESSONS} lessons, CPU (baseline: mkdocs's)"),
    Row("mkdocs_200_cpu", f"mkdocs build, same {GENERATED_LESSONS} files, CPU"),
    Row("build_200_cpu_ratio", f"Build ÷ mkdocs, {GENERATED_LESSONS} lessons, CPU (alternating runs)", "×"),
    Row("build_per_lesson", "Build, per extra lesson (marginal)"),
    Row("search_bytes_200", f"Search, first query, {GENERATED_LESSONS} lessons (compressed)", "B"),
    Row("rebuild_served", f"Rebuild after a one-lesson edit, {GENERATED_LESSONS} lessons (save to served page)"),
    *[Row(f"rebuild_{n}", f"  in-process rebuild after an edit of the {kind}") for n, kind in enumerate(EDITS)],
    Row("rebuild_settled", "  then the search index, service worker and host files (lesson text; pages already out)"),
    Row("wheel_size", "The wheel (pyproject-build: the package with its prebuilt bundles, runtime and wheels)", "B"),
    Row("install_to_page", "pip install of the wheel (dependencies cached) -> lessonkit new -> first page served"),
    Row("install_pip", "  of which pip install into a fresh venv"),
    Row("new_build_first", "lessonkit build of a new course, first (empty user cache: unpacks the runtime)"),
    Row("new_build_second", "  the same build again"),
    Row("scorm_pack", "SCORM package: pack the built site (`lessonkit scorm` after its build)"),
    Row("scorm_zip", "  the zip (dist/<course>-scorm2004.zip)", "B"),
    Row("scorm_files", "  files in it", "n"),
    Row("load_page_p50", "Dev server, 200 clients at once: page, p50"),
    Row("load_page_p99", "  page, p99"),
    Row("load_wasm_p50", "  the runtime's wasm (half of them ask for brotli), p50"),
    Row("load_wasm_p99", "  wasm, p99"),
    Row("load_errors", "  errors (resets, refused connects, wrong bodies)", "n"),
]

# Metrics where the worst sample matters ("ever"), not the median.
WORST = {"python_longest", "load_errors", "longest_boot"}


def fmt(value: float | None, unit: str) -> str:
    """A number in its unit, short."""
    if value is None:
        return "—"
    if unit == "B":
        if value >= MB:
            return f"{value / MB:.2f} MB"
        return f"{value / KB:.1f} KB" if value >= KB else f"{value:.0f} B"
    if unit == "n":
        return f"{value:.0f}"
    if unit == "×":
        return f"{value:.2f}×"
    if unit == "cls":
        return f"{value:.3f}"
    if unit == "score":
        return f"{value:.2f}"
    return f"{value:.1f}" if abs(value) < 20 else f"{value:.0f}"


def cell(report: Report, row: Row, column: str) -> str:
    """`median (min–max)` of one cell (`max` for worst-case rows)."""
    values = report.values(row.key, column)
    if not values:
        return "—"
    if row.key in WORST:
        return f"{fmt(max(values), row.unit)} (max)"
    if row.unit == "%":
        return f"{statistics.mean(values):.0f} % of {len(values)} visits"
    mid = fmt(statistics.median(values), row.unit)
    if len(values) == 1 or min(values) == max(values):
        return mid
    return f"{mid} ({fmt(min(values), row.unit).split()[0]}–{fmt(max(values), row.unit)})"


def ratio(report: Report, row: Row) -> str:
    """naive ÷ ours: above 1 means ours is faster / smaller."""
    ours, naive = report.median(row.key, "ours"), report.median(row.key, "naive")
    if ours is None or naive is None or row.key in WORST or row.unit == "%":
        return ""
    if ours <= 0:
        return "∞" if naive > 0 else ""
    return f"{naive / ours:.2f}×"


def print_table(report: Report, runs: int) -> None:
    """The one table: medians (min–max) over the runs, ours beside the naive baseline."""
    header = ("Metric", f"Ours, median of {runs} (min–max)", "Naive baseline", "naive ÷ ours")
    rows = [header] + [(r.label, cell(report, r, "ours"), cell(report, r, "naive"), ratio(report, r))
                       for r in ROWS if r.key in report.samples]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    line = "| " + " | ".join("-" * w for w in widths) + " |"
    for i, row in enumerate(rows):
        print("| " + " | ".join(text.ljust(w) for text, w in zip(row, widths, strict=True)) + " |")
        if i == 0:
            print(line)


@dataclass(frozen=True)
class Budget:
    """One performance budget: its value as text and PASS / FAIL / not measured (None)."""

    name: str
    value: str
    ok: bool | None


def _both(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a / b


def budgets(report: Report, shaped: bool, quick: bool, slower: float | None = None) -> list[Budget]:
    """Every budget this run can judge, from the medians (worst case where the budget says "ever").

    slower: this machine's CPU time over the reference machine's; when it is well above 1, the timings that are
    mostly CPU work also show what they come to at the reference speed (shown only: the verdict is on this machine).
    """
    m = report.median
    out: list[Budget] = []

    def at_reference(v: float) -> str:
        if slower is None or slower < 1.1:
            return ""
        digits = 0 if v >= 100 else 1
        return f"; ≈{v / slower:.{digits}f} ms at the reference speed"

    def check(name: str, value: float | None, ok: Callable[[float], bool], shown: Callable[[float], str]) -> None:
        out.append(Budget(name, "not measured" if value is None else shown(value),
                          None if value is None else ok(value)))

    # The A/B pairs when measured (more samples, no browser start-up in them), else the cold visits.
    paired = m("fcp_pair") is not None and m("fcp_pair_nolab") is not None
    fcp, fcp_nolab = (m("fcp_pair"), m("fcp_pair_nolab")) if paired else (m("fcp_cold"), m("fcp_cold_nolab"))
    pairs = len(report.values("fcp_pair", "ours")) if paired else 0
    check(f"FCP with the lab <= FCP without it + 20 ms ({f'A/B, median of {pairs}' if paired else 'cold'})",
          None if fcp is None or fcp_nolab is None else fcp - fcp_nolab, lambda d: d <= 20,
          lambda d: f"{fcp:.0f} vs {fcp_nolab:.0f} ms ({d:+.0f} ms)")
    if "ours" in report.blocking and "nolab" in report.blocking:
        added = sorted(report.blocking["ours"] - report.blocking["nolab"])
        out.append(Budget("The lab adds no render-blocking request", ", ".join(added) or "none", not added))
    else:
        out.append(Budget("The lab adds no render-blocking request", "not measured", None))
    check("Page bytes before the lab is needed <= 15 KB", m("bytes_pre_lab"), lambda v: v <= 15 * KB,
          lambda v: fmt(v, "B"))
    for kind, limit, factor in (("warm", 800, 2.2), ("cold", 1300, 2.0)):
        ours, speedup = m(f"ready_{kind}"), _both(m(f"ready_{kind}", "naive"), m(f"ready_{kind}"))
        check(f"Lab Ready {kind} <= {limit} ms and >= {factor}x faster than naive",
              None if ours is None or speedup is None else ours,
              lambda v, s=speedup, lim=limit, f=factor: v <= lim and s >= f,
              lambda v, s=speedup: f"{v:.0f} ms, {s:.2f}x{at_reference(v)}")
    if shaped:
        check("Shaped link: Lab Ready cold <= 2800 ms", m("ready_cold_shaped"), lambda v: v <= 2800,
              lambda v: f"{v:.0f} ms (naive {fmt(m('ready_cold_shaped', 'naive'), 'ms')} ms)")
    worst = max(report.values("python_longest"), default=None)
    check("No main-thread task >= 50 ms caused by Python (boot, run, Stop, restart)", worst, lambda v: v < 50,
          lambda v: f"longest {v:.0f} ms")
    check("First run <= 20 ms", m("first_run"), lambda v: v <= 20, lambda v: f"{v:.1f} ms{at_reference(v)}")
    check("Steady run <= 5 ms (worker round trip included)", m("steady_run_warm"), lambda v: v <= 5,
          lambda v: f"{v:.1f} ms{at_reference(v)}")
    check("Check, click -> report <= 30 ms (settled page)", m("check_warm"), lambda v: v <= 30,
          lambda v: f"{v:.1f} ms{at_reference(v)}")
    check("pip install → new → first page served <= 30 s (dependencies cached)", m("install_to_page"),
          lambda v: v <= 30_000, lambda v: f"{v / 1000:.1f} s")
    check("Cold transfer <= 4.5 MB compressed", m("bytes_cold"), lambda v: v <= 4.5 * MB, lambda v: fmt(v, "B"))
    req, byt = m("requests_warm"), m("bytes_warm")
    check("Warm revisit <= 1 request and <= 2 KB", None if req is None or byt is None else byt,
          lambda v: v <= 2 * KB and (req or 0) <= 1, lambda v: f"{req:.0f} request(s), {fmt(v, 'B')}")
    if not quick:
        check("Build <= 10 ms per lesson", m("build_per_lesson"), lambda v: v <= 10, lambda v: f"{v:.1f} ms")
        check(f"{GENERATED_LESSONS} lessons <= 1.5× mkdocs's build of the same files", m("build_200_ratio"),
              lambda v: v <= 1.5, lambda v: f"{v:.2f}×")
        check(f"Search's first query on {GENERATED_LESSONS}+ lessons <= {SEARCH_BUDGET // KB} KB compressed",
              m("search_bytes_200"), lambda v: v <= SEARCH_BUDGET,
              lambda v: f"{fmt(v, 'B')} ({v / SEARCH_BUDGET:.2f} of it)")
        check(f"One-lesson edit to served page, {GENERATED_LESSONS} lessons <= 300 ms", m("rebuild_served"),
              lambda v: v <= 300, lambda v: f"{v:.0f} ms")
    return out


def print_budgets(items: list[Budget]) -> None:
    """PASS / FAIL per budget and the summary line."""
    print("\nBudgets (medians on this machine):")
    for b in items:
        verdict = "PASS" if b.ok else ("FAIL" if b.ok is False else "N/A ")
        print(f"  {verdict}  {b.name}: {b.value}")
    passed = sum(1 for b in items if b.ok)
    missing = sum(1 for b in items if b.ok is None)
    tail = f" ({missing} not measured)" if missing else ""
    print(f"\n{passed} of {len(items)} budgets pass{tail}")


def print_details(report: Report) -> None:
    """Per-request sizes (largest seen) and everything that went wrong or could not be measured."""
    if report.paths:
        print("\nCold requests of the lesson page (bytes on the wire incl. headers, largest seen):")
        for path, info in sorted(report.paths.items(), key=lambda kv: (_lab_asset(kv[0]), -kv[1].wire)):
            how = f"{info.encoding}" if info.encoding else "not compressed"
            if info.brotli is not None:
                how += f"; body would be {fmt(info.brotli, 'B')} with brotli-11"
            print(f"  {'lab' if _lab_asset(path) else 'page':<4} {fmt(info.wire, 'B'):>9}  {path}  ({how})")
    if report.long:
        print("\nMain-thread tasks >= 50 ms, by page, window and the script that ran (long animation frames):")
        for (page, window, by), times in sorted(report.long.items(), key=lambda kv: -max(kv[1])):
            print(f"  {page:<12} {window:<13} {len(times):>3}x, max {max(times):>6.0f} ms  {by}")
    if report.notes:
        print("\nNotes:")
        for seen in report.notes.values():
            print(f"  - {seen[0]}" + (f" (and {len(seen) - 1} more like it)" if len(seen) > 1 else ""))


# -- main ---------------------------------------------------------------------------------------------------------

def cpu_pressure() -> dict[str, float]:
    """Linux PSI "some" averages (% of time runnable tasks waited for a CPU); {} where unavailable."""
    try:
        line = Path("/proc/pressure/cpu").read_text().splitlines()[0]
    except (OSError, IndexError):
        return {}
    return {k: float(v) for k, v in (item.split("=") for item in line.split()[1:]) if k.startswith("avg")}


# The performance notes' reference machine booted the stock npm Pyodide under Node in 2.19-2.28 s.
REFERENCE_NODE_BOOT_S = 2.24
_NODE_BOOT_JS = """
const { loadPyodide } = await import(process.argv[1]);
const t0 = performance.now();
await loadPyodide({ indexURL: process.argv[2] });
console.log(((performance.now() - t0) / 1000).toFixed(3));
"""


def node_boot_seconds(root: Path, runs: int = 3) -> float | None:
    """Median stock-Pyodide boot under Node (no browser, no network): this machine's CPU speed, in one number."""
    package = root / "node_modules" / "pyodide"
    times = []
    for _ in range(runs):
        proc = subprocess.run(["node", "--input-type=module", "-e", _NODE_BOOT_JS, (package / "pyodide.mjs").as_uri(),
                               str(package) + "/"], capture_output=True, text=True, check=False, timeout=120)
        if proc.returncode != 0:
            return None
        times.append(float(proc.stdout.split()[-1]))
    return statistics.median(times)


def print_header(runs: int, shaped: bool, took: float, before: dict[str, float], after: dict[str, float],
                 node_boot: float | None) -> None:
    """What was run, and how busy and how fast the machine was (both move every timing here)."""
    print(f"\nlessonkit benchmark: {runs} interleaved run(s), loopback 127.0.0.1"
          f"{', plus shaped 20 Mbit/s / 40 ms RTT' if shaped else ''}; took {took:.0f} s")
    if node_boot is not None:
        print(f"Machine speed: stock Pyodide boots under Node in {node_boot:.2f} s here (median of 3) vs "
              f"{REFERENCE_NODE_BOOT_S:.2f} s on the performance notes' reference machine: "
              f"{node_boot / REFERENCE_NODE_BOOT_S:.2f}x its CPU time. The ms budgets assume the reference; "
              "the ratios to the naive baseline do not depend on it. Budget lines of timings that are mostly CPU "
              "work also show them scaled to the reference speed (shown only: verdicts are on this machine).")
    if before and after:
        print(f"CPU contention (PSI some): {before['avg60']:.0f} % before (60 s avg), {after['avg300']:.0f} % during "
              f"(300 s avg) on {os.cpu_count()} CPUs")
        # "during" includes this benchmark's own browser; only the figure before it is other people's work.
        if before["avg60"] > 20:
            print("WARNING: other work was competing for the CPUs; timings are inflated, ratios less so.")
    print()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5, help="repetitions (interleaved); default 5")
    parser.add_argument("--shaped", action="store_true", help="also measure cold/warm on a 20 Mbit/s, 40 ms RTT link")
    parser.add_argument("--quick", action="store_true", help="smoke run: 1 repetition, no 200-lesson build")
    parser.add_argument("--json", type=Path, help="also write every sample to this file")
    parser.add_argument("--builds", action="store_true",
                        help=f"only the {GENERATED_LESSONS}-lesson build beside mkdocs's (median of --runs, at least 3)")
    args = parser.parse_args(argv)
    if args.quick:
        args.runs = 1
    args.runs = max(1, args.runs)
    return args


def builds_only(runs: int) -> int:
    """`--builds`: the 200-lesson build beside mkdocs's, its rows and its budget, with the machine's load."""
    report = Report()
    before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="lessonkit-bench-") as tmp:
        _try(report, "200-lesson build beside mkdocs", lambda: measure_mkdocs(report, Path(tmp), runs))
    after = os.getloadavg()
    print(f"\nlessonkit benchmark, builds only: {runs} alternating rounds; load average {before[0]:.2f} before, "
          f"{after[0]:.2f} after (1 min), on {os.cpu_count()} CPUs\n")
    print_table(report, runs)
    ratio_budget = [b for b in budgets(report, shaped=False, quick=False) if "mkdocs" in b.name]
    print_budgets(ratio_budget)
    print_details(report)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run everything, print the table and the budgets; always 0 (a benchmark, not a test)."""
    args = parse_args(argv)
    if args.builds:
        return builds_only(max(3, args.runs))
    report = Report()
    started = time.perf_counter()
    pressure_before = cpu_pressure()
    node_boot = node_boot_seconds(ROOT)
    with tempfile.TemporaryDirectory(prefix="lessonkit-bench-") as tmp:
        work = Path(tmp)
        print("building…", file=sys.stderr, flush=True)
        site = measure_builds(report, work, args.runs, args.quick)
        report.site = site
        _try(report, "the installed wheel",
             lambda: measure_installs(report, work, 1 if args.quick else min(args.runs, 3)))  # whether or not it built
        if site is not None:
            _try(report, "server load", lambda: measure_load(report, site, 1 if args.quick else min(args.runs, 3)))
        if site is not None:
            try:
                measure_pages(report, site, work, args.runs, args.shaped)
            except Exception as exc:
                traceback.print_exc(file=sys.stderr)
                report.note(f"page measurements stopped: {type(exc).__name__}: {_first_line(exc)}")
    print_header(args.runs, args.shaped, time.perf_counter() - started, pressure_before, cpu_pressure(), node_boot)
    print_table(report, args.runs)
    items = budgets(report, args.shaped, args.quick, None if node_boot is None else node_boot / REFERENCE_NODE_BOOT_S)
    print_budgets(items)
    print_details(report)
    if args.json:
        args.json.write_text(json.dumps({"samples": report.samples, "notes": report.notes}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
