// The page's one "when the browser is idle" helper: work that must not compete with what the learner sees.

/** Resolves in an idle period (at most `timeout` ms from now), or after a short delay where there is none. */
export function idle(timeout = 3000) {
  return new Promise((resolve) => {
    if ("requestIdleCallback" in window) requestIdleCallback(() => resolve(), { timeout });
    else setTimeout(resolve, 50);
  });
}
