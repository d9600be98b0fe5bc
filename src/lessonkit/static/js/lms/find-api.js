// Finding an LMS's SCORM 2004 API (window.API_1484_11), for a page that may or may not run in one (session.js talks
// to it).
//
// The search is the SCORM 2004 4th edition Run-Time Environment book's (ADL's ScanForAPI / GetAPI): walk
// window.parent up from the page's parent, at most MAX_TRIES steps, then the same walk from window.opener and its
// parents. Two deviations, both safe: a window of another origin throws on reading its API (the book's code would
// stop with an exception), so every read is guarded and such a window is passed over (its parent can still be
// read); and the object found must have the API's eight functions. An LMS that sets the API after its frame loaded
// (one did: the content looked first) is met by looking again, only when the page is in a frame of its own origin
// (RETRY_MS). The top window with no opener, or a frame of another origin, is answered at once: no API, nothing
// printed.

export const MAX_TRIES = 500; // the standard's own bound (ADL's sample code)
export const RETRY_MS = [100, 400, 1000]; // waits between looks in a same-origin frame
export const METHODS = ["Initialize", "Terminate", "GetValue", "SetValue", "Commit", "GetLastError", "GetErrorString", "GetDiagnostic"];

function apiOf(win) {
  try {
    const api = win.API_1484_11;
    return api && METHODS.every((m) => typeof api[m] === "function") ? api : null;
  } catch {
    return null; // another origin
  }
}

function parentOf(win) {
  try {
    const p = win.parent;
    return p && p !== win ? p : null;
  } catch {
    return null;
  }
}

function openerOf(win) {
  try {
    return win.opener || null;
  } catch {
    return null;
  }
}

/** Walk `win` and its parents, counting steps in `tries`: {api, depth}, or null. */
function scan(win, tries) {
  for (let depth = 0; win && tries.n < MAX_TRIES; depth += 1, tries.n += 1) {
    const api = apiOf(win);
    if (api) return { api, depth };
    win = parentOf(win);
  }
  return null;
}

/** The LMS's API and where it was found ({api, where: "parent" | "opener", depth}), or null. */
export function findAPI(win = window) {
  const tries = { n: 0 };
  const up = parentOf(win);
  const viaParent = up && scan(up, tries);
  if (viaParent) return { ...viaParent, where: "parent" };
  const opener = openerOf(win);
  const viaOpener = opener && scan(opener, tries);
  return viaOpener ? { ...viaOpener, where: "opener" } : null;
}

/** Whether the page is in a frame (true when even that cannot be read). */
export function inFrame(win = window) {
  try {
    return win.top !== win;
  } catch {
    return true;
  }
}

/** Whether the page's parent is a frame's parent of this origin (whose API the page could read once it is set). */
function sameOriginParent(win) {
  const up = parentOf(win);
  if (!up) return false;
  try {
    return Boolean(up.document);
  } catch {
    return false;
  }
}

/**
 * The LMS's API, when there may be one: null at once when there cannot be (the plain page: the caller changes
 * nothing), else a Promise of what findAPI finds, looking again after RETRY_MS in a same-origin frame.
 */
export function lookForAPI(win = window, wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms))) {
  const found = findAPI(win);
  if (found) return Promise.resolve(found);
  if (!sameOriginParent(win)) return null;
  return (async () => {
    for (const ms of RETRY_MS) {
      await wait(ms);
      const later = findAPI(win);
      if (later) return later;
    }
    return null;
  })();
}
