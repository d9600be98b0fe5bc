// Presenter mode: the whole page enlarged for a projector. The one switch for it: a class on <html>, kept in the
// URL (?present=1) so a reload or a bookmark keeps it, never in storage. The page applies it before its first
// paint (main.js); the lab's tools add the button that toggles it.

const CLASS = "presenting";
const PARAM = "present";
const TOGGLES = "[data-presenter-toggle]";

/** Whether the page is in presenter mode now. */
export function presenting() {
  return document.documentElement.classList.contains(CLASS);
}

/** Apply ?present=1 from the URL (before the first paint, so the page does not lay out twice). */
export function applyPresenterFromURL() {
  document.documentElement.classList.toggle(CLASS, new URLSearchParams(location.search).get(PARAM) === "1");
}

/** Turn presenter mode on or off: the page, the URL, and every toggle button's pressed state. */
function setPresenting(on) {
  document.documentElement.classList.toggle(CLASS, on);
  const url = new URL(location.href);
  if (on) url.searchParams.set(PARAM, "1");
  else url.searchParams.delete(PARAM);
  // replaceState: toggling a view setting should not fill the Back button's history
  history.replaceState(history.state, "", url.href);
  for (const button of document.querySelectorAll(TOGGLES)) button.setAttribute("aria-pressed", String(on));
}

/** Make `button` a presenter-mode toggle (a pressed/unpressed button). */
export function presenterToggle(button) {
  button.dataset.presenterToggle = "";
  button.setAttribute("aria-pressed", String(presenting()));
  button.addEventListener("click", () => setPresenting(!presenting()));
  return button;
}

/** `url` without the presenter setting (a link for others should open the page as they left it). */
export function withoutPresenter(url) {
  const copy = new URL(url);
  copy.searchParams.delete(PARAM);
  return copy;
}
