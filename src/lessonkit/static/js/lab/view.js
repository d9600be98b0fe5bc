/**
 * Editable Python lab: the view. The {lab} block's page module (lessonkit/blocks/lab/lab.js) makes a LabController
 * for the lab whose root is its element (the block's `[data-block="lab"]` section, server-rendered so it reads
 * without JavaScript), after the first paint, once per lab. Python itself is lab-client.js's (a module Web Worker for
 * each run, with a fresh one booted ahead of need: sharedPython, which the page's exercises use too);
 * this module shows it: status, progress, output, charts, the editor. The instructor tools (lab-instructor.js) are
 * loaded a frame later, checked against the build's hash like every module the lab imports.
 *
 * island (the block's JSON island, from the build): {id, version, lesson, filename, codeHash, title, charts, panel,
 * predict}. `charts` are the charts the lesson's code drew at build time (lab-protocol.js `Chart`), drawn under the
 * build's output; `panel` and `predict` are the instructor tools' (see lab-instructor.js). page: the page's data
 * (#lesson-data: lesson, runtime, integrity) and the page's own modules, handed in rather than imported so the page
 * keeps one copy of each and the lab's bundle shares no chunk with the page's: `idle` (idle.js), `store`
 * (store.js: load, save, remove, storeKey, its validators `is` and the saved shapes of shapes.js) and `presenter`
 * (presenter.js).
 *
 * ## Controller API (used by the instructor tools and the tests)
 * `element.labController` is set on each lab (a module loaded later should use it if present, else wait for
 * `lab:ready`). Events are dispatched on the element (they bubble to document):
 *   - `lab:ready`   controller created (detail: {controller})
 *   - `lab:state`   detail {state: "loading" | "ready" | "running" | "failed"}
 *   - `lab:change`  the code was edited (detail: {code}); not fired by setCode(code, {silent: true})
 *   - `lab:result`  a run ended (detail: run record, see below)
 * Properties and methods:
 *   - `original`            the starter code (string)
 *   - `state`               current state (string above)
 *   - `runs`                finished run records, oldest first (at most 50)
 *   - `buildCharts`         the charts of the lesson's own run (island.charts), each checked
 *   - `getCode()`           the code in the editor
 *   - `setCode(code, {silent})`  replace the code (fires lab:change unless silent)
 *   - `run(options)`        -> Promise<record | null>: runs the editor's code (null if cancelled: beforeRun said
 *                           no, Stop was pressed first, a newer run replaced it, or Python could not load).
 *                           A run already in progress is stopped first. options.keepOutputOnError: a failing run
 *                           leaves the last good output in place (Live mode); options.quiet: the status line is
 *                           not read aloud for this run (Live mode's re-runs).
 *   - `stop()`              -> Promise: ends the current run (soft interrupt, else its Python is ended)
 *   - `holdPrevious(label, {current})`  keep one run as "Previous run" (a baseline) while the next runs replace
 *                           "This run"; null ends it (panels.js)
 *   - `previousCode()`      the code of the run shown as "Previous run" (the starter code for the build's output),
 *                           or null when none is shown
 *   - `reset()`             restores the starter code (fires lab:change), and the build's output in place of a run
 *                           of other code
 *   - `boot()`              -> Promise: starts the first Python now (normally automatic)
 *   - `beforeRun`           optional hook `async (code) => boolean`; return false to cancel the run
 *                           (e.g. ask for a prediction first)
 *   - `tools`               the empty `[data-lab-tools]` element above the editor, for instructor controls
 *   - `restoreNote`         the `[data-lab-restore]` paragraph (hidden) for saved-code notes
 *   - `labkit`              labkit's facts (generated/labkit.js: chart limits, the identifier rule, exercise defaults)
 *   - `bootDiagnostics`     the worker's notes on the last boot (BootDiagnostics in lab-protocol.js): for tests and
 *                           the benchmark, never shown
 * Run record: {runId, code, stdout, output: [{stream, text}], ok, error: null | {type, message, line, traceback},
 *              charts: [Chart], ms, truncated, stopped}
 *
 * ## Parts
 * This module is the state machine (loading → ready → running, failed): boot, runs, Stop, what the status says.
 * Its wiring (the lab's buttons and code box, the hints that boot Python, the editor near the viewport) is
 * view-wiring.js's; the page's data and shared modules, handed in by init, view-page.js's; what the status area
 * shows for a state and a boot's progress, view-status.js's. A run's record and the
 * words shown for it are runs.js's (no DOM); the two output panels, their output and charts, are panels.js's.
 *
 * ## Page cost
 * The constructor only wires events, so it may run before the first paint. The build's charts and the Python worker
 * start after the first contentful paint. The CodeMirror editor (editor.js, imported dynamically) is built when the
 * lab comes within a screen of the viewport, or at once when the learner reaches for the code (focus, pointer): a
 * reader above the lab never pays for it, and it does not compete with Python's boot for the CPU. Until then the
 * server-rendered textarea, styled alike, is the editor (getCode/setCode use it).
 * A run writes only (panels.js).
 */

