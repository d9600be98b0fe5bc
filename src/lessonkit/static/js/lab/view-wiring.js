// The lab view's wiring: its buttons, its textarea's keys and edits, the hints that start Python (the learner
// reaching for the lab, the lab coming near the viewport, the first paint) and the editor built near the viewport or
// on first touch. Each takes the lab's controller (view.js), whose state machine decides what a click does.
import { t } from "../page/words.js";
import { editorControls, firstPaint, loadEditor, whenNear } from "./editor.js";
import { idle, pageData } from "./view-page.js";

const EDITOR_MARGIN_PX = 900; // about a screen: built before the learner scrolls to it

/** The lab's controls and code box, wired to its controller (only cheap work: this may run before the first paint). */
export function wireControls(lab) {
  const { run, stop, reset, retry, textarea, tabmode, label } = lab.el;
  for (const button of [run, stop, reset]) button.disabled = false; // aria-disabled from now on, keeps focus
  run.title = t("lab.run_title");
  run.addEventListener("click", () => {
    lab.run();
  });
  stop.addEventListener("click", () => {
    if (stop.getAttribute("aria-disabled") !== "true") lab.stop();
  });
  reset.addEventListener("click", () => lab.reset());
  retry.addEventListener("click", () => {
    lab._boot = null;
    lab.boot().catch(() => {});
    run.focus(); // Retry hides itself; keep keyboard focus in the lab
  });
  textarea.addEventListener("input", () => {
    if (!lab._silent) lab._emit("lab:change", { code: textarea.value });
  });
  textarea.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      lab.run();
    }
  });
  lab._controls = editorControls({ tabmode, label, announce: (text) => lab._status(text) });
  lab.panels.observe();
  // The learner reaching for the lab is the strongest hint to load Python now.
  lab.section.addEventListener("focusin", () => lab._autoBoot(), { once: true });
  lab.section.addEventListener("pointerdown", () => lab._autoBoot(), { once: true });
  // ...and for the code itself: the editor now, not when Python is ready.
  for (const type of ["focus", "pointerdown"]) {
    lab.el.textarea.addEventListener(type, () => loadEditorOnce(lab), { once: true });
  }
}

/** Python's first boot as the lab comes within 800 px of the viewport, or after the first paint (no data saver). */
export function scheduleBoot(lab) {
  const saveData = navigator.connection && navigator.connection.saveData;
  if ("IntersectionObserver" in window) {
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          io.disconnect();
          lab._autoBoot();
        }
      },
      { rootMargin: "800px 0px" },
    );
    io.observe(lab.section);
  }
  // Data-saver users download Python only when they come near the lab. Others start right after the first
  // paint, not at idle: creating the worker costs the page little, and Python's boot then runs off the main thread.
  if (!saveData) firstPaint.then(() => lab._autoBoot());
}

/** The editor as the lab comes near the viewport (then at idle). */
export function loadEditorNearView(lab) {
  // The editor is for a learner who looks at the code: build it as the lab comes near the viewport (or at once
  // on focus or pointer, see wireControls), never for a reader who stays above it.
  whenNear(lab.el.textarea, EDITOR_MARGIN_PX, idle, () => loadEditorOnce(lab));
}

/** The CodeMirror editor in place of the textarea, once (near the viewport, or at once on focus or pointer). */
async function loadEditorOnce(lab) {
  if (lab._editorRequested) return;
  lab._editorRequested = true;
  lab.editor = await loadEditor(lab.el.textarea, {
    integrity: pageData.integrity,
    idle,
    controls: lab._controls,
    label: t("lab.code"),
    describedBy: lab.el.hint ? lab.el.hint.id : undefined,
    onRun: () => lab.run(),
    onChange: (code) => {
      if (!lab._silent) lab._emit("lab:change", { code });
    },
  });
}
