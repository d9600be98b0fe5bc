// {lab} block: an editable Python file run in the browser. The view is the lab's (static/js/lab/view.js: its
// controller API is at its top); this page module starts it for one block, and the instructor tools
// (lab-instructor.js) a frame later, checked against the build's hash like every module the lab imports.
import { importVerified, LabController, usePage } from "../../static/js/lab/view.js";

/** The parsed JSON of a script island (null when it is missing or unreadable, with a console error). */
function readJSON(el) {
  if (!el) return null;
  try {
    return JSON.parse(el.textContent);
  } catch (err) {
    console.error("lab: bad JSON island", err);
    return null;
  }
}

let instructor = null; // the instructor tools' module, imported once for every lab of the page

/** The instructor tools for one lab, a frame after it starts (a failure leaves the lab itself working). */
function loadTools(element, controller, island, page) {
  instructor = instructor || page.dom.afterFrame().then(() => importVerified("lab-instructor.js"));
  instructor
    .then((tools) => tools.attach(element, controller, island, page))
    .catch((err) => console.error("The lab's instructor tools could not start:", err));
}

/** Start the lab whose root is `element` (its island and the page's data: see the top); returns its controller. */
export function init(element, island, page) {
  if (element.labController) return element.labController;
  const data = usePage(page);
  const controller = new LabController(element, island || readJSON(element.querySelector("[data-lab-config]")) || {}, data);
  loadTools(element, controller, controller.island, data);
  return controller;
}
