// The lab's output panels: "This run" above "Previous run", each with its output and charts. A run writes only:
// the panel showing the last run is relabelled "Previous run" where it stands (its output and charts are not moved
// or redrawn), and the older panel is emptied and becomes the current one above it, so the `[data-lab-current]` /
// `[data-lab-previous]` attributes move between the two panels. Sizes come from a ResizeObserver and the output
// scrolls in a frame callback, so no handler forces a layout. The view (view.js) decides what a run shows; this
// module only shows it.

import { t } from "../page/words.js";
import { relabelCharts, renderCharts } from "./chart.js";
import { clearChanges, markChanges } from "./compare-dom.js";
import { clearOutput, writeOutput } from "./output-dom.js";

/** A panel's parts: its root, label, output and chart container. */
function panel(root) {
  return {
    root,
    label: root.querySelector("[data-lab-run-label]"),
    pre: root.querySelector("[data-lab-pre]"),
    chart: root.querySelector("[data-lab-chart]"),
  };
}

export class OutputPanels {
  /** The two panels of a lab's section, with the build's charts (drawn once, after the first paint). */
  constructor(section, buildCharts) {
    this.current = panel(section.querySelector("[data-lab-current]"));
    this.previous = panel(section.querySelector("[data-lab-previous]"));
    this.buildCharts = buildCharts;
    this._pending = [];
    this._flushScheduled = false;
    this._scrollScheduled = false;
    this._pinned = true; // the current output follows new text until the learner scrolls up
    // The label the current panel gets when the next run makes it "Previous run" (see swap).
    this._previousLabel = t("lab.previous_build");
    this._chartWidth = 0; // kept by a ResizeObserver, so drawing a chart never forces a layout
    this._chartHeights = new Map(); // chart container -> its last height (same observer), to hold its place
    this._runCharts = null; // {el, charts, frame}: the last run's charts, waiting for the next frame
    this._held = null; // the label of the run kept as "Previous run" (a baseline, see holdPrevious), or null
    this._buildText = this.current.pre.textContent; // the build's output, shown again by showBuildOutput
    this._buildChartsPending = buildCharts.length > 0;
    if (this._buildChartsPending) this.current.chart.dataset.labChartPending = ""; // reserves the room (CSS)
  }

  /** Track chart widths and whether the output is scrolled to its end, as they change: a run then only writes. */
  observe() {
    if ("ResizeObserver" in window) {
      const ro = new ResizeObserver((entries) => {
        for (const { target, contentRect } of entries) {
          if (contentRect.width > 0) this._chartWidth = contentRect.width;
          if (target.firstElementChild) this._chartHeights.set(target, contentRect.height);
        }
      });
      for (const p of [this.current, this.previous]) ro.observe(p.chart);
    }
    for (const p of [this.current, this.previous]) {
      p.pre.addEventListener("scroll", () => {
        const pre = p.pre;
        if (pre === this.current.pre) this._pinned = pre.scrollHeight - pre.scrollTop - pre.clientHeight < 24;
      }, { passive: true });
    }
  }

  /** The build's charts, drawn once after the first paint (or at once if a run starts first). */
  drawBuildCharts() {
    if (!this._buildChartsPending) return;
    this._buildChartsPending = false;
    const width = this._chartWidth || this.current.chart.clientWidth; // read before writing anything
    renderCharts(this.current.chart, this.buildCharts, { label: t("chart.of_build"), width });
    delete this.current.chart.dataset.labChartPending;
  }

  /** A run starts: its output goes to the current panel (a fresh one unless `keep`: then after the run). */
  startRun({ keep }) {
    this.drawBuildCharts(); // only if a run starts before the idle draw
    if (!keep) this.swap();
    this._pending = [];
    this._pinned = true;
  }

  /**
   * Keep the run "Previous run" shows now as the one every next run is compared with, labelled `label` ("Previous
   * run: …"), until `holdPrevious(null)`: each next run replaces "This run" instead of pushing it down. With
   * `{current: true}` the run shown as "This run" becomes that baseline at the next run (pinning the run on screen).
   */
  holdPrevious(label, { current = false } = {}) {
    if (label === null) {
      if (this._held !== null && !this.previous.root.hidden) this.previous.label.textContent = t("lab.previous_run");
      this._held = null;
      this._holdNext = null;
      return;
    }
    if (current) {
      this._holdNext = label; // the next swap moves this run down, then holds it
      this._held = null;
      return;
    }
    this._held = label;
    if (!this.previous.root.hidden) this.previous.label.textContent = label;
  }

  /** The label of the run held as "Previous run", or null (every run pushes the last one down). */
  get held() {
    return this._held;
  }

  /** A run starts while a baseline is held: "This run" is emptied in place; "Previous run" stays as it is. */
  _replaceCurrent() {
    this._drawRunCharts();
    const cur = this.current;
    clearChanges(cur);
    clearChanges(this.previous);
    const height = this._chartHeights.get(cur.chart);
    clearOutput(cur.pre);
    cur.chart.replaceChildren();
    if (height) cur.chart.style.minHeight = `${height}px`; // until the new chart
    cur.label.textContent = t("lab.this_run_running");
  }

