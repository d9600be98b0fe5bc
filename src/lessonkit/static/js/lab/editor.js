import { t } from "../page/words.js";
/**
 * What the lab's view and the exercise's share: when the page has painted, importing a module the build hashed, and
 * the CodeMirror editor that replaces a server-rendered textarea (editor.js, imported when the code comes near).
 */

// Resolves once the page has shown its first content (FCP), so nothing the blocks do can delay it. Browsers
// without paint timing (or a page that never paints, e.g. a background tab) fall back to the next frame.
export const firstPaint = new Promise((resolve) => {
  const nextFrame = () => requestAnimationFrame(() => setTimeout(resolve, 0));
  const types = (globalThis.PerformanceObserver && PerformanceObserver.supportedEntryTypes) || [];
  if (!types.includes("paint")) {
    nextFrame();
    return;
  }
  if (performance.getEntriesByName("first-contentful-paint").length) {
    setTimeout(resolve, 0);
    return;
  }
  const po = new PerformanceObserver((list) => {
    if (list.getEntriesByName("first-contentful-paint").length) {
      po.disconnect();
      setTimeout(resolve, 0);
    }
  });
  po.observe({ type: "paint", buffered: true });
  setTimeout(nextFrame, 5000); // never wait for ever on a missing paint entry
});

/** Run fn in its own idle task (the page's idle helper) after the first paint: each deferred job a short task. */
export function afterFirstPaint(idle, fn) {
  firstPaint.then(() => idle()).then(fn);
}

const imports = new Map(); // file name -> its import, once per page

/**
 * import() of a page module (a file name beside this one) that the build wrote: the page's import map carries the
 * hash of every module of the site, so the browser checks the bytes of each fetch of it and refuses a file that is
 * not the build's (it never runs). `integrity` is the page data's map of the modules it may import: a name it does
 * not list is not imported. One import per module and page, kept whether it worked or not: the lab and an exercise
 * both want the editor, and a module that was refused would only be refused again (a reload tries anew).
 */
export function importVerified(name, integrity) {
  if (!imports.has(name)) imports.set(name, verifiedImport(name, integrity));
  return imports.get(name);
}

function verifiedImport(name, integrity) {
  const url = new URL(`./${name}`, import.meta.url).href;
  if (!integrity || typeof integrity[name] !== "string") {
    return Promise.reject(new Error(`${name}: the page names no integrity hash for it`));
  }
  return import(url).catch((err) => {
    throw new Error(`${name} could not load, or is not the file the build wrote (${err && err.message})`);
  });
}

/** Call fn once, when element comes within `margin` px of the viewport (after the first paint, at idle). */
export function whenNear(element, margin, idle, fn) {
  if (!("IntersectionObserver" in window)) {
    afterFirstPaint(idle, fn);
    return;
  }
  const io = new IntersectionObserver((entries) => {
    if (!entries.some((e) => e.isIntersecting)) return;
    io.disconnect();
    afterFirstPaint(idle, fn);
  }, { rootMargin: `${margin}px 0px` });
  io.observe(element);
}

/**
 * What CodeMirror says itself (EditorState.phrases, by its English phrase), in the page's language: the phrases of
 * the extensions editor-entry.js installs (a control character's tooltip, the announcement of a deleted selection).
 */
export function editorPhrases() {
  return { "Control character": t("editor.control_character"), "Selection deleted": t("editor.selection_deleted") };
}

/**
 * Replace `textarea` with the CodeMirror editor (editor.js, checked against the page's integrity map); resolves with
 * the editor, or null when it cannot load (the textarea stays the editor). The editor takes the textarea's place at
 * its height and, when the textarea had focus, its selection and focus. options: integrity, idle, controls (from
 * editorControls), and editor-entry.js's label, describedBy, onRun, onCheck, onChange; its `phrases` are the page's.
 */
export async function loadEditor(textarea, { integrity, idle, controls, ...options }) {
  let mod;
  try {
    mod = await importVerified("editor.js", integrity);
  } catch (err) {
    console.warn("lab: code editor unavailable, keeping the plain text box", err);
    return null;
  }
  await idle(1000); // evaluating the bundle and building the editor are two short tasks, not one long one
  // Read before any write: the editor takes the textarea's place at the same height (no layout jump).
  const height = textarea.hidden ? 0 : textarea.offsetHeight;
  const hadFocus = document.activeElement === textarea;
  const { selectionStart, selectionEnd } = textarea;
  let editor;
  try {
    editor = mod.createEditor(textarea, { ...options, phrases: editorPhrases(), onTabModeChange: controls.tabModeChanged });
  } catch (err) {
    console.error("lab: could not start the code editor", err);
    textarea.hidden = false;
    return null;
  }
  if (height) {
    // The textarea's height (borders included, as the editor's): both boxes, so a taller-than-max textarea
    // (resized by the learner) still fits; CSS stretches the gutter to it.
    editor.view.dom.style.minHeight = `${height}px`;
    editor.view.scrollDOM.style.minHeight = `${height - 2}px`;
  }
  if (hadFocus) {
    editor.view.dispatch({ selection: { anchor: selectionStart, head: selectionEnd } });
    editor.focus();
  }
  controls.attach(editor);
  return editor;
}

/**
 * The editor's own controls around it: the "Tab key indents" switch (`tabmode`, shown once the editor is there) and
 * the code's `label` (a click focuses the editor). `announce(text)` says what Tab now does. Wired at once (the
 * textarea needs none of it); they act once loadEditor has attached the editor.
 */
export function editorControls({ tabmode, label, announce }) {
  let editor = null;
  tabmode.addEventListener("click", () => {
    if (editor) editor.setIndentMode(!editor.indentMode);
  });
  label.addEventListener("click", (event) => {
    if (editor) {
      event.preventDefault();
      editor.focus();
    }
  });
  return {
    tabModeChanged(indent) {
      tabmode.setAttribute("aria-pressed", String(indent));
      announce(indent ? t("editor.tab_on") : t("editor.tab_off"));
    },
    attach(attached) {
      editor = attached;
      tabmode.hidden = false;
      label.removeAttribute("for"); // the textarea is hidden; the label now focuses the editor on click
    },
  };
}
