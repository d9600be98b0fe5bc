// What a lab's status area shows for its state (lab/view.js keeps the state): which buttons act, why Run waits, the
// Retry button and the progress of the first Python's start, worded in the page's language.

import { num, t } from "../page/words.js";
import { reasonFor } from "./runs.js";

/** The lab's controls (view.js `el`: run, stop, reason, retry, progress) as they are in `state`. */
export function showState(el, state, restarting) {
  const why = reasonFor(state, restarting);
  if (el.reason.textContent !== why) el.reason.textContent = why;
  el.reason.hidden = !why;
  el.run.setAttribute("aria-disabled", String(state === "loading" || state === "failed"));
  el.stop.setAttribute("aria-disabled", String(state !== "running"));
  el.retry.hidden = state !== "failed";
  el.progress.hidden = state !== "loading";
}

/** What a boot's progress message ({phase, loaded, total} from the worker) says to the learner. */
export function progressWords({ phase, loaded, total }) {
  const megabytes = (bytes) => num(bytes / 1e6, 1);
  if (phase === "download") {
    return total ? t("lab.downloading_of", { loaded: megabytes(loaded), total: megabytes(total) })
      : t("lab.downloading_mb", { loaded: megabytes(loaded) });
  }
  return phase === "start" ? t("lab.starting") : t("lab.installing");
}

/** The progress bar at `loaded` of `total` bytes (indeterminate without them), and its words. */
export function showProgress(el, loaded, total, text) {
  if (loaded != null && total) {
    el.progressBar.max = total;
    el.progressBar.value = Math.min(loaded, total);
  } else {
    el.progressBar.removeAttribute("value"); // indeterminate
  }
  el.progressText.textContent = text;
}
