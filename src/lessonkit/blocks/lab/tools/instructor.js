/**
 * Instructor and learner tools on top of a lab's controller (its API is at the top of lab.js), one module per
 * concern: saved code (lab-saved.js), Live mode (lab-live.js), predict-then-run (lab-predict.js), presenter mode
 * (presenter.js), share links (lab-link.js, lab-share.js) and the values panel (lab-panel.js). Everything is built
 * with createElement/textContent inside `controller.tools` and `controller.restoreNote`; this module never touches
 * the lab's own elements.
 *
 * lab.js imports it a frame after starting a lab and calls `attach(element, controller, island, page)`: island is
 * the lab's (its `panel` and `predict` declarations: no declaration, no panel or question), page the page's data
 * with the page's own modules (see lab.js): this module uses `page.store` and `page.presenter`, never its own copy
 * (store's "storage is unavailable" notice included), so its bundle shares no code with the page's.
 */

import { Baseline } from "./baseline.js";
import { LiveMode } from "./live.js";
import { linkTarget, SharedLinks } from "./link.js";
import { MatrixPanel, sameShape } from "./matrix.js";
import { useLabkit, ValuesPanel } from "./values.js";
import { PredictThenRun } from "./predict.js";
import { SavedCode } from "./saved.js";
import { button, h, Notes, t, useDom } from "./ui.js";

const started = new WeakSet(); // attach once per lab

/** The ids of the labs on this page (a lab's root is `<section id="lab-<id>">`). */
function labIds() {
  return [...document.querySelectorAll("[data-lab]")].map((el) => el.id.replace(/^lab-/, ""));
}

class Tools {
  constructor(section, controller, island, page) {
    const { store, presenter } = page;
    this.section = section;
    this.c = controller;
    this.labId = island.id || section.id.replace(/^lab-/, "") || "lab";
    const lesson = island.lesson || page.lesson;
    const key = lesson ? store.storeKey(lesson, this.labId, "code") : null;
    this.writingValues = false;

    // Not role=status: the lab already has one status line, and two would be ambiguous; aria-live still speaks.
    const live = h("p", { class: "instr-note", "aria-live": "polite", "aria-atomic": "true" });
    this.notes = new Notes(section, controller, live);
    const show = (code) => this.show(code);
    this.saved = new SavedCode({ store, key, codeHash: island.codeHash || "", controller, notes: this.notes, show });
    this.baseline = new Baseline({ controller, notes: this.notes });
    this.live = new LiveMode({ labId: this.labId, controller, notes: this.notes, baseline: this.baseline });
    this.links = new SharedLinks({ labId: this.labId, section, controller, notes: this.notes, saved: this.saved, show,
      base: island.codeHash || "" });
    this.panel = island.panel
      ? new (island.panel.matrix ? MatrixPanel : ValuesPanel)(this.labId, island.panel, controller.original,
        { onValues: (values, note) => this.writeValues(values, note) })
      : null;
    this.predict = island.predict && this.panel
      ? new PredictThenRun({ labId: this.labId, section, controller, notes: this.notes, declaration: island.predict,
        panel: this.panel, live: this.live })
      : null;

    const bar = h("div", { class: "instr-row instr-bar" });
    bar.append(this.live.label, this.baseline.pin, presenter.presenterToggle(button(t("lab.presenter"), null)), this.links.copy);
    const wrap = h("div", { class: "instr" });
    wrap.append(bar, this.links.box);
    if (this.panel) wrap.append(this.panel.root);
    if (this.predict) wrap.append(this.predict.slot);
    wrap.append(live);
    controller.tools.append(wrap);

    section.addEventListener("lab:change", (e) => this.changed(String(e.detail && e.detail.code)));
    if (this.predict) {
      section.addEventListener("lab:result", (e) => this.predict.result(e.detail));
      controller.beforeRun = (code) => this.predict.beforeRun(code);
    }
    if (this.panel) {
      // Enter in a value's field runs the code (Live's pending re-run is then this run).
      this.panel.root.addEventListener("keydown", (e) => {
        if (e.key !== "Enter" || e.isComposing || !(e.target instanceof HTMLInputElement)) return;
        e.preventDefault();
        clearTimeout(this.live.timer);
        controller.run(this.live.on ? { keepOutputOnError: true } : undefined);
      });
      this.panel.sync(controller.getCode());
      section.addEventListener("lab:result", () => this.markValues());
    }
  }

  /** Mark the panel's inputs that differ from the run shown as "Previous run". */
  markValues() {
    const code = this.c.previousCode();
    const parsed = code === null ? null : this.panel.line.parse(code);
    this.panel.markChanged(parsed ? parsed.values : null);
  }

  changed(code) {
    if (this.panel && !this.writingValues) this.panel.sync(code);
    if (this.panel) this.markValues();
    this.links.changed();
    this.saved.changed(code);
    this.live.changed();
  }

  /** Show `code` without a lab:change (nothing was edited), keeping the values panel in step. */
  show(code) {
    this.c.setCode(code, { silent: true });
    if (this.panel) this.panel.sync(code);
    if (this.panel) this.markValues();
  }

  writeValues(values, announce) {
    const code = this.panel.line.rewrite(this.c.getCode(), values);
    if (code === null) return;
    const resync = !sameShape(values, this.panel.values);
    this.writingValues = true;
    try {
      this.c.setCode(code);
    } finally {
      this.writingValues = false;
    }
    // Same count: the typed value stays as typed. New count: rebuild the inputs.
    if (resync) this.panel.sync(code);
    else this.panel.values = values.map((v) => (Array.isArray(v) ? v.slice() : v));
    this.markValues();
    if (announce) this.notes.say(announce);
  }
}

/** Add the tools to the lab whose root is `element` (see the top for the arguments). */
export async function attach(element, controller, island, page) {
  if (started.has(element)) return;
  started.add(element);
  useDom(page.dom);
  useLabkit(controller.labkit);
  const tools = new Tools(element, controller, island || {}, page);
  const saved = tools.saved.load();
  const ids = labIds();
  const { target, onPage } = linkTarget(ids);
  if (target !== null && target === tools.labId) await tools.links.open(location.hash, saved);
  else if (saved) tools.saved.restore(saved);
  if (target !== null && !onPage && ids[0] === tools.labId && controller.restoreNote) {
    controller.restoreNote.textContent = t("lab.link_elsewhere");
    controller.restoreNote.hidden = false;
  }
}
