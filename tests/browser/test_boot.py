"""The lean boot pipeline in Chromium: trimmed stdlib with the full one on demand, precompressed editor bundle."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import BrowserContext, Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE, RUNTIME_DIR, PageErrors, wait_until
from .test_lab import LINES_4_2, Lab, open_lab

ROOT = Path(__file__).resolve().parents[2]

FULL = f"/{RUNTIME_DIR}/full/python_stdlib.zip"
TRIMMED = f"/{RUNTIME_DIR}/python_stdlib.zip"


def test_left_out_stdlib_modules_import_on_demand(new_page: Callable[..., Page], server: ServerHandle) -> None:
    # What the page asks for, whether the server or the browser's HTTP cache answers (a first visit: nothing cached).
    asked: list[str] = []
    page = new_page(server.url, first_visit=True)
    page.context.on("request", lambda request: asked.append(urlsplit(request.url).path))
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    lab.wait_ready()
    assert asked.count(FULL) == 0, "the full stdlib must not be part of the boot"
    assert asked.count(TRIMMED) >= 1
    lab.run()  # the lesson's own lab runs on the trimmed stdlib
    assert lab.output_text().splitlines() == LINES_4_2 and asked.count(FULL) == 0
    # xml is left out entirely; email is in (importlib.metadata needs it) but email.mime is not.
    lab.run(
        "import xml.dom.minidom\nimport email.mime.text\n"
        "doc = xml.dom.minidom.parseString('<lesson>attention</lesson>')\n"
        "print(doc.documentElement.tagName, doc.documentElement.firstChild.data)\n"
        "print(email.mime.text.MIMEText('hi')['Content-Type'])\n"
    )
    assert lab.output_text().splitlines() == ["lesson attention", 'text/plain; charset="us-ascii"']
    assert asked.count(FULL) == 1, "the full stdlib is mounted once per Python"
    # Every run has a Python of its own: the next one that needs the full stdlib asks for it again (the browser's
    # HTTP cache or the offline copy answers: its URL names its content).
    lab.run("import wave, sched, graphlib\nprint(sorted(graphlib.TopologicalSorter({'b': {'a'}}).static_order()))\n")
    assert lab.output_text().splitlines() == ["['a', 'b']"]
    assert asked.count(FULL) == 2
    lab.run("import numpy\n")  # not in the stdlib: the usual one-sentence error, no download
    assert "No module named 'numpy'" in lab.output_text() and asked.count(FULL) == 2


def test_editor_bundle_arrives_precompressed(new_page: Callable[..., Page], server: ServerHandle) -> None:
    lab = open_lab(new_page, server)
    sizes = lab.page.evaluate(
        """() => performance.getEntriesByType("resource").filter((r) => r.name.endsWith("/js/editor.js"))
              .map((r) => [r.encodedBodySize, r.decodedBodySize])"""
    )
    assert sizes, "the page did not load the editor bundle"
    encoded, decoded = sizes[0]
    assert 0 < encoded < decoded / 2, sizes  # brotli on the wire


_SAVED_JS = """
async () => {
  const cache = await caches.open("lab-python-snapshot");
  const [request] = await cache.keys();
  const saved = request && (await cache.match(request));
  return saved ? { bytes: (await saved.arrayBuffer()).byteLength, off: saved.headers.get("x-lab-snapshots-off") } : null;
}
"""


# Every state of the loading line, in order: text, then the progress bar's value and max (it changes faster than a
# test can poll).
_PROGRESS_HOOK = """
(() => {
  window.__labProgress = [];
  new MutationObserver(() => {
    const text = document.querySelector("[data-lab-progress-text]");
    const bar = document.querySelector("[data-lab-progress] progress");
    if (!text || !bar) return;
    const entry = [text.textContent, bar.hasAttribute("value") ? bar.value : null, bar.max];
    const last = window.__labProgress[window.__labProgress.length - 1];
    if (!last || last.join("|") !== entry.join("|")) window.__labProgress.push(entry);
  }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
})();
"""


def test_the_download_is_counted_up_to_the_runtime_size(new_page: Callable[..., Page], server: ServerHandle) -> None:
    """A first visit counts "Downloading Python… x of y MB" from 0 to the build's sizes, then "Starting Python…"."""
    page = new_page(server.url, first_visit=True)
    page.context.add_init_script(_PROGRESS_HOOK)
    # A slow link (~40 Mbit/s), so the worker reports bytes as they come rather than all at once on loopback.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions",
             {"offline": False, "latency": 20, "downloadThroughput": 5_000_000, "uploadThroughput": 5_000_000})
    page.goto(LESSON_PAGE)
    Lab(page).wait_ready()
    sizes = page.evaluate("JSON.parse(document.getElementById('lesson-data').textContent).runtime.sizes")
    total = sum(sizes.values())
    megabytes = f"{total / 1e6:.1f}"
    shown = page.evaluate("window.__labProgress")
    downloads = [entry for entry in shown if entry[0].startswith("Downloading Python…")]
    assert downloads[0] == [f"Downloading Python… 0.0 of {megabytes} MB", 0, total], shown
    assert downloads[-1] == [f"Downloading Python… {megabytes} of {megabytes} MB", total, total], shown
    counted = [entry[1] for entry in downloads]
    assert counted == sorted(counted), shown  # bytes only ever add up
    assert len({n for n in counted if 0 < n < total}) >= 3, shown  # counted as they arrive, not filled in at the end
    texts = [entry[0] for entry in shown]
    assert texts.index("Starting Python…") > texts.index(downloads[-1][0]), shown


