// The lesson page's sidebar (`[data-sidebar]`): "On this page" and the lessons' list, disclosures that narrow screens
// keep closed (the first screen is the lesson's). On wide screens the stylesheet shows them open whatever their
// state, in a sidebar that scrolls on its own; here they are opened for real there (so their links are in the tab
// order as they are on screen), and the current lesson's link is scrolled into the sidebar's view once, so a course of
// many lessons opens on where the learner is. In presenter mode a wide screen has them as closed disclosures above
// the lesson (presenter.css): they are closed when it is turned on, and opened again when it is turned off.

import { onPresenting, presenting } from "./presenter.js";

export const WIDE = "(min-width: 64rem)"; // lesson.css and course.css: where the sidebar stands beside the lesson

/** Open the sidebar's lists on wide screens (closed in presenter mode), and scroll the sidebar, only it, to the
 * current lesson. */
export function init() {
  const sidebar = document.querySelector("[data-sidebar]");
  if (!sidebar || !matchMedia(WIDE).matches) return;
  const lists = sidebar.querySelectorAll(":scope > details");
  const fit = (on) => {
    for (const list of lists) list.open = !on;
  };
  fit(presenting());
  onPresenting((on) => {
    if (matchMedia(WIDE).matches) fit(on);
  });
  const current = sidebar.querySelector('[aria-current="page"]');
  if (!current) return;
  // Measured in the next frame, when the page is laid out for it anyway: measuring now would lay out the whole page
  // in the middle of its start-up.
  requestAnimationFrame(() => {
    if (sidebar.scrollHeight <= sidebar.clientHeight) return;
    const box = sidebar.getBoundingClientRect();
    const link = current.getBoundingClientRect();
    if (link.top >= box.top && link.bottom <= box.bottom) return; // in view already
    sidebar.scrollTop += link.top - box.top - sidebar.clientHeight / 3;
  });
}
