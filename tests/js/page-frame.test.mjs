// A page in another origin's frame (static/js/page/frame.js): which frames count, what a refused page shows, and the
// SCORM package's pages, which start only with their LMS's API around them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { framedByAnotherOrigin, mayStart } from "../../static/js/page/frame.js";

const OWN = "https://course.example";
const OTHER = "https://other.example";

/** A page's window: `ancestors` its location.ancestorOrigins (undefined: a browser without it, as Firefox); `top`:
 * "self" (not framed), "own" (a frame in a top of this origin) or "other" (its location throws, as another origin's). */
function page({ top = "self", ancestors } = {}) {
  const win = { location: { origin: OWN, href: `${OWN}/lesson.html`, ancestorOrigins: ancestors } };
  win.self = win;
  if (top === "self") win.top = win;
  else if (top === "own") win.top = { location: { origin: OWN } };
  else win.top = { get location() { throw new DOMException("Blocked a frame with origin", "SecurityError"); } };
  const shown = [];
  const element = (tag) => ({ tag, children: [], attributes: {}, setAttribute(name, value) { this.attributes[name] = value; },
    append(...nodes) { this.children.push(...nodes); } });
  win.document = { defaultView: win, location: win.location, documentElement: { dataset: {} }, shown,
    createElement: element, createTextNode: (text) => ({ text }), body: { prepend: (node) => shown.push(node) } };
  return win;
}

/** The notice's words and link, as the refused page shows them. */
const notice = (doc) => doc.shown.map((n) => [n.attributes.role, n.children[0].text, n.children[1].textContent,
  n.children[1].href, n.children[1].target]);
const NOTICE = [["alert", "This lesson is shown inside another site’s page, so nothing on it works here. ",
  "Open the lesson in its own tab", `${OWN}/lesson.html`, "_blank"]];
const noLook = () => assert.fail("a page that is not the package's never looks for an LMS");

test("a page in no frame, or in frames of its own origin only, starts", () => {
  for (const win of [page(), page({ top: "own", ancestors: [OWN, OWN] }), page({ top: "own" })]) {
    assert.equal(framedByAnotherOrigin(win), false);
    assert.equal(mayStart({}, win.document, noLook), true);
    assert.deepEqual(win.document.shown, []);
  }
});

test("a frame of another origin anywhere around it: the page starts nothing and offers its own tab", () => {
  for (const ancestors of [[OTHER], [OWN, OTHER], [OTHER, OWN]]) {
    const win = page({ top: "own", ancestors });
    assert.equal(framedByAnotherOrigin(win), true);
    assert.equal(mayStart({}, win.document, noLook), false);
    assert.deepEqual(notice(win.document), NOTICE);
    assert.equal(win.document.documentElement.dataset.framed, "refused");
  }
});

test("without ancestorOrigins only the top window is read: another origin's there is seen, one between is not", () => {
  assert.equal(framedByAnotherOrigin(page({ top: "other" })), true);
  assert.equal(framedByAnotherOrigin(page({ top: "own" })), false); // a frame of another origin between goes unseen
});

test("the SCORM package's page in another origin's frame starts only when its LMS's API is found around it", async () => {
  const found = { api: {}, where: "parent", depth: 1 };
  const lms = { framed: "lms" };
  const framed = () => page({ top: "other", ancestors: [OTHER] });
  const win = framed();
  assert.equal(await mayStart(lms, win.document, () => Promise.resolve(found)), found);
  assert.deepEqual(win.document.shown, []);
  const atOnce = framed(); // no API can be there (lookForAPI answers null at once)
  assert.equal(mayStart(lms, atOnce.document, () => null), false);
  assert.deepEqual(notice(atOnce.document), NOTICE);
  const later = framed(); // none found after looking again
  assert.equal(await mayStart(lms, later.document, () => Promise.resolve(null)), null);
  assert.deepEqual(notice(later.document), NOTICE);
  const unframed = page();
  assert.equal(mayStart(lms, unframed.document, noLook), true, "outside a frame of another origin: as any page");
});
