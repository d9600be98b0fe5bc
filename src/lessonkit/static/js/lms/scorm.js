// A lesson page inside an LMS: reports to the LMS's SCORM 2004 API what the learner does, and restores what the LMS
// kept, before the page's blocks start. main.js imports this module only when an API was found (lookForAPI), so a
// page without an LMS runs exactly as it would without it.
//
// start(found, page) → the page's LMS connection, after:
//   1. Initialize (refused: the page works from localStorage alone, and says so once on the console);
//   2. the lesson's entries are put back from cmi.suspend_data (suspend.js), each checked with the shape its block
//      saves (shapes.js, through progress.js's lessonEntries, as "Load progress" checks a file): the LMS's record is
//      the learner's, and localStorage only its cache, so this browser's copy of the lesson is replaced by it (an
//      empty record, on a first launch, clears it: on a shared computer one learner never sees, or hands in, the last
//      one's answers). Entries the last session left out of suspend_data for size (its `local`) keep this browser's
//      copy. When the LMS fails the read, nothing is replaced;
//   3. from then on, every entry a block saves (store.js's onSaved: the one place every block saves) is reported,
//      a moment later (DEBOUNCE_MS, one Commit for a burst such as typing): the interactions that changed, the score,
//      success, progress and completion (record.js has the rule), cmi.location (the part of the lesson last read) and
//      cmi.suspend_data, then Commit;
//   4. on pagehide: what is still to report, cmi.session_time, cmi.exit "suspend" (the LMS keeps the attempt, and
//      the next launch resumes it), Terminate. The course's navigation hands over to the LMS (lms-nav.js).
// Every call's failure is said once on the console (session.js); the page keeps working whatever the
// LMS answers; an LMS that is gone (its API throws) is told nothing more, and the page says so. <html data-lms> says
// where the connection is: "open", "refused", "lost" or "closed".
import { t } from "../course/progress.js";
import { lessonEntries } from "../course/progress.js";
import { handOver } from "./lms-nav.js";
import { notice } from "./notice.js";
import { interactions as interactionsOf, record } from "./record.js";
import { Session } from "./session.js";
import { decimal, duration, limits, timestamp } from "./scorm-values.js";
import { decode, fit, fitNow, lessonPart } from "./suspend.js";

export const DEBOUNCE_MS = 500;
const LOCATION_MS = 1500; // after scrolling stops, a new part read is reported
const READING_LINE = 0.4; // a part is being read once its heading is above this share of the viewport

const number = (text, low, high) => {
  const x = text === "" ? NaN : Number(text);
  return Number.isFinite(x) && x >= low && x <= high ? x : null;
};

/** The heading id of the part of the lesson being read (the last ## heading above the reading line), or "". */
function partBeingRead() {
  let id = "";
  for (const h of document.querySelectorAll("section.part > h2[id]")) {
    if (h.getBoundingClientRect().top < innerHeight * READING_LINE) id = h.id;
  }
  return id.slice(0, limits.location);
}

class Connection {
  constructor(session, page) {
    this.session = session;
    this.page = page;
    this.store = page.store;
    this.lms = page.lms;
    this.slug = page.lesson;
    this.known = lessonEntries({ slug: this.slug, version: page.version, blocks: this.lms.blocks }, this.store.saved);
    this.entries = {}; // name → the lesson's current entries, as its blocks saved them
    this.payload = null; // the decoded suspend_data the LMS gave (other lessons' parts are kept)
    this.index = new Map(); // interaction id → its index n in cmi.interactions
    this.sent = new Map(); // interaction id → what the LMS holds of it ("response|result")
    this.suspended = null; // the suspend_data text the LMS holds from this session
    this.suspendedFrom = null; // the entries (as JSON) that text was made from
    this.location = "";
    this.timer = 0;
    this.queue = Promise.resolve();
    this.restoring = false;
    this.t0 = performance.now();
    this.warned = new Set();
  }

  keyOf(name) {
    const e = this.known.get(name);
    return this.store.storeKey(this.slug, e.block.id, e.part);
  }

  warnOnce(what, text) {
    if (this.warned.has(what)) return;
    this.warned.add(what);
    console.warn(`lessonkit: ${text}`);
  }

