// Share links in the lab's tools: "Copy link" puts the code in the URL fragment (lab-share.js), and a page opened
// from such a link shows that code, never running it until the learner presses Run.

import { qrSvg } from "./qr.js";
import { decodeShare, encodeShare, shareSupported, shareTarget } from "./share.js";
import { button, h, t } from "./ui.js";
import { WideLines } from "./wide.js";

/** The lab a page's share link is for (null: no link), and whether a lab of that id is on the page. */
export function linkTarget(labIds) {
  const target = shareTarget(location.hash);
  return { target, onPage: target !== null && labIds.includes(target) };
}

export class SharedLinks {
  /** saved: the lab's SavedCode; base: the hash of the lesson's code (a short link is an edit of it: share.js). */
  constructor({ labId, section, controller, notes, saved, show, base = "" }) {
    Object.assign(this, { labId, section, c: controller, notes, saved, show, base });
    this.fromShare = false;
    this.wide = null; // the shared code's lines wider than the editor, watched while it is shown unedited
    this.copy = button(t("lab.copy_link"), () => this.copyLink());
    this.copy.hidden = !shareSupported();
    const id = `instr-link-${labId}`;
    this.box = h("div", { class: "instr-link", hidden: true });
    this.field = h("input", { type: "text", id, readonly: true, spellcheck: "false" });
    this.field.addEventListener("focus", () => this.field.select());
    this.qr = h("div", { class: "instr-qr-box" });
    const field = h("div", { class: "instr-link-field" });
    field.append(h("label", { for: id }, t("lab.link_label")), this.field);
    this.box.append(field, this.qr);
  }

  /** The code was edited: shared code the learner edits is theirs, so the link leaves the address bar. */
  changed() {
    this.stopWatching();
    if (!this.fromShare) return;
    // From now on it is saved like any edit, and a reload should bring back their version, not the link's.
    this.fromShare = false;
    const url = new URL(location.href);
    url.hash = "";
    history.replaceState(history.state, "", url.href.replace(/#$/, ""));
  }

  /** Show the code of the share link `hash` (saved: what this browser kept for the lab, kept aside). */
  async open(hash, saved) {
    let shared;
    try {
      shared = await decodeShare(hash, { original: this.c.original, base: this.base });
    } catch (err) {
      console.warn("lab: unreadable share link:", err.message);
      this.saved.keepAside(saved);
      this.notes.note(
        "bad-link",
        t("lab.link_unreadable"),
        this.saved.other ? [[t("lab.restore_edit"), () => this.saved.switchToOther(t("lab.restored_edit"))]] : [],
      );
      return;
    }
    // Shown, never run: the learner decides when code from a link runs.
    this.show(shared.code);
    this.fromShare = true;
    // The learner's own saved edit stays in storage, and is carried along if they edit the shared code.
    this.saved.keepAside(saved);
    this.noteShared(shared.code);
    this.section.scrollIntoView({ block: "start" });
  }

  /**
   * The note over shared code: it came from a link and runs only on Run, and which of its lines are wider than the
   * editor shows (wide.js), said again whenever that changes until the code is edited or put back.
   */
  noteShared(code) {
    this.stopWatching();
    const text = (wide) => t("lab.from_link", { wide });
    this.wide = new WideLines(this.section, code, (wide) => this.notes.retext("shared", text(wide)));
    this.notes.note("shared", text(this.wide.last), [[t("lab.back_to_lesson"), () => this.backToLesson()]]);
  }

  stopWatching() {
    if (this.wide) this.wide.stop();
    this.wide = null;
  }

  backToLesson() {
    this.c.setCode(this.c.original); // lab:change: drops the link from the address bar
    if (this.saved.other) {
      this.notes.note("changed", t("lab.showing_lesson_saved"), [
        [t("lab.restore_edit"), () => this.saved.switchToOther(t("lab.restored_edit"))],
      ], { focus: true });
    } else {
      this.notes.note("reset", t("lab.showing_lesson"), [], { focus: true });
    }
  }

  async copyLink() {
    let fragment;
    try {
      fragment = await encodeShare(this.labId, this.c.getCode(), { original: this.c.original, base: this.base });
    } catch (err) {
      console.warn("lab: could not make a share link", err);
      this.notes.say(t("lab.link_failed"));
      return;
    }
    // The page's address without its query: presenter mode is each browser's own setting (page/presenter.js), so
    // the class opens the lesson as each of them left it.
    const url = new URL(location.pathname, location.href);
    url.hash = fragment;
    this.field.value = url.href;
    try {
      this.qr.replaceChildren(qrSvg(url.href, t("lab.qr_name")));
    } catch (err) {
      console.warn("lab: no QR code for this link", err); // longer than a QR code holds: the link still works
      this.qr.replaceChildren();
    }
    this.box.hidden = false;
    try {
      await navigator.clipboard.writeText(url.href);
      this.notes.say(t("lab.link_copied"));
    } catch {
      // No clipboard permission (or an insecure origin): leave the link selected for Ctrl+C.
      this.field.focus();
      this.field.select();
      this.notes.say(t("lab.copy_refused"));
    }
  }
}
