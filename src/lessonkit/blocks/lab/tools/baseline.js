// What "Previous run" compares with. Without a baseline each run pushes the last one down. A burst of Live edits
// (runs with less than BURST_PAUSE_MS between an edit and the last run's end) compares with the run before the burst
// began, not with its own half-typed steps; the instructor can also pin the run on screen as the baseline
// ("Pin as baseline"), which every next run is compared with until it is unpinned.

import { button, t } from "./ui.js";

export const BURST_PAUSE_MS = 4000;

export class Baseline {
  constructor({ controller, notes }) {
    Object.assign(this, { c: controller, notes });
    this.inBurst = false;
    this.timer = 0;
    this.pin = button(t("lab.pin_baseline"), () => this.toggle());
    this.pin.setAttribute("aria-pressed", "false");
    this.pin.title = t("lab.pin_baseline_title");
  }

  get pinned() {
    return this.pin.getAttribute("aria-pressed") === "true";
  }

  toggle() {
    const on = !this.pinned;
    clearTimeout(this.timer);
    this.inBurst = false;
    this.pin.setAttribute("aria-pressed", String(on));
    this.c.holdPrevious(on ? t("lab.previous_pinned") : null, { current: true });
    this.notes.say(on ? t("lab.pinned") : t("lab.unpinned"));
  }

  /** An edit while Live is on: the burst goes on. */
  edited() {
    clearTimeout(this.timer);
  }

  /** A Live run that worked: the first of a burst starts it (the run before it stays as "Previous run"). */
  liveRun() {
    if (this.pinned) return;
    if (!this.inBurst) {
      this.inBurst = true;
      this.c.holdPrevious(t("lab.previous_burst"));
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.endBurst(), BURST_PAUSE_MS);
  }

  /** The burst is over (a pause, or Live turned off): the next run pushes this one down. */
  endBurst() {
    clearTimeout(this.timer);
    if (!this.inBurst || this.pinned) return;
    this.inBurst = false;
    this.c.holdPrevious(null);
  }
}
