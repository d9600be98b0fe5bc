#!/usr/bin/env python3
"""Screenshots of every page of a course, to look at: each lesson and the index at a phone's width (390 px) and a
laptop's (1280 px), in the light and the dark scheme, once its lab is ready.

Usage: .venv/bin/python tests/screenshots.py [--course .] [--out /tmp/lessonkit-shots]   (or `make screenshots`)

The course is built into a folder of its own and served as a host serves it (cross-origin isolated). For each page
and each width and scheme, OUT holds the whole page (<page>-<width>-<scheme>.png) and the same page cut into screens
of the window's height (screens/<page>-<width>-<scheme>-<nn>.png), each readable at its own size. Nothing is
asserted: the phone-fit test (tests/attention/test_phone_fit.py) checks what can be measured.
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, expect, sync_playwright

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from browser.helpers import launch_chromium  # noqa: E402 (needs the path above)

from lessonkit.pipeline.site import build_site  # noqa: E402
from lessonkit.serve.server import start_server  # noqa: E402

ROOT = TESTS.parent  # the repository: its root is the attention course
WINDOWS = {390: 844, 1280: 900}  # width: height, a phone's and a laptop's window
SCHEMES = ("light", "dark")
BOOT_MS = 120_000  # a lab's Python on a busy machine
SHOWN_JS = """() => {
  // Every part laid out now (the page lays out those below the first screen in idle time, one per frame).
  document.querySelectorAll(".part").forEach((part) => part.classList.add("part-shown"));
  return document.fonts.ready.then(() => document.documentElement.scrollHeight);
}"""


def pages(site: Path) -> list[str]:
    """The site's lesson pages and its index, the index first."""
    lessons = sorted(p.name for p in site.glob("*.html") if p.name not in ("index.html", "404.html"))
    return ["index.html", *lessons]


def settle(page: Page, window: int) -> int:
    """Wait until the page's labs are ready and everything is laid out, then scroll through it a window at a time as a
    learner reads it (what is made when it comes into sight, an exercise's editor, is made and measured); return the
    page's height."""
    for lab in page.locator("[data-lab]").all():
        lab.scroll_into_view_if_needed()
        expect(lab.locator("[data-lab-status]")).to_contain_text("Ready", timeout=BOOT_MS)
    height = int(page.evaluate(SHOWN_JS))
    for top in range(0, height, window):
        page.evaluate("(top) => { scrollTo(0, top); return new Promise((done) => requestAnimationFrame(() => "
                      "requestAnimationFrame(done))); }", top)
    page.evaluate("scrollTo(0, 0)")
    return int(page.evaluate(SHOWN_JS))


def shoot(page: Page, out: Path, name: str, height: int, window: int) -> int:
    """The whole page, then its screens; return how many screens."""
    page.screenshot(path=str(out / f"{name}.png"), full_page=True)
    screens = max(1, math.ceil(height / window))
    width = page.viewport_size["width"] if page.viewport_size else 0
    for n in range(screens):
        top = n * window
        clip = {"x": 0, "y": top, "width": width, "height": min(window, height - top)}
        page.screenshot(path=str(out / "screens" / f"{name}-{n + 1:02d}.png"), full_page=True, clip=clip)
    return screens


def main(argv: list[str] | None = None) -> int:
    """Build, serve, shoot every page at every width and scheme; print where the files are."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--course", type=Path, default=ROOT, help="the course folder (default: this repository's)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/lessonkit-shots"), help="where the PNGs go")
    parser.add_argument("--page", action="append", default=[], help="only this page (e.g. index.html); repeatable")
    args = parser.parse_args(argv)
    shutil.rmtree(args.out, ignore_errors=True)
    (args.out / "screens").mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="lessonkit-shots-") as tmp:
        site = Path(tmp) / "site"
        build_site(args.course.resolve(), site)
        server = start_server(site, isolated=True)
        try:
            with sync_playwright() as pw:
                browser = launch_chromium(pw)
                for width, window in WINDOWS.items():
                    for scheme in SCHEMES:
                        context = browser.new_context(viewport={"width": width, "height": window},
                                                      color_scheme=scheme, service_workers="block")
                        for name in args.page or pages(site):
                            page = context.new_page()
                            page.goto(server.url + name)
                            height = settle(page, window)
                            shot = f"{Path(name).stem}-{width}-{scheme}"
                            screens = shoot(page, args.out, shot, height, window)
                            print(f"{shot}: {height} px, {screens} screens", flush=True)
                            page.close()
                        context.close()
                browser.close()
        finally:
            server.stop()
    print(f"screenshots in {args.out}/ (whole pages) and {args.out}/screens/ (one window each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
