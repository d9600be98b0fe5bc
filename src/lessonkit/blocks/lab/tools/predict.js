// Predict, then run: the first run of code whose declared values differ from the lesson's asks the learner what
// will happen, then says whether it did, comparing the run's chart with the chart of the lesson's own run.
//
// The declaration (the lab's island `predict`; it needs the values panel's `variable` and a build chart):
//   question, hint, when_gaps_scaled {factor: question}: safe inline HTML;
//   answers: [{text, move}] (or a mapping text -> move): what the learner may answer and the move each predicts;
//   chart: the title of the lesson's chart to compare (null: its first); measure: largest | smallest | sum | first |
//   last, per series of a bar or line chart, or per row of a heatmap (its masked cells left out); cell: [row, column]
//   labels of a heatmap's one cell to compare instead (or null); outcomes {up, down, same, mixed}: plain text;
//   tolerance: a move smaller than this counts as "same".
// The verdict pairs the series (a heatmap's rows) of the two charts by name: "Your prediction held: every curve got
// steeper (k 0.5: 26.9% → 11.9%, 2: 1.8% → 0.0%)." (the series' title, then each name with its two measures).

import { sameList } from "./values.js";
import { button, h, inlineHTML, t } from "./ui.js";

const MEASURES = {
  largest: (values) => Math.max(...values),
  smallest: (values) => Math.min(...values),
  sum: (values) => values.reduce((a, b) => a + b, 0),
  first: (values) => values[0],
  last: (values) => values[values.length - 1],
};
const GENERIC_OUTCOMES = {
  get up() { return t("predict.up"); },
  get down() { return t("predict.down"); },
  get same() { return t("predict.same"); },
  get mixed() { return t("predict.mixed"); },
};
let uid = 0;

/** The declaration's answers as [{text, move}], in the author's order. */
export function answersOf(declaration) {
  const answers = declaration.answers;
  const pairs = Array.isArray(answers)
    ? answers.map((a) => (Array.isArray(a) ? a : [a && (a.text ?? a.answer), a && a.move]))
    : Object.entries(answers || {});
  return pairs.filter(([text, move]) => typeof text === "string" && ["up", "down", "same"].includes(move))
    .map(([text, move]) => ({ text, move }));
}

/** "a", "a or b", "a, b or c" */
function either(words) {
  return words.length > 1 ? t("predict.or", { some: words.slice(0, -1).join(", "), last: words[words.length - 1] }) : words.join("");
}

/**
 * What is compared in a chart: its series (bars and lines), or a heatmap's rows, named by their labels, each with its
 * values but the masked ones; with `cell` ([row, column] labels), that cell of a heatmap alone ("cat, The").
 */
export function seriesOf(chart, cell = null) {
  if (!chart) return [];
  if (chart.type !== "heatmap") return Array.isArray(chart.series) ? chart.series : [];
  if (cell) {
    const [i, j] = [chart.rows.indexOf(cell[0]), chart.cols.indexOf(cell[1])];
    const value = i < 0 || j < 0 ? null : chart.cells[i][j];
    return value === null ? [] : [{ name: `${cell[0]}, ${cell[1]}`, values: [value] }];
  }
  return chart.rows.map((name, i) => ({ name, values: chart.cells[i].filter((v) => v !== null) }));
}

/** The chart of `charts` to compare with `reference`: the one with its title, else the first of its kind. */
export function matchingChart(charts, reference) {
  const found = charts || [];
  return found.find((c) => c.title === reference.title) || found.find((c) => c.type === reference.type) || null;
}

/**
 * How each series' measure moved from chart `before` to chart `after` (series paired by name).
 * Returns {outcome: "up" | "down" | "same" | "mixed", pairs: [{name, before, after}]}, or null with nothing to pair.
 */
export function compareCharts(before, after, { measure = "largest", tolerance = 0, cell = null } = {}) {
  const of = MEASURES[measure] || MEASURES.largest;
  const values = (chart) => new Map(seriesOf(chart, cell).filter((s) => s.values.length).map((s) => [s.name, of(s.values)]));
  const was = values(before);
  const now = values(after);
  const pairs = [...was.keys()].filter((name) => now.has(name)).map((name) => ({ name, before: was.get(name), after: now.get(name) }));
  if (!pairs.length) return null;
  const moves = pairs.map((p) => (p.after - p.before > tolerance ? "up" : p.before - p.after > tolerance ? "down" : "same"));
  return { outcome: moves.every((m) => m === moves[0]) ? moves[0] : "mixed", pairs };
}

/** The sentence the learner reads after a predicted run. format(value) writes a value as the chart shows it. */
export function verdictText(answer, comparison, { chart, outcomes = {}, format, cell = null }) {
  if (!comparison) return t("predict.no_chart");
  // What the compared series are ("k", a heatmap's "Query"); one cell is named by its row and column alone.
  const kind = cell ? "" : chart.type === "heatmap" ? chart.row_title : chart.series_title;
  const detail = comparison.pairs
    .map((p, i) => `${i === 0 && kind ? `${kind} ` : ""}${p.name}: ${format(p.before)} → ${format(p.after)}`)
    .join(", ");
  const what = outcomes[comparison.outcome] || GENERIC_OUTCOMES[comparison.outcome];
  if (comparison.outcome === answer.move) return t("predict.held", { what, detail });
  return t("predict.missed", { answer: answer.text, what, detail });
}

