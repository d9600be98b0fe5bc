// The values panel: one labelled number input per item of the list a lab declares (`panel: variable: raw`), kept
// in step with the code's one top-level line `raw = [numbers]`. Editing an input rewrites that line; editing the
// line updates the inputs. Add / remove buttons change the list's length within the declared min and max.
//
// The declaration (the lab's island `panel`): {variable, legend (safe inline HTML), item (plain text, "{n}" is the
// item's number), min, max}.

import grammar from "../../../../lessonkit/blocks/lab/panel-line.json" with { type: "json" };
import { button, h, inlineHTML } from "./ui.js";

// The line's grammar is the build's too (lessonkit/blocks/lab/panel-line.json, read by blocks/lab/panel.py).
const NUMBER = new RegExp(grammar.number);
let NAME = null; // labkit's rule for a Python name (generated/labkit.js), handed in by useLabkit()

/** Use labkit's facts (the lab's `controller.labkit`: this bundle shares no module with the lab's). */
export function useLabkit(labkit) {
  NAME = new RegExp(`^${labkit.identifier}$`);
}
let uid = 0;

/**
 * The line `name = [numbers]` of a program: parse(code) -> {values, index, length, tail} or null when there is no
 * single such line with plain numbers; rewrite(code, values) -> code with that line written from values (keeping a
 * trailing comment), or null.
 */
export function listLine(name) {
  if (!NAME) throw new Error("values panel: useLabkit() first");
  if (!NAME.test(String(name))) return { parse: () => null, rewrite: () => null };
  // Only a top-level assignment of plain numbers: anything cleverer (names, expressions) is the learner's own code,
  // and rewriting it from a form would destroy their work.
  const line = new RegExp(grammar.line.replace("{name}", name), "m");
  const any = new RegExp(grammar.assignment.replace("{name}", name), "gm");
  const parse = (code) => {
    const text = String(code);
    if ((text.match(any) || []).length !== 1) return null; // none, or reassigned: which one counts is unclear
    const m = line.exec(text);
    if (!m) return null;
    const parts = m[1].split(",").map((s) => s.trim());
    if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop(); // trailing comma is valid Python
    if (!parts.every((p) => NUMBER.test(p))) return null;
    const values = parts.map(Number);
    if (!values.every(Number.isFinite)) return null;
    return { values, index: m.index, length: m[0].length, tail: m[2] };
  };
  const rewrite = (code, values) => {
    const parsed = parse(code);
    if (!parsed) return null;
    const written = `${name} = [${values.map(formatNumber).join(", ")}]${parsed.tail}`;
    return code.slice(0, parsed.index) + written + code.slice(parsed.index + parsed.length);
  };
  return { parse, rewrite };
}

/** A number as Python float source: 8 -> "8.0", 0.25 -> "0.25". */
function formatNumber(x) {
  const n = Object.is(x, -0) ? 0 : x;
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

export function sameList(a, b) {
  return Boolean(a && b) && a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The panel for one lab: `root` goes into the tools; onValues(values, announcement) asks for the code to change. */
export class ValuesPanel {
  constructor(labId, declaration, original, { onValues }) {
    this.labId = labId;
    this.name = String(declaration.variable);
    this.line = listLine(this.name);
    this.item = String(declaration.item || "Item {n}");
    const originalValues = this.line.parse(original)?.values;
    this.min = Number.isSafeInteger(declaration.min) ? declaration.min : 1;
    // The build always declares it (within labkit's chart labels); else the panel keeps the starter's length.
    this.max = Number.isSafeInteger(declaration.max) ? declaration.max : Math.max(this.min, (originalValues || []).length);
    this.onValues = onValues;
    this.values = null;
    this.example = `${this.name} = [${(originalValues || [1, 2]).map(formatNumber).join(", ")}]`;
    // "Position {n} score" -> Add position / Remove position
    const noun = (this.item.split("{n}")[0].trim() || "value").toLowerCase();
    this.root = h("fieldset", { class: "instr-values" });
    const legend = h("legend");
    legend.append(inlineHTML(declaration.legend || this.name));
    this.list = h("div", { class: "instr-value-list" });
    this.add = button(`Add ${noun}`, () => this.addItem());
    this.remove = button(`Remove ${noun}`, () => this.removeItem());
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
      this.values = null;
      this.list.replaceChildren();
      this.root.disabled = true;
      this.message.textContent =
        `This panel is off: the code has no single line like ${this.example} with plain numbers. Reset code brings it back.`;
      this.message.hidden = false;
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
    this.onValues([...this.values, 0], `Added ${this.label(this.values.length + 1)}: ${formatNumber(0)}.`);
  }

  removeItem() {
    if (!this.values || this.values.length <= this.min) return;
    this.onValues(this.values.slice(0, -1), `Removed ${this.label(this.values.length)}.`);
  }
}
