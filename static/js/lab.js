/**
 * Editable Python lab: page controller (ES module). main.js imports this module after the first paint and calls
 * `init(section, island, page)` for each lab section, so nothing above waits for it.
 *
 * Python runs only in a module Web Worker (lab-worker.js, Pyodide + labkit); this module displays. It listens only
 * on its end of the MessageChannel it hands the worker (lab-protocol.js): learner code in the worker cannot reach
 * the other end, so whatever arrives there is the worker's own code speaking.
 *
 * ## Controller API (used by static/js/lab-instructor.js)
 * `section.labController` is set on each `[data-lab]` section (a module loaded later should use it if present,
 * else wait for `lab:ready`). Events are dispatched on the section (they bubble to document):
 *   - `lab:ready`   controller created (detail: {controller})
 *   - `lab:state`   detail {state: "loading" | "ready" | "running" | "failed"}
 *   - `lab:change`  the code was edited (detail: {code}); not fired by setCode(code, {silent: true})
 *   - `lab:result`  a run ended (detail: run record, see below)
 * Properties and methods:
 *   - `original`            the starter code (string)
 *   - `state`               current state (string above)
 *   - `runs`                finished run records, oldest first (at most 50)
 *   - `getCode()`           the code in the editor
 *   - `setCode(code, {silent})`  replace the code (fires lab:change unless silent)
 *   - `run(options)`             -> Promise<record | null>: runs the editor's code (null if cancelled: beforeRun said
 *                           no, Stop was pressed first, a newer run replaced it, or Python could not load).
 *                           A run already in progress is stopped first.
 *   - `stop()`              -> Promise: ends the current run (soft interrupt, then restart Python if needed)
 *   - `reset()`             restores the starter code (fires lab:change)
 *   - `boot()`              -> Promise: starts Python now (normally automatic)
 *   - `beforeRun`           optional hook `async (code) => boolean`; return false to cancel the run
 *                           (e.g. ask for a prediction first)
 *   - `tools`               the empty `[data-lab-tools]` element above the editor, for instructor controls
 *   - `restoreNote`         the `[data-lab-restore]` paragraph (hidden) for saved-code notes
 *   - `bootMs`, `bootDiagnostics`  the last boot's time and the worker's notes on it (BootDiagnostics in
 *                           lab-protocol.js): for tests and the benchmark, never shown
 * Run record: {runId, code, stdout, output: [{stream, text}], ok, error: null | {type, message, line, traceback},
 *              chart: {series: [...]}, ms, truncated, stopped}
 *
 * ## Page cost (issue 4)
 * The constructor only wires events, so it may run before the first paint. The build chart and the Python worker
 * start after the first contentful paint. The CodeMirror editor (editor.js, imported dynamically; 0.2–0.3 s of
 * main-thread work on a slow machine) is built when the lab comes within a screen of the viewport, or at once when
 * the learner reaches for the code (focus, pointer): a reader above the lab never pays for it, and it does not
 * compete with Python's boot for the CPU. Until then the server-rendered textarea, styled alike, is the editor
 * (getCode/setCode use it).
 * A run writes only: the panel showing the last run is relabelled "Previous run" where it stands (its output and
 * chart are not moved or redrawn), and the older panel is emptied and becomes the current one above it, so the
 * `[data-lab-current]` / `[data-lab-previous]` attributes move between the two panels. Sizes come from a
 * ResizeObserver and the output scrolls in a frame callback, so no handler forces a layout.
 */

import { relabelChart, renderChart } from "./lab-chart.js";
import { clearOutput, writeOutput } from "./lab-output.js";
import { MSG, messageProblem } from "./lab-protocol.js";

const STOP_GRACE_MS = 300; // soft interrupt first; a blocked call (time.sleep) needs the hard path
const BOOT_STALL_MS = 45000; // no message from the worker for this long while loading = failed
const MAX_RUNS = 50;
const STRAY_WARNINGS = 10; // per worker: a flood of stray messages must not flood the console too

function readJSON(el) {
  if (!el) return null;
  try {
    return JSON.parse(el.textContent);
  } catch (err) {
    console.error("lab: bad JSON island", err);
    return null;
  }
}

function pageRuntime() {
  const data = readJSON(document.getElementById("lesson-data"));
  return (data && data.runtime) || null;
}

