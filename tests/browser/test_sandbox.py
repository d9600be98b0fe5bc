"""Learner code in the lab cannot reach the site's storage, the network or the page (nor speak for the worker:
test_forged_messages.py).

Code that arrives in a shared link runs one click on Run away, on the site's origin, inside the lab's worker. These
tests run what such code would try, in every way it can reach the worker's global object, and then look where it
would have left a trace: the service worker's offline copy of main.js (after a reload online, in a new tab, with
?nosw and offline), IndexedDB, the origin's file system, the server's log and the page.

The storage tests run against a host that sends no headers at all (as many static hosts do): the page's <meta>
Content-Security-Policy still reaches the worker (it starts from a blob: URL, which inherits the page's policy), so
`Function`, `eval` and `run_js` are refused there as on any host; an event's `target` is gone with `Event` and
`addEventListener`; every other route finds the emptied global, which holds what worker/sandbox.js lists and nothing
else.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import BrowserContext, Page

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE, HeaderlessHost, PageErrors, wait_until
from .test_boot import _SAVED_JS
from .test_lab import BOOT_TIMEOUT, LINES_4_2, Lab
from .test_offline import FAVICON, wait_controlled

MARKER = "lessonkit-test-marker"  # a value the page keeps in localStorage: a planted script would read it
PLANTED = "lessonkit-test-planted"  # where the planted script puts what it read
CONTROLLER = "document.querySelector('[data-lab]').labController"


# ---- what learner code tries ------------------------------------------------------------------------------------

# Each way learner code has to the worker's global object, as Python that sets `g` to it. The routes through
# JavaScript source (eval, Function) are refused by the page's CSP, which the worker inherits on every host; the
# route through an event is gone with the event API (BY_LOCKDOWN).
ROUTES = {
    "event": """
from pyodide.ffi import create_proxy
box = {}
js.addEventListener("x", create_proxy(lambda e: box.__setitem__("g", e.target)))
js.dispatchEvent(js.Event.new("x"))
g = box["g"]
""",
    "js": "g = js\n",
    "pyodide_js": "import pyodide_js\ng = pyodide_js.constructor.constructor('return this')()\n",
    "run_js": "from pyodide.code import run_js\ng = run_js('globalThis')\n",
    "Function": "g = js.Function('return this')()\n",
    "eval": "g = js.eval('self')\n",
    "constructor": "g = js.Math.max.constructor('return this')()\n",
}
BY_EVAL = frozenset({"pyodide_js", "run_js", "Function", "eval", "constructor"})
BY_LOCKDOWN = frozenset({"event"})

# A script in place of the build's main.js: it would run in the page and read the page's localStorage.
PLANTED_JS = f"localStorage.setItem('{PLANTED}', String(localStorage.getItem('{MARKER}')));"

# Puts PLANTED_JS in the service worker's cache as main.js, through `g`.
PLANT_IN_CACHE = f"""
from pyodide.ffi import create_proxy, to_js
main_js = str(g.location.href).replace("lab-worker.js", "main.js")
options = to_js({{"headers": {{"Content-Type": "text/javascript"}}}}, dict_converter=g.Object.fromEntries)
def put(cache):
    return cache.put(main_js, g.Response.new({PLANTED_JS!r}, options))
def open_site_cache(names):
    for name in names:
        if name.startswith("lessonkit-"):
            g.caches.open(name).then(create_proxy(put))
