// Which values panel inputs differ from the run shown as "Previous run" (the baseline): each such input gets a short
// note after it, "was 4.0" (or "new" for a value that run did not have), which is also its description, so the class
// sees what the edit changed and a screen reader hears it on the input.

import { h, t } from "./ui.js";

const notes = new WeakMap(); // input -> its note
let uid = 0;

/**
 * Mark each of `entries` ([input, was, now]): `was` null when there is no run to compare with, undefined when that
 * run had no such value; `format` writes a value as the panel does.
 */
export function markInputs(entries, format) {
  for (const [input, was, now] of entries) {
    const note = notes.get(input);
    if (was === null || was === now) {
      if (note) {
        note.remove();
        notes.delete(input);
        input.removeAttribute("aria-describedby");
      }
      continue;
    }
    const text = was === undefined ? t("lab.value_new") : t("lab.value_was", { value: format(was) });
    if (note) {
      note.textContent = text;
      continue;
    }
    const made = h("span", { class: "instr-was", id: `instr-was-${uid++}` }, text);
    input.after(made);
    input.setAttribute("aria-describedby", made.id);
    notes.set(input, made);
  }
}