  /** Step 2: the LMS's record into the page's storage (or this browser's copy, when the LMS could not be read). */
  async restore() {
    const { value, ok } = this.session.read("cmi.suspend_data");
    const browser = (name) => this.store.load(this.keyOf(name), this.known.get(name).shape);
    if (!ok) {
      for (const name of this.known.keys()) this.take(name, browser(name));
      return;
    }
    this.payload = await decode(value);
    if (value && !this.payload) this.warnOnce("suspend", "the LMS's saved state for this lesson is not one this site wrote; starting without it.");
    const part = lessonPart(this.payload, this.slug);
    this.suspended = value;
    this.restoring = true;
    try {
      for (const [name, entry] of this.known) {
        const kept = part.local.has(name) ? browser(name) : null;
        let theirs = Object.prototype.hasOwnProperty.call(part.entries, name) ? part.entries[name] : null;
        if (theirs !== null && (!entry.shape(theirs) || JSON.stringify(theirs).length > this.store.MAX_ENTRY_CHARS)) {
          this.warnOnce(`entry ${name}`, `the LMS's saved "${name}" for this lesson is not what this lesson saves there; starting without it.`);
          theirs = null;
        }
        const value = kept ?? theirs;
        if (value === null) this.store.remove(this.keyOf(name));
        else this.store.save(this.keyOf(name), value);
        this.take(name, value);
      }
    } finally {
      this.restoring = false;
    }
  }

  take(name, value) {
    if (value === null || value === undefined) delete this.entries[name];
    else this.entries[name] = value;
  }

  /** The interactions the LMS holds already (their ids, in order), and what it holds of each. */
  readInteractions() {
    const count = number(this.session.get("cmi.interactions._count"), 0, Number.MAX_SAFE_INTEGER);
    const most = count ?? limits.interactions; // an LMS without _count: read ids until one is missing
    for (let n = 0; n < most; n += 1) {
      const id = this.session.get(`cmi.interactions.${n}.id`);
      if (!id) break;
      this.index.set(id, n);
      this.sent.set(id, `${this.session.get(`cmi.interactions.${n}.learner_response`)}|${this.session.get(`cmi.interactions.${n}.result`)}`);
    }
  }

  /** A block saved (or removed) an entry: note it, and report a moment later. */
  saved(key, value) {
    if (this.restoring || this.session.state !== "open") return;
    const prefix = this.store.storeKey(this.slug, "", "").slice(0, -1); // "<prefix>:<lesson>:"
    const name = key.startsWith(prefix) ? key.slice(prefix.length) : null;
    if (name === null || !this.known.has(name)) return;
    this.take(name, value);
    this.schedule();
  }