g.caches.keys().then(create_proxy(open_site_cache))
"""

# The same, from a worker started by the lab's worker: same origin, with a global of its own.
PLANT_FROM_A_WORKER = f"""
from pyodide.ffi import to_js
source = '''
caches.keys().then((names) => Promise.all(names.filter((n) => n.startsWith("lessonkit-")).map((n) =>
  caches.open(n).then((cache) => cache.put(new URL("main.js", MAIN).href,
    new Response({PLANTED_JS!r}, {{ headers: {{ "Content-Type": "text/javascript" }} }}))))));
'''.replace("MAIN", repr(str(g.location.href)))
blob = g.Blob.new(to_js([source]), to_js({{"type": "text/javascript"}}, dict_converter=g.Object.fromEntries))
g.Worker.new(g.URL.createObjectURL(blob))
"""


def attempt(route: str, action: str) -> str:
    """Learner code that takes `route` to the global, then does `action`; prints what stopped it, if anything."""
    body = ROUTES[route] + action
    indented = "\n".join("    " + line if line else "" for line in body.splitlines())
    handler = ("except Exception as exc:\n"
               "    print('blocked:', exc.name if type(exc).__name__ == 'JsException' else type(exc).__name__)\n")
    return f"import js\ntry:\n{indented}\n    print('done')\n{handler}"


# ---- looking for traces -----------------------------------------------------------------------------------------

_CACHED_MAIN_JS = """
async (path) => {
  const url = new URL(path, document.baseURI).href;
  const bodies = [];
  for (const name of await caches.keys()) {
    if (!name.startsWith("lessonkit-")) continue;
    const hit = await (await caches.open(name)).match(url);
    if (hit) bodies.push(await hit.text());
  }
  return bodies;
}
"""


def main_js_path(page: Page) -> str:
    """The site-relative path of the page's main.js (static/<hash>/js/main.js)."""
    src = page.locator("script[type=module][src$='/main.js']").get_attribute("src")
    assert src, "the page has no main.js"
    return src


def assert_page_is_the_builds(page: Page, site_dir: Path, where: str) -> None:
    """No planted script read the marker, the offline copy of main.js is the build's, and it ran (the lab started)."""
    assert page.evaluate(f"localStorage.getItem({PLANTED!r})") is None, f"a planted script read localStorage ({where})"
    path = main_js_path(page)
    built = (site_dir / path).read_text(encoding="utf-8")
    cached = page.evaluate(_CACHED_MAIN_JS, path)
    assert cached and all(body == built for body in cached), f"main.js in the offline copy is not the build's ({where})"
    wait_until(lambda: page.evaluate("Boolean(document.querySelector('[data-lab]')?.labController)"), page=page,
               timeout=BOOT_TIMEOUT / 1000, message=f"the build's main.js to start the lab ({where})")


def revisit(page: Page) -> tuple[Page, Lab]:
    """Once page's first boot has saved its memory snapshot, close it and open the lesson again: a snapshot boot."""
    wait_until(lambda: (page.evaluate(_SAVED_JS) or {}).get("bytes", 0) > 1_000_000, page=page, timeout=30,
               message="the snapshot to be saved")
    context = page.context
    page.close()
    page = context.new_page()
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    lab.wait_ready()
    return page, lab


def open_offline_lab(context: BrowserContext, *, again: bool) -> tuple[Page, Lab]:
    """A page of the lesson with its service worker in control, the lab ready and the marker set.

    again: boot from the memory snapshot the first visit saved, as every later visit does. (On the boot that takes
    the snapshot, `import js` is a Proxy recording paths, on which WebIDL getters such as `js.caches` fail with
    "Illegal invocation" whatever the lab does: the `js` route is only open on later visits.)
    """
    page = context.new_page()
    page.goto(LESSON_PAGE)
    wait_controlled(page)
    page.evaluate(f"localStorage.setItem({MARKER!r}, 'only the page may read this')")
    lab = Lab(page)
    lab.wait_ready()
    return revisit(page) if again else (page, lab)


PLANT_CASES = {route: PLANT_IN_CACHE for route in ROUTES} | {"worker": PLANT_FROM_A_WORKER}


