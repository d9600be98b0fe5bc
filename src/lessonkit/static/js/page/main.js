// Entry module: enhances the server-rendered lesson. Every block is an element with data-block="<type>" holding its
// JSON island (<script type="application/json" data-block-island>); its type's module starts it with
// init(element, island, page), each block on its own: one that fails says so on the console and the others start.
// block-types.js is made by the build from the block registry (lessonkit/blocks/), beside these files in the
// bundler's copy: the modules of blocks that start at once are bundled into this one; the others (the lab) are
// imported after the first paint.
import { BLOCKS } from "../generated/block-types.js";
import { afterFrame, h, plural } from "./dom.js";
import { init as initOffline } from "./offline.js";
import { init as initParts } from "./parts.js";
import { init as initSearch } from "./search.js";
import { init as initSidebar } from "./sidebar.js";
import { idle } from "./idle.js";
import { presenterToggle, startPresenter } from "./presenter.js";
import { saved } from "./shapes.js";
import { CLASS_KEY, dropOtherVersions, is, LAST_LESSON_KEY, lessonKeys, load, MAX_ENTRY_CHARS, onSaved, onUnavailable, remove, save, storeKey, watch } from "./store.js";
import { lookForAPI } from "../lms/find-api.js";
import { httpURL, launchOf } from "../lms/cmi5-launch.js";
import { mayStart } from "./frame.js";
import { language, num, pct, signs, t, tn } from "./i18n.js";

// The page's words for the modules loaded later (page/words.js): this bundle's one copy of i18n.js.
globalThis.lessonkitWords = { language, num, pct, signs, t, tn };

/** Start one part of the page; a part that fails says so on the console and the other parts still start. */
function start(name, fn) {
  try {
    fn();
  } catch (err) {
    console.error(`${name} could not start:`, err);
  }
}

// The page's start-up as a queue of steps, run in order: one after another while the task they run in is short,
// and in a new task once it has run for TASK_BUDGET_MS, so that no task of the start-up is long (a slow or busy
// device, the first number formatted, a block with many questions) and the browser can paint and answer input
// between them. On a fast device the whole start-up still runs at once, before the first paint.
const TASK_BUDGET_MS = 20;
const steps = [];
let stepping = false;
let taskStart = performance.now(); // when the task the steps run in began (this module's evaluation, then each yield)
const nextTask = () => (globalThis.scheduler && typeof scheduler.yield === "function"
  ? scheduler.yield() : new Promise((resolve) => setTimeout(resolve, 0)));

/** Run fn after the steps queued before it: at once while the current task is short, else in a new one. */
function step(name, fn) {
  steps.push([name, fn]);
  if (stepping) return;
  stepping = true;
  (async () => {
    while (steps.length) {
      if (performance.now() - taskStart >= TASK_BUDGET_MS) {
        await nextTask();
        taskStart = performance.now();
      }
      const [label, run] = steps.shift();
      start(label, run);
    }
    stepping = false;
  })();
}

/** The block's island: its own <script data-block-island>, not one of a block inside it. */
function islandOf(el) {
  const script = [...el.children].find((child) => child.matches("script[data-block-island]"));
  return script ? JSON.parse(script.textContent) : {};
}

function startBlock(el, init) {
  const type = el.dataset.block;
  try {
    init(el, islandOf(el), page);
  } catch (err) {
    console.error(`${type}: could not start`, el.id, err); // the server-rendered block stays readable
  }
}

/** startBlock in a task of its own (see step). */
const startBlockSoon = (el, init) => step(el.dataset.block, () => startBlock(el, init));

function showStorageNotice() {
  const notice = document.querySelector("[data-storage-notice]");
  if (!notice) return;
  notice.textContent = t("page.no_storage");
  notice.hidden = false;
}

// The page's data for every block module, with the page's one copy of its shared modules (store.js, presenter.js,
// idle.js, dom.js): a module loaded later (the lab, the course index) uses these rather than importing them, which
// would put them in a chunk both bundles load.
const store = { CLASS_KEY, dropOtherVersions, is, LAST_LESSON_KEY, lessonKeys, load, MAX_ENTRY_CHARS, onSaved, remove, save, saved, storeKey, watch };
const presenter = { presenterToggle };
const dom = { afterFrame, h, plural };
const page = { ...JSON.parse(document.getElementById("lesson-data").textContent), store, presenter, idle, dom };