def _visit(context: BrowserContext) -> tuple[Lab, dict[str, object]]:
    page = context.new_page()
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    lab.wait_ready()
    # The worker's notes on its boot (the page does not show them).
    return lab, page.evaluate("document.querySelector('[data-lab]').labController.bootDiagnostics")


def test_later_visits_boot_from_a_memory_snapshot(new_page: Callable[..., Page], server: ServerHandle) -> None:
    context = new_page(server.url, first_visit=True).context
    context.add_init_script(_PROGRESS_HOOK)
    original = _first_visit(context)
    # The recorded normal boot is made slow, so no snapshot boot loses the comparison on a busy machine (that
    # comparison has its own test below).
    _tamper(context, "fast")

    randoms = []
    for _ in range(2):
        lab, ready = _visit(context)
        assert ready["snapshot"] is True, json.dumps(ready)
        # Nothing is downloaded on a revisit, and the loading line does not say so.
        texts = [entry[0] for entry in lab.page.evaluate("window.__labProgress")]
        assert "Starting Python…" in texts and not any(t.startswith("Downloading") for t in texts), texts
        lab.run(original)
        assert lab.output_text().splitlines() == LINES_4_2
        assert LINES_4_2[-1] == "head_dim=16  divide by 4.00  scaled=[0.000, 1.000, 0.500]  probs=[18.6%, 50.6%, 30.7%]"
        lab.run("import random\nprint(random.random())\n")
        randoms.append(lab.output_text().strip())
        lab.page.close()
    assert randoms[0] != randoms[1], "random is reseeded after every snapshot boot"


def _first_visit(context: BrowserContext) -> str:
    """A normal boot that leaves a snapshot behind; returns the lab's code."""
    lab, ready = _visit(context)
    assert ready["snapshot"] is False, json.dumps(ready)
    code = lab.code()
    # Saved in the background once the lab is quiet. Wait until the entry reads back whole: a page closed while
    # the ~12 MB are still being written leaves no snapshot (the next visit then takes one).
    wait_until(lambda: (lab.page.evaluate(_SAVED_JS) or {}).get("bytes", 0) > 1_000_000, page=lab.page,
               timeout=30, message="the snapshot to be saved")
    lab.page.close()
    return code


# Rewrites the saved snapshot in place: "corrupt" keeps its headers and replaces the heap with junk; "slow" keeps
# the heap and records a normal boot of 1 ms, so the next snapshot boot loses; "fast" records one of ten minutes, so
# every snapshot boot wins.
_TAMPER_JS = """
async (mode) => {
  const cache = await caches.open("lab-python-snapshot");
  const [request] = await cache.keys();
  const saved = await cache.match(request);
  const headers = Object.fromEntries(saved.headers);
  const body = mode === "corrupt" ? new Uint8Array(4096).fill(7) : await saved.arrayBuffer();
  if (mode === "slow") headers["x-lab-normal-boot-ms"] = "1";
  if (mode === "fast") headers["x-lab-normal-boot-ms"] = "600000";
  await cache.put(request, new Response(body, { headers }));
}
"""


def _tamper(context: BrowserContext, mode: str) -> None:
    """Rewrite the saved snapshot from the course index (same origin, no lab, so no boot of its own that could
    compare with or save over the rewritten entry; see _TAMPER_JS)."""
    page = context.new_page()
    page.goto("index.html")
    page.evaluate(_TAMPER_JS, mode)
    page.close()

def test_a_broken_snapshot_falls_back_to_a_normal_boot(new_page: Callable[..., Page], server: ServerHandle,
                                                       page_errors: PageErrors) -> None:
    page_errors.expect("the saved Python snapshot did not work")  # visible in the console, silent in the page
    context = new_page(server.url, first_visit=True).context
    _first_visit(context)
    _tamper(context, "corrupt")

    lab, ready = _visit(context)
    assert ready["snapshot"] is False and str(ready["snapshotNote"]).startswith("did not work"), json.dumps(ready)
    lab.run()
    assert lab.output_text().splitlines() == LINES_4_2
    expect(lab.status).to_contain_text("Run finished")
    # The normal boot saved a good snapshot in place of the broken one, and the next visit uses it.
    wait_until(lambda: (lab.page.evaluate(_SAVED_JS) or {}).get("bytes", 0) > 1_000_000, page=lab.page,
               message="a fresh snapshot to replace the broken one")
    lab.page.close()
    lab, ready = _visit(context)
    assert ready["snapshot"] is True, json.dumps(ready)


def test_a_snapshot_that_does_not_win_is_turned_off(new_page: Callable[..., Page], server: ServerHandle) -> None:
    context = new_page(server.url, first_visit=True).context
    _first_visit(context)
    _tamper(context, "slow")

    lab, ready = _visit(context)  # boots from it, then finds it slower than the recorded 1 ms normal boot
    assert ready["snapshot"] is True, json.dumps(ready)
    wait_until(lambda: (lab.page.evaluate(_SAVED_JS) or {}).get("off") == "1", page=lab.page,
               message="snapshots to be turned off")
    lab.page.close()
    lab, ready = _visit(context)
    assert ready["snapshot"] is False and ready["snapshotNote"] == "off: a snapshot boot was not faster here", ready
    lab.run()
    assert lab.output_text().splitlines() == LINES_4_2
