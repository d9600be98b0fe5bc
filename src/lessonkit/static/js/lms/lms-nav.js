// The course's navigation inside an LMS: it hands over to the LMS's.
//
// An LMS launches one lesson (one SCO) at a time, each with a session of its own. A plain link to another lesson
// would load it into this lesson's frame, where it finds this lesson's ended session (Initialize: error 104) and
// reports nothing. So, in an LMS:
//   - Previous and Next (the pager, and the "Continue with the next lesson" link) ask the LMS to go on
//     (adl.nav.request "previous" / "continue") and end this session; the LMS launches the next lesson. An LMS that
//     says it cannot (adl.nav.request_valid.<request> "false": the first or last lesson, a package of one lesson)
//     gets no such link. If the LMS lets the page stay after the request (one that does not navigate), the page says
//     to use the LMS's menu.
//   - The course's list of lessons shows only when the LMS accepts choosing a lesson from it
//     (adl.nav.request_valid.choice.{target=…} "true"); a link from it then asks for that lesson
//     ("{target=…}choice"). The index and the course's title lead out of the lesson: they are hidden, and not links.
//   - Any other link to another page of the course (a search result) does the same, or says to use the LMS's menu.
// Links within the lesson (its parts, search results on this page) stay as they are.
import { t } from "../course/progress.js";
import { limits } from "./scorm-values.js";

const STAYED_MS = 3000; // a handed-over page still here after this: the LMS did not navigate

function say(text) {
  let el = document.querySelector("[data-lms-nav-notice]");
  if (!el) {
    el = document.createElement("p");
    el.className = "storage-notice";
    el.setAttribute("role", "status");
    el.setAttribute("data-lms-nav-notice", "");
    (document.querySelector(".site-header") || document.body).append(el);
  }
  el.textContent = text;
  el.hidden = false;
}

/** The lesson slug a URL of this site names (`<slug>.html` in the page's own folder), or null. */
function lessonOf(url, here) {
  if (url.origin !== here.origin) return null;
  const folder = here.pathname.slice(0, here.pathname.lastIndexOf("/") + 1);
  if (!url.pathname.startsWith(folder)) return null;
  const file = url.pathname.slice(folder.length);
  const m = /^([a-z0-9]+(?:-[a-z0-9]+)*)\.html$/.exec(file);
  return m ? m[1] : file === "" ? "index" : null;
}

/** Hand the course's navigation to the LMS. `finish()` ends the session (report, exit, Terminate). */
export function handOver(session, page, finish) {
  const here = new URL(location.href);
  const rel = (name) => {
    const link = document.querySelector(`link[rel="${name}"]`);
    return link ? lessonOf(new URL(link.getAttribute("href"), document.baseURI), here) : null;
  };
  const neighbours = new Map([[rel("prev"), "previous"], [rel("next"), "continue"]]);
  neighbours.delete(null);
  const target = (slug) => `{target=${limits.itemPrefix}${slug}}`;
  const valid = (request) => session.get(`adl.nav.request_valid.${request}`);
  const index = page.course.index.replace(/\.html$/, "") || "index";

  const go = (request, title) => {
    session.set("adl.nav.request", request);
    finish();
    setTimeout(() => say(t("lms.not_opened", { title })), STAYED_MS);
  };

  // What the LMS cannot do is not offered (removed: the pager's styles would show a hidden link).
  for (const a of document.querySelectorAll(".lesson-pager a, .next-lesson-link a")) {
    const request = neighbours.get(lessonOf(new URL(a.href), here));
    if (request && valid(request) === "false") (a.closest(".next-lesson-link") || a).remove();
  }
  const pagerNav = document.querySelector(".lesson-pager");
  if (pagerNav && !pagerNav.querySelector("a")) pagerNav.remove();
  const choosable = (slug) => slug !== page.lesson && valid(`choice.${target(slug)}`) === "true";
  const nav = document.querySelector(".course-nav");
  if (nav) {
    const others = [...nav.querySelectorAll("ol a")].map((a) => lessonOf(new URL(a.href), here)).filter((s) => s && s !== page.lesson);
    nav.hidden = !others.some(choosable);
    for (const p of nav.querySelectorAll(".course-nav-index")) p.hidden = true;
  }
  for (const a of document.querySelectorAll(".site-header .course a")) a.removeAttribute("href");

  document.addEventListener("click", (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const a = event.target instanceof Element ? event.target.closest("a[href]") : null;
    if (!a || a.target === "_blank" || a.hasAttribute("download")) return;
    const url = new URL(a.href);
    const slug = lessonOf(url, here);
    if (slug === null) return; // outside the course: the browser's own business
    event.preventDefault();
    const title = (a.querySelector(".pager-title") || a).textContent.trim();
    if (slug === page.lesson) {
      // This page, perhaps under another query string (an LMS's launch parameters): stay, and go to the place.
      if (url.hash) location.hash = url.hash;
      return;
    }
    if (session.state !== "open") return say(t("lms.ended"));
    const request = neighbours.get(slug);
    if (request && valid(request) !== "false") return go(request, title);
    if (slug !== index && choosable(slug)) return go(`${target(slug)}choice`, title);
    say(slug === index ? t("lms.menu_lists") : t("lms.open_from_menu", { title }));
  }, true);
}
