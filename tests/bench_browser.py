"""Benchmark browser side: Chromium profiles (cold / warm tab / restart) and the in-page measurements."""

from __future__ import annotations

import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_server import Hit, Meter
from playwright.sync_api import BrowserContext, Page, Playwright
from playwright.sync_api import Error as PlaywrightError

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
LONG_TASK_MS = 50.0
TWICE_PAIRS = 5  # pairs of clicks per visit for the "clicks twice" rows

# Installed before any page script (add_init_script), so buffered observers see the whole boot.
COLLECTOR_JS = r"""
(() => {
  if (window.__bench) return;
  const B = (window.__bench = {
    fcp: null, lcp: null, cls: 0, longtasks: [], frames: [], labState: null, clickedAt: null, ready: null,
    firstRun: null, firstRunOk: null, firstRunWorkerMs: null, workerAt: null, workerReadyMs: null, workerPythonMs: null,
    workerSnapshot: null,
    errors: [],
  });
  const observe = (type, fn) => {
    try {
      new PerformanceObserver((list) => list.getEntries().forEach(fn)).observe({ type, buffered: true });
    } catch (err) {
      B.errors.push(`${type}: ${err}`);
    }
  };
  observe("paint", (e) => { if (e.name === "first-contentful-paint") B.fcp = e.startTime; });
  observe("longtask", (e) => B.longtasks.push({ start: e.startTime, duration: e.duration }));
  // What Lighthouse's score is made of, as Chromium reports it: the largest paint and the layout shifts no input
  // caused, until the first run's output (B.ready).
  observe("largest-contentful-paint", (e) => { if (B.ready === null) B.lcp = e.startTime; });
  observe("layout-shift", (e) => { if (!e.hadRecentInput && (B.ready === null || e.startTime <= B.ready)) B.cls += e.value; });
  // Long animation frames name the scripts that ran, which is how a long task is pinned on Python or not.
  observe("long-animation-frame", (e) => B.frames.push({
    start: e.startTime, duration: e.duration,
    scripts: e.scripts.map((s) => ({ url: s.sourceURL, invoker: s.invoker, duration: s.duration })),
  }));
  // Boot phases: when the page created the lab's worker, and the boot time the worker itself reports.
  if (typeof window.Worker === "function") {
    const Native = window.Worker;
    window.Worker = class extends Native {
      constructor(...args) {
        super(...args);
        if (B.workerAt === null) B.workerAt = performance.now();
      }
    };
  }
  // Ready = Run enabled AND a run completes. Click in the page the moment the lab says "ready" (a
  // microtask later, after the lab finishes its own handler), so no driver round trip sits inside the figure.
  document.addEventListener("lab:state", (ev) => {
    if (!ev.detail || ev.detail.state !== "ready" || B.labState !== null) return;
    B.labState = performance.now();
    const section = ev.target.closest("[data-lab]") || ev.target;
    // The worker's own figures for its boot, as the lab controller keeps them from the ready message.
    const controller = section.labController;
    const notes = (controller && controller.bootDiagnostics) || null;
    if (notes && typeof notes.ms === "number") {
      B.workerReadyMs = notes.ms;
      B.workerPythonMs = typeof notes.pythonMs === "number" ? notes.pythonMs : null;
      B.workerSnapshot = notes.snapshot === true;
    }
    queueMicrotask(() => {
      B.clickedAt = performance.now();
      section.querySelector("[data-lab-run]").click();
    });
  });
  document.addEventListener("lab:result", (ev) => {
    if (B.ready !== null || B.clickedAt === null) return;
    const d = ev.detail || {};
    B.ready = performance.now();
    B.firstRun = B.ready - B.clickedAt;
    B.firstRunOk = Boolean(d.ok);
    B.firstStdout = String(d.stdout || "").slice(0, 4000);
    B.firstRunWorkerMs = typeof d.ms === "number" ? d.ms : null;
  });
})();
"""

# Resolves when the lab's next Python is ready for the next request (the page keeps one booted ahead of need).
NEXT_PYTHON_JS = r"""
const nextPython = async (section) => {
  const lab = document.querySelector("[data-lab]");
  const client = lab && lab.labController && lab.labController.python;
  const limit = performance.now() + 30000;
  while (client && client.state !== "ready" && performance.now() < limit) await new Promise((r) => setTimeout(r, 5));
};
"""