@pytest.mark.parametrize("case", list(PLANT_CASES))
def test_learner_code_cannot_plant_a_script_in_the_offline_copy(
    case: str, new_page: Callable[..., Page], headerless: HeaderlessHost, site_dir: Path, page_errors: PageErrors
) -> None:
    page_errors.expect(FAVICON)
    context = new_page(headerless.url, service_workers="allow").context
    page, lab = open_offline_lab(context, again=case == "js")
    lab.run(attempt("event" if case == "worker" else case, PLANT_CASES[case]))
    # The API is not there; the routes through JavaScript source do not even get that far.
    assert lab.output_text() == ("blocked: EvalError\n" if case in BY_EVAL else "blocked: AttributeError\n")
    page.wait_for_timeout(1000)  # what a planted promise chain would need to finish writing
    assert_page_is_the_builds(page, site_dir, "after the run")

    page.reload()
    assert_page_is_the_builds(page, site_dir, "reloaded online")
    tab = context.new_page()
    tab.goto(LESSON_PAGE)
    assert_page_is_the_builds(tab, site_dir, "in a new tab")
    tab.close()
    context.set_offline(True)
    page.reload()
    assert_page_is_the_builds(page, site_dir, "reloaded offline")
    context.set_offline(False)
    page.goto(LESSON_PAGE + "?nosw")  # main.js comes from the offline copy once more, before the worker is removed
    assert_page_is_the_builds(page, site_dir, "with ?nosw")


_OPFS_NAMES = """
async () => {
  const names = [];
  for await (const name of (await navigator.storage.getDirectory()).keys()) names.push(name);
  return names;
}
"""

# Every other place a trace could be left: a database, a file, requests, a broadcast to the page.
REACH_OUT = """
from pyodide.ffi import create_proxy, to_js
def step(name, action):
    try:
        action()
        print(name, "done")
    except Exception as exc:
        print(name, "blocked:", type(exc).__name__)
step("indexedDB", lambda: g.indexedDB.open("lessonkit-test-planted"))
step("OPFS", lambda: g.navigator.storage.getDirectory().then(create_proxy(
    lambda root: root.getFileHandle("lessonkit-test-planted", to_js({"create": True},
                                                                     dict_converter=js.Object.fromEntries)))))
step("fetch", lambda: g.fetch("/probe-fetch"))
def xhr():
    request = g.XMLHttpRequest.new()
    request.open("GET", "/probe-xhr", False)
    request.send()
step("XMLHttpRequest", xhr)
step("WebSocket", lambda: g.WebSocket.new(str(js.location.href).replace("http", "ws", 1) + "?probe-websocket"))
step("EventSource", lambda: g.EventSource.new("/probe-eventsource"))
step("BroadcastChannel", lambda: g.BroadcastChannel.new("lessonkit-test").postMessage("from learner code"))
step("importScripts", lambda: g.importScripts("/probe-importscripts.js"))
step("locks", lambda: g.navigator.locks.request("lessonkit-test", create_proxy(lambda lock: None)))
"""


def test_learner_code_cannot_reach_other_storage_or_the_network(
    new_page: Callable[..., Page], headerless: HeaderlessHost, page_errors: PageErrors
) -> None:
    page_errors.expect(FAVICON)
    page = new_page(headerless.url)
    page.goto(LESSON_PAGE)
    page.evaluate("""() => {
      window.__broadcasts = [];
      new BroadcastChannel("lessonkit-test").onmessage = (e) => window.__broadcasts.push(e.data);
    }""")
    lab = Lab(page)
    lab.wait_ready()
    served = len(headerless.log)
    lab.run("import js\n" + ROUTES["js"] + REACH_OUT)
    steps = dict(line.split(" ", 1) for line in lab.output_text().splitlines())
    assert set(steps) >= {"indexedDB", "OPFS", "fetch", "XMLHttpRequest", "BroadcastChannel", "importScripts"}
    assert all(result.startswith("blocked: ") for result in steps.values()), steps
    page.wait_for_timeout(1000)  # for anything asynchronous to land
    assert "lessonkit-test-planted" not in [db["name"] for db in page.evaluate("indexedDB.databases()")]
    assert "lessonkit-test-planted" not in page.evaluate(_OPFS_NAMES)
    assert [path for path in headerless.log[served:] if "probe" in path] == []
    assert page.evaluate("window.__broadcasts") == []