import { t } from "../page/words.js";
import { LABKIT } from "../generated/labkit.js";
import { formatValue } from "./chart.js";
import { titleOf } from "./chart-parts.js";
import { sharedPython } from "./client.js";
import { OutputPanels } from "./panels.js";
import { MAX_RUNS, drawable, finishStatus, keptStatus, newRecord, recordOutput, restartNote, runLabel,
  settle } from "./runs.js";
import { afterFirstPaint } from "./view-page.js";
import { progressWords, showProgress, showState } from "./view-status.js";
import { loadEditorNearView, scheduleBoot, wireControls } from "./view-wiring.js";

export { importVerified, usePage } from "./view-page.js";

export class LabController {
  constructor(section, island, page) {
    this.section = section;
    this.island = island;
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
    };
    this.tools = q("[data-lab-tools]");
    this.restoreNote = q("[data-lab-restore]");
    // The server-rendered code, untouched by edits or the browser's form restore.
    this.original = this.el.textarea.defaultValue;
    this.filename = island.filename || "lab.py";
    this.state = "loading";
    this.runs = [];
    this.beforeRun = null;
    this.editor = null;
    this.bootDiagnostics = null;
    this.buildCharts = drawable(island.charts);
    this.labkit = LABKIT; // labkit's facts, for the instructor tools (their bundle shares no module with this one)
    this._silent = false;
    this._ticket = 0;
    this._runCount = 0;
    this._boot = null;
    this._started = false;
    this._active = null;
    this._restartNote = "";
    this.panels = new OutputPanels(section, this.buildCharts);
    this.panels.current.code = this.original; // each panel's run's code (previousCode)
    this.python = sharedPython(page.runtime || null, {
      starter: { code: this.original, filename: this.filename },
      onProgress: (progress) => this._onProgress(progress),
    });

    // Only cheap wiring here: this can run before the first paint. The charts and the editor come after it.
    wireControls(this);
    this._setState("loading");
    this._status(t("lab.loading_python"));
    scheduleBoot(this);
    afterFirstPaint(() => this.panels.drawBuildCharts());
    loadEditorNearView(this);
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

  /**
   * Compare the next runs with one run: `label` ("Previous run: …") names it; null lets every run push the last one
   * down again. `{current: true}`: the run shown now is that one (from the next run on); else the previous run.
   */
  holdPrevious(label, options) {
    this.panels.holdPrevious(label, options);
  }

  /** The code of the run shown as "Previous run" (the build's: the starter code), or null when none is shown. */
  previousCode() {
    const previous = this.panels.previous;
    return previous.root.hidden ? null : previous.code ?? null;
  }

  reset() {
    // The output on screen was made by the edited code: the lesson's own output from the build takes its place.
    const last = this.runs[this.runs.length - 1];
    if (!this._active && last && last.code !== this.original) {
      this.panels.showBuildOutput();
      this.panels.current.code = this.original;
    }
    this.setCode(this.original);
    this._status(this.editor ? t("lab.reset_done_undo") : t("lab.reset_done"));
  }

  boot() {
    if (this._boot) return this._boot;
    this._started = true;
    this._setState("loading");
    showProgress(this.el, null, null, this._restartNote ? t("lab.starting_again") : t("lab.loading_python"));
    this._announcedDownload = false;
    this._boot = this.python.boot().then(
      (diagnostics) => {
        this.bootDiagnostics = diagnostics;
        this._setState("ready");
        this._status(this._restartNote ? t("lab.ready_again", { note: this._restartNote }) : t("lab.ready"));
        this._restartNote = "";
      },
      (err) => {
        this._bootFailed(err.message);
        throw err;
      },
    );
    this._boot.catch(() => {});
    return this._boot;
  }

