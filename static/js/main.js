// Entry module: enhances the server-rendered lesson. Each widget finds its own element by a data attribute.
import { init as initQuiz } from "./quiz.js";
import { init as initExplain } from "./explain.js";
import { init as initHeadDim } from "./headdim.js";
import { init as initOffline } from "./offline.js";
import { init as initParts } from "./parts.js";
import { idle } from "./idle.js";
import { applyPresenterFromURL, presenterToggle, withoutPresenter } from "./presenter.js";
import { dropOtherVersions, is, load, onUnavailable, remove, save, storeKey, watch } from "./store.js";

/** Start one part of the page; a part that fails says so on the console and the other parts still start. */
function start(name, fn) {
  try {
    fn();
  } catch (err) {
    console.error(`${name} could not start:`, err);
  }
}

function showStorageNotice() {
  const notice = document.querySelector("[data-storage-notice]");
  if (!notice) return;
  notice.textContent = "Progress can’t be saved in this browser (storage is off or full): answers and drafts last until you leave the page.";
  notice.hidden = false;
}

// The page's data for every part, with the page's one copy of its shared modules: a module loaded later (the lab)
// uses these rather than importing them, which would put them in a chunk both bundles load.
const store = { dropOtherVersions, is, load, remove, save, storeKey, watch };
const presenter = { presenterToggle, withoutPresenter };
const page = { ...JSON.parse(document.getElementById("lesson-data").textContent), store, presenter, idle };
start("The storage notice", () => onUnavailable(showStorageNotice));
start("The quizzes", () => initQuiz(document, page));
start("Explain it back", () => initExplain(document, page));
start("The head-dimension widget", () => initHeadDim(document, page));
start("Offline support", () => initOffline()); // after load and idle: caches the lesson and the runtime for offline visits
start("The page's parts", () => initParts()); // after the first paint: lays out, once, the parts the first paint skipped

// Presenter mode lives in the URL; set it before first paint so the page does not re-flow.
start("Presenter mode", applyPresenterFromURL);

// The lab is the heavy part: its module runs only after the text's first paint (lab.js is preloaded by the
// page, so waiting costs no download time); it loads its instructor tools itself.
const labs = [...document.querySelectorAll("[data-lab]")];
if (labs.length) {
  new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))
    .then(() => import("./lab.js"))
    .then((lab) => {
      for (const element of labs) {
        start("The lab", () => lab.init(element, JSON.parse(element.querySelector("[data-lab-config]").textContent), page));
      }
    })
    .catch((err) => {
      console.error("The lab could not start:", err);
    });
}
