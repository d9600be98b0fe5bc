// A page framed by another site. Where the host sends the site's headers, `frame-ancestors 'self'` keeps other
// origins from framing it at all; a host that sends none (GitHub Pages) cannot, and a <meta> policy cannot carry
// frame-ancestors. So a page that finds itself in another origin's frame starts nothing (no block, no button acts:
// a framing page could lay its own clicks over Run on a shared link, Reset progress or Show solution) and offers to
// open itself in its own tab. The SCORM package's pages (page.framed === "lms", set by lessonkit/scorm/pack.py) live
// in their LMS's frame and start as usual.

import { t } from "./i18n.js";

/** True when any frame around this page (the top one included) is of another origin. */
export function framedByAnotherOrigin(win = window) {
  if (win.top === win.self) return false;
  const ancestors = win.location.ancestorOrigins;
  if (ancestors && ancestors.length) return [...ancestors].some((origin) => origin !== win.location.origin);
  try {
    return win.top.location.origin !== win.location.origin; // a cross-origin top throws: another origin
  } catch {
    return true;
  }
}


/** When `page` is framed by another origin (and is not the SCORM package's), show the notice and return true. */
export function refuseForeignFrame(page, doc = document) {
  if (page.framed === "lms" || !framedByAnotherOrigin(doc.defaultView)) return false;
  const notice = doc.createElement("div");
  notice.className = "frame-notice";
  notice.setAttribute("role", "alert");
  const link = doc.createElement("a");
  link.href = doc.location.href;
  link.target = "_blank";
  link.rel = "noopener noreferrer";
  link.textContent = t("frame.open_own_tab");
  notice.append(doc.createTextNode(`${t("frame.notice")} `), link);
  doc.body.prepend(notice);
  doc.documentElement.dataset.framed = "refused";
  return true;
}