function absolute(url) {
  return new URL(url, document.baseURI).href;
}

/**
 * import() of a page module (a file name beside this one) that the browser checks against the build's hash of it,
 * from the page's data: a `<link rel="modulepreload" integrity>` fetches it first, so the module map holds it only
 * if its bytes match, and import() then takes it from there (no second request). No hash, no import.
 */
export function importVerified(name) {
  const url = new URL(`./${name}`, import.meta.url).href;
  const data = readJSON(document.getElementById("lesson-data"));
  const integrity = data && data.integrity && data.integrity[name];
  if (typeof integrity !== "string") return Promise.reject(new Error(`${name}: the page names no integrity hash for it`));
  return new Promise((resolve, reject) => {
    const link = Object.assign(document.createElement("link"), { rel: "modulepreload", href: url, integrity });
    link.addEventListener("load", resolve, { once: true });
    link.addEventListener("error", () => reject(new Error(`${name} could not load, or is not the file the build wrote`)),
                          { once: true });
    document.head.append(link);
  }).then(() => import(url));
}

// Resolves once the page has shown its first content (FCP), so nothing the lab does can delay it. Browsers
// without paint timing (or a page that never paints, e.g. a background tab) fall back to the next frame.
const firstPaint = new Promise((resolve) => {
  const nextFrame = () => requestAnimationFrame(() => setTimeout(resolve, 0));
  const types = (globalThis.PerformanceObserver && PerformanceObserver.supportedEntryTypes) || [];
  if (!types.includes("paint")) {
    nextFrame();
    return;
  }
  if (performance.getEntriesByName("first-contentful-paint").length) {
    setTimeout(resolve, 0);
    return;
  }
  const po = new PerformanceObserver((list) => {
    if (list.getEntriesByName("first-contentful-paint").length) {
      po.disconnect();
      setTimeout(resolve, 0);
    }
  });
  po.observe({ type: "paint", buffered: true });
  setTimeout(nextFrame, 5000); // never wait for ever on a missing paint entry
});

const EDITOR_MARGIN_PX = 900; // about a screen: built before the learner scrolls to it

function idle(timeout = 3000) {
  return new Promise((resolve) => {
    if ("requestIdleCallback" in window) requestIdleCallback(() => resolve(), { timeout });
    else setTimeout(resolve, 50);
  });
}

/** Run fn in its own idle task after the first paint: each deferred job is a separate, short task. */
function afterFirstPaint(fn) {
  firstPaint.then(() => idle()).then(fn);
}

function errorSummary(error) {
  if (!error) return "";
  if (error.type === "SystemExit") return `The program exited with status ${error.message}`;
  const what = `${error.type}: ${error.message}`;
  return error.line ? `Error on line ${error.line}: ${what}` : `Error: ${what}`;
}

class LabController {
  constructor(section, runtime) {
    this.section = section;
    this.config = readJSON(section.querySelector("[data-lab-config]")) || {};
    this.runtime = runtime;
    const q = (sel) => section.querySelector(sel);
    this.el = {
      textarea: q("[data-lab-code]"),
      label: q(".lab-label"),
      hint: q("[data-lab-hint]"),
      tabmode: q("[data-lab-tabmode]"),
      run: q("[data-lab-run]"),
      stop: q("[data-lab-stop]"),
      reset: q("[data-lab-reset]"),
      reason: q("[data-lab-reason]"),
      status: q("[data-lab-status]"),
      progress: q("[data-lab-progress]"),
      progressBar: q("[data-lab-progress] progress"),
      progressText: q("[data-lab-progress-text]"),
      retry: q("[data-lab-retry]"),
      current: this._panel(q("[data-lab-current]")),
      previous: this._panel(q("[data-lab-previous]")),
    };
    this.tools = q("[data-lab-tools]");
    this.restoreNote = q("[data-lab-restore]");
    // The server-rendered code, untouched by edits or the browser's form restore.
    this.original = this.el.textarea.defaultValue;
    this.filename = this.config.filename || "lab.py";
    this.state = "loading";
    this.runs = [];
    this.beforeRun = null;
    this.editor = null;
    this._silent = false;
    this._ticket = 0;
    this._nextMessageId = 1;
    this._worker = null;
    this._port = null; // the page's end of the lab's channel: the only place worker messages are read from
    this._boot = null;
    this._active = null;
    this._pendingOut = [];
    this._flushScheduled = false;
    this._scrollScheduled = false;
    this._pinned = true; // the current output follows new text until the learner scrolls up
    this._restartNote = "";
    // The label the current panel gets when the next run makes it "Previous run" (see _swapPanels).
    this._previousLabel = "Previous run (output from the build)";
    this._chartWidth = 0; // kept by a ResizeObserver, so drawing a chart never forces a layout
    this._chartHeights = new Map(); // chart container -> its last height (same observer), to hold its place
    this._runChart = null; // {el, chart, frame}: the last run's chart, waiting for the next frame
    const buildChart = (this.config.charts || [])[0];
    this._buildChart = buildChart && buildChart.series && buildChart.series.length ? buildChart : null;

    // Only cheap wiring here: this can run before the first paint. The chart and the editor come after it.
    this._wire();
    this._setState("loading");
    this._status("Loading Python…");
    if (this._buildChart) this.el.current.chart.dataset.labChartPending = ""; // reserves the chart's room (CSS)
    this._scheduleBoot();
    afterFirstPaint(() => this._drawBuildChart());
    this._loadEditorNearView();
    section.labController = this;
    this._emit("lab:ready", { controller: this });
  }

