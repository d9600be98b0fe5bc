"""The lean boot pipeline in Chromium: trimmed stdlib with the full one on demand, precompressed editor bundle."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page

from lessonkit import runtime
from lessonkit.serve import ServerHandle

from .test_lab import LINES_4_2, open_lab

ROOT = Path(__file__).resolve().parents[2]

FULL = f"/runtime/{runtime.site_dirname(ROOT)}/full/python_stdlib.zip"
TRIMMED = f"/runtime/{runtime.site_dirname(ROOT)}/python_stdlib.zip"


def _hits(server: ServerHandle, path: str) -> int:
    """How many times the server was asked for exactly path."""
    return sum(1 for _, p, _ in server.log if p == path)


def test_left_out_stdlib_modules_import_on_demand(new_page: Callable[..., Page], server: ServerHandle) -> None:
    before = _hits(server, FULL)
    lab = open_lab(new_page, server)
    assert _hits(server, FULL) == before, "the full stdlib must not be part of the boot"
    assert _hits(server, TRIMMED) >= 1
    lab.run()  # the lesson's own lab runs on the trimmed stdlib
    assert lab.output_text().splitlines() == LINES_4_2 and _hits(server, FULL) == before
    # xml is left out entirely; email is in (importlib.metadata needs it) but email.mime is not.
    lab.run(
        "import xml.dom.minidom\nimport email.mime.text\n"
        "doc = xml.dom.minidom.parseString('<lesson>attention</lesson>')\n"
        "print(doc.documentElement.tagName, doc.documentElement.firstChild.data)\n"
        "print(email.mime.text.MIMEText('hi')['Content-Type'])\n"
    )
    assert lab.output_text().splitlines() == ["lesson attention", 'text/plain; charset="us-ascii"']
    assert _hits(server, FULL) == before + 1
    lab.run("import wave, sched, graphlib\nprint(sorted(graphlib.TopologicalSorter({'b': {'a'}}).static_order()))\n")
    assert lab.output_text().splitlines() == ["['a', 'b']"]
    assert _hits(server, FULL) == before + 1, "the full stdlib is downloaded once per worker"
    lab.run("import numpy\n")  # not in the stdlib: the usual one-sentence error, no download
    assert "No module named 'numpy'" in lab.output_text() and _hits(server, FULL) == before + 1


def test_editor_bundle_arrives_precompressed(new_page: Callable[..., Page], server: ServerHandle) -> None:
    lab = open_lab(new_page, server)
    sizes = lab.page.evaluate(
        """() => performance.getEntriesByType("resource").filter((r) => r.name.endsWith("/js/editor.js"))
              .map((r) => [r.encodedBodySize, r.decodedBodySize])"""
    )
    assert sizes, "the page did not load the editor bundle"
    encoded, decoded = sizes[0]
    assert 0 < encoded < decoded / 2, sizes  # brotli on the wire
