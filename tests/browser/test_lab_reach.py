"""What learner code can reach in the lab's worker is what worker/sandbox.js and wasm.js list, and nothing else: every
name on the global object and its prototype chain, every member of the Web objects kept, every member of
WebAssembly. An API a newer Chromium adds is deleted with the rest (lockDown keeps only what the lists name); this
test fails if anything the lists do not name is left, and the security model names each (tests/test_lab_sandbox.py).

It looks from a boot of the memory snapshot, where `import js` is the worker's own global (on the boot that takes the
snapshot it is a Proxy recording paths, on which WebIDL getters fail whatever the lab does).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from playwright.sync_api import Page
from test_lab_sandbox import reachable_lists

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE
from .test_lab import Lab
from .test_sandbox import revisit

# Every string-keyed name on an object and its prototype chain, up to the language's Object.prototype (which
# meter-objects.js meters); and whether each of WebAssembly's constructors and compilers refuses.
SURFACE = """
import js, json
def names(o):
    found = []
    while "isPrototypeOf" not in (level := list(js.Object.getOwnPropertyNames(o))):
        found += level
        o = js.Object.getPrototypeOf(o)
    return sorted(set(found))
report = {"global": names(js)}
for name in ("performance", "crypto", "console"):
    report[name] = names(getattr(js, name))
report["WebAssembly"] = sorted(js.Object.getOwnPropertyNames(js.WebAssembly))
refusals = {}
for name in REFUSED:
    if not js.Reflect.has(js.WebAssembly, name):
        continue  # not in this browser
    try:
        member = getattr(js.WebAssembly, name)
        member.new(js.Uint8Array.new(8)) if name[0].isupper() else member(js.Uint8Array.new(8))
        refusals[name] = "made"
    except Exception as exc:
        refusals[name] = str(exc)
report["refusals"] = refusals
print(json.dumps(report))
"""


def test_what_learner_code_can_reach_is_the_list(new_page: Callable[..., Page], server: ServerHandle) -> None:
    lists = reachable_lists()
    page = new_page(server.url)
    page.goto(LESSON_PAGE)
    Lab(page).wait_ready()
    page, lab = revisit(page)
    lab.run(SURFACE.replace("REFUSED", repr(lists["refused"])))
    report = json.loads(lab.output_text())
    kept = set(lists["language"]) | set(lists["runtime"]) | set(lists["constants"])
    assert set(report["global"]) - kept == set(), "left on the worker's global, and no list names it"
    assert {"performance", "crypto", "console", "setTimeout", "TextDecoder", "WebAssembly", "labkitWriteOut"} <= set(
        report["global"])
    for name in ("performance", "crypto", "console"):
        assert set(report[name]) <= set(lists[name]), f"{name} keeps members no list names"
    assert set(report["WebAssembly"]) <= set(lists["refused"]) | set(lists["kept"])
    assert report["refusals"] == {name: f"TypeError: WebAssembly.{name} is not available in the lab"
                                  for name in lists["refused"] if name in report["WebAssembly"]}
    assert {"Module", "Instance", "Memory", "compile", "instantiate"} <= set(report["refusals"])