  // ---------- public API ----------

  getCode() {
    return this.editor ? this.editor.getCode() : this.el.textarea.value;
  }

  setCode(code, { silent = false } = {}) {
    this._silent = true;
    try {
      if (this.editor) this.editor.setCode(String(code));
      else this.el.textarea.value = String(code);
    } finally {
      this._silent = false;
    }
    if (!silent) this._emit("lab:change", { code: this.getCode() });
  }

  reset() {
    this.setCode(this.original);
    this._status(this.editor ? "Code reset to the original. Ctrl+Z in the editor undoes this." : "Code reset to the original.");
  }

  boot() {
    if (this._boot) return this._boot;
    this._startWorker();
    return this._boot;
  }

  async run(options = {}) {
    const ticket = ++this._ticket;
    const code = this.getCode();
    if (typeof this.beforeRun === "function") {
      let go = true;
      try {
        go = await this.beforeRun(code);
      } catch (err) {
        console.error("lab: beforeRun hook failed", err);
      }
      if (!go || ticket !== this._ticket) return null;
    }
    if (this._active) await this._stopActive();
    if (ticket !== this._ticket) return null;
    if (this.state === "failed") this._boot = null; // Run after a failed load is a retry
    if (this.state !== "ready") this._status("Python is loading… your code will run as soon as it is ready.");
    try {
      await this.boot();
    } catch {
      return null; // failure already reported with a Retry button
    }
    if (ticket !== this._ticket || this._active) return null;
    return this._start(code, options);
  }

  stop() {
    this._ticket += 1; // also cancels a run waiting for Python to load
    if (!this._active) return Promise.resolve();
    return this._stopActive();
  }

  // ---------- wiring ----------

  _panel(root) {
    return {
      root,
      label: root.querySelector("[data-lab-run-label]"),
      pre: root.querySelector("[data-lab-pre]"),
      chart: root.querySelector("[data-lab-chart]"),
    };
  }