# Consecutive runs, each timed click -> lab:result in the page (worker round trip and DOM update included), each
# click on a settled page: the previous output painted and, with `settled`, the next Python ready (every run has a
# fresh one, booted after the run before it). Without `settled` each click follows the previous result at once (a
# frame later): back to back, each run waits for its fresh Python.
STEADY_JS = NEXT_PYTHON_JS + r"""
async ([n, settled, prints]) => {
  const section = document.querySelector("[data-lab]");
  const button = section.querySelector("[data-lab-run]");
  const start = performance.now();
  const times = [];
  const workerMs = [];
  let failures = 0;
  for (let i = 0; i < n; i++) {
    if (settled) await nextPython(section);
    const done = new Promise((resolve) => section.addEventListener("lab:result", (ev) => resolve(ev.detail || {}),
                                                                   { once: true }));
    const t0 = performance.now();
    button.click();
    const d = await done;
    times.push(performance.now() - t0);
    if (typeof d.ms === "number") workerMs.push(d.ms);
    // A learner clicks again after seeing the output: let this run's update paint before the next click, so a
    // run is not timed while the page still renders the one before it.
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, settled ? 50 : 0)));
    if (!d.ok || !String(d.stdout || "").includes(prints)) failures += 1;
  }
  return { start, end: performance.now(), times, workerMs, failures };
}
"""

# Consecutive Checks of the page's first exercise, each timed click -> report shown (the exercise:report event is
# dispatched after the report is in the page), each click on a settled page (with `settled`, the next Python ready:
# each Check has a fresh one). Its starter fails a check, so every report is a full one (a failure per check, with
# its message). null when the page has no exercise that runs (the naive page keeps the lesson's exercise as HTML only).
CHECK_JS = NEXT_PYTHON_JS + r"""
async ([n, settled]) => {
  const section = document.querySelector('[data-block="exercise"]');
  if (!section || !section.exerciseController) return null;
  const button = section.querySelector("[data-exercise-check]");
  const times = [];
  let failures = 0;
  for (let i = 0; i < n; i++) {
    if (settled) await nextPython(section);
    const done = new Promise((resolve) => section.addEventListener("exercise:report", (ev) => resolve(ev.detail || {}),
                                                                   { once: true }));
    const t0 = performance.now();
    button.click();
    const report = await done;
    times.push(performance.now() - t0);
    if (!report.total || report.error) failures += 1;
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, settled ? 50 : 0)));
  }
  return { times, failures };
}
"""

# Stop an endless loop through the lab's public controller API; then wait until it is ready again and its next
# Python too (a hard stop ends the run's Python at once: the "restart" case of the no-long-task budget).
STOP_JS = r"""
async () => {
  const section = document.querySelector("[data-lab]");
  const c = section && section.labController;
  if (!c || typeof c.stop !== "function" || typeof c.run !== "function") return null;
  const original = c.getCode();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  c.setCode("while True:\n    pass\n", { silent: true });
  const start = performance.now();
  const running = c.run();
  await sleep(400);
  const stopAt = performance.now();
  await c.stop();
  const stopMs = performance.now() - stopAt;
  const record = await running;
  const limit = performance.now() + 20000;
  while ((section.dataset.labState !== "ready" || c.python.state !== "ready") && performance.now() < limit) {
    await sleep(10);
  }
  const end = performance.now();
  c.setCode(original, { silent: true });
  const status = section.querySelector("[data-lab-status]").textContent;
  return { start, end, stopMs, readyAgainMs: end - stopAt, ended: Boolean(record),
           restarted: /restart/i.test(status), status, ready: section.dataset.labState === "ready" };
}
"""

