// Saved code: the learner's edit of a lab is kept in this browser (store.js) and comes back on the next visit. If
// the lesson's code changed since, the new code loads and the edit stays one click away (never silently loaded,
// never silently dropped).
import { t } from "./ui.js";

// The saved entry's shape (shapes.js `saved.code`) comes with the page's store: {schema, base, code, savedAt,
// earlier?}, `base` being the hash of the lesson's code the edit started from.
const SAVE_DEBOUNCE_MS = 300;

export class SavedCode {
  /**
   * store: store.js; key: where this lab's code is kept (null: nowhere); codeHash: the lesson's code's version;
   * show(code): put code in the editor without it counting as an edit.
   */
  constructor({ store, key, codeHash, controller, notes, show }) {
    Object.assign(this, { store, key, codeHash, c: controller, notes, show });
    this.other = null; // an alternative saved version the learner has not chosen or dismissed yet
    this.dirty = false;
    this.timer = 0;
    // Save what is typed even if the tab closes inside the debounce window.
    addEventListener("pagehide", () => this.flush());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "hidden") this.flush();
    });
  }

  /** The code was edited (or reset): save it soon. */
  changed(code) {
    if (code === this.c.original && this.notes.kind === "restored") this.notes.clear();
    if (!this.key) return;
    this.dirty = true;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), SAVE_DEBOUNCE_MS);
  }

  flush() {
    clearTimeout(this.timer);
    if (!this.dirty || !this.key) return;
    this.dirty = false;
    const code = this.c.getCode();
    if (code === this.c.original) {
      // Reset clears the entry, except for an older edit the learner has not decided about yet.
      if (this.other) this.store.save(this.key, { schema: this.store.saved.CODE_SCHEMA, base: this.other.base, code: this.other.code, savedAt: this.other.savedAt });
      else this.store.remove(this.key);
      return;
    }
    const entry = { schema: this.store.saved.CODE_SCHEMA, base: this.codeHash, code, savedAt: new Date().toISOString() };
    if (this.other) entry.earlier = this.other;
    this.store.save(this.key, entry);
  }

  /** What this browser kept for the lab: {base, code, savedAt, earlier} or null. */
  load() {
    const entry = this.key ? this.store.load(this.key, this.store.saved.code) : null;
    if (!entry) return null;
    return { base: entry.base, code: entry.code, savedAt: entry.savedAt || null, earlier: entry.earlier || null };
  }

  /** Keep `saved` aside as the version on offer (the learner opened something else: a shared link). */
  keepAside(saved) {
    if (saved) this.other = { base: saved.base, code: saved.code, savedAt: saved.savedAt };
  }

  /** Bring back what load() found, as the visit starts. */
  restore(saved) {
    if (saved.code === this.c.original && !saved.earlier) {
      this.store.remove(this.key); // nothing to offer: the edit is exactly the code on screen
      return;
    }
    if (saved.base === this.codeHash) {
      if (saved.code !== this.c.original) this.show(saved.code);
      this.other = saved.earlier;
      this.showRestored();
    } else {
      // The lesson's starter changed: its new code is what the text now describes, so load it, and keep the
      // learner's edit one click away.
      this.keepAside(saved);
      this.showChanged();
    }
  }

  showRestored() {
    const actions = [[t("lab.start_from_lesson"), () => this.startFromLesson()]];
    let text = t("lab.restored_visit");
    if (this.other) {
      text = t("lab.restored_visit_older");
      actions.push([t("lab.switch_older"), () => this.switchToOther(t("lab.switched_older"))]);
    }
    this.notes.note("restored", text, actions);
  }

  showChanged() {
    this.notes.note("changed", t("lab.code_changed"), [
      [t("lab.restore_edit"), () => this.switchToOther(t("lab.restored_earlier"))],
      [t("lab.keep_new"), () => this.forgetOther()],
    ]);
  }

  startFromLesson() {
    this.c.reset(); // fires lab:change with the original: the saved entry is cleared
    this.notes.note("reset", t("lab.showing_lesson_undo"), [], { focus: true });
  }

  switchToOther(message) {
    const target = this.other;
    if (!target) return;
    const current = this.c.getCode();
    // Swap, so nothing is lost: the version being replaced becomes the one on offer (unless it is the starter).
    this.other = current !== this.c.original ? { base: this.codeHash, code: current, savedAt: new Date().toISOString() } : null;
    this.c.setCode(target.code); // an edit from the lab's point of view: saved, panel and Live follow
    this.flush();
    const actions = [[t("lab.start_from_lesson"), () => this.startFromLesson()]];
    if (this.other) actions.push([t("lab.switch_back"), () => this.switchToOther(t("lab.switched_back"))]);
    this.notes.note("restored", message, actions, { focus: true });
  }

  forgetOther() {
    this.other = null;
    this.dirty = true;
    this.flush();
    this.notes.note("kept", t("lab.kept_new"), [], { focus: true });
  }
}
