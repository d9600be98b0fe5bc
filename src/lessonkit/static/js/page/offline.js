// Offline after the first visit: registers the build's service worker (site/sw.js) once the page is idle, then asks
// it to keep this lesson's runtime (the rest of the course's when the learner presses "Save the course for offline
// use" on the index: sw.js). <html data-offline> says how far it got: "lesson" (this page works offline), "course"
// (every lesson does). A missing or broken worker only costs offline use: every failure is a console.warn, never an
// error.

import { t, tn } from "./i18n.js";
import { idle } from "./idle.js";
import { launchOf } from "../lms/cmi5-launch.js";
import { findAPI, inFrame } from "../lms/find-api.js";

const AFTER_READY_MS = 1000;
const TAKE_OVER_MS = 5000; // how long the page waits for a waiting worker to take over before its "keep"
const DEV_SCRIPT = 'script[src*="/__lessonkit/dev-reload.js"]';

function whenIdle(fn) {
  // After `load` and an idle slice, so registering (and the worker's precache download) never competes with
  // the text or the lab's first requests.
  const later = () => idle(5000).then(fn);
  if (document.readyState === "complete") later();
  else window.addEventListener("load", later, { once: true });
}

async function unregister(scope, why) {
  // `?nosw` and the dev server must never run under a worker left by an earlier visit.
  const registration = await navigator.serviceWorker.getRegistration(scope);
  if (registration && (await registration.unregister())) console.info(`offline: service worker removed (${why})`);
}

/** Resolves once the page's lab says Ready (or at once without a lab, or after `ms` at most). */
function afterLab(ms = 20000) {
  return new Promise((resolve) => {
    const lab = document.querySelector("[data-lab]");
    if (!lab || (lab.labController && lab.labController.state === "ready")) return resolve();
    const done = () => {
      clearTimeout(timer);
      document.removeEventListener("lab:state", onState);
      resolve();
    };
    const onState = (event) => event.detail && event.detail.state === "ready" && done();
    const timer = setTimeout(done, ms);
    document.addEventListener("lab:state", onState);
  });
}

/** The page's service worker container, or null where there is none (a sandboxed frame throws on reading it). */
function container() {
  try {
    return navigator.serviceWorker || null;
  } catch {
    return null;
  }
}

/** Ask the active worker `type` ("keep", "save-course"); resolves with its answer {ok, kept, failed}. */
function ask(worker, type) {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = (event) => resolve(event.data);
    worker.postMessage({ type }, [channel.port2]);
  });
}

/**
 * A newer build's worker left waiting asked to take over (sw.js's "take-over"): one the page finds waiting, then any
 * that finishes installing while the page is open, and again after the page's "keep" (a request to the old worker,
 * which may be what held the new one back). Resolves with that last ask once the one waiting has taken over (the
 * page's "keep" then goes to it), or after TAKE_OVER_MS.
 */
function takeOver(registration) {
  const ask = () => registration.waiting && registration.waiting.postMessage({ type: "take-over" });
  registration.addEventListener("updatefound", () => {
    const installing = registration.installing;
    if (installing) installing.addEventListener("statechange", () => installing.state === "installed" && ask());
  });
  if (!registration.waiting) return Promise.resolve(ask);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      navigator.serviceWorker.removeEventListener("controllerchange", done);
      resolve(ask);
    };
    const timer = setTimeout(done, TAKE_OVER_MS);
    navigator.serviceWorker.addEventListener("controllerchange", done);
    ask();
  });
}

function kept(state) {
  const html = document.documentElement;
  if (html.dataset.offline !== "course") html.dataset.offline = state;
}

/** The index's "Save the course for offline use" taken away where it is not offered (the stylesheet keeps its room
 * until it is shown). */
function withdrawSave() {
  const box = document.querySelector("[data-offline-save]");
  if (box && box.hidden) box.remove();
}

/** The index's "Save the course for offline use" (templates/index.html): shown once a worker is active. */
function offerSave(registration) {
  const box = document.querySelector("[data-offline-save]");
  if (!box) return;
  const button = box.querySelector("button");
  const status = box.querySelector("[data-offline-status]");
  box.hidden = false;
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = t("offline.saving");
    const answer = await ask(registration.active, "save-course");
    button.disabled = false;
    if (answer && answer.ok) {
      kept("course");
      status.textContent = t("offline.saved");
    } else {
      status.textContent = answer ? tn("offline.not_saved", answer.failed) : t("offline.no_answer");
    }
  });
}

export function init() {
  try {
    // Not in a frame or an LMS's window (its SCORM API, or a cmi5 launch): an LMS serves each upload of a package
    // under a new path, where an older upload's offline copy would linger, and a frame of another site or a sandbox
    // may not register one at all.
    if (!container() || !window.isSecureContext || inFrame() || findAPI(window) || launchOf(location.search)) {
      withdrawSave();
      return;
    }
    const scope = new URL("./", document.baseURI).href;
    const nosw = new URLSearchParams(location.search).has("nosw");
    const dev = document.querySelector(DEV_SCRIPT) !== null;
    if (nosw || dev) {
      withdrawSave();
      unregister(scope, nosw ? "?nosw" : "dev server").catch((err) => console.warn("offline: unregister failed:", err));
      return;
    }
    // After the lab is Ready: its precache then reads the runtime from the HTTP cache instead of competing with
    // the lab's own first download; and a second later, so copying ~10 MB into Cache Storage does not compete
    // with a Run clicked the moment the lab is ready.
    afterLab().then(() => new Promise((resolve) => setTimeout(resolve, AFTER_READY_MS))).then(() => whenIdle(() => {
      navigator.serviceWorker
        .register(new URL("sw.js", document.baseURI).href, { scope })
        .then(() => navigator.serviceWorker.ready)
        .then((registration) => {
          offerSave(registration);
          return takeOver(registration).then((again) => ask(registration.active, "keep").then((answer) => {
            again();
            if (answer && answer.ok) kept("lesson");
          }));
        })
        .catch((err) => {
          withdrawSave();
          console.warn("offline: no offline copy (service worker not registered):", err);
        });
    }));
  } catch (err) {
    withdrawSave();
    console.warn("offline: service worker setup failed:", err);
  }
}
