#!/usr/bin/env python3
"""Benchmark: the bytes (compressed, on the wire) a learner's first search needs on a course of 200 lessons.

Usage: .venv/bin/python tests/bench_search.py [--lessons 200] [--site DIR]
Builds a course folder of `--lessons` lessons, copies of the repository's course's (or takes a built --site), serves
it with production headers, types a word every lesson has into the search box of a lesson in Chromium (no service
worker, so nothing is precached) and counts what the server sent under pagefind/: pagefind.js, its worker, the wasm,
the entry, the metadata, the index chunk and the fragments of the results listed. Prints the figure and its ratio to
the budget; never fails on a number.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent  # the repository: its root is the attention course, whose lessons are copied
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from bench_browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402 (needs the path above)
from bench_build import build_cli, make_course  # noqa: E402
from bench_server import Hit, Meter, start_ours  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from lessonkit.assets import search  # noqa: E402

BUDGET = 300 * 1000  # bytes, compressed: what the first query may need
_WORD = re.compile(r"[A-Za-z]{4,}")
# Long main-thread tasks, recorded from the start (add_init_script runs before the page's own scripts, CSP or not).
LONG_TASKS_JS = """
window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
}).observe({ type: "longtask", buffered: true });
"""


@dataclass
class FirstQuery:
    """What one first search cost: the query, its hits under pagefind/, and what the status said."""

    query: str
    hits: list[Hit]
    status: str
    longest_task: float  # ms: the longest main-thread task from the first focus to the results (0: none >= 50 ms)

    @property
    def bytes(self) -> int:
        """Headers and bodies the server sent for the search."""
        return sum(hit.bytes for hit in self.hits)


def query_for(site: Path, page: str) -> str:
    """A word of the page's title (every generated lesson is a copy, so it matches every lesson)."""
    html = (site / page).read_text(encoding="utf-8")
    title = re.search(r'data-pagefind-meta="title">(.*?)<', html, re.S)
    words = _WORD.findall(title.group(1) if title else "")
    return max(words, key=len) if words else "the"


def first_query(site: Path, page: str | None = None, timeout_ms: float = 60000) -> FirstQuery:
    """Serve `site`, open a lesson, type the query, count the bytes of pagefind/ that the search fetched."""
    pages = sorted(p.name for p in site.glob("*.html") if p.name != "index.html")
    page = page or pages[0]
    query = query_for(site, page)
    meter = Meter()
    server = start_ours(site, meter)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            try:
                context = browser.new_context(service_workers="block")  # a first visit: nothing precached
                context.add_init_script(script=LONG_TASKS_JS)
                tab = context.new_page()
                tab.goto(server.url + page)
                meter.wait_idle(quiet=1.0, limit=timeout_ms / 1000)  # the page and its lab settle first
                mark = meter.mark()
                started = tab.evaluate("performance.now()")
                # Found by CSS and polled with a plain read: Playwright's role queries walk the accessibility tree
                # on the page's main thread, and would be the longest task measured.
                tab.locator("[data-search-input]").fill(query)  # focus loads Pagefind; the input searches
                said = ""
                deadline = time.monotonic() + timeout_ms / 1000
                while "result" not in said and time.monotonic() < deadline:
                    time.sleep(0.05)
                    said = tab.evaluate("document.querySelector('[data-search-status]').textContent")
                meter.wait_idle(quiet=1.0, limit=timeout_ms / 1000)
                tasks = tab.evaluate("window.__longTasks")
                longest = max((t["duration"] for t in tasks if t["start"] + t["duration"] >= started), default=0.0)
            finally:
                browser.close()
    finally:
        server.stop()
    return FirstQuery(query, [hit for hit in meter.since(mark) if "/pagefind/" in hit.path], said, longest)


def indexing_seconds(site: Path) -> float:
    """Pagefind alone over a copy of the site's lesson pages, as the build runs it."""
    pages = sorted(p.name for p in site.glob("*.html") if p.name != "index.html")
    with tempfile.TemporaryDirectory(prefix="bench-pagefind-") as tmp:
        for name in pages:
            shutil.copyfile(site / name, Path(tmp) / name)
        t0 = time.perf_counter()
        search.run_pagefind(Path(tmp), pages)
        return time.perf_counter() - t0


def report(result: FirstQuery, lessons: int) -> None:
    """Print the figure, its ratio to the budget, and the files behind it."""
    print(f"Search, first query on {lessons} lessons (“{result.query}”: {result.status})")
    for hit in sorted(result.hits, key=lambda h: -h.bytes):
        print(f"  {hit.bytes:>9,} B  {hit.encoding or 'identity':<8} {hit.path}")
    verdict = "PASS" if result.bytes <= BUDGET else "FAIL"
    print(f"  {result.bytes:>9,} B in {len(result.hits)} requests: {result.bytes / BUDGET:.2f} of the "
          f"{BUDGET // 1000} KB budget — {verdict}")
    print(f"  longest main-thread task from the first focus to the results: "
          f"{f'{result.longest_task:.0f} ms' if result.longest_task else 'none of 50 ms or more'}")


def generate(folder: Path, count: int) -> Path:
    """A course folder of `count` lessons: the course's own, copied in turn (its course.yaml and lab/ too)."""
    return make_course(ROOT, folder, count)


def main(argv: list[str] | None = None) -> int:
    """Build (or take) the generated course and print the first query's bytes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lessons", type=int, default=200, help="lessons: copies of the course's (default 200)")
    parser.add_argument("--site", type=Path, help="a site built already (skips the build)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        site = args.site
        if site is None:
            course = generate(Path(tmp) / "course", args.lessons)
            site = Path(tmp) / "site"
            took = build_cli(course, site)
            print(f"built {len(list((course / 'lesson').glob('*.md')))} lessons with their search index in "
                  f"{took:.2f} s (wall)")
        count = len([p for p in site.glob("*.html") if p.name != "index.html"])
        print(f"Pagefind indexing {count} lesson pages: {indexing_seconds(site):.2f} s")
        report(first_query(site), count)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
