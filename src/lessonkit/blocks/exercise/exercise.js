/**
 * Exercise block: the learner's code in an editor, Run, Check (Ctrl/⌘+Shift+Enter), Hint, Show solution, Reset.
 * `init(element, island, page)` starts the exercise whose root is `element` (templates/blocks/exercise.html,
 * readable without JavaScript). Python is the page's (lab-client.js sharedPython, shared with its labs): every Run and
 * every Check gets a fresh Python of its own, so nothing a lab ran before can touch a check's verdict. The editor and
 * the page's timing helpers are the lab's (lab-view.js). Python decides what passed
 * (labkit/_check.py); this module only shows the report, always as text, labkit's own words from the page's catalog
 * (a check's `said`: lab/said.js).
 *
 * island: {lesson, id, version, filename, codeHash, title, attempts, timeout, hints, packed}. `packed` is the checks'
 * code, the lab files they import and the solution, zlib-compressed JSON in base64: not in the page as text.
 *
 * Stored (store.js, key `lessonkit:v1:<lesson>:<id>:<version>`): ExerciseState {passed, attempts, hints, solution}
 * (checked with shapes.js's `saved.exercise`, the shape progress.js reads too, handed in as `page.store.saved`).
 * The learner's code: `…:<id>:code` =
 * {base: the starter's hash, code}; a saved edit of an older starter is not loaded.
 */

import { num, t, tn } from "../../static/js/page/words.js";
import { LABKIT } from "../../static/js/generated/labkit.js";
import { sharedPython } from "../../static/js/lab/client.js";
import { errorText } from "../../static/js/lab/runs.js";
import { say } from "../../static/js/lab/said.js";
import { clearOutput, outputWriter, writeOutput } from "../../static/js/lab/output-dom.js";
import { editorControls, loadEditor, whenNear } from "../../static/js/lab/editor.js";

const EDITOR_MARGIN_PX = 900;
const BOOT_MARGIN_PX = 800;
const SAVE_DELAY_MS = 400;

const EMPTY_STATE = Object.freeze({ passed: false, attempts: 0, hints: 0, solution: false });