/** Whether `values` are `original` with every gap (to the first value) multiplied by `factor`. */
function gapsScaled(original, values, factor) {
  if (original.length !== values.length || !original.some((x) => x !== original[0])) return false;
  return values.every((x, i) => {
    const want = factor * (original[i] - original[0]);
    return Math.abs(x - values[0] - want) <= 1e-9 * Math.max(1, Math.abs(want));
  });
}

export class PredictThenRun {
  /** panel: the lab's ValuesPanel (its line and the lesson's values); live: its LiveMode (never asked there). */
  constructor({ labId, section, controller, notes, declaration, panel, live }) {
    Object.assign(this, { labId, section, c: controller, notes, declaration, panel, live });
    this.answers = answersOf(declaration);
    this.original = panel.line.parse(controller.original)?.values || null;
    // The lesson's own run's chart: the one the declaration names, else its first.
    const named = declaration.chart;
    this.reference = (named ? controller.buildCharts.find((c) => controller.chartTitle(c) === named) : controller.buildCharts[0]) || null;
    this.done = false; // asked (and answered or skipped) once per page load
    this.asking = null;
    this.pending = null; // the answer to check against the next good run
    this.slot = h("div", { class: "instr-predict-slot" });
  }

  /**
   * The lab's beforeRun hook: true to run now, or a promise of the learner's decision. Asked once per page load. In
   * Live mode the question is offered where it stands, the focus left in the field being edited: Live waits for the
   * answer (its runs start when it is given), then goes on without asking again.
   */
  beforeRun(code) {
    if (this.done || !this.answers.length || !this.reference) return true;
    const parsed = this.panel.line.parse(code);
    if (!parsed || !this.original || sameList(parsed.values, this.original)) return true;
    if (!this.asking) {
      this.asking = this.ask(parsed.values, { live: this.live.active }).finally(() => {
        this.asking = null;
      });
    }
    return this.asking;
  }

  question(values) {
    for (const [factor, question] of Object.entries(this.declaration.when_gaps_scaled || {})) {
      if (gapsScaled(this.original, values, Number(factor))) return question;
    }
    return this.declaration.question || t("predict.question");
  }

  ask(values, { live = false } = {}) {
    const returnTo = document.activeElement;
    const name = `instr-predict-${this.labId}-${uid++}`;
    const set = h("fieldset", { class: "instr-predict" });
    const legend = h("legend");
    legend.append(inlineHTML(this.question(values)));
    set.append(legend);
    if (this.declaration.hint) {
      const hint = h("p", { class: "instr-hint" });
      hint.append(inlineHTML(this.declaration.hint));
      set.append(hint);
    }
    const options = h("div", { class: "instr-options" });
    this.answers.forEach((answer, i) => {
      const id = `${name}-${i}`;
      const label = h("label", { for: id, class: "instr-option" });
      label.append(h("input", { type: "radio", name, id, value: answer.text }), document.createTextNode(` ${answer.text}`));
      options.append(label);
    });
    const problem = h("p", { class: "instr-problem", "aria-live": "assertive" });
    const row = h("div", { class: "instr-row" });
    set.append(options, problem, row);
    this.slot.replaceChildren(set);

    return new Promise((resolve) => {
      const close = (go) => {
        set.remove();
        if (returnTo && returnTo.isConnected) returnTo.focus();
        else this.section.querySelector("[data-lab-run]")?.focus();
        resolve(go);
      };
      const runButton = button(t("predict.run"), () => {
        const chosen = set.querySelector("input:checked");
        if (!chosen) {
          problem.textContent = t("predict.choose", { answers: either(this.answers.map((a) => a.text)) });
          set.querySelector("input").focus();
          return;
        }
        this.done = true;
        this.pending = this.answers.find((a) => a.text === chosen.value);
        this.notes.say(t("predict.running", { answer: chosen.value }));
        close(true);
      }, "instr-primary");
      const skip = button(t("predict.skip"), () => {
        this.done = true; // skipping is an answer too: do not ask again on this visit
        this.notes.say("");
        close(true);
      });
      row.append(runButton, skip);
      // Escape backs out entirely: no run, and the question comes back next time.
      set.addEventListener("keydown", (e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          close(false);
        }
      });
      if (!live) {
        set.querySelector("input").focus();
        return;
      }
      // Live: the instructor may still be typing; the question waits in view, said once.
      this.notes.say(t("predict.live_paused"));
      set.scrollIntoView({ block: "nearest", behavior: "instant" });
    });
  }

  /** A run ended: the first good run of changed values after an answer gets the verdict. */
  result(record) {
    if (!record || !this.pending || !record.ok) return; // a failed run: check on the next good one
    const parsed = this.panel.line.parse(record.code);
    if (!parsed || sameList(parsed.values, this.original)) return;
    const answer = this.pending;
    this.pending = null;
    const reference = this.reference;
    const comparison = compareCharts(reference, matchingChart(record.charts, reference), this.declaration);
    const format = (value) => this.c.formatValue(reference, value);
    this.notes.say(verdictText(answer, comparison, { chart: reference, outcomes: this.declaration.outcomes, format,
      cell: this.declaration.cell }));
    this.notes.live.scrollIntoView({ block: "nearest", behavior: "instant" }); // the class reads it where it is
  }
}
