// A lesson page of the cmi5 package launched by an LMS (the launch's five parameters in its query string:
// cmi5-statements.js's launchOf): the page reports to the LMS's own xAPI endpoint what the learner does. main.js
// imports this module only for such a launch, and starts the page's blocks once start() has resolved.
//
// start(launch, page, {httpURL}):
//   1. POST the launch's fetch URL, once, for the session's auth token. The token is kept in this module's memory
//      only (never in the site's storage, the address or the page): every xAPI request of the session carries it,
//      and nothing else does. The learner's code runs in the lab's worker, which has no fetch, XHR or socket, and
//      never reaches the page;
//   2. read LMS.LaunchData from the LMS's State API (launchMode, masteryScore, moveOn, returnURL, contextTemplate),
//      and the lesson's own state document (WORK: the learner's entries and what was sent), whose entries replace
//      this browser's copy of the lesson (on a shared computer one learner never sees, or sends, another's);
//   3. send initialized, then, a moment after each save (DEBOUNCE_MS), what cmi5-statements.js says is due, and
//      put the lesson's state document; a request that fails is sent again (the same statements, RETRY_MS later);
//   4. on pagehide, or the "Back to the LMS" button (shown when LaunchData has a returnURL): what is due and
//      terminated, in one request that outlives the page (keepalive); the button then goes to returnURL.
// The course's navigation is the LMS's (each lesson is an AU launched on its own): lms-nav.js hides the links to
// the other lessons, as for an LMS that offers no navigation. <html data-lms> says where the session is: "open",
// "refused" (no token or no launch data: nothing is sent), "lost" (the LMS refused the token mid-session) or
// "closed".
import { lessonEntries, t } from "../course/progress.js";
import { LAUNCH_DATA, WORK, allowed, clock, defined, launchData, newFacts, verdicts, workDocument, workOf } from "./cmi5-statements.js";
import { handOver } from "./lms-nav.js";
import { notice } from "./notice.js";
import { duration } from "./scorm-values.js";

export const DEBOUNCE_MS = 500;
const RETRY_MS = 10000;
const XAPI_VERSION = "1.0.3";

/** The LMS's xAPI endpoint, with the session's token (in this closure alone: nothing else can read it). */
function endpointOf(base, token) {
  return {
    request(method, path, { query = {}, body, keepalive = false } = {}) {
      const url = new URL(path, base);
      for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
      const headers = { Authorization: `Basic ${token}`, "X-Experience-API-Version": XAPI_VERSION };
      if (body !== undefined) headers["Content-Type"] = "application/json";
      return fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "omit",
        cache: "no-store", keepalive });
    },
  };
}

/** POST the fetch URL for the session's token (the spec's one use of it); throws with the LMS's words. */
async function fetchToken(url) {
  const response = await fetch(url, { method: "POST", credentials: "omit", cache: "no-store" });
  const body = await response.json().catch(() => ({}));
  const token = body && body["auth-token"];
  if (!response.ok || typeof token !== "string" || !token) {
    throw new Error(body && body["error-code"] ? `error ${body["error-code"]}: ${body["error-text"] || ""}` : `it answered ${response.status}`);
  }
  return token;
}

class Cmi5Session {
  constructor(launch, page, endpoint, data) {
    this.launch = launch;
    this.page = page;
    this.store = page.store;
    this.endpoint = endpoint;
    this.data = data;
    this.known = lessonEntries({ slug: page.lesson, version: page.version, blocks: page.lms.blocks }, this.store.saved);
    this.sent = new Set();
    this.pending = []; // statements built and not yet stored by the LMS (sent again as they are)
    this.judged = false; // passed or failed sent in this session
    this.state = "open";
    this.stamp = clock();
    this.t0 = performance.now();
    this.timer = 0;
    this.queue = Promise.resolve();
    this.savedWork = ""; // the state document the LMS last kept (as text)
    this.puttingWork = ""; // the one last put
  }

  get stateQuery() {
    return { activityId: this.launch.activityId, agent: JSON.stringify(this.launch.actor), registration: this.launch.registration };
  }

  async readState(stateId) {
    const response = await this.endpoint.request("GET", "activities/state", { query: { ...this.stateQuery, stateId } });
    if (response.status === 404) return { doc: null, ok: true };
    if (!response.ok) return { doc: null, ok: false, status: response.status };
    return { doc: await response.json().catch(() => null), ok: true };
  }