/** The island's packed checks and solution: base64 of zlib-compressed JSON. */
async function unpack(packed) {
  const bytes = Uint8Array.from(atob(packed), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return JSON.parse(await new Response(stream).text());
}

function errorLine(error) {
  const what = errorText(error);
  return error.line ? t("exercise.error_line", { error: what, line: num(error.line) }) : what;
}

class Exercise {
  constructor(section, island, page) {
    this.section = section;
    this.island = island;
    this.page = page;
    const q = (sel) => section.querySelector(sel);
    this.el = {
      textarea: q("[data-exercise-code]"),
      label: q(".lab-label"),
      tabmode: q("[data-exercise-tabmode]"),
      run: q("[data-exercise-run]"),
      check: q("[data-exercise-check]"),
      hint: q("[data-exercise-hint]"),
      show: q("[data-exercise-show-solution]"),
      reset: q("[data-exercise-reset]"),
      reason: q("[data-exercise-reason]"),
      confirm: q("[data-exercise-confirm]"),
      yes: q("[data-exercise-confirm-yes]"),
      no: q("[data-exercise-confirm-no]"),
      status: q("[data-exercise-status]"),
      hints: [...section.querySelectorAll("[data-exercise-hints] li")],
      report: q("[data-exercise-report]"),
      summary: q("[data-exercise-summary]"),
      results: q("[data-exercise-results]"),
      output: q("[data-exercise-output]"),
      outputLabel: q("[data-exercise-output-label]"),
      pre: q("[data-exercise-pre]"),
      remarks: q("[data-exercise-remarks]"),
      solution: q("[data-exercise-solution]"),
      solutionCode: q("[data-exercise-solution-code]"),
    };
    this.original = this.el.textarea.defaultValue;
    this.filename = island.filename || "exercise.py";
    this.attemptsNeeded = Number.isSafeInteger(island.attempts) ? island.attempts : LABKIT.exercise.attempts;
    this.editor = null;
    this.busy = false;
    this.packed = null; // Promise of {checks, modules, solution}, unpacked once
    this.lastReport = null;
    this.reports = 0; // Check reports shown (for tests)
    const { store } = page;
    this.store = store;
    this.stateKey = store.storeKey(island.lesson, island.id, island.version);
    this.codeKey = store.storeKey(island.lesson, island.id, "code");
    // Not store.dropOtherVersions: it would take the saved code (`…:code`) with the older versions' states.
    this.state = { ...EMPTY_STATE, ...(store.load(this.stateKey, store.saved.exercise) || {}) };
    this.python = sharedPython(page.runtime || null);
    this._restoreCode();
    this._wire();
    this._restore();
    whenNear(section, EDITOR_MARGIN_PX, page.idle, () => this._loadEditor());
    whenNear(section, BOOT_MARGIN_PX, page.idle, () => this.python.boot().catch(() => {}));
    section.exerciseController = this;
  }

  // ---------- code ----------

  getCode() {
    return this.editor ? this.editor.getCode() : this.el.textarea.value;
  }

  setCode(code) {
    if (this.editor) this.editor.setCode(code);
    else this.el.textarea.value = code;
  }

  _restoreCode() {
    const saved = this.store.load(this.codeKey, this.store.saved.exerciseCode);
    if (saved && saved.base === this.island.codeHash && saved.code !== this.original) this.el.textarea.value = saved.code;
  }

  _codeChanged() {
    clearTimeout(this._saveTimer);
    this._saveTimer = setTimeout(() => {
      const code = this.getCode();
      if (code === this.original) this.store.remove(this.codeKey);
      else this.store.save(this.codeKey, { base: this.island.codeHash, code });
    }, SAVE_DELAY_MS);
  }

  async _loadEditor() {
    if (this._editorRequested) return;
    this._editorRequested = true;
    this.editor = await loadEditor(this.el.textarea, {
      integrity: this.page.integrity,
      idle: this.page.idle,
      controls: this._controls,
      label: t("exercise.your_code"),
      describedBy: this.el.textarea.getAttribute("aria-describedby") || undefined,
      onRun: () => this.run(),
      onCheck: () => this.check(),
      onChange: () => this._codeChanged(),
    });
  }

  // ---------- wiring ----------

  _wire() {
    const { run, check, hint, show, reset, yes, no, textarea, tabmode, label, reason } = this.el;
    for (const button of [run, check, hint, reset]) button.disabled = false;
    reason.hidden = true;
    run.title = t("lab.run_title");
    check.title = t("exercise.check_title");
    run.addEventListener("click", () => this.run());
    check.addEventListener("click", () => this.check());
    hint.addEventListener("click", () => this.hint());
    show.addEventListener("click", () => this._askSolution());
    yes.addEventListener("click", () => this.showSolution());
    no.addEventListener("click", () => {
      this.el.confirm.hidden = true;
      show.focus();
    });
    reset.addEventListener("click", () => this.reset());
    textarea.addEventListener("input", () => this._codeChanged());
    textarea.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        if (event.shiftKey) this.check();
        else this.run();
      }
    });
    this._controls = editorControls({ tabmode, label, announce: (text) => this._status(text) });
    for (const type of ["focus", "pointerdown"]) textarea.addEventListener(type, () => this._loadEditor(), { once: true });
    this.section.addEventListener("focusin", () => this.python.boot().catch(() => {}), { once: true });
  }

  // ---------- state ----------

  _save() {
    this.store.save(this.stateKey, { ...this.state });
  }

  /** What the stored state says: revealed hints, the solution, the remarks, and the status line. */
  _restore() {
    this.el.hints.slice(0, this.state.hints).forEach((li) => {
      li.hidden = false;
    });
    this._updateButtons();
    if (this.state.passed || this.state.solution) this._reveal({ solution: true, remarks: this.state.passed });
    if (this.state.passed) this._status(t("exercise.solved"));
    else if (this.state.attempts) {
      this._status(tn("exercise.not_solved", this.state.attempts));
    }
  }

  _updateButtons() {
    const { hint, show } = this.el;
    const hintsLeft = this.el.hints.length - this.state.hints;
    hint.hidden = hintsLeft <= 0;
    if (this.el.hints.length) hint.textContent = this.state.hints ? tn("exercise.next_hint", hintsLeft) : t("exercise.hint");
    const allowed = this.attemptsNeeded === 0 ? this.state.passed : this.state.attempts >= this.attemptsNeeded;
    show.hidden = this.state.solution || this.state.passed || !allowed;
  }

  _status(text) {
    this.el.status.textContent = text;
  }

  /** The status while a request waits: `now` when a Python is ready for it, else what it waits for. */
  _waiting(now, then) {
    const state = this.python.state;
    if (state === "ready") return now;
    return state === "starting" || state === "running" ? t("lab.starting") : then;
  }

  // ---------- actions ----------

  hint() {
    const next = this.el.hints[this.state.hints];
    if (!next) return;
    next.hidden = false;
    this.state.hints += 1;
    this._save();
    this._updateButtons();
    this._status(t("exercise.hint_shown", { hint: num(this.state.hints), total: num(this.el.hints.length) })); // its text is said once, there
    if (this.el.hint.hidden) this.el.check.focus(); // the Hint button is gone: keep focus in the exercise
  }

  _askSolution() {
    this.el.confirm.hidden = false;
    this.el.yes.focus();
  }

  async showSolution() {
    this.el.confirm.hidden = true;
    this.state.solution = true;
    this._save();
    await this._reveal({ solution: true, remarks: false });
    this._updateButtons();
    this._status(t("exercise.solution_shown"));
    this.el.solution.querySelector("h4").setAttribute("tabindex", "-1");
    this.el.solution.querySelector("h4").focus();
  }

  async _reveal({ solution, remarks }) {
    if (remarks && this.el.remarks) this.el.remarks.hidden = false;
    if (!solution) return;
    try {
      const { solution: code } = await this._unpacked();
      this.el.solutionCode.textContent = code;
      this.el.solution.hidden = false;
    } catch (err) {
      console.error("exercise: could not read the solution", err);
    }
  }

  _unpacked() {
    this.packed = this.packed || unpack(this.island.packed);
    return this.packed;
  }

  reset() {
    this.setCode(this.original);
    this.store.remove(this.codeKey);
    this._status(this.editor ? t("exercise.reset_done_undo") : t("exercise.reset_done"));
  }

  async run() {
    if (this.busy) return null;
    this.busy = true;
    const code = this.getCode();
    this._status(this._waiting(t("lab.running"), t("lab.queued")));
    clearOutput(this.el.pre);
    this.el.outputLabel.textContent = t("exercise.output_running");
    this.el.output.hidden = false;
    const output = outputWriter(this.el.pre); // a frame's messages in one write
    let result;
    try {
      result = await this.python.run(code, { filename: this.filename, onOutput: output.write,
        onStart: () => this._status(t("lab.running")) });
    } catch (err) {
      this._status(t("exercise.run_failed", { error: err.message }));
      this.busy = false;
      return null;
    } finally {
      output.flush();
    }
    this.busy = false;
    this.el.outputLabel.textContent = t("exercise.output");
    if (result.ok) this._status(t("exercise.finished", { ms: num(result.ms) }));
    else if (result.restarted) this._status(t("lab.restarted", { error: result.error.message }));
    else this._status(t("lab.error", { error: errorLine(result.error) }));
    return result;
  }

  async check() {
    if (this.busy) return null;
    this.busy = true;
    const code = this.getCode();
    this._status(this._waiting(t("exercise.checking"), t("exercise.check_queued")));
    let report;
    try {
      const { checks, modules } = await this._unpacked();
      report = await this.python.check(code, { filename: this.filename, checks, modules, timeout: this.island.timeout || LABKIT.exercise.timeout,
        onStart: () => this._status(t("exercise.checking")) });
    } catch (err) {
      this._status(t("exercise.check_failed", { error: err.message }));
      this.busy = false;
      return null;
    }
    this.busy = false;
    this.lastReport = report;
    if (report.ok) this.state.passed = true;
    else this.state.attempts += 1;
    this._save();
    this._updateButtons();
    this._showReport(report);
    this.reports += 1;
    if (report.ok) this._reveal({ solution: true, remarks: true });
    this.section.dispatchEvent(new CustomEvent("exercise:report", { detail: report, bubbles: true }));
    return report;
  }

  _showReport(report) {
    const { summary, results, report: box, pre, output, outputLabel } = this.el;
    let line;
    if (report.error) {
      line = report.restarted ? report.error.message : t("exercise.stopped_before", { error: errorLine(report.error) });
    } else if (report.ok) {
      line = tn("exercise.all_passed", report.total);
    } else {
      line = tn("exercise.some_passed", report.total, { passed: num(report.passed) });
    }
    summary.textContent = line;
    results.replaceChildren(...report.checks.map((c) => this._result(c)));
    box.hidden = false;
    box.dataset.outcome = report.ok ? "passed" : "failed";
    clearOutput(pre);
    if (report.output) writeOutput(pre, "stdout", report.output);
    outputLabel.textContent = t("exercise.check_output");
    output.hidden = !report.output;
    // The status line (the live region) says the outcome, as the report shows it, where the details are and what is
    // new: a screen reader hears the pass count without moving to the report.
    this._status(report.ok ? t("exercise.checked_passed", { line })
      : !this.el.show.hidden ? t("exercise.checked_may_show", { line }) : t("exercise.checked", { line }));
  }

  _result(check) {
    const li = document.createElement("li");
    const passed = check.status === "passed";
    li.className = passed ? "exercise-pass" : "exercise-fail";
    const mark = document.createElement("span");
    mark.className = "exercise-mark";
    mark.textContent = passed ? "✓" : "✗";
    mark.setAttribute("aria-hidden", "true");
    const name = document.createElement("strong");
    name.textContent = check.name;
    const said = passed ? t("exercise.check_passed") : check.status === "timeout" ? t("exercise.check_timeout") : t("exercise.check_failed_one");
    const sr = document.createElement("span");
    sr.className = "visually-hidden";
    sr.textContent = ` ${said}`;
    li.append(mark, " ", name, sr);
    if (check.secret) li.append(t("exercise.hidden_check"));
    const why = passed ? "" : check.said ? say(check.said) : check.message;
    if (why) li.append(`: ${why}`);
    if (check.traceback) {
      const tb = document.createElement("pre");
      tb.className = "lab-pre exercise-traceback";
      tb.tabIndex = 0;
      tb.textContent = check.traceback;
      li.append(tb);
    }
    return li;
  }
}

/** Start the exercise whose root is `element` (its island and the page's data: see the top). */
export function init(element, island, page) {
  if (element.exerciseController) return element.exerciseController;
  return new Exercise(element, island, page);
}
