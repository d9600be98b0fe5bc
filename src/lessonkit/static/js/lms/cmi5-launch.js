// A cmi5 launch: the five parameters an LMS appends to a lesson's URL when it launches it as an AU of the cmi5
// package. A module of its own, without imports, so the page's main bundle reads the launch (main.js) and loads the
// cmi5 session (cmi5.js) only when there is one.

export const PARAMETERS = ["endpoint", "fetch", "actor", "registration", "activityId"];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** `text` as an http(s) URL; throws for anything else. */
export function httpURL(text) {
  const url = new URL(text);
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`not http(s): ${text}`);
  return url;
}

/**
 * The cmi5 launch in a page's query string ({endpoint, fetch, actor, registration, activityId}), or null when any of
 * the five is missing or is not what the spec says it is (then the page is a page like any other, and sends nothing).
 */
export function launchOf(search) {
  const q = new URLSearchParams(search);
  if (!PARAMETERS.every((name) => q.get(name))) return null;
  try {
    const endpoint = httpURL(q.get("endpoint")).href;
    const fetchURL = httpURL(q.get("fetch")).href;
    const actor = JSON.parse(q.get("actor"));
    const account = isObject(actor) ? actor.account : null;
    if (!isObject(account) || typeof account.homePage !== "string" || typeof account.name !== "string" || !account.name) return null;
    const registration = q.get("registration");
    const activityId = q.get("activityId");
    if (!UUID.test(registration) || !/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(activityId)) return null;
    return { endpoint: endpoint.endsWith("/") ? endpoint : `${endpoint}/`, fetch: fetchURL,
      actor: { ...actor, objectType: "Agent" }, registration, activityId };
  } catch {
    return null;
  }
}