# Names learner code must not find, searched (with `in`, so the prototype chain too) on whatever each route returns as
# the global object: a few of what test_what_learner_code_can_reach_is_the_list lists in full.
UNREACHABLE = ["caches", "indexedDB", "fetch", "XMLHttpRequest", "importScripts", "postMessage", "Worker",
               "SharedWorker", "BroadcastChannel", "WebSocket", "EventSource", "webkitRequestFileSystem",
               "OffscreenCanvas", "WebGLRenderingContext", "WebGL2RenderingContext", "createImageBitmap", "navigator",
               "URL", "location", "structuredClone", "MessageChannel", "Blob", "Response", "ImageData", "Event"]

SCAN = f"""
import js
has = js.Reflect.has
for route, code in {ROUTES!r}.items():
    scope = {{"js": js}}
    try:
        exec(code, scope)
    except Exception as exc:
        print(route + ":", "refused", exc.name if type(exc).__name__ == "JsException" else type(exc).__name__)
        continue
    found = [name for name in {UNREACHABLE!r} if has(scope["g"], name)]
    print(route + ":", ", ".join(found) or "nothing")
"""


def _refusal(route: str) -> str:
    return "refused EvalError" if route in BY_EVAL else "refused AttributeError" if route in BY_LOCKDOWN else "nothing"


def _scan(lab: Lab) -> None:
    lab.run(SCAN)
    assert lab.output_text().splitlines() == [f"{route}: {_refusal(route)}" for route in ROUTES]


def test_every_route_to_the_worker_global_finds_nothing_after_either_boot(
    new_page: Callable[..., Page], headerless: HeaderlessHost
) -> None:
    page = new_page(headerless.url, first_visit=True)
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    lab.wait_ready()
    _scan(lab)
    assert page.evaluate(f"{CONTROLLER}.bootDiagnostics.snapshot") is False
    # The next visit boots from the memory snapshot the first one saved (taken before any learner code ran).
    page, lab = revisit(page)
    _scan(lab)
    assert page.evaluate(f"{CONTROLLER}.bootDiagnostics.snapshot") is True


# ---- the Python snapshot ----------------------------------------------------------------------------------------

# Runs the code in the editor the moment the lab is ready, before the worker writes the snapshot of this first boot.
_RUN_AT_READY = """
document.addEventListener("lab:state", (event) => {
  if (event.detail.state !== "ready" || window.__ranAtReady) return;
  window.__ranAtReady = true;
  const controller = event.target.closest("[data-lab]").labController;
  queueMicrotask(() => {
    controller.setCode(CODE, { silent: true });
    controller.run();
  });
});
"""

# Learner code that changes the built-ins the worker's own code would use after it, if it packed and wrote the
# heap then: every copy into a typed array now writes nothing, and Cache writes go through the learner's function.
TAMPER = """
import js
from pyodide.ffi import create_proxy
js.Uint8Array.prototype.set = create_proxy(lambda *args: None)
try:
    js.Cache.prototype.put = create_proxy(lambda *args: None)
    print("Cache.prototype.put replaced")
except AttributeError:
    print("no Cache here")
"""


def test_learner_code_run_at_ready_cannot_change_the_saved_snapshot(
    new_page: Callable[..., Page], server: ServerHandle
) -> None:
    page = new_page(server.url)
    page.add_init_script(_RUN_AT_READY.replace("CODE", json.dumps(TAMPER)))
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    wait_until(lambda: lab.runs() >= 1 if page.evaluate("Boolean(window.__ranAtReady)") else False, page=page,
               timeout=BOOT_TIMEOUT / 1000, message="the run at Ready")
    assert lab.output_text() == "no Cache here\n"
    # The next visit boots from that snapshot: the one our code packed before learner code could run.
    page, lab = revisit(page)
    diagnostics = page.evaluate(f"{CONTROLLER}.bootDiagnostics")
    assert diagnostics["snapshot"] is True and diagnostics["snapshotNote"] == "", diagnostics
    lab.run()
    assert lab.output_text().splitlines() == LINES_4_2
