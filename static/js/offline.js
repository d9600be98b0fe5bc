// Offline after the first visit: registers the build's service worker (site/sw.js) once the page is idle.
// A missing or broken worker only costs offline use: every failure is a console.warn, never an error.

const DEV_SCRIPT = 'script[src*="/__lessonkit/dev-reload.js"]';

function whenIdle(fn) {
  // After `load` and an idle slice, so registering (and the worker's precache download) never competes with
  // the text or the lab's first requests.
  const idle = () => {
    if ("requestIdleCallback" in window) requestIdleCallback(fn, { timeout: 5000 });
    else setTimeout(fn, 1000);
  };
  if (document.readyState === "complete") idle();
  else window.addEventListener("load", idle, { once: true });
}

async function unregister(scope, why) {
  // `?nosw` and the dev server must never run under a worker left by an earlier visit.
  const registration = await navigator.serviceWorker.getRegistration(scope);
  if (registration && (await registration.unregister())) console.info(`offline: service worker removed (${why})`);
}

export function init() {
  try {
    if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
    const scope = new URL("./", document.baseURI).href;
    const nosw = new URLSearchParams(location.search).has("nosw");
    const dev = document.querySelector(DEV_SCRIPT) !== null;
    if (nosw || dev) {
      unregister(scope, nosw ? "?nosw" : "dev server").catch((err) => console.warn("offline: unregister failed:", err));
      return;
    }
    whenIdle(() => {
      navigator.serviceWorker
        .register(new URL("sw.js", document.baseURI).href, { scope })
        .catch((err) => console.warn("offline: no offline copy (service worker not registered):", err));
    });
  } catch (err) {
    console.warn("offline: service worker setup failed:", err);
  }
}
