"""The course's lesson "Attention in Matrix Form" boots its own Pyodide (front matter `pyodide: 0.27.7`) with NumPy,
while the course's other lessons stay on the core release: its lab imports the official wheel (checked by the browser
against the lock's sha256), draws its heatmaps from NumPy arrays, works offline after a first visit to any lesson, and
refuses a tampered wheel."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from browser.helpers import PageErrors, requested, wait_until
from browser.test_lab import BOOT_TIMEOUT, Lab
from browser.test_numpy import NUMPY, wheel_url
from browser.test_offline import SW_TIMEOUT, wait_controlled
from playwright.sync_api import Page, expect

from lessonkit.serve.server import ServerHandle

PAGE = "attention-in-matrix-form.html"
CORE_PAGE = "scaled-dot-product-attention.html"
LAB_FILE = Path(__file__).resolve().parents[2] / "lab" / "attention_matrices.py"
OUTPUT = "token 3, after W_O: [0.942 1.784 0.836 0.836]"


def test_the_lesson_runs_numpy_and_draws_heatmaps_from_its_arrays(
        site_dir: Path, new_page: Callable[..., Page], start_test_server: Callable[..., ServerHandle]) -> None:
    server = start_test_server(site_dir)
    page = new_page(server.url)
    page.goto(PAGE)
    lab = Lab(page)
    lab.wait_ready()
    lab.run()
    expect(lab.current).to_contain_text(OUTPUT)
    charts = lab.current.locator(".lab-heatmap-svg")
    expect(charts).to_have_count(2)
    expect(charts.nth(1)).to_have_attribute("aria-label", re.compile(
        r"^Chart of this run\. Head 2 of 2: attention weights\. Heatmap of 3 rows \(Query \(token\)\) by 3 columns "
        r"\(Key \(token\)\)"
        r".*Query \(token\) 1: Key \(token\) 1 76\.8%, Key \(token\) 2 4\.5%"))
    assert requested(server.log, wheel_url(site_dir), 200)
    assert requested(server.log, "pyodide.asm.js", 200)
    lab.run("import numpy as np, sys\nprint(np.__version__, sys.version_info[:2])")
    expect(lab.current).to_contain_text("2.0.2 (3, 12)")
    # The lesson's third step: the lab's own code with h = 3, which the reshape refuses.
    lab.run(LAB_FILE.read_text(encoding="utf-8").replace("heads = 2  #", "heads = 3  #"))
    expect(lab.current).to_contain_text("4 numbers do not split into 3 heads: choose h that divides 4")


def test_the_other_lessons_boot_the_core_release(site_dir: Path, new_page: Callable[..., Page],
                                                 start_test_server: Callable[..., ServerHandle]) -> None:
    server = start_test_server(site_dir)
    page = new_page(server.url)
    page.goto(CORE_PAGE)
    lab = Lab(page)
    lab.wait_ready()
    lab.run("import sys\nprint(sys.version_info[:2])")
    expect(lab.current).to_contain_text("(3, 14)")
    assert requested(server.log, "pyodide.asm.mjs", 200)
    assert not requested(server.log, NUMPY) and not requested(server.log, "pyodide.asm.js")


def test_numpy_offline_after_a_first_visit_to_another_lesson(
        site_dir: Path, new_page: Callable[..., Page], page_errors: PageErrors,
        start_test_server: Callable[..., ServerHandle]) -> None:
    """The first visit is a core lesson, then the learner saves the course for offline use on its index: the NumPy
    lesson, its Python release and its wheels then work offline."""
    page_errors.expect("/favicon.ico")
    server = start_test_server(site_dir, isolated=True)
    page = new_page(server.url, service_workers="allow")
    page.goto(CORE_PAGE)
    Lab(page).wait_ready()
    wait_controlled(page)
    page.goto("index.html")
    page.get_by_role("button", name="Save the course for offline use").click()
    expect(page.get_by_role("status").filter(has_text="Saved")).to_have_text(
        "Saved: every lesson and its lab now work offline in this browser.", timeout=SW_TIMEOUT * 1000)
    page.context.set_offline(True)
    served = len(server.log)
    page.goto(PAGE)
    lab = Lab(page)
    lab.wait_ready()
    lab.run()
    wait_until(lambda: OUTPUT in lab.output_text(), page=page, message="the layer's output")
    expect(lab.current.locator(".lab-heatmap-svg")).to_have_count(2)
    assert [entry for entry in server.log[served:] if entry[1] != "/sw.js"] == []


def test_a_tampered_wheel_is_refused_at_load(site_dir: Path, tmp_path: Path, new_page: Callable[..., Page],
                                             page_errors: PageErrors,
                                             start_test_server: Callable[..., ServerHandle]) -> None:
    """One byte changed, the lock unchanged: the browser's integrity check refuses the download."""
    site = tmp_path / "site"
    shutil.copytree(site_dir, site, copy_function=os.link)
    wheel = site / wheel_url(site_dir)
    data = bytearray(wheel.read_bytes())
    data[len(data) // 2] ^= 0x01
    wheel.unlink()  # a hard link to the verified copy: never write through it
    wheel.write_bytes(bytes(data))
    for text in ("integrity", "Failed to load numpy", "Failed to fetch", "numpy"):
        page_errors.expect(text)
    server = start_test_server(site)
    page = new_page(server.url)
    page.goto(PAGE)
    lab = Lab(page)
    expect(lab.root).to_contain_text("Could not load numpy: the download failed, or does not match Pyodide's lock",
                                     timeout=BOOT_TIMEOUT)
    assert requested(server.log, wheel_url(site_dir), 200)  # served, and refused by the browser
