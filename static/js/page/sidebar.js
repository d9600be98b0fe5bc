// The lesson page's sidebar (`[data-sidebar]`): on wide screens it scrolls on its own (course.css), and the current
// lesson's link is scrolled into its view once, so a course of many lessons opens on where the learner is. Narrow
// screens fold it into disclosures: nothing to do there (the sidebar does not scroll).

/** Scroll the sidebar, and only it, so the current lesson's link is in view (a third from its top). */
export function init() {
  const sidebar = document.querySelector("[data-sidebar]");
  const current = sidebar && sidebar.querySelector('[aria-current="page"]');
  if (!current || sidebar.scrollHeight <= sidebar.clientHeight) return;
  const box = sidebar.getBoundingClientRect();
  const link = current.getBoundingClientRect();
  if (link.top >= box.top && link.bottom <= box.bottom) return; // in view already
  sidebar.scrollTop += link.top - box.top - sidebar.clientHeight / 3;
}