  schedule(ms = DEBOUNCE_MS) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.report(), ms);
  }

  /** What suspend.js may leave out of suspend_data: "code", "draft", or "kept" (never). */
  kindOf(name) {
    const count = this.known.get(name)?.count; // how course/progress.js counts it: "code" (an editor's), "drafts", …
    return count === "code" ? "code" : count === "drafts" ? "draft" : "kept";
  }

  /** The interactions, score, statuses and location: everything but suspend_data, at once. */
  tell() {
    const { session } = this;
    for (const it of interactionsOf(this.lms, this.entries)) {
      const now = `${it.response}|${it.result}`;
      if (this.sent.get(it.id) === now) continue;
      let n = this.index.get(it.id);
      if (n === undefined) {
        n = this.index.size;
        if (n >= limits.interactions) {
          this.warnOnce("interactions", `this lesson has more than ${limits.interactions} interactions, more than an LMS keeps; the rest are not reported.`);
          continue;
        }
        if (!session.set(`cmi.interactions.${n}.id`, it.id)) continue;
        this.index.set(it.id, n);
        session.set(`cmi.interactions.${n}.type`, it.type);
        session.set(`cmi.interactions.${n}.description`, it.description);
        session.set(`cmi.interactions.${n}.weighting`, "1");
        if (it.correct !== undefined) session.set(`cmi.interactions.${n}.correct_responses.0.pattern`, it.correct);
      }
      const response = session.set(`cmi.interactions.${n}.learner_response`, it.response);
      const result = session.set(`cmi.interactions.${n}.result`, it.result);
      if (session.set(`cmi.interactions.${n}.timestamp`, timestamp()) && response && result) this.sent.set(it.id, now);
    }
    const r = record(this.lms, this.entries, this.rule);
    if (r.score) {
      // scaled last: an LMS that reads raw as a percentage (Open edX's block) reads scaled when it follows. An LMS
      // judges success by scaled against cmi.scaled_passing_score whenever scaled is set (SCORM 2004 RTE 4.2.21), so
      // scaled waits until every counted item is answered: before that the lesson is neither passed nor failed.
      session.set("cmi.score.min", decimal(r.score.min));
      session.set("cmi.score.max", decimal(r.score.max));
      session.set("cmi.score.raw", decimal(r.score.raw));
      if (r.answered) session.set("cmi.score.scaled", decimal(r.score.scaled));
    }
    session.set("cmi.success_status", r.success);
    session.set("cmi.progress_measure", decimal(r.progress));
    session.set("cmi.completion_status", r.completion);
    const part = partBeingRead();
    if (part && part !== this.location && session.set("cmi.location", part)) this.location = part;
    this.record = r;
  }

  suspendedAs(result) {
    if (result.local.length) {
      this.warnOnce(`local ${result.local.join(",")}`, `this lesson's work is too large for the LMS's 64,000 characters: ${result.local.join(", ")} stays in this browser only.`);
      notice(result.text === null ? t("lms.too_large") : t("lms.part_too_large"));
    }
    if (result.text === null) return false;
    if (result.text === this.suspended) return true;
    if (!this.session.set("cmi.suspend_data", result.text)) return false;
    this.suspended = result.text;
    return true;
  }

  /** Step 3: everything, then Commit (one report at a time). */
  report() {
    clearTimeout(this.timer);
    this.timer = 0;
    this.queue = this.queue.then(async () => {
      if (this.session.state !== "open") return;
      this.tell();
      const from = JSON.stringify(this.entries);
      const result = await fit(this.payload, this.slug, this.page.version, JSON.parse(from), (name) => this.kindOf(name));
      if (this.session.state !== "open") return;
      if (this.suspendedAs(result)) this.suspendedFrom = from;
      this.session.set("cmi.session_time", duration((performance.now() - this.t0) / 1000));
      this.session.commit();
    }).catch((err) => console.error("lessonkit: reporting to the LMS failed:", err));
    return this.queue;
  }

  /** Step 4, at once (the page is going away, or hands over to the LMS's navigation). */
  finish() {
    if (this.session.state !== "open") return;
    clearTimeout(this.timer);
    this.tell();
    // The compressed value a report wrote stays when nothing changed since; a change is written at once, uncompressed.
    const from = JSON.stringify(this.entries);
    if (from !== this.suspendedFrom) this.suspendedAs(fitNow(this.payload, this.slug, this.page.version, JSON.parse(from), (name) => this.kindOf(name)));
    this.session.set("cmi.session_time", duration((performance.now() - this.t0) / 1000));
    this.session.set("cmi.exit", "suspend");
    this.session.terminate();
    document.documentElement.dataset.lms = "closed";
  }
}

/** Scroll to the part the learner last read, unless the URL names a place of its own. */
function returnTo(location) {
  if (!location || window.location.hash) return;
  const heading = document.getElementById(location);
  if (!heading || !heading.matches("section.part > h2")) return;
  requestAnimationFrame(() => setTimeout(() => heading.scrollIntoView({ block: "start" }), 0));
}

/** Connect the lesson page to the LMS's API (`found`: find-api.js's findAPI); resolves once its entries are back. */
export async function start(found, page) {
  const session = new Session(found.api, {
    onLost: () => {
      document.documentElement.dataset.lms = "lost";
      notice(t("lms.lost"));
    },
  });
  if (!session.initialize()) {
    document.documentElement.dataset.lms = "refused";
    return null;
  }
  const c = new Connection(session, page);
  const learner = session.get("cmi.learner_id");
  if (learner) page.learner = { id: learner, name: session.get("cmi.learner_name") }; // a class's member is this learner
  const passing = number(session.get("cmi.scaled_passing_score"), -1, 1);
  const threshold = number(session.get("cmi.completion_threshold"), 0, 1);
  c.rule = { passing: passing ?? c.lms.passing, threshold: threshold ?? 1 };
  const location = session.get("cmi.location");
  c.location = location;
  c.readInteractions();
  await c.restore();
  page.store.onSaved((key, value) => c.saved(key, value));
  addEventListener("pagehide", () => c.finish());
  let scrolled = 0;
  addEventListener("scroll", () => {
    clearTimeout(scrolled);
    scrolled = setTimeout(() => partBeingRead() !== c.location && c.schedule(0), LOCATION_MS);
  }, { passive: true });
  handOver(session, page, () => c.finish());
  returnTo(location);
  document.documentElement.dataset.lms = session.state; // "open", unless the LMS was lost while restoring
  c.report(); // the launch itself: statuses (incomplete, or completed for "opened"), and what a resume brought back
  return c;
}