  keyOf(name) {
    const e = this.known.get(name);
    return this.store.storeKey(this.page.lesson, e.block.id, e.part);
  }

  /** The lesson's entries as its blocks saved them, by name. */
  entries() {
    const out = {};
    for (const [name, e] of this.known) {
      const value = this.store.load(this.keyOf(name), e.shape);
      if (value !== null) out[name] = value;
    }
    return out;
  }

  /** Step 2: the LMS's copy of the lesson's work replaces this browser's (kept when the LMS could not be read). */
  async restore() {
    const { doc, ok } = await this.readState(WORK);
    if (!ok) {
      console.warn("lessonkit: the LMS did not give this lesson's saved work; starting from this browser's copy.");
      return;
    }
    const work = workOf(doc);
    this.sent = work.sent;
    for (const [name, entry] of this.known) {
      let value = Object.prototype.hasOwnProperty.call(work.entries, name) ? work.entries[name] : null;
      if (value !== null && (!entry.shape(value) || JSON.stringify(value).length > this.store.MAX_ENTRY_CHARS)) {
        console.warn(`lessonkit: the LMS's saved "${name}" for this lesson is not what this lesson saves there; starting without it.`);
        value = null;
      }
      if (value === null) this.store.remove(this.keyOf(name));
      else this.store.save(this.keyOf(name), value);
    }
    this.savedWork = JSON.stringify(workDocument(this.entries(), this.sent));
  }

  seconds() {
    return (performance.now() - this.t0) / 1000;
  }

  /** The statements due now (and terminated, when ending), queued after those still pending; the whole queue. */
  due(ending) {
    const entries = this.entries();
    const waiting = new Set(this.pending.map((p) => p.key).filter(Boolean));
    const queue = (key, statement) => this.pending.push({ key, statement });
    for (const fact of newFacts(this.page, this.data, entries, this.sent)) {
      if (!waiting.has(fact.key)) queue(fact.key, allowed(this.launch, this.data, fact, this.stamp()));
    }
    const sent = new Set([...this.sent, ...waiting]);
    for (const v of verdicts(this.page.lms, this.data, entries, { sent, judged: this.judged, ending, seconds: this.seconds() })) {
      if (v.verb === "passed" || v.verb === "failed") this.judged = true;
      queue(v.key, defined(this.launch, this.data, v.verb, this.stamp(), { result: v.result, extensions: v.extensions }));
    }
    if (ending) queue("", defined(this.launch, this.data, "terminated", this.stamp(), { result: { duration: duration(this.seconds()) } }));
    return { entries, batch: [...this.pending] };
  }

  /** POST `batch`; true when the LMS stored it (or refused it for good: 400, said on the console). */
  async post(batch, keepalive = false) {
    const response = await this.endpoint.request("POST", "statements", { body: batch.map((p) => p.statement), keepalive });
    if (response.status === 401 || response.status === 403) {
      this.lose(`the LMS refused this session's token (${response.status})`);
      return false;
    }
    if (response.status === 400) console.warn(`lessonkit: the LMS refused ${batch.length} statements: ${(await response.text()).slice(0, 300)}`);
    else if (!response.ok) throw new Error(`the LMS answered ${response.status}`);
    return true;
  }

  stored(batch) {
    const done = new Set(batch);
    this.pending = this.pending.filter((p) => !done.has(p));
    for (const p of batch) if (p.key) this.sent.add(p.key);
  }

  /**
   * Put the lesson's state document when it differs from the one the LMS last kept (`keepalive`: the page is going
   * away, and `sending`: the keys of the statements going in the same moment, counted as sent; a put still under way
   * is then put again, since the page's going may end it).
   */
  putWork(entries, keepalive = false, sending = []) {
    const doc = workDocument(entries, new Set([...this.sent, ...sending]));
    const text = JSON.stringify(doc);
    if (text === this.savedWork || (!keepalive && text === this.puttingWork)) return Promise.resolve();
    this.puttingWork = text;
    return this.endpoint.request("PUT", "activities/state", { query: { ...this.stateQuery, stateId: WORK }, body: doc, keepalive })
      .then((r) => {
        if (r.ok) this.savedWork = text;
        else console.warn(`lessonkit: the LMS did not keep this lesson's work (it answered ${r.status}).`);
      });
  }

