// Live mode: the lab re-runs after each edit (a short pause after the last keystroke), one run at a time, and keeps
// the last good output on screen when an edit has an error.

import { h, num, t } from "./ui.js";

const LIVE_DEBOUNCE_MS = 400;

export class LiveMode {
  /** baseline: the lab's Baseline (baseline.js), told of each edit and each Live run. */
  constructor({ labId, controller, notes, baseline }) {
    Object.assign(this, { c: controller, notes, baseline });
    this.timer = 0;
    this.busy = false;
    this.again = false;
    this.error = false;
    const id = `instr-live-${labId}`;
    this.box = h("input", { type: "checkbox", id });
    this.label = h("label", { for: id, class: "instr-check" });
    this.label.append(this.box, document.createTextNode(` ${t("lab.live")}`));
    this.box.addEventListener("change", () => {
      this.notes.say(this.on ? t("lab.live_on") : t("lab.live_off"));
      if (!this.on) {
        clearTimeout(this.timer);
        this.baseline.endBurst();
      }
    });
  }

  get on() {
    return this.box.checked;
  }

  /** Whether Live mode is running the code now, or will: a question before a run would only get in the way. */
  get active() {
    return this.on || this.busy;
  }

  changed() {
    if (!this.on) return;
    clearTimeout(this.timer);
    this.baseline.edited();
    this.timer = setTimeout(() => this.run(), LIVE_DEBOUNCE_MS);
  }

  async run() {
    if (this.busy) {
      this.again = true; // one more run after this one, with whatever the code is then
      return;
    }
    this.busy = true;
    try {
      let record;
      do {
        this.again = false;
        record = await this.c.run({ keepOutputOnError: true, quiet: true });
        this.report(record);
        // An edit during a run (or while a prediction was asked for) runs once more, unless that run had it already.
      } while (this.again && this.on && !(record && record.code === this.c.getCode()));
    } finally {
      this.busy = false;
    }
  }

  report(record) {
    if (!record || record.stopped) return;
    if (record.ok) {
      this.baseline.liveRun();
      if (this.error) this.notes.say("");
      this.error = false;
      return;
    }
    this.error = true;
    const runs = this.c.runs;
    const before = runs.length > 1 ? runs[runs.length - 2] : null;
    let where = "";
    if (record.keptOutput) where = t("lab.live_kept");
    else if (before && before.ok) where = t("lab.live_previous");
    const said = record.error && record.error.line ? t("lab.live_error_line", { line: num(record.error.line) }) : t("lab.live_error");
    this.notes.say(`${said}${where}`);
  }
}
