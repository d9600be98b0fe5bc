// The values panel for a matrix: a grid of labelled number inputs for the lab's `name = [[numbers], ...]` statement
// (`panel: variable: scores` where the build found a list of lists), kept in step with the code as the list panel is
// (values.js: the same grammar, parse and rewrite). Add / remove a row or a column within the declared min and max.
//
// The declaration (the lab's island `panel`): {variable, legend (safe inline HTML), matrix: true, rows, cols (labels,
// plain text; past them "Row n" / "Column n"), min, max}.

import { formatNumber, listLine } from "./values.js";
import { button, h, inlineHTML, num, t } from "./ui.js";
import { markInputs } from "./was.js";

let uid = 0;

export class MatrixPanel {
  constructor(labId, declaration, original, { onValues }) {
    this.labId = labId;
    this.name = String(declaration.variable);
    this.line = listLine(this.name);
    this.rowLabels = Array.isArray(declaration.rows) ? declaration.rows.map(String) : [];
    this.colLabels = Array.isArray(declaration.cols) ? declaration.cols.map(String) : [];
    this.min = Number.isSafeInteger(declaration.min) ? declaration.min : 1;
    this.max = Number.isSafeInteger(declaration.max) ? declaration.max : 64;
    this.onValues = onValues;
    this.values = null;
    const first = this.line.parse(original)?.values;
    this.example = `${this.name} = [${(first || [[1, 0], [0, 1]]).map((r) => `[${r.map(formatNumber).join(", ")}]`).join(", ")}]`;
    this.root = h("fieldset", { class: "instr-values instr-matrix" });
    const legend = h("legend");
    legend.append(inlineHTML(declaration.legend || this.name));
    this.grid = h("table", { class: "instr-matrix-grid" });
    this.wrap = h("div", { class: "table-wrap instr-matrix-wrap", tabindex: "0", role: "group",
                           "aria-label": t("lab.matrix_label", { name: this.name }) });
    this.wrap.append(this.grid);
    this.addRow = button(t("lab.add_row"), () => this.resize(1, 0));
    this.removeRow = button(t("lab.remove_row"), () => this.resize(-1, 0));
    this.addCol = button(t("lab.add_column"), () => this.resize(0, 1));
    this.removeCol = button(t("lab.remove_column"), () => this.resize(0, -1));
    this.message = h("p", { class: "instr-values-message", hidden: true });
    const row = h("div", { class: "instr-row" });
    row.append(this.addRow, this.removeRow, this.addCol, this.removeCol);
    this.root.append(legend, this.wrap, row, this.message);
  }

  rowLabel(i) {
    return this.rowLabels[i] ?? t("chart.row", { name: num(i + 1) });
  }

  colLabel(j) {
    return this.colLabels[j] ?? t("chart.column", { name: num(j + 1) });
  }

  /** Reflect the code's statement; the input being typed in keeps what the learner typed. */
  sync(code) {
    const parsed = this.line.parse(code);
    if (!parsed || !parsed.matrix) {
      this.off(t("lab.matrix_off", { example: this.example }));
      return;
    }
    const [height, width] = [parsed.values.length, parsed.values[0].length];
    if (height > this.max || width > this.max) {
      // Code edited (or shared) past the panel's size: one input per number would be thousands of them.
      this.off(t("lab.matrix_too_big", { name: this.name, rows: num(height), columns: num(width), max: num(this.max) }));
      return;
    }
    this.root.disabled = false;
    this.message.hidden = true;
    const values = parsed.values;
    if (!this.values || !sameShape(this.values, values)) this.build(values);
    else {
      this.inputs().forEach((input) => {
        const v = values[+input.dataset.row][+input.dataset.col];
        const typed = input.value === "" ? NaN : Number(input.value);
        if (typed !== v) input.value = formatNumber(v);
        input.removeAttribute("aria-invalid");
      });
    }
    this.values = values.map((r) => r.slice());
    const [rows, cols] = [values.length, values[0].length];
    this.removeRow.setAttribute("aria-disabled", String(rows <= this.min));
    this.addRow.setAttribute("aria-disabled", String(rows >= this.max));
    this.removeCol.setAttribute("aria-disabled", String(cols <= this.min));
    this.addCol.setAttribute("aria-disabled", String(cols >= this.max));
  }