# A second Run (or Check) right after the first one's result, on a settled page (every spare Python the page keeps
# ready: client.settled): what a learner who clicks twice waits for. [n, kind]: n pairs; kind "run" or "check".
TWICE_JS = r"""
async ([n, kind]) => {
  const lab = document.querySelector("[data-lab]");
  const client = lab && lab.labController && lab.labController.python;
  const section = kind === "run" ? lab : document.querySelector('[data-block="exercise"]');
  if (!client || !section || (kind === "check" && !section.exerciseController)) return null;
  const button = section.querySelector(kind === "run" ? "[data-lab-run]" : "[data-exercise-check]");
  const event = kind === "run" ? "lab:result" : "exercise:report";
  const settled = async () => {
    const limit = performance.now() + 30000;
    while (!(client.settled ?? client.state === "ready") && performance.now() < limit) {
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const once = async () => {
    const done = new Promise((resolve) => section.addEventListener(event, resolve, { once: true }));
    const t0 = performance.now();
    button.click();
    await done;
    return performance.now() - t0;
  };
  const second = [];
  for (let i = 0; i < n; i++) {
    await settled();
    await once();
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    second.push(await once());
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50)));
  }
  return second;
}
"""

# The JavaScript and wasm memory of each of the lab's workers (a spare Python's cost), in bytes; null where the
# browser cannot tell (the API needs cross-origin isolation).
WORKER_MEMORY_JS = r"""
async () => {
  if (!globalThis.crossOriginIsolated || !performance.measureUserAgentSpecificMemory) return null;
  const measured = await performance.measureUserAgentSpecificMemory();
  return measured.breakdown.filter((b) => b.attribution.some((a) => a.scope === "DedicatedWorkerGlobalScope"))
    .map((b) => b.bytes);
}
"""

READ_JS = r"""
() => {
  const resources = performance.getEntriesByType("resource").map((r) => ({
    name: r.name, blocking: r.renderBlockingStatus || "", start: r.startTime }));
  return { ...window.__bench, resources };
}
"""


@dataclass
class Visit:
    """What one page load measured (times in ms from navigation start)."""

    fcp: float | None = None
    lcp: float | None = None
    cls: float | None = None
    ready: float | None = None
    first_run: float | None = None
    first_run_ok: bool | None = None
    steady: list[float] = field(default_factory=list)  # click -> output, the next Python ready
    back_to_back: list[float] = field(default_factory=list)  # click -> output, right after the run before
    checks: list[float] = field(default_factory=list)  # Check, click -> report (pages with an exercise)
    checks_back_to_back: list[float] = field(default_factory=list)
    run_twice: list[float] = field(default_factory=list)  # the second of two clicks on Run (settled page)
    worker_bytes: list[float] = field(default_factory=list)  # each lab worker's memory, settled page
    check_twice: list[float] = field(default_factory=list)  # the second of two clicks on Check
    worker_ms: list[float] = field(default_factory=list)
    boot_longest: float = 0.0
    boot_tbt: float = 0.0
    worker_at: float | None = None
    worker_ready_ms: float | None = None
    worker_python_ms: float | None = None  # the worker's boot after its downloads were in (pythonMs)
    snapshot: bool | None = None  # the worker booted from a memory snapshot saved by an earlier visit
    run_longest: float | None = None
    stop: dict[str, Any] | None = None
    stop_longest: float | None = None
    python_longest: float = 0.0
    main_thread_python: bool = False
    hits: list[Hit] = field(default_factory=list)
    # Everything a first visit costs: the page, its lab's runtime and the offline copy the service worker keeps of
    # this lesson (until <html data-offline> says it is kept), headers + bodies; None when not measured.
    first_visit_bytes: int | None = None
    blocking: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    long: list[tuple[str, float, str]] = field(default_factory=list)  # (window, ms, script that ran)

    @property
    def requests(self) -> int:
        """Requests the server answered during the visit."""
        return len(self.hits)

    @property
    def bytes(self) -> int:
        """Bytes the server sent during the visit (headers + bodies)."""
        return sum(h.bytes for h in self.hits)


@dataclass
class Plan:
    """What to do on a page once it has loaded."""

    lab: bool = True
    steady_runs: int = 0
    back_to_back_runs: int = 10
    stop_probe: bool = False
    timeout_ms: float = 30000
    prints: str = "head_dim=16"  # what the page's lab prints when run unchanged (the course's first lesson's)
    first_visit: bool = False  # also wait for the offline copy and count the first visit's bytes with it