const later = new Map(); // block type → its elements, for modules imported after the first paint
function startBlocks() {
  for (const el of document.querySelectorAll("[data-block]")) {
    const type = BLOCKS[el.dataset.block] || courseType(el.dataset.block);
    if (!type) console.error(`${el.dataset.block}: no module for this block type`, el.id);
    else if (type.init) startBlockSoon(el, type.init);
    else later.set(el.dataset.block, [...(later.get(el.dataset.block) || []), el]);
  }
  step("The page's later blocks", startLater);
  step("The class", startClass);
}

/** A course with a class record store (course.yaml's `class:`): the class's join offer, or its member's sending. */
function startClass() {
  if (!page.class) return;
  import("../class/member.js")
    .then((module) => start("The class", () => module.start(page)))
    .catch((err) => console.error("The class could not start:", err));
}

// The page's LMS: a cmi5 package's lesson page launched with cmi5's parameters connects to the LMS that launched it
// (lms/cmi5.js: the launch's token and launch data, then its blocks' work put back); any other lesson page looks for
// a SCORM API around it (lookForAPI says at once when there is none). Either resolves to what it found, or null.
const launch = page.page === "lesson" && page.cmi5 ? launchOf(location.search) : null;
let connecting = null;
function connectCmi5() {
  connecting = connecting || import("../lms/cmi5.js")
    .then((module) => module.start(launch, page, { httpURL }))
    .catch((err) => {
      console.error("The LMS connection could not start:", err);
      return null;
    });
  return connecting;
}
const lookForLMS = launch ? connectCmi5 : page.cmi5 ? () => null : lookForAPI;

// In another origin's frame (a host without headers cannot forbid it), the page starts nothing, unless it is an LMS
// package's and finds its LMS there (the SCORM API, or the cmi5 launch its LMS confirmed): frame.js.
const place = mayStart(page, document, lookForLMS);
if (place === true) {
  startPage(page.page === "lesson" ? lookForLMS(window) : null);
} else if (place) {
  place
    .then((found) => found && startPage(page.page === "lesson" ? Promise.resolve(found) : null))
    .catch((err) => console.error("The page could not look for its LMS:", err));
}

/** Every part of the page, started; `lms`: a Promise of the page's LMS found (lookForLMS), or null. */
function startPage(lms) {
  // Presenter mode is the browser's setting (storage); set it before first paint so the page does not re-flow.
  start("Presenter mode", startPresenter);

  start("The storage notice", () => onUnavailable(showStorageNotice));
  step("Search", () => initSearch()); // shows the box; Pagefind loads when the learner first focuses it
  if (page.page === "lesson") step("The sidebar", () => initSidebar()); // the current lesson in its view
  // Inside an LMS, a lesson's blocks start once it has put back what the LMS kept (the cmi5 session did so before
  // it resolved; the SCORM API's module does it now); without one they start now, as on any page.
  if (lms) {
    lms
      .then((found) => found && !launch && import("../lms/scorm.js").then((module) => module.start(found, page)))
      .catch((err) => console.error("The LMS connection could not start:", err))
      .finally(() => step("The page's blocks", startBlocks));
  } else {
    step("The page's blocks", startBlocks);
  }
  // A lesson page notes that it was opened (the course index's Continue link); the index starts its progress view.
  if (page.page === "lesson") step("The Continue link", () => save(LAST_LESSON_KEY, { lesson: page.lesson, course: page.course.id, at: new Date().toISOString() }));
  if (page.page === "index") {
    import("../course/index.js")
      .then((module) => module.loadCourseTypes(page).then(() => module))
      .then((module) => start("The course's progress", () => module.init(page)))
      .catch((err) => console.error("The course's progress could not start:", err)); // its module did not load
  }
  step("Offline support", () => initOffline()); // after load and idle: caches the lesson and the runtime for offline visits
  step("The page's parts", () => initParts()); // after the first paint: lays out, once, the parts the first paint skipped
}

/** A course's own block type (its folder's page module, published beside the bundles): imported after the first
 * paint, by the URL the page's data gives (the import map's integrity checks it). */
function courseType(name) {
  const urls = (page.blockModules || {})[name];
  if (!urls || !urls.module) return null;
  const type = { load: () => import(new URL(urls.module, document.baseURI).href) };
  BLOCKS[name] = type;
  return type;
}

// Heavy blocks run only after the text's first paint (their modules are preloaded by the page, so waiting costs no
// download time).
function startLater() {
  if (!later.size) return;
  afterFrame().then(() => {
    for (const [name, elements] of later) {
      BLOCKS[name]
        .load()
        .then((module) => elements.forEach((el) => startBlock(el, module.init)))
        .catch((err) => console.error(`The ${name} could not start:`, err)); // its module did not load
    }
  });
}