  /**
   * The last output becomes "Previous run" where it stands: its nodes are neither moved nor redrawn (no new style,
   * layout or text shaping for them). The older panel is emptied and becomes the current one, above it.
   */
  swap() {
    if (this._held !== null && !this.previous.root.hidden) {
      this._replaceCurrent();
      return;
    }
    this._drawRunCharts(); // charts still waiting for their frame belong to the panel about to become "previous"
    const shown = this.current;
    const older = this.previous;
    clearChanges(shown); // it is compared with the next run when that one ends
    clearChanges(older);
    clearOutput(older.pre);
    older.chart.replaceChildren();
    const height = this._chartHeights.get(shown.chart);
    if (shown.chart.firstElementChild && height) older.chart.style.minHeight = `${height}px`; // until the new chart
    shown.label.textContent = this._previousLabel;
    this._previousLabel = t("lab.previous_run");
    relabelCharts(shown.chart, t("chart.of_previous"));
    shown.root.classList.add("lab-run-previous");
    shown.root.removeAttribute("data-lab-current");
    shown.root.setAttribute("data-lab-previous", "");
    older.root.classList.remove("lab-run-previous");
    older.root.removeAttribute("data-lab-previous");
    older.root.setAttribute("data-lab-current", "");
    older.label.textContent = t("lab.this_run_running");
    older.root.hidden = false;
    shown.root.before(older.root); // empty now, so moving it is cheap; reading order stays: this run, then previous
    this.current = older;
    this.previous = shown;
    if (this._holdNext) {
      this._held = this._holdNext;
      this._holdNext = null;
      shown.label.textContent = this._held;
    }
  }

  /**
   * The lesson's code is back (Reset code): its output from the build in "This run", and no "Previous run" (both
   * showed what the edited code did); the next run compares with the build's output again.
   */
  showBuildOutput() {
    this.flush();
    this._drawRunCharts();
    const cur = this.current;
    clearChanges(cur);
    clearOutput(cur.pre);
    writeOutput(cur.pre, "stdout", this._buildText);
    cur.label.textContent = t("lab.build_output");
    renderCharts(cur.chart, this.buildCharts, { label: t("chart.of_build"), width: this._chartWidth || undefined });
    cur.chart.style.minHeight = "";
    clearOutput(this.previous.pre);
    this.previous.chart.replaceChildren();
    this.previous.root.hidden = true;
    this._previousLabel = t("lab.previous_build");
    this._held = null;
    this._holdNext = null;
  }

  /** Output for the current panel, written in the next frame. */
  append(stream, text) {
    this._pending.push([stream, text]);
    if (!this._flushScheduled) {
      this._flushScheduled = true;
      requestAnimationFrame(() => this.flush());
    }
  }

  /** Write the output waiting for its frame now. */
  flush() {
    this._flushScheduled = false;
    const pending = this._pending;
    if (!pending.length) return;
    this._pending = [];
    // One node per stream change per flush: a flood of small messages becomes a few DOM writes a frame.
    const pre = this.current.pre;
    let stream = pending[0][0];
    let parts = [];
    for (const [s, text] of pending) {
      if (s !== stream) {
        writeOutput(pre, stream, parts.join(""));
        stream = s;
        parts = [];
      }
      parts.push(text);
    }
    writeOutput(pre, stream, parts.join("")); // as a terminal shows it: "\r", colours, control characters (output-dom.js)
    if (this._pinned) this._scrollToEnd();
  }

  /** Output held back until the run ended (a kept run that worked), written at once. */
  writeHeld(held) {
    for (const [stream, text] of held) writeOutput(this.current.pre, stream, text);
  }

  /** The run ended: its label, and its charts (drawn in the next frame, before it paints). */
  showRun(label, charts) {
    const cur = this.current;
    cur.label.textContent = label;
    if (charts.length) {
      // The text and the charts still appear together, and the result is handed out (lab:result) without waiting
      // for a few hundred SVG nodes.
      this._runCharts = { el: cur.chart, charts, frame: requestAnimationFrame(() => this._drawRunCharts()) };
    } else {
      cur.chart.style.minHeight = ""; // the place held since the run started
      markChanges(cur, this.previous);
    }
  }

  _drawRunCharts() {
    const pending = this._runCharts;
    if (!pending) return;
    this._runCharts = null;
    cancelAnimationFrame(pending.frame);
    renderCharts(pending.el, pending.charts, { label: t("chart.of_this_run"), width: this._chartWidth || undefined });
    pending.el.style.minHeight = ""; // the place held since the run started
    if (pending.el === this.current.chart) markChanges(this.current, this.previous); // what differs from "Previous run"
  }

  _scrollToEnd() {
    if (this._scrollScheduled) return;
    this._scrollScheduled = true;
    requestAnimationFrame(() => {
      this._scrollScheduled = false;
      const pre = this.current.pre;
      if (this._pinned) pre.scrollTop = pre.scrollHeight; // in a frame callback the layout this needs is the frame's own
    });
  }
}