def launch(pw: Playwright, profile: Path) -> BrowserContext:
    """Chromium on a persistent profile (so a restart finds its disk cache) with the collector installed."""
    context = pw.chromium.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
        viewport={"width": 1280, "height": 800})
    context.add_init_script(script=COLLECTOR_JS)
    return context


def first_page(context: BrowserContext) -> Page:
    """The tab a fresh persistent context opens with."""
    return context.pages[0] if context.pages else context.new_page()


def _overlapping(tasks: list[dict[str, float]], start: float, end: float) -> list[dict[str, float]]:
    return [t for t in tasks if t["start"] < end and t["start"] + t["duration"] > start]


_PYTHON_URL = re.compile(r"pyodide|python", re.I)
_WORKER_MESSAGE = re.compile(r"message", re.I)


def _frame_scripts(task: dict[str, float], frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Scripts of the long animation frames that overlap `task`."""
    end = task["start"] + task["duration"]
    return [s for f in frames if f["start"] < end and task["start"] < f["start"] + f["duration"] for s in f["scripts"]]


def _attribution(task: dict[str, float], frames: list[dict[str, Any]],
                 main_thread_python: bool = True) -> tuple[str, bool]:
    """Name the longest script behind `task`; True when Python caused it.

    Python's: Pyodide's own scripts on the main thread (naive page); the page handling the worker's messages for
    50 ms or more of the task (our lab showing Python's output); a task no script is named for, on a page that runs
    Python on its main thread (the naive page's interpreter work is often unattributed). Not Python's: page scripts
    such as the editor bundle starting up, even when a short message handler shared their frame, and rendering with
    no script on a page whose Python lives in a worker.
    """
    scripts = _frame_scripts(task, frames)
    if not scripts:
        return "unattributed", main_thread_python
    top = max(scripts, key=lambda s: s["duration"])
    name = (top["url"] or "").rsplit("/", 1)[-1] or "?"
    if top["invoker"] and top["invoker"] != top["url"]:
        name += f" via {str(top['invoker']).rsplit('/', 1)[-1]}"
    if any(s["url"] and _PYTHON_URL.search(s["url"]) for s in scripts):
        return name, True
    handling = sum(s["duration"] for s in scripts if _WORKER_MESSAGE.search(str(s["invoker"])))
    return name, handling >= LONG_TASK_MS or (main_thread_python and any(not s["url"] for s in scripts))


def _label(task: dict[str, float], frames: list[dict[str, Any]], main_thread_python: bool) -> str:
    """The script that ran a long task, marked when the task counts as Python's."""
    name, python = _attribution(task, frames, main_thread_python)
    return f"{name} [Python]" if python else name


def _analyse(visit: Visit, data: dict[str, Any]) -> None:
    """Long tasks per window: boot (navigation to Ready), runs, Stop."""
    tasks, frames = data["longtasks"], data["frames"]
    # Python on the main thread shows as Pyodide's scripts in some frame of the visit.
    main_thread_python = any(s["url"] and _PYTHON_URL.search(s["url"]) for f in frames for s in f["scripts"])
    visit.main_thread_python = main_thread_python
    boot_end = visit.ready if visit.ready is not None else float("inf")
    boot = _overlapping(tasks, 0, boot_end)
    visit.boot_longest = max((t["duration"] for t in boot), default=0.0)
    visit.boot_tbt = sum(max(0.0, t["duration"] - LONG_TASK_MS) for t in boot)
    for task in boot:
        if task["duration"] >= LONG_TASK_MS:
            visit.long.append(("boot", task["duration"], _label(task, frames, main_thread_python)))
    steady = data.get("steadyWindow")
    if steady:
        visit.run_longest = _window_longest(visit, "runs", _overlapping(tasks, *steady), frames)
    if visit.stop:
        window = _overlapping(tasks, visit.stop["start"], visit.stop["end"])
        visit.stop_longest = _window_longest(visit, "Stop", window, frames)
    visit.python_longest = max((t["duration"] for t in tasks if _attribution(t, frames, main_thread_python)[1]),
                               default=0.0)


def _window_longest(visit: Visit, what: str, tasks: list[dict[str, float]], frames: list[dict[str, Any]]) -> float:
    """Longest task in a window; every long one is kept with the script that ran it."""
    if not tasks:
        return 0.0
    for task in tasks:
        if task["duration"] >= LONG_TASK_MS:
            visit.long.append((what, task["duration"], _label(task, frames, visit.main_thread_python)))
    return float(max(t["duration"] for t in tasks))


def visit(page: Page, url: str, meter: Meter, plan: Plan) -> Visit:
    """Load `url`, wait for FCP (and Ready when the page has a lab), run the plan, read the counters."""
    result = Visit()
    console: list[str] = []
    # Failed requests are named by URL from the response; the console's copy of them has no URL.
    page.on("console", lambda m: console.append(f"{m.type}: {m.text}")
            if m.type in ("error", "warning") and not m.text.startswith("Failed to load resource") else None)
    page.on("response", lambda r: console.append(f"HTTP {r.status} {re.sub(r'^https?://[^/]+', '', r.url)}")
            if r.status >= 400 else None)
    page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
    mark = meter.mark()
    try:
        page.goto(url, wait_until="load", timeout=plan.timeout_ms)
        page.wait_for_function("() => window.__bench && window.__bench.fcp !== null", timeout=plan.timeout_ms)
        if plan.lab:
            page.wait_for_function("() => window.__bench.ready !== null", timeout=plan.timeout_ms, polling=20)
        meter.wait_idle()
        result.hits = meter.since(mark)  # counted before the runs and Stop, which may restart Python
        if plan.first_visit:
            try:
                page.wait_for_function("() => document.documentElement.dataset.offline", timeout=plan.timeout_ms,
                                       polling=100)
            except PlaywrightError:
                result.errors.append("the offline copy of the lesson was not kept: first-visit bytes without it")
            meter.wait_idle()
            result.first_visit_bytes = sum(h.bytes for h in meter.since(mark))
        extra: dict[str, Any] = {}
        if plan.lab and plan.steady_runs:
            steady = page.evaluate(STEADY_JS, [plan.steady_runs, True, plan.prints])
            result.steady, result.worker_ms = steady["times"], steady["workerMs"]
            extra["steadyWindow"] = (steady["start"], steady["end"])
            if steady["failures"]:
                result.errors.append(f"{steady['failures']} of {plan.steady_runs} runs lacked {plan.prints}")
            again = page.evaluate(STEADY_JS, [plan.back_to_back_runs, False, plan.prints])
            result.back_to_back = again["times"]
            if again["failures"]:
                result.errors.append(f"{again['failures']} of {plan.back_to_back_runs} back-to-back runs lacked "
                                     f"{plan.prints}")
        if plan.lab and plan.steady_runs:
            for settled, runs in ((True, plan.steady_runs), (False, plan.back_to_back_runs)):
                checked = page.evaluate(CHECK_JS, [runs, settled])
                if checked is None:
                    break
                if settled:
                    result.checks = checked["times"]
                else:
                    result.checks_back_to_back = checked["times"]
                if checked["failures"]:
                    result.errors.append(f"{checked['failures']} of {runs} checks did not report")
        if plan.lab and plan.steady_runs:
            for kind in ("run", "check"):
                twice = page.evaluate(TWICE_JS, [TWICE_PAIRS, kind])
                if twice is not None:
                    setattr(result, f"{kind}_twice", twice)
            try:
                result.worker_bytes = page.evaluate(WORKER_MEMORY_JS) or []
            except PlaywrightError as exc:  # the measurement can time out on a busy machine: a note, not a failure
                result.errors.append(f"worker memory not measured: {str(exc).splitlines()[0]}")
        if plan.lab and plan.stop_probe:
            result.stop = page.evaluate(STOP_JS)
            if result.stop is None:
                result.errors.append("no labController.stop(): Stop not measured")
        data = {**page.evaluate(READ_JS), **extra}
    except PlaywrightError as exc:
        result.hits = meter.since(mark)
        result.errors.append(f"{type(exc).__name__}: {str(exc).splitlines()[0]}")
        try:
            data = page.evaluate(READ_JS)
        except PlaywrightError:
            data = {}
    result.errors += console[:5]
    _fill(result, data, plan.prints)
    return result


def _fill(result: Visit, data: dict[str, Any], prints: str) -> None:
    """Copy the page's numbers into the visit."""
    if not data:
        return
    result.fcp = data.get("fcp")
    result.lcp = data.get("lcp")
    result.cls = data.get("cls")
    result.ready = data.get("ready")
    result.first_run = data.get("firstRun")
    result.first_run_ok = bool(data.get("firstRunOk")) and prints in str(data.get("firstStdout", ""))
    result.worker_at = data.get("workerAt")
    result.worker_ready_ms = data.get("workerReadyMs")
    result.worker_python_ms = data.get("workerPythonMs")
    result.snapshot = data.get("workerSnapshot")
    result.errors += data.get("errors", [])
    if result.ready is not None and not result.first_run_ok:
        result.errors.append(f"first run did not print {prints}")
    result.blocking = [r["name"] for r in data.get("resources", []) if r["blocking"] == "blocking"]
    _analyse(result, data)


@dataclass
class Target:
    """A page to measure and how: its URL, meter, and whether it has a lab / a Stop button."""

    name: str
    url: str
    meter: Meter
    lab: bool = True
    stop_probe: bool = False
    restart: bool = True
    steady_runs: int = 20
    prints: str = "head_dim=16"  # what its lab prints when run unchanged


def run_target(pw: Playwright, target: Target, profile: Path, timeout_ms: float) -> dict[str, Visit]:
    """Cold (fresh profile), warm (new tab, same context), restart (relaunched browser, same profile)."""
    visits: dict[str, Visit] = {}
    shutil.rmtree(profile, ignore_errors=True)
    context = launch(pw, profile)
    try:
        cold_plan = Plan(lab=target.lab, prints=target.prints, steady_runs=target.steady_runs if target.lab else 0,
                         stop_probe=target.stop_probe, timeout_ms=timeout_ms, first_visit=target.lab)
        page = first_page(context)
        visits["cold"] = visit(page, target.url, target.meter, cold_plan)
        warm_page = context.new_page()
        page.close()  # its worker would otherwise compete for the 2 cores during the warm boot
        # Steady runs again on a settled page: after a cold boot V8 keeps optimizing the freshly compiled runtime
        # in the background for several seconds (over 1 s of its compile threads' CPU in a 2 s window, 6 s after
        # Ready, on 2 cores), and the first visit also writes its offline copy and its snapshot. A warm visit
        # boots from V8's code cache and the snapshot, with none of that going on.
        warm_plan = Plan(lab=target.lab, prints=target.prints, steady_runs=target.steady_runs if target.lab else 0,
                         timeout_ms=timeout_ms)
        visits["warm"] = visit(warm_page, target.url, target.meter, warm_plan)
    finally:
        context.close()
    if target.restart:
        context = launch(pw, profile)
        try:
            visits["restart"] = visit(first_page(context), target.url, target.meter,
                                      Plan(lab=target.lab, prints=target.prints, timeout_ms=timeout_ms))
        finally:
            context.close()
    shutil.rmtree(profile, ignore_errors=True)
    return visits


def paired_fcp(pw: Playwright, urls: dict[str, str], rounds: int) -> dict[str, list[float]]:
    """First contentful paint of each page, alternating A/B in fresh contexts of one browser.

    Each context starts with an empty cache, like a cold visit, but no browser start-up sits in the figure: the
    cleanest view of what the lab adds to the first paint. Pages close at their first paint.
    """
    browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    out: dict[str, list[float]] = {name: [] for name in urls}
    try:
        for i in range(rounds):
            for name in (list(urls) if i % 2 == 0 else list(reversed(urls))):
                context = browser.new_context(viewport={"width": 1280, "height": 800})
                context.add_init_script(script=COLLECTOR_JS)
                try:
                    page = context.new_page()
                    page.goto(urls[name])
                    deadline = time.monotonic() + 30
                    # Polled: wait_for_function evaluates a string, which the page's CSP forbids.
                    while (fcp := page.evaluate("window.__bench.fcp")) is None and time.monotonic() < deadline:
                        time.sleep(0.02)
                    if fcp is not None:
                        out[name].append(float(fcp))
                finally:
                    context.close()
    finally:
        browser.close()
    return out