  schedule(ms = DEBOUNCE_MS) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.report(), ms);
  }

  /** Step 3: send what is due, then keep the work (one report at a time). */
  report() {
    clearTimeout(this.timer);
    this.queue = this.queue.then(async () => {
      if (this.state !== "open") return;
      const { entries, batch } = this.due(false);
      if (batch.length) {
        try {
          if (await this.post(batch)) this.stored(batch);
        } catch (err) {
          console.warn(`lessonkit: sending to the LMS failed (${err.message}); this page tries again.`);
          this.schedule(RETRY_MS);
        }
      }
      if (this.state === "open") await this.putWork(entries);
    }).catch((err) => console.error("lessonkit: reporting to the LMS failed:", err));
    return this.queue;
  }

  /** Step 4, at once: what is due and terminated, in requests that outlive the page. */
  finish() {
    if (this.state !== "open") return Promise.resolve();
    clearTimeout(this.timer);
    const { entries, batch } = this.due(true);
    this.state = "closed";
    document.documentElement.dataset.lms = "closed";
    const sent = this.post(batch, true).then((ok) => ok && this.stored(batch)).catch((err) => console.warn(`lessonkit: the LMS did not get this session's end: ${err.message}`));
    // Both go at once (the page may be gone before either answers): the work counts this batch as sent, so a
    // relaunch sends none of it again.
    return Promise.all([sent, this.putWork(entries, true, batch.map((p) => p.key).filter(Boolean))]);
  }

  lose(why) {
    if (this.state !== "open") return;
    this.state = "lost";
    document.documentElement.dataset.lms = "lost";
    console.warn(`lessonkit: ${why}; this page no longer reports.`);
    notice(t("lms.lost"));
  }
}

/** The "Back to the LMS" button: ends the session, then goes to the LMS's returnURL. */
function returnButton(session, returnURL) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "secondary lms-return";
  button.textContent = t("lms.return");
  button.addEventListener("click", () => {
    button.disabled = true;
    session.finish().finally(() => location.assign(returnURL));
  });
  const where = document.querySelector(".site-header") || document.body;
  where.append(button);
}

/** Connect the lesson page to the LMS that launched it; resolves (to the session, or null) once its work is back.
 * httpURL: cmi5-launch.js's, handed over by the page's main bundle (a module of both would be a chunk of its own). */
export async function start(launch, page, { httpURL }) {
  const html = document.documentElement;
  const refused = (why) => {
    console.warn(`lessonkit: ${why}; nothing of this lesson is recorded by the LMS.`);
    html.dataset.lms = "refused";
    notice(t("lms.cmi5_refused"));
    return null;
  };
  let token;
  try {
    token = await fetchToken(launch.fetch);
  } catch (err) {
    return refused(`the LMS gave this launch no token (its fetch URL: ${err.message})`);
  }
  const endpoint = endpointOf(launch.endpoint, token);
  const probe = new Cmi5Session(launch, page, endpoint, null);
  let read;
  try {
    read = await probe.readState(LAUNCH_DATA);
  } catch (err) {
    return refused(`the LMS's launch data could not be read (${err.message})`);
  }
  const data = read.ok ? launchData(read.doc, location.href, httpURL) : null;
  if (!data) return refused(`the LMS's ${LAUNCH_DATA} is ${read.ok ? "not a cmi5 launch data document" : `not readable (${read.status})`}`);
  const session = new Cmi5Session(launch, page, endpoint, data);
  page.learner = { id: launch.actor.account.name, name: launch.actor.name || launch.actor.account.name }; // a class's member is this learner
  try {
    await session.restore();
  } catch (err) {
    console.warn(`lessonkit: the LMS's copy of this lesson's work could not be read (${err.message}); starting from this browser's.`);
  }
  session.pending.push({ key: "", statement: defined(launch, data, "initialized", session.stamp()) });
  html.dataset.lms = "open";
  if (data.launchMode !== "Normal") notice(t("lms.not_recorded"));
  page.store.onSaved(() => session.schedule());
  addEventListener("pagehide", () => session.finish());
  addEventListener("pageshow", (event) => event.persisted && session.state === "closed" && notice(t("lms.ended")));
  // Each lesson is an AU of its own: the LMS offers none of the others from here, so the page's links to them go.
  handOver({ state: "open", get: () => "false", set: () => false }, page, () => session.finish());
  if (data.returnURL) returnButton(session, data.returnURL);
  session.report(); // initialized, and what the restored work already holds (a lesson completed on opening)
  return session;
}
