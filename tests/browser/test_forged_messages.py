"""Learner code cannot speak for the lab's worker: what it posts on the worker's own global (from Python, by every
route test_sandbox.py's ROUTES names) and what a page script dispatches at the Worker object are ignored, logged
once, and the run goes on as if they were never sent."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE, wait_until
from .test_lab import BOOT_TIMEOUT, Lab
from .test_sandbox import CONTROLLER, ROUTES

# Keeps every Worker the page makes, so the test can post on a worker's own channel as learner code once could.
_KEEP_WORKERS = """
(() => {
  window.__labWorkers = [];
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      window.__labWorkers.push(this);
    }
  };
})();
"""

FORGED = [
    {"type": "result", "ok": True, "ms": 1, "error": None, "charts": [], "truncated": False, "stopped": False},
    {"type": "ready", "diagnostics": {"ms": 1, "pythonMs": 1, "snapshot": False, "snapshotNote": "", "isolated": True}},
    {"type": "stdout", "text": "FORGED\n"},
    {"type": "stderr", "text": "FORGED\n"},
]

FORGE_FROM_PYTHON = f"""
import js
from pyodide.ffi import to_js
routes = {{name: code for name, code in {ROUTES!r}.items() if name in ("js", "event", "pyodide_js")}}
for route, code in routes.items():
    scope = {{"js": js}}
    try:
        exec(code, scope)
        for i in range(1, 40):
            for message in {FORGED!r}:
                scope["g"].postMessage(to_js({{**message, "id": i}}, dict_converter=js.Object.fromEntries))
        print(route, "sent")
    except Exception as exc:
        print(route, "blocked:", type(exc).__name__)
print("real output")
import time
started = time.monotonic()
while time.monotonic() - started < 0.5:  # output goes out in timed batches: this line sends the one above
    pass
print("still running")
while True:
    pass
"""

_FORGE_ON_THE_PAGE = """
(forged) => {
  for (const worker of window.__labWorkers) {
    for (let id = 1; id < 40; id++) {
      for (const message of forged) worker.dispatchEvent(new MessageEvent("message", { data: { ...message, id } }));
    }
  }
}
"""


def test_forged_worker_messages_are_ignored_and_logged(new_page: Callable[..., Page], server: ServerHandle) -> None:
    page = new_page(server.url)
    page.context.add_init_script(_KEEP_WORKERS)
    warnings: list[str] = []
    page.on("console", lambda msg: warnings.append(msg.text) if msg.type == "warning" else None)
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    lab.wait_ready()
    lab.set_code(FORGE_FROM_PYTHON)
    lab.run_button.click()
    expect(lab.current).to_contain_text("still running", timeout=BOOT_TIMEOUT)
    # Learner code has no way to post to the page, and the page reads nothing that arrives outside its channel.
    page.evaluate(_FORGE_ON_THE_PAGE, FORGED)
    page.wait_for_timeout(500)
    lines = lab.output_text().splitlines()
    assert [line.split(" ", 1)[0] for line in lines[:3]] == ["event", "js", "pyodide_js"], lines
    assert all(" blocked: " in line for line in lines[:3]) and lines[3:] == ["real output", "still running"], lines
    assert page.evaluate(f"{CONTROLLER}.state") == "running"
    expect(lab.status).to_have_text("Running…")
    expect(lab.stop_button).to_be_enabled()
    wait_until(lambda: any("did not come over the lab's channel" in w for w in warnings), page=page,
               message="a console warning about the ignored messages")
    assert len([w for w in warnings if "did not come over the lab's channel" in w]) <= 10, "one warning per message"
    lab.stop_button.click()
    expect(lab.status).to_contain_text("Stopped", timeout=5000)
    lab.run("print(6 * 7)")
    assert lab.output_text() == "42\n"
    assert re.match(r"^Run finished in \d+ ms$", lab.status.inner_text())
