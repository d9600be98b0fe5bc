// Share links in the lab's tools: "Copy link" puts the code in the URL fragment (lab-share.js), and a page opened
// from such a link shows that code, never running it until the learner presses Run.

import { decodeShare, encodeShare, shareSupported, shareTarget } from "./share.js";
import { button, h, t } from "./ui.js";

/** The lab a page's share link is for (null: no link), and whether a lab of that id is on the page. */
export function linkTarget(labIds) {
  const target = shareTarget(location.hash);
  return { target, onPage: target !== null && labIds.includes(target) };
}

export class SharedLinks {
  /** presenter: presenter.js (a link never opens in presenter mode); saved: the lab's SavedCode. */
  constructor({ labId, section, controller, notes, saved, presenter, show }) {
    Object.assign(this, { labId, section, c: controller, notes, saved, presenter, show });
    this.fromShare = false;
    this.copy = button(t("lab.copy_link"), () => this.copyLink());
    this.copy.hidden = !shareSupported();
    const id = `instr-link-${labId}`;
    this.box = h("div", { class: "instr-link", hidden: true });
    this.field = h("input", { type: "text", id, readonly: true, spellcheck: "false" });
    this.field.addEventListener("focus", () => this.field.select());
    this.box.append(h("label", { for: id }, t("lab.link_label")), this.field);
  }

  /** The code was edited: shared code the learner edits is theirs, so the link leaves the address bar. */
  changed() {
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
      shared = await decodeShare(hash);
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
    this.notes.note("shared", t("lab.from_link"),
                    [[t("lab.back_to_lesson"), () => this.backToLesson()]]);
    this.section.scrollIntoView({ block: "start" });
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
      fragment = await encodeShare(this.labId, this.c.getCode());
    } catch (err) {
      console.warn("lab: could not make a share link", err);
      this.notes.say(t("lab.link_failed"));
      return;
    }
    const url = this.presenter.withoutPresenter(location.href); // the class should not open in presenter mode
    url.hash = fragment;
    this.field.value = url.href;
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
