// The values panel: one labelled number input per item of the list a lab declares (`panel: variable: raw`), kept
// in step with the code's one top-level line `raw = [numbers]`. Editing an input rewrites that line; editing the
// line updates the inputs. Add / remove buttons change the list's length within the declared min and max.
//
// The declaration (the lab's island `panel`): {variable, legend (safe inline HTML), item (plain text, "{n}" is the
// item's number), min, max}.

import grammar from "../panel-line.json" with { type: "json" };
import { button, h, inlineHTML, num, t } from "./ui.js";
import { markInputs } from "./was.js";

// The statement's grammar is the build's too (lessonkit/blocks/lab/panel-line.json, read by blocks/lab/panel.py).
const TOKEN = new RegExp(`${grammar.space}(?:(\\[)|(\\])|(,)|(${grammar.number}))`, "y");
const TAIL = new RegExp(`${grammar.tail}(?=\\n|$)`, "y");
let NAME = null; // labkit's rule for a Python name (generated/labkit.js), handed in by useLabkit()

/** Use labkit's facts (the lab's `controller.labkit`: this bundle shares no module with the lab's). */
export function useLabkit(labkit) {
  NAME = new RegExp(`^${labkit.identifier}$`);
}
let uid = 0;

/** The list display opening at `pos` (a "["): [items, the offset after its "]"], or null. */
function readList(code, pos, depth) {
  if (code[pos] !== "[") return null;
  const items = [];
  let at = pos + 1;
  let expectItem = true;
  for (;;) {
    TOKEN.lastIndex = at;
    const token = TOKEN.exec(code);
    if (!token) return null;
    const [, opening, closing, comma, number] = token;
    if (closing) return items.length ? [items, TOKEN.lastIndex] : null;
    if (comma) {
      if (expectItem) return null;
      expectItem = true;
      at = TOKEN.lastIndex;
      continue;
    }
    if (!expectItem) return null;
    if (opening) {
      if (depth >= grammar.depth) return null;
      const row = readList(code, TOKEN.lastIndex - 1, depth + 1);
      if (!row) return null;
      items.push(row[0]);
      at = row[1];
    } else {
      const value = Number(number);
      if (!Number.isFinite(value)) return null;
      items.push(value);
      at = TOKEN.lastIndex;
    }
    expectItem = false;
  }
}

/** A list of numbers, or of rows of numbers all as long. */
function rectangular(values) {
  const rows = values.filter(Array.isArray);
  if (!rows.length) return true;
  return rows.length === values.length && rows.every((row) => row.length === rows[0].length);
}

/**
 * The panel's statement `name = [numbers]` or `name = [[numbers], ...]` (the grammar of panel-line.json, which the
 * build checks a lab's declared line with: lessonkit/blocks/lab/panel_line.py): parse(code) -> {values, index,
 * length, tail, matrix} or null when there is no single such statement; rewrite(code, values) -> code with it written
 * from values (a matrix one row a line when it was written over several lines, keeping a trailing comment), or null.
 */
export function listLine(name) {
  if (!NAME) throw new Error("values panel: useLabkit() first");
  if (!NAME.test(String(name))) return { parse: () => null, rewrite: () => null };
  // Only a top-level assignment of plain numbers: anything cleverer (names, expressions) is the learner's own code,
  // and rewriting it from a form would destroy their work.
  const start = new RegExp(grammar.assignment.replace("{name}", name), "gm");
  const parse = (code) => {
    const text = String(code);
    const starts = [...text.matchAll(start)];
    if (starts.length !== 1) return null; // none, or reassigned: which one counts is unclear
    let at = starts[0].index + starts[0][0].length;
    while (text[at] === " " || text[at] === "\t") at += 1;
    const list = readList(text, at, 1);
    if (!list || !rectangular(list[0])) return null;
    TAIL.lastIndex = list[1];
    const tail = TAIL.exec(text);
    if (!tail) return null;
    const index = starts[0].index;
    return { values: list[0], index, length: TAIL.lastIndex - index, tail: tail[0], matrix: Array.isArray(list[0][0]),
             layout: text.slice(at, list[1]) };
  };
  const rewrite = (code, values) => {
    const parsed = parse(code);
    if (!parsed) return null;
    return code.slice(0, parsed.index) + `${name} = ${writeList(values, parsed.layout)}${parsed.tail}` +
      code.slice(parsed.index + parsed.length);
  };
  return { parse, rewrite };
}