  _wire() {
    const { run, stop, reset, retry, textarea, tabmode, label } = this.el;
    for (const button of [run, stop, reset]) button.disabled = false; // aria-disabled from now on, keeps focus
    run.title = "Run (Ctrl+Enter or ⌘+Enter in the editor)";
    run.addEventListener("click", () => {
      this.run();
    });
    stop.addEventListener("click", () => {
      if (stop.getAttribute("aria-disabled") !== "true") this.stop();
    });
    reset.addEventListener("click", () => this.reset());
    retry.addEventListener("click", () => {
      this._boot = null;
      this.boot().catch(() => {});
      run.focus(); // Retry hides itself; keep keyboard focus in the lab
    });
    textarea.addEventListener("input", () => {
      if (!this._silent) this._emit("lab:change", { code: textarea.value });
    });
    textarea.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        this.run();
      }
    });
    tabmode.addEventListener("click", () => {
      if (this.editor) this.editor.setIndentMode(!this.editor.indentMode);
    });
    label.addEventListener("click", (event) => {
      if (this.editor) {
        event.preventDefault();
        this.editor.focus();
      }
    });
    // Chart width and "is the output scrolled to its end" are tracked as they change, so a run only writes.
    if ("ResizeObserver" in window) {
      const ro = new ResizeObserver((entries) => {
        for (const { target, contentRect } of entries) {
          if (contentRect.width > 0) this._chartWidth = contentRect.width;
          if (target.firstElementChild) this._chartHeights.set(target, contentRect.height);
        }
      });
      for (const panel of [this.el.current, this.el.previous]) ro.observe(panel.chart);
    }
    for (const panel of [this.el.current, this.el.previous]) {
      panel.pre.addEventListener("scroll", () => {
        const pre = panel.pre;
        if (pre === this.el.current.pre) this._pinned = pre.scrollHeight - pre.scrollTop - pre.clientHeight < 24;
      }, { passive: true });
    }
    // The learner reaching for the lab is the strongest hint to load Python now.
    this.section.addEventListener("focusin", () => this._autoBoot(), { once: true });
    this.section.addEventListener("pointerdown", () => this._autoBoot(), { once: true });
    // ...and for the code itself: the editor now, not when Python is ready.
    for (const type of ["focus", "pointerdown"]) {
      this.el.textarea.addEventListener(type, () => this._loadEditor(), { once: true });
    }
  }

  _scheduleBoot() {
    const saveData = navigator.connection && navigator.connection.saveData;
    if ("IntersectionObserver" in window) {
      const io = new IntersectionObserver(
        (entries) => {
          if (entries.some((e) => e.isIntersecting)) {
            io.disconnect();
            this._autoBoot();
          }
        },
        { rootMargin: "800px 0px" },
      );
      io.observe(this.section);
    }
    // Data-saver users download Python only when they come near the lab. Others start right after the first
    // paint, not at idle: creating the worker costs the page ~1 ms, and Python's boot then runs off the main thread.
    if (!saveData) firstPaint.then(() => this._autoBoot());
  }

  _autoBoot() {
    // Automatic triggers start the first load only; after a failure only Retry or Run try again.
    if (this._started) return;
    this.boot().catch(() => {});
  }

  _loadEditorNearView() {
    // The editor is for a learner who looks at the code: build it as the lab comes near the viewport (or at once
    // on focus or pointer, see _wire), never for a reader who stays above it.
    if (!("IntersectionObserver" in window)) {
      afterFirstPaint(() => this._loadEditor());
      return;
    }
    const io = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        io.disconnect();
        afterFirstPaint(() => this._loadEditor());
      },
      { rootMargin: `${EDITOR_MARGIN_PX}px 0px` },
    );
    io.observe(this.el.textarea);
  }

  async _loadEditor() {
    // When the lab comes near the viewport (then at idle), or at once on focus or pointer in the code (see _wire).
    if (this._editorRequested) return;
    this._editorRequested = true;
    const textarea = this.el.textarea;
    let mod;
    try {
      mod = await importVerified("editor.js");
    } catch (err) {
      console.warn("lab: code editor unavailable, keeping the plain text box", err);
      return;
    }
    await idle(1000); // evaluating the bundle and building the editor are two short tasks, not one long one
    // Read before any write: the editor takes the textarea's place at the same height (no layout jump).
    const height = textarea.hidden ? 0 : textarea.offsetHeight;
    const hadFocus = document.activeElement === textarea;
    const { selectionStart, selectionEnd } = textarea;
    try {
      this.editor = mod.createEditor(textarea, {
        describedBy: this.el.hint ? this.el.hint.id : undefined,
        onRun: () => this.run(),
        onChange: (code) => {
          if (!this._silent) this._emit("lab:change", { code });
        },
        onTabModeChange: (indent) => {
          this.el.tabmode.setAttribute("aria-pressed", String(indent));
          this._status(indent ? "Tab now indents code. Esc then Tab leaves the editor." : "Tab now moves to the next control.");
        },
      });
    } catch (err) {
      console.error("lab: could not start the code editor", err);
      this.editor = null;
      textarea.hidden = false;
      return;
    }
    if (height) {
      // The textarea's height (borders included, as the editor's): both boxes, so a taller-than-max textarea
      // (resized by the learner) still fits; CSS stretches the gutter to it.
      const { view } = this.editor;
      view.dom.style.minHeight = `${height}px`;
      view.scrollDOM.style.minHeight = `${height - 2}px`;
    }
    this.el.tabmode.hidden = false;
    this.el.label.removeAttribute("for"); // the textarea is hidden; the label now names the editor via click
    if (hadFocus) {
      this.editor.view.dispatch({ selection: { anchor: selectionStart, head: selectionEnd } });
      this.editor.focus();
    }
  }

  _drawBuildChart() {
    // The chart of the build output, drawn once after the first paint (or at once if a run starts first).
    if (!this._buildChart) return;
    const chart = this._buildChart;
    this._buildChart = null;
    const width = this._chartWidth || this.el.current.chart.clientWidth; // read before writing anything
    renderChart(this.el.current.chart, chart, { label: "Chart of the build output", width });
    delete this.el.current.chart.dataset.labChartPending;
  }

  _drawRunChart() {
    const pending = this._runChart;
    if (!pending) return;
    this._runChart = null;
    cancelAnimationFrame(pending.frame);
    renderChart(pending.el, pending.chart, { label: "Chart of this run", width: this._chartWidth || undefined });
    pending.el.style.minHeight = ""; // the place held since the run started
  }

  _emit(name, detail) {
    this.section.dispatchEvent(new CustomEvent(name, { detail, bubbles: true }));
  }

  _status(text) {
    this.el.status.textContent = text;
  }

  _setState(state) {
    const changed = state !== this.state;
    this.state = state;
    this.section.dataset.labState = state;
    const { run, stop, reason } = this.el;
    const reasons = {
      loading: this._restartNote ? "Python is restarting…" : "Python is loading…",
      failed: "Python could not be loaded.",
      ready: "",
      running: "",
    };
    if (reason.textContent !== reasons[state]) reason.textContent = reasons[state];
    reason.hidden = !reasons[state];
    run.setAttribute("aria-disabled", String(state === "loading" || state === "failed"));
    stop.setAttribute("aria-disabled", String(state !== "running"));
    this.el.retry.hidden = state !== "failed";
    this.el.progress.hidden = state !== "loading";
    if (changed) this._emit("lab:state", { state });
  }

  // ---------- worker lifecycle ----------

  _startWorker() {
    this._started = true;
    const rt = this.runtime;
    let resolveBoot;
    let rejectBoot;
    this._boot = new Promise((resolve, reject) => {
      resolveBoot = resolve;
      rejectBoot = reject;
    });
    this._boot.catch(() => {});
    this._bootSettle = { resolve: resolveBoot, reject: rejectBoot };
    this._setState("loading");
    this._progress(null, null, this._restartNote ? "Starting Python again…" : "Loading Python…");
    if (!rt) {
      this._bootFailed("this page has no runtime configuration.");
      return;
    }
    let worker;
    try {
      const url = rt.worker ? absolute(rt.worker) : new URL("./lab-worker.js", import.meta.url).href;
      worker = new Worker(url, { type: "module", name: "python-lab" });
    } catch (err) {
      this._bootFailed(`the Python worker could not start (${err.message}).`);
      return;
    }
    this._worker = worker;
    this._sab = globalThis.crossOriginIsolated && typeof SharedArrayBuffer === "function" ? new SharedArrayBuffer(1) : null;
    this._initId = this._nextMessageId++;
    const channel = new MessageChannel();
    this._port = channel.port1;
    channel.port1.onmessage = (event) => this._onMessage(worker, event.data);
    channel.port1.onmessageerror = (event) => console.error("lab: unreadable message from the worker", event);
    // The worker's own code never posts on the worker itself: whatever arrives there came from somewhere else.
    let strays = 0;
    const stray = (event) => {
      strays += 1;
      if (strays > STRAY_WARNINGS) return;
      const type = event.data && typeof event.data === "object" ? String(event.data.type) : typeof event.data;
      const more = strays === STRAY_WARNINGS ? " (further ones are not logged)" : "";
      console.warn(`lab: ignored a "${type}" message that did not come over the lab's channel${more}`);
    };
    worker.onmessage = stray;
    worker.onmessageerror = stray;
    worker.onerror = (event) => {
      event.preventDefault();
      this._onFatal(worker, event.message || "the Python worker stopped unexpectedly.");
    };
    this._armWatchdog(worker);
    const config = {
      indexURL: absolute(rt.indexURL),
      lock: rt.lock,
      labkit: absolute(rt.labkit),
      micropip: (rt.micropip || []).map(absolute),
      requirements: (rt.requirements || []).map(absolute),
      // Compiled (never run) during the boot, so the learner's first run of it skips compiling.
      starter: { code: this.original, filename: this.filename },
    };
    if (rt.stdLibURL) config.stdLibURL = absolute(rt.stdLibURL);
    if (rt.sizes) config.sizes = rt.sizes;
    const init = { type: MSG.INIT, id: this._initId, config, port: channel.port2 };
    if (this._sab) init.interruptBuffer = this._sab;
    worker.postMessage(init, [channel.port2]);
  }

  _armWatchdog(worker) {
    clearTimeout(this._watchdog);
    if (this.state !== "loading") return;
    this._watchdog = setTimeout(() => {
      if (worker === this._worker && this.state === "loading") {
        this._bootFailed(`Python did not finish loading (nothing happened for ${BOOT_STALL_MS / 1000} s).`);
      }
    }, BOOT_STALL_MS);
  }

  _killWorker() {
    clearTimeout(this._watchdog);
    if (this._worker) this._worker.terminate();
    if (this._port) this._port.close();
    this._worker = null;
    this._port = null;
    this._boot = null;
  }

  _bootFailed(message) {
    const settle = this._bootSettle;
    this._killWorker();
    this._restartNote = "";
    this._setState("failed");
    this._status(`Could not load Python: ${message} The rest of the lesson still works, and the output shown is from the build.`);
    if (settle) settle.reject(new Error(message));
  }

  _progress(loaded, total, text) {
    const { progressBar, progressText } = this.el;
    if (loaded != null && total) {
      progressBar.max = total;
      progressBar.value = Math.min(loaded, total);
    } else {
      progressBar.removeAttribute("value"); // indeterminate
    }
    progressText.textContent = text;
  }

  _onMessage(worker, msg) {
    if (worker !== this._worker) return; // a terminated worker's last words
    const problem = messageProblem(msg, "page");
    if (problem) {
      // Only the worker's own code can speak here, so this is our bug: loud, and never acted on.
      console.error(`lab: ignored a malformed message from the worker: ${problem}`);
      return;
    }
    const active = this._active;
    const loading = this.state === "loading" && msg.id === this._initId;
    const forRun = active !== null && msg.id === active.id;
    switch (msg.type) {
      case MSG.PROGRESS:
        if (!loading) return;
        this._armWatchdog(worker);
        this._progress(msg.loaded, msg.total, msg.text);
        if (msg.phase === "download" && !this._announcedDownload) {
          this._announcedDownload = true;
          this._status("Downloading Python…");
        } else if (msg.phase === "start") {
          this._status(this._restartNote ? `${this._restartNote} Starting Python again…` : "Starting Python…");
        }
        return;
      case MSG.READY:
        if (!loading) return;
        clearTimeout(this._watchdog);
        this.bootMs = msg.ms;
        this.bootDiagnostics = msg.diagnostics;
        this._setState("ready");
        this._status(this._restartNote ? `${this._restartNote} Ready again.` : "Ready");
        this._restartNote = "";
        this._bootSettle.resolve();
        return;
      case MSG.STDOUT:
      case MSG.STDERR:
        if (forRun) this._append(msg.type, msg.text);
        return;
      case MSG.RESULT:
        if (forRun) this._finish(active, msg);
        return;
      case MSG.ERROR:
        console.error("lab: the worker reported a protocol error:", msg.message);
        if (forRun) this._finish(active, { ok: false, error: { type: "LabError", message: msg.message, line: null } });
        return;
      case MSG.FATAL:
        this._onFatal(worker, msg.message);
    }
  }

  _onFatal(worker, message) {
    if (worker !== this._worker) return;
    if (this.state === "loading") {
      this._bootFailed(String(message));
      return;
    }
    const active = this._active;
    this._killWorker();
    const crashed = /^Python crashed/.test(String(message)) ? String(message) : `Python crashed: ${message}`;
    const note = `${crashed} Python was restarted, so earlier variables are gone.`;
    if (active) {
      this._append("notice", `\n${note}\n`);
      this._finish(active, { ok: false, error: { type: "Crash", message: String(message), line: null } }, note);
    } else {
      this._status(note);
    }
    this._restartNote = note;
    this.boot().catch(() => {});
  }

  // ---------- runs ----------

  _start(code, { keepOutputOnError = false } = {}) {
    const id = this._nextMessageId++;
    const record = {
      runId: id,
      code,
      stdout: "",
      output: [],
      ok: null,
      error: null,
      chart: null,
      ms: null,
      truncated: false,
      stopped: false,
    };
    let resolve;
    const ended = new Promise((r) => {
      resolve = r;
    });
    // keep: output is held back until the run ends, so a failing run (Live mode) leaves the last good output shown.
    const keep = Boolean(keepOutputOnError);
    this._active = { id, record, resolve, ended, stopping: false, timer: null, t0: performance.now(), keep, held: [] };
    // Python starts first; the page's own updates below then overlap the run instead of delaying it.
    this._port.postMessage({ type: MSG.RUN, id, code, filename: this.filename });

    this._drawBuildChart(); // only if a run starts before the idle draw
    if (!keep) this._swapPanels();
    this._pendingOut = [];
    this._pinned = true;
    this._setState("running");
    this._status("Running…");
    return ended;
  }

  _swapPanels() {
    // The last output becomes "Previous run" where it stands: its nodes are neither moved nor redrawn (no new
    // style, layout or text shaping for them). The older panel is emptied and becomes the current one, above it.
    this._drawRunChart(); // a chart still waiting for its frame belongs to the panel about to become "previous"
    const shown = this.el.current;
    const older = this.el.previous;
    clearOutput(older.pre);
    older.chart.replaceChildren();
    const height = this._chartHeights.get(shown.chart);
    if (shown.chart.firstElementChild && height) older.chart.style.minHeight = `${height}px`; // until the new chart
    shown.label.textContent = this._previousLabel;
    this._previousLabel = "Previous run";
    if (shown.chart.firstElementChild) relabelChart(shown.chart.firstElementChild, "Chart of the previous run");
    shown.root.classList.add("lab-run-previous");
    shown.root.removeAttribute("data-lab-current");
    shown.root.setAttribute("data-lab-previous", "");
    older.root.classList.remove("lab-run-previous");
    older.root.removeAttribute("data-lab-previous");
    older.root.setAttribute("data-lab-current", "");
    older.label.textContent = "This run (running…)";
    older.root.hidden = false;
    shown.root.before(older.root); // empty now, so moving it is cheap; reading order stays: this run, then previous
    this.el.current = older;
    this.el.previous = shown;
  }

  _stopActive() {
    const active = this._active;
    if (active.stopping) return active.ended;
    active.stopping = true;
    this._status("Stopping…");
    if (this._sab) {
      new Uint8Array(this._sab)[0] = 2; // SIGINT: Python raises KeyboardInterrupt at its next check
      active.timer = setTimeout(() => {
        if (this._active === active) this._hardStop(active);
      }, STOP_GRACE_MS);
    } else {
      this._hardStop(active);
    }
    return active.ended;
  }

  _hardStop(active) {
    // Blocked calls (time.sleep) and pages without cross-origin isolation cannot be interrupted softly.
    this._killWorker();
    const note = "Stopped. Python was restarted, so earlier variables are gone.";
    this._append("notice", "Stopped. Python was restarted.\n");
    this._finish(active, { ok: false, stopped: true, error: { type: "KeyboardInterrupt", message: "Stopped.", line: null } }, note);
    this._restartNote = "Stopped. Python was restarted.";
    this.boot().catch(() => {});
  }

  _append(stream, text) {
    if (!text) return;
    const record = this._active && this._active.record;
    if (record) {
      const last = record.output[record.output.length - 1];
      if (last && last.stream === stream) last.text += text;
      else record.output.push({ stream, text });
      if (stream === "stdout") record.stdout += text;
      if (this._active.keep) {
        this._active.held.push([stream, text]);
        return;
      }
    }
    this._pendingOut.push([stream, text]);
    if (!this._flushScheduled) {
      this._flushScheduled = true;
      requestAnimationFrame(() => this._flushOutput());
    }
  }

  _flushOutput() {
    this._flushScheduled = false;
    const pending = this._pendingOut;
    if (!pending.length) return;
    this._pendingOut = [];
    // One node per stream change per flush: a flood of small messages becomes a few DOM writes a frame.
    const pre = this.el.current.pre;
    let stream = pending[0][0];
    let parts = [];
    for (const [s, text] of pending) {
      if (s !== stream) {
        this._appendNode(pre, stream, parts.join(""));
        stream = s;
        parts = [];
      }
      parts.push(text);
    }
    this._appendNode(pre, stream, parts.join(""));
    if (this._pinned) this._scrollToEnd();
  }

  _scrollToEnd() {
    if (this._scrollScheduled) return;
    this._scrollScheduled = true;
    requestAnimationFrame(() => {
      this._scrollScheduled = false;
      const pre = this.el.current.pre;
      if (this._pinned) pre.scrollTop = pre.scrollHeight; // in a frame callback the layout this needs is the frame's own
    });
  }

  _appendNode(pre, stream, text) {
    writeOutput(pre, stream, text); // as a terminal shows it: "\r", colours, control characters (lab-output.js)
  }

  _finish(active, result, note) {
    if (this._active !== active) return;
    clearTimeout(active.timer);
    this._flushOutput();
    this._active = null;
    const record = active.record;
    record.ok = Boolean(result.ok);
    record.error = result.error || null;
    record.chart = result.chart || { series: [] };
    record.ms = typeof result.ms === "number" ? result.ms : Math.round(performance.now() - active.t0);
    record.truncated = Boolean(result.truncated);
    record.stopped = Boolean(result.stopped);
    this.runs.push(record);
    if (this.runs.length > MAX_RUNS) this.runs.shift();

    if (active.keep) {
      if (!record.ok && !record.stopped) {
        record.keptOutput = true; // the panels still show the last good run
        if (this._worker && this.state !== "loading") this._setState("ready");
        this._status(`${errorSummary(record.error)} (the output shown is from the last run that worked)`);
        this._emit("lab:result", record);
        active.resolve(record);
        return;
      }
      this._swapPanels();
      for (const [stream, text] of active.held) this._appendNode(this.el.current.pre, stream, text);
    }
    const cur = this.el.current;
    cur.label.textContent = record.ok ? "This run" : record.stopped ? "This run (stopped)" : "This run (error)";
    if (record.chart.series.length) {
      // Drawn in the next frame, before it paints: the text and the chart still appear together, and the result
      // is handed out (lab:result) without waiting for a few hundred SVG nodes.
      this._runChart = { el: cur.chart, chart: record.chart, frame: requestAnimationFrame(() => this._drawRunChart()) };
    } else {
      cur.chart.style.minHeight = ""; // the place held since the run started
    }

    let text;
    if (note) text = note;
    else if (record.stopped) text = "Stopped.";
    else if (record.ok) text = `Run finished in ${record.ms} ms`;
    else text = errorSummary(record.error);
    if (record.truncated) text += " (output was cut at the limit)";
    if (this._worker && this.state !== "loading") this._setState("ready");
    this._status(text);
    this._emit("lab:result", record);
    active.resolve(record);
  }
}

let instructorTools = null; // started once, for every lab of the page

/**
 * Start the lab in `section` (main.js calls this for each `[data-block="lab"]`); `island` is its JSON island (the
 * controller reads it from the HTML too), `page` the page's data with its store. Loads the instructor tools once.
 */
export function init(section, island, page = null) {
  if (section.labController) return section.labController;
  const controller = new LabController(section, (page && page.runtime) || pageRuntime());
  if (!instructorTools && page && page.store) {
    // A frame later, through importVerified, which checks it against the build's hash (this module came from the
    // checked preload in the page's head).
    const afterFrame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    instructorTools = afterFrame()
      .then(() => importVerified("lab-instructor.js"))
      .then((tools) => tools.init(document, page, page.store))
      .catch((err) => console.error("The lab's instructor tools could not start:", err)); // the lab keeps working
  }
  return controller;
}
