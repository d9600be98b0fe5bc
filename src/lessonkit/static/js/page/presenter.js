// Presenter mode: the page laid out for a projector (presenter.css). The one switch for it: a class on <html>, and
// one entry in storage (storage-layout.json's "presenter" key), so it stays on across the course's lessons and its
// index until it is turned off. The page applies it before its first paint (main.js); every page's header has a
// button for it (templates/presenter-button.html), the lab's tools another, and Alt+Shift+P toggles it anywhere.
// Where storage is off, it lasts until the learner leaves the page.

import { t } from "./i18n.js";
import { is, load, PRESENTER_KEY, remove, save, watch } from "./store.js";

const CLASS = "presenting";
const TOGGLES = "[data-presenter-toggle]";
/** The keyboard shortcut, as aria-keyshortcuts spells it (a modifier: a letter alone would fire while typing). */
export const SHORTCUT = "Alt+Shift+P";

/** Whether the page is in presenter mode now. */
export function presenting() {
  return document.documentElement.classList.contains(CLASS);
}

const followers = [];

/** Call `fn(on)` each time presenter mode is turned on or off, as the layout changes (the sidebar folds its lists). */
export function onPresenting(fn) {
  followers.push(fn);
}

/** The page in presenter mode or not: its class, every toggle's pressed state, and what follows it. */
function apply(on) {
  document.documentElement.classList.toggle(CLASS, on);
  for (const button of document.querySelectorAll(TOGGLES)) button.setAttribute("aria-pressed", String(on));
  for (const fn of followers) fn(on);
}

/**
 * The page's layout changes under the control that has focus (the sidebar folds away, the lab's columns change):
 * scroll so that it stays where it was on the screen, or at least in view.
 */
function keepInView(el, apply) {
  const target = el && el !== document.body && el.isConnected ? el : null;
  const before = target ? target.getBoundingClientRect().top : 0;
  apply();
  if (!target) return;
  const after = target.getBoundingClientRect().top;
  window.scrollBy({ top: after - before, behavior: "instant" });
  const box = target.getBoundingClientRect();
  if (box.bottom < 0 || box.top > innerHeight) target.scrollIntoView({ block: "center", behavior: "instant" });
}

/** Turn presenter mode on or off: the page, its storage entry, and every toggle button's pressed state. */
function setPresenting(on) {
  keepInView(document.activeElement, () => apply(on));
  if (on) save(PRESENTER_KEY, true);
  else remove(PRESENTER_KEY);
}

/** Make `button` a presenter-mode toggle (a pressed/unpressed button naming its shortcut). */
export function presenterToggle(button) {
  button.dataset.presenterToggle = "";
  button.setAttribute("aria-pressed", String(presenting()));
  button.setAttribute("aria-keyshortcuts", SHORTCUT);
  button.title = t("presenter.title", { shortcut: SHORTCUT });
  button.hidden = false;
  button.addEventListener("click", () => setPresenting(!presenting()));
  return button;
}

/**
 * Before the first paint: the saved setting on <html>; then the header's buttons, the shortcut, and other tabs of the
 * course (turning it off in one turns it off in all).
 */
export function startPresenter() {
  document.documentElement.classList.toggle(CLASS, load(PRESENTER_KEY, is.literal(true)) === true);
  for (const button of document.querySelectorAll("[data-presenter-button]")) presenterToggle(button);
  addEventListener("keydown", (event) => {
    if (event.altKey && event.shiftKey && !event.ctrlKey && !event.metaKey && event.code === "KeyP" && !event.repeat) {
      event.preventDefault();
      setPresenting(!presenting());
    }
  });
  watch(PRESENTER_KEY, is.literal(true), (value) => {
    if ((value === true) !== presenting()) keepInView(document.activeElement, () => apply(value === true));
  });
}
