// The page's data and its shared modules (idle.js, store.js, presenter.js, the DOM helpers), as the {lab} block's
// init hands them in (see view.js): one copy each, the page's, so the lab's bundle shares no chunk with the page's.
import { afterFirstPaint as afterFirstPaintOf, importVerified as importVerifiedBy } from "./editor.js";

// Set by the first init.
export let pageData = null;

/** page, checked: the lab needs the page's idle helper, store, presenter switch and DOM helpers (one copy each, the
 * page's). */
export function usePage(page) {
  if (!page || typeof page.idle !== "function" || !page.store || !page.presenter || !page.dom) {
    throw new TypeError("lab: init needs the page's data with its idle helper, store, presenter and DOM helpers (see main.js)");
  }
  pageData = page;
  return page;
}

export const idle = (timeout) => pageData.idle(timeout);

export const afterFirstPaint = (fn) => afterFirstPaintOf(idle, fn);
export const importVerified = (name) => importVerifiedBy(name, pageData.integrity);