  /** Mark the inputs whose values differ from `before` (the values of the run shown as "Previous run", or null). */
  markChanged(before) {
    if (!this.values) return;
    const rows = Array.isArray(before) && before.every(Array.isArray) ? before : null;
    markInputs(this.inputs().map((input) => {
      const [i, j] = [+input.dataset.row, +input.dataset.col];
      return [input, rows && (rows[i] ? rows[i][j] : undefined), this.values[i][j]];
    }), formatNumber);
  }

  /** The panel turned off, saying why. */
  off(why) {
    this.values = null;
    this.grid.replaceChildren();
    this.root.disabled = true;
    this.message.textContent = why;
    this.message.hidden = false;
  }

  inputs() {
    return [...this.grid.querySelectorAll("input")];
  }

  build(values) {
    const focused = this.inputs().indexOf(document.activeElement);
    const at = focused >= 0 ? [+document.activeElement.dataset.row, +document.activeElement.dataset.col] : null;
    const head = h("tr");
    head.append(h("td"), ...values[0].map((_, j) => h("th", { scope: "col" }, this.colLabel(j))));
    const body = values.map((row, i) => {
      const tr = h("tr");
      tr.append(h("th", { scope: "row" }, this.rowLabel(i)));
      row.forEach((v, j) => {
        const input = h("input", { type: "number", step: "any", inputmode: "decimal", value: formatNumber(v),
                                   id: `instr-matrix-${this.labId}-${uid}-${i}-${j}`,
                                   "aria-label": `${this.rowLabel(i)}, ${this.colLabel(j)}`,
                                   "data-row": i, "data-col": j });
        input.addEventListener("input", () => this.edited(i, j, input));
        const td = h("td");
        td.append(input);
        tr.append(td);
      });
      return tr;
    });
    const thead = h("thead");
    thead.append(head);
    const tbody = h("tbody");
    tbody.append(...body);
    this.grid.replaceChildren(thead, tbody);
    // What the inputs' width is shared out from (instructor.css): as many columns, beside the widest row label.
    this.wrap.style.setProperty("--cols", String(values[0].length));
    this.wrap.style.setProperty("--row-head", `${Math.max(...values.map((_, i) => this.rowLabel(i).length))}ch`);
    uid += 1;
    if (at) {
      const [i, j] = [Math.min(at[0], values.length - 1), Math.min(at[1], values[0].length - 1)];
      this.grid.querySelector(`input[data-row="${i}"][data-col="${j}"]`)?.focus();
    }
  }

  edited(i, j, input) {
    const x = input.value.trim() === "" ? NaN : input.valueAsNumber;
    if (!Number.isFinite(x) || !this.values) {
      input.setAttribute("aria-invalid", "true"); // half-typed ("-", "1e"): wait for a number
      return;
    }
    input.removeAttribute("aria-invalid");
    const values = this.values.map((r) => r.slice());
    values[i][j] = x;
    this.onValues(values);
  }

  /** One more or one fewer row (dRows) or column (dCols), within min and max; a new cell is 0. */
  resize(dRows, dCols) {
    if (!this.values) return;
    const [rows, cols] = [this.values.length + dRows, this.values[0].length + dCols];
    if (rows < this.min || rows > this.max || cols < this.min || cols > this.max) return; // aria-disabled: ignore
    let values = this.values.map((r) => (dCols > 0 ? [...r, 0] : r.slice(0, cols)));
    if (dRows > 0) values = [...values, new Array(cols).fill(0)];
    if (dRows < 0) values = values.slice(0, rows);
    const note = dRows > 0 ? t("lab.added_zeros", { name: this.rowLabel(rows - 1) }) : dRows < 0 ? t("lab.removed", { name: this.rowLabel(rows) })
      : dCols > 0 ? t("lab.added_zeros", { name: this.colLabel(cols - 1) }) : t("lab.removed", { name: this.colLabel(cols) });
    this.onValues(values, note);
  }
}

/** Whether two lists (or matrices) have one shape. */
export function sameShape(a, b) {
  if (!a || !b || a.length !== b.length) return false;
  return a.every((x, i) => (Array.isArray(x) ? Array.isArray(b[i]) && x.length === b[i].length : !Array.isArray(b[i])));
}
