// The page's one line about its LMS (a copy of the storage notice's element, under it): what the learner should know
// of what the LMS records, said once and replaced by the next thing said.

/** Say `text` in the LMS's notice (made beside the storage notice the first time). */
export function notice(text) {
  let el = document.querySelector("[data-lms-notice]");
  if (!el) {
    const storage = document.querySelector("[data-storage-notice]");
    if (!storage) return;
    el = storage.cloneNode(false);
    el.removeAttribute("data-storage-notice");
    el.setAttribute("data-lms-notice", "");
    storage.after(el);
  }
  el.textContent = text;
  el.hidden = false;
}
