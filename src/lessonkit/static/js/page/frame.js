// A page framed by another site. Where the host sends the site's headers, `frame-ancestors 'self'` keeps other
// origins from framing it at all; a host that sends none (GitHub Pages) cannot, and a <meta> policy cannot carry
// frame-ancestors. So a page that finds itself in another origin's frame starts nothing (no block, no button acts:
// a framing page could lay its own clicks over Run on a shared link, Reset progress or Show solution) and offers to
// open itself in its own tab. The LMS packages' pages (page.framed === "lms", set by lessonkit/scorm/pack.py) live
// in their LMS's frame: they start there when they find their LMS around them (main.js's look: the SCORM API as lms/
// finds it, or the cmi5 launch their LMS confirmed), and are refused like any page in another site's frame without.
//
// Which frames are another origin's: every one around the page, by `location.ancestorOrigins` (Chromium, Safari);
// a browser without it (Firefox) lets the page read only whether the top window is of its own origin, so there a
// frame of another origin between two of this origin's goes unseen.

import { lookForAPI } from "../lms/find-api.js";
import { t } from "./i18n.js";

/** True when any frame around this page (the top one included; only the top one without ancestorOrigins) is of
 * another origin. */
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

/**
 * Whether `page` may start where it is: true when no frame of another origin is around it; false when one is (the
 * notice is shown); for an LMS package's page in such a frame, a Promise of what `look` found of its LMS (the SCORM
 * API, or the confirmed cmi5 session), or of null when nothing is (the notice is then shown).
 */
export function mayStart(page, doc = document, look = lookForAPI) {
  const win = doc.defaultView;
  if (!framedByAnotherOrigin(win)) return true;
  const looking = page.framed === "lms" ? look(win) : null;
  if (!looking) return refuse(doc);
  return looking.then((found) => {
    if (!found) refuse(doc);
    return found;
  });
}

/** Show the notice with a link that opens the page in its own tab; false. */
function refuse(doc) {
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
  return false;
}