/** Python source for a list or a matrix; a matrix one row a line, indented as before, when `layout` had lines. */
function writeList(values, layout = "") {
  const row = (xs) => `[${xs.map(formatNumber).join(", ")}]`;
  if (!Array.isArray(values[0])) return row(values);
  const indent = /\n([ \t]*)\[/.exec(layout);
  if (!indent) return `[${values.map(row).join(", ")}]`;
  return `[\n${values.map((r) => `${indent[1]}${row(r)},\n`).join("")}]`;
}

/** A number as Python float source: 8 -> "8.0", 0.25 -> "0.25". */
export function formatNumber(x) {
  const n = Object.is(x, -0) ? 0 : x;
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

/** Whether two lists (or two matrices) hold the same numbers. */
export function sameList(a, b) {
  const same = (x, y) => (Array.isArray(x) ? Array.isArray(y) && sameList(x, y) : x === y);
  return Boolean(a && b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
}

/** The panel for one lab: `root` goes into the tools; onValues(values, announcement) asks for the code to change. */
export class ValuesPanel {
  constructor(labId, declaration, original, { onValues }) {
    this.labId = labId;
    this.name = String(declaration.variable);
    this.line = listLine(this.name);
    this.item = String(declaration.item || t("lab.item"));
    const originalValues = this.line.parse(original)?.values;
    this.min = Number.isSafeInteger(declaration.min) ? declaration.min : 1;
    // The build always declares it (within labkit's chart labels); else the panel keeps the starter's length.
    this.max = Number.isSafeInteger(declaration.max) ? declaration.max : Math.max(this.min, (originalValues || []).length);
    this.onValues = onValues;
    this.values = null;
    this.example = `${this.name} = [${(originalValues || [1, 2]).map(formatNumber).join(", ")}]`;
    // "Position {n} score" -> Add position / Remove position
    const noun = (this.item.split("{n}")[0].trim() || t("lab.value")).toLowerCase();
    this.root = h("fieldset", { class: "instr-values" });
    const legend = h("legend");
    legend.append(inlineHTML(declaration.legend || this.name));
    this.list = h("div", { class: "instr-value-list" });
    this.add = button(t("lab.add", { noun }), () => this.addItem());
    this.remove = button(t("lab.remove", { noun }), () => this.removeItem());
    this.message = h("p", { class: "instr-values-message", hidden: true });
    const row = h("div", { class: "instr-row" });
    row.append(this.add, this.remove);
    this.root.append(legend, this.list, row, this.message);
  }

  /** The label of item n (1-based). */
  label(n) {
    return this.item.includes("{n}") ? this.item.replaceAll("{n}", String(n)) : `${this.item} ${n}`;
  }

  /** Reflect the code's line; the input being typed in keeps what the learner typed. */
  sync(code) {
    const parsed = this.line.parse(code);
    if (!parsed) {
      this.off(t("lab.values_off", { example: this.example }));
      return;
    }
    if (parsed.values.length > this.max) {
      // Code edited (or shared) past the panel's size: one input per value would be thousands of them.
      this.off(t("lab.values_too_big", { name: this.name, count: num(parsed.values.length), max: num(this.max) }));
      return;
    }
    this.root.disabled = false;
    this.message.hidden = true;
    const values = parsed.values;
    if (!this.values || this.values.length !== values.length) this.build(values);
    else {
      this.inputs().forEach((input, i) => {
        const typed = input.value === "" ? NaN : Number(input.value);
        if (typed !== values[i]) input.value = formatNumber(values[i]);
        input.removeAttribute("aria-invalid");
      });
    }
    this.values = values.slice();
    this.remove.setAttribute("aria-disabled", String(values.length <= this.min));
    this.add.setAttribute("aria-disabled", String(values.length >= this.max));
  }

  /** Mark the inputs whose values differ from `before` (the values of the run shown as "Previous run", or null). */
  markChanged(before) {
    if (!this.values) return;
    const list = Array.isArray(before) && !before.some(Array.isArray) ? before : null;
    markInputs(this.inputs().map((input, i) => [input, list && list[i], this.values[i]]), formatNumber);
  }

  /** The panel turned off, saying why. */
  off(why) {
    this.values = null;
    this.list.replaceChildren();
    this.root.disabled = true;
    this.message.textContent = why;
    this.message.hidden = false;
  }

  inputs() {
    return [...this.list.querySelectorAll("input")];
  }

  build(values) {
    const hadFocus = this.list.contains(document.activeElement) ? this.inputs().indexOf(document.activeElement) : -1;
    this.list.replaceChildren(
      ...values.map((v, i) => {
        const id = `instr-value-${this.labId}-${uid}-${i}`;
        const cell = h("div", { class: "instr-value" });
        const input = h("input", { type: "number", id, step: "any", inputmode: "decimal", value: formatNumber(v) });
        input.addEventListener("input", () => this.edited(i, input));
        cell.append(h("label", { for: id }, this.label(i + 1)), input);
        return cell;
      }),
    );
    uid += 1;
    if (hadFocus >= 0) this.inputs()[Math.min(hadFocus, values.length - 1)].focus();
  }

  edited(i, input) {
    const x = input.value.trim() === "" ? NaN : input.valueAsNumber;
    if (!Number.isFinite(x) || !this.values) {
      input.setAttribute("aria-invalid", "true"); // half-typed ("-", "1e"): wait for a number
      return;
    }
    input.removeAttribute("aria-invalid");
    const values = this.values.slice();
    values[i] = x;
    this.onValues(values);
  }

  addItem() {
    if (!this.values || this.values.length >= this.max) return; // aria-disabled keeps focus; ignore the click
    this.onValues([...this.values, 0], t("lab.added", { name: this.label(this.values.length + 1), value: formatNumber(0) }));
  }

  removeItem() {
    if (!this.values || this.values.length <= this.min) return;
    this.onValues(this.values.slice(0, -1), t("lab.removed", { name: this.label(this.values.length) }));
  }
}