  async run(options = {}) {
    const ticket = ++this._ticket;
    let code = this.getCode();
    if (typeof this.beforeRun === "function") {
      let go = true;
      try {
        go = await this.beforeRun(code);
      } catch (err) {
        console.error("lab: beforeRun hook failed", err);
      }
      if (!go || ticket !== this._ticket) return null;
      code = this.getCode(); // edited while the hook waited (Live goes on typing under a question): run what is there
    }
    if (this._active) await this._stopActive();
    if (ticket !== this._ticket) return null;
    if (this.state === "failed") this._boot = null; // Run after a failed load is a retry
    if (this.state !== "ready") this._status(t("lab.queued"));
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

  /** A chart's name as the page calls it (its title, else its kind in the page's language: "Bar chart"). */
  chartTitle(chart) {
    return titleOf(chart);
  }

  /** A value of a chart as the chart shows it ("66.5%"), for texts about charts (the prediction's verdict). */
  formatValue(chart, value) {
    return formatValue(chart, value);
  }

  // ---------- booting (the hints that call this are view-wiring.js's) ----------

  _autoBoot() {
    // Automatic triggers start the first load only; after a failure only Retry or Run try again.
    if (this._started) return;
    this.boot().catch(() => {});
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
    showState(this.el, state, Boolean(this._restartNote));
    if (changed) this._emit("lab:state", { state });
  }

  // ---------- Python's lifecycle (lab-client.js runs it; this shows it) ----------

  _bootFailed(message) {
    this._boot = null;
    this._restartNote = "";
    this._setState("failed");
    this._status(t("lab.boot_failed", { error: message }));
  }

  _onProgress({ phase, loaded, total }) {
    showProgress(this.el, loaded, total, progressWords({ phase, loaded, total }));
    if (phase === "download" && !this._announcedDownload) {
      this._announcedDownload = true;
      this._status(t("lab.downloading"));
    } else if (phase === "start") {
      this._status(this._restartNote ? t("lab.note_starting_again", { note: this._restartNote }) : t("lab.starting"));
    }
  }

  // ---------- runs ----------

  _start(code, { keepOutputOnError = false, quiet = false } = {}) {
    const record = newRecord(++this._runCount, code);
    // quiet (Live mode's re-runs): the status line still shows "Running…" and how the run ended, but says neither
    // aloud at every edit; Live's own note speaks when an edit fails (blocks/lab/tools/live.js).
    this.el.status.setAttribute("aria-live", quiet ? "off" : "polite");
    let resolve;
    const ended = new Promise((r) => {
      resolve = r;
    });
    // keep: output is held back until the run ends, so a failing run (Live mode) leaves the last good output shown.
    const keep = Boolean(keepOutputOnError);
    const active = { record, resolve, ended, keep, held: [] };
    this._active = active;
    // Python starts first; the page's own updates below then overlap the run instead of delaying it. A run
    // takes a fresh Python (one per run): when the next one is still starting, the run waits for it.
    const waits = this.python.state !== "ready";
    this.python
      .run(code, {
        filename: this.filename,
        onOutput: (stream, text) => this._append(stream, text),
        onStart: () => {
          if (waits && this._active === active) this._status(t("lab.running"));
        },
      })
      .then((result) => this._ended(active, result), (err) => {
        // The fresh Python it waited for could not start.
        this._ended(active, { ok: false, error: { type: "LabError", message: err.message, line: null }, charts: [],
          restarted: false });
        this._bootFailed(err.message);
      });

    this.panels.startRun({ keep });
    this._setState("running");
    this._status(waits ? t("lab.starting") : t("lab.running"));
    return ended;
  }

  /**
   * A run ended: show it. Every run has a Python of its own; when the page had to end that Python before its
   * result (a hard Stop, a crash, output past the caps), say so and wait for the next one here.
   */
  _ended(active, result) {
    if (!result.restarted) {
      this._finish(active, result);
      return;
    }
    const note = restartNote(result);
    this._append("notice", result.stopped ? `${note}\n` : `\n${note}\n`);
    this._finish(active, result, note);
    // What "Ready again" repeats: the run's whole ending (a spare Python may be ready at once).
    this._restartNote = result.truncated ? note + t("lab.cut") : note;
    this._boot = null;
    this.boot().catch(() => {});
  }

  _stopActive() {
    const active = this._active;
    this._status(t("lab.stopping"));
    this.python.stop();
    return active.ended;
  }

  _append(stream, text) {
    if (!text) return;
    const record = this._active && this._active.record;
    if (record) {
      recordOutput(record, stream, text);
      if (this._active.keep) {
        this._active.held.push([stream, text]);
        return;
      }
    }
    this.panels.append(stream, text);
  }

  _finish(active, result, note) {
    if (this._active !== active) return;
    this.panels.flush();
    this._active = null;
    const record = settle(active.record, result);
    this.runs.push(record);
    if (this.runs.length > MAX_RUNS) this.runs.shift();
    const ready = !note; // after a restart, boot() shows the next Python starting

    if (active.keep) {
      if (!record.ok && !record.stopped) {
        record.keptOutput = true; // the panels still show the last good run
        if (ready) this._setState("ready");
        this._status(keptStatus(record));
        this._emit("lab:result", record);
        active.resolve(record);
        return;
      }
      this.panels.swap();
      this.panels.writeHeld(active.held);
    }
    this.panels.current.code = record.code;
    this.panels.showRun(runLabel(record), record.charts);
    if (ready) this._setState("ready");
    this._status(finishStatus(record, note));
    this._emit("lab:result", record);
    active.resolve(record);
  }
}
