/**
 * Instructor and learner tools on top of the lab controller (see the API at the top of lab.js):
 * a logits panel for the `raw = [...]` line, Live mode, presenter mode, share links, saved code, and
 * "predict, then run". Everything is built with createElement/textContent inside `controller.tools` and
 * `controller.restoreNote`; this module never touches the lab's own elements.
 *
 * main.js loads it right after lab.js (order does not matter: it also waits for `lab:ready`):
 *
 *   import("./lab.js").then((lab) => {
 *     lab.init(document, page);
 *     return import("./lab-instructor.js").then((tools) => tools.init(document, page, store));
 *   }).catch((err) => console.error("The lab could not start:", err));
 *
 * `store` is the page's saved-progress module (store.js: load, save, remove, storeKey and its validators `is`), passed
 * in rather than imported so the page keeps one copy of it (its "storage is unavailable" notice included) and this
 * module's bundle shares no chunk with main.js.
 */

import { decodeShare, encodeShare, shareSupported, shareTarget } from "./lab-share.js";

let store = null; // the page's store.js functions, set by init

const LIVE_DEBOUNCE_MS = 400;
const SAVE_DEBOUNCE_MS = 300;
const SAME_WITHIN = 0.0005; // 0.05 percentage points, in probability units: below the printed precision
const MIN_POSITIONS = 2; // softmax over one score is always 100%: nothing to compare
const MAX_POSITIONS = 12; // beyond this the chart and the printed lines stop being readable
const SCHEMA = 1;
const PRESENT_CLASS = "presenting";
const PRESENT_PARAM = "present";

const started = new WeakSet(); // init() may be called twice (main.js and a test shim): attach once per lab
let uid = 0;

// ---------- small DOM helpers (no innerHTML anywhere) ----------

function h(tag, attrs = {}, text) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v == null) continue;
    el.setAttribute(k, v === true ? "" : String(v));
  }
  if (text !== undefined) el.textContent = text;
  return el;
}

function button(text, onClick, cls = "") {
  const b = h("button", { type: "button", class: `lab-button instr-button ${cls}`.trim() }, text);
  b.addEventListener("click", onClick);
  return b;
}

function readJSON(el) {
  try {
    return el ? JSON.parse(el.textContent) : null;
  } catch {
    return null;
  }
}

const pct = (p) => `${(100 * p).toFixed(1)}%`;

// ---------- the `raw = [...]` line ----------

// Only a top-level assignment of plain numbers: anything cleverer (names, expressions) is the learner's
// own code, and rewriting it from a form would destroy their work.
const RAW_LINE = /^raw[ \t]*=[ \t]*\[([^\]\n]*)\]([ \t]*(?:#[^\n]*)?)$/m;
const RAW_ANY = /^raw[ \t]*=/gm;
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Parse the code's `raw = [...]` line: {values, index, length, tail} or null if there is no usable one. */
export function parseRaw(code) {
  const text = String(code);
  if ((text.match(RAW_ANY) || []).length !== 1) return null; // none, or reassigned: which one counts is unclear
  const m = RAW_LINE.exec(text);
  if (!m) return null;
  const parts = m[1].split(",").map((s) => s.trim());
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop(); // trailing comma is valid Python
  if (!parts.every((p) => NUMBER.test(p))) return null;
  const values = parts.map(Number);
  if (!values.every(Number.isFinite)) return null;
  return { values, index: m.index, length: m[0].length, tail: m[2] };
}

/** A logit as Python float source: 8 -> "8.0", 0.25 -> "0.25" (the starter code's style). */
export function formatLogit(x) {
  const n = Object.is(x, -0) ? 0 : x;
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

/** `code` with its raw line rewritten to `values` (keeping a trailing comment); null if there is no raw line. */
export function rewriteRaw(code, values) {
  const parsed = parseRaw(code);
  if (!parsed) return null;
  const line = `raw = [${values.map(formatLogit).join(", ")}]${parsed.tail}`;
  return code.slice(0, parsed.index) + line + code.slice(parsed.index + parsed.length);
}

function sameList(a, b) {
  return Boolean(a && b) && a.length === b.length && a.every((x, i) => x === b[i]);
}

// ---------- prediction verdict ----------

function largest(series) {
  const map = new Map();
  for (const s of (series && series.series) || []) {
    if (s && Array.isArray(s.probs) && s.probs.length) map.set(s.head_dim, Math.max(...s.probs));
  }
  return map;
}

/**
 * Compare the largest probability per head_dim between two charts.
 * Returns {outcome: "sharper"|"flatter"|"unchanged"|"mixed", pairs: [{headDim, before, after}]} or null.
 */
export function compareSharpness(beforeChart, afterChart) {
  const before = largest(beforeChart);
  const after = largest(afterChart);
  const pairs = [...before.keys()].filter((d) => after.has(d)).map((d) => ({ headDim: d, before: before.get(d), after: after.get(d) }));
  if (!pairs.length) return null;
  const moves = pairs.map(({ before: b, after: a }) => (a - b > SAME_WITHIN ? "sharper" : b - a > SAME_WITHIN ? "flatter" : "unchanged"));
  const outcome = moves.every((m) => m === moves[0]) ? moves[0] : "mixed";
  return { outcome, pairs };
}

const OUTCOME_TEXT = {
  sharper: "every distribution got sharper",
  flatter: "every distribution got flatter",
  unchanged: "every distribution stayed the same",
  mixed: "the distributions did not all move the same way",
};

/** The sentence the learner reads after a predicted run. */
export function verdictText(prediction, comparison) {
  if (!comparison) {
    return "Your prediction can’t be checked: this run printed no head_dim lines to compare with the lesson’s output.";
  }
  const detail = comparison.pairs
    .map((p, i) => `${i === 0 ? "head_dim " : ""}${p.headDim}: ${pct(p.before)} → ${pct(p.after)}`)
    .join(", ");
  const what = OUTCOME_TEXT[comparison.outcome];
  if (comparison.outcome === prediction) return `Your prediction held: ${what} (${detail}).`;
  return `Your prediction (${prediction}) did not hold: ${what} (${detail}).`;
}

// ---------- presenter mode (page-wide, kept in the URL so a reload or a bookmark keeps it) ----------

function presentingFromURL() {
  return new URLSearchParams(location.search).get(PRESENT_PARAM) === "1";
}

function setPresenting(on) {
  document.documentElement.classList.toggle(PRESENT_CLASS, on);
  const url = new URL(location.href);
  if (on) url.searchParams.set(PRESENT_PARAM, "1");
  else url.searchParams.delete(PRESENT_PARAM);
  // replaceState: toggling a view setting should not fill the Back button's history
  history.replaceState(history.state, "", url.href);
  for (const b of document.querySelectorAll("[data-presenter-toggle]")) b.setAttribute("aria-pressed", String(on));
}

/** Apply ?present=1 now (main.js may call this early to avoid a late reflow). */
export function applyPresenterFromURL() {
  document.documentElement.classList.toggle(PRESENT_CLASS, presentingFromURL());
}

// ---------- logits panel ----------

class LogitsPanel {
  constructor(labId, { onValues }) {
    this.labId = labId;
    this.onValues = onValues;
    this.values = null;
    this.root = h("fieldset", { class: "instr-logits" });
    const legend = h("legend", {}, "Raw scores: the ");
    legend.append(h("code", {}, "raw = [...]"), document.createTextNode(" line"));
    this.list = h("div", { class: "instr-logit-list" });
    this.add = button("Add position", () => this.addPosition());
    this.remove = button("Remove position", () => this.removePosition());
    this.message = h("p", { class: "instr-logits-message", hidden: true });
    const row = h("div", { class: "instr-row" });
    row.append(this.add, this.remove);
    this.root.append(legend, this.list, row, this.message);
  }

  /** Reflect the code's raw line; the input being typed in keeps what the learner typed. */
  sync(code) {
    const parsed = parseRaw(code);
    if (!parsed) {
      this.values = null;
      this.list.replaceChildren();
      this.root.disabled = true;
      this.message.textContent =
        "This panel is off: the code has no single line like raw = [0.0, 4.0, 2.0] with plain numbers. Reset code brings it back.";
      this.message.hidden = false;
      return;
    }
    this.root.disabled = false;
    this.message.hidden = true;
    const values = parsed.values;
    if (!this.values || this.values.length !== values.length) this.build(values);
    else {
      this.inputs().forEach((input, i) => {
        const typed = input.value === "" ? NaN : Number(input.value);
        if (typed !== values[i]) input.value = formatLogit(values[i]);
        input.removeAttribute("aria-invalid");
      });
    }
    this.values = values.slice();
    this.remove.setAttribute("aria-disabled", String(values.length <= MIN_POSITIONS));
    this.add.setAttribute("aria-disabled", String(values.length >= MAX_POSITIONS));
  }

  inputs() {
    return [...this.list.querySelectorAll("input")];
  }

  build(values) {
    const hadFocus = this.list.contains(document.activeElement) ? this.inputs().indexOf(document.activeElement) : -1;
    this.list.replaceChildren(
      ...values.map((v, i) => {
        const id = `instr-logit-${this.labId}-${uid}-${i}`;
        const cell = h("div", { class: "instr-logit" });
        const label = h("label", { for: id }, `Position ${i + 1} logit`);
        const input = h("input", { type: "number", id, step: "any", inputmode: "decimal", value: formatLogit(v) });
        input.addEventListener("input", () => this.edited(i, input));
        cell.append(label, input);
        return cell;
      }),
    );
    uid += 1;
    if (hadFocus >= 0) this.inputs()[Math.min(hadFocus, values.length - 1)].focus();
  }

  edited(i, input) {
    const x = input.value.trim() === "" ? NaN : input.valueAsNumber;
    if (!Number.isFinite(x) || !this.values) {
      input.setAttribute("aria-invalid", "true"); // half-typed ("-", "1e"): wait for a number
      return;
    }
    input.removeAttribute("aria-invalid");
    const values = this.values.slice();
    values[i] = x;
    this.onValues(values);
  }

  addPosition() {
    if (!this.values || this.values.length >= MAX_POSITIONS) return;
    this.onValues([...this.values, 0], `Added position ${this.values.length + 1} with logit 0.0.`);
  }

  removePosition() {
    if (!this.values || this.values.length <= MIN_POSITIONS) return; // aria-disabled keeps focus; ignore the click
    this.onValues(this.values.slice(0, -1), `Removed position ${this.values.length}.`);
  }
}

// ---------- saved code ----------

/**
 * The saved entry, as flushSave writes it: {schema, base, code, savedAt, earlier?}. `base` is the hash of the
 * lesson's code the edit started from; `earlier` is an edit kept from before the lesson's code changed.
 */
function savedShape(is) {
  const savedAt = is.optional(is.nullable(is.string));
  const earlier = is.shape({ base: is.string, code: is.string, savedAt });
  return is.shape({ schema: is.literal(SCHEMA), base: is.string, code: is.string, savedAt, earlier: is.optional(earlier) });
}

// ---------- one lab ----------

class Instructor {
  constructor(section, controller, page) {
    this.section = section;
    this.c = controller;
    this.config = readJSON(section.querySelector("[data-lab-config]")) || {};
    this.labId = this.config.id || section.dataset.lab || "lab";
    this.codeHash = this.config.codeHash || "";
    this.key = page && page.lesson ? store.storeKey(page.lesson, this.labId, "code") : null;
    this.originalRaw = parseRaw(controller.original)?.values || null;
    this.writingLogits = false;
    this.fromShare = false;
    this.other = null; // an alternative saved version the learner has not chosen or dismissed yet
    this.dirty = false;
    this.predictDone = false;
    this.predictPromise = null;
    this.pendingPrediction = null;
    this.live = { timer: null, busy: false, again: false };

    this.buildUI();
    this.wire();
    this.logits.sync(controller.getCode());
  }

  // ----- UI -----

  buildUI() {
    const tools = this.c.tools;
    const bar = h("div", { class: "instr-row instr-bar" });

    const liveId = `instr-live-${this.labId}`;
    this.liveBox = h("input", { type: "checkbox", id: liveId });
    const liveLabel = h("label", { for: liveId, class: "instr-check" });
    liveLabel.append(this.liveBox, document.createTextNode(" Live: re-run after each edit"));

    this.presenter = button("Presenter mode", () => setPresenting(!document.documentElement.classList.contains(PRESENT_CLASS)));
    this.presenter.dataset.presenterToggle = "";
    this.presenter.setAttribute("aria-pressed", String(document.documentElement.classList.contains(PRESENT_CLASS)));

    this.copy = button("Copy link", () => this.copyLink());
    this.copy.hidden = !shareSupported();
    bar.append(liveLabel, this.presenter, this.copy);

    const linkId = `instr-link-${this.labId}`;
    this.linkBox = h("div", { class: "instr-link", hidden: true });
    this.linkField = h("input", { type: "text", id: linkId, readonly: true, spellcheck: "false" });
    this.linkField.addEventListener("focus", () => this.linkField.select());
    this.linkBox.append(h("label", { for: linkId }, "Link to this code"), this.linkField);

    this.logits = new LogitsPanel(this.labId, { onValues: (values, note) => this.writeLogits(values, note) });

    this.predictSlot = h("div", { class: "instr-predict-slot" });
    // Not role=status: the lab already has one status line, and two would be ambiguous; aria-live still speaks.
    this.notes = h("p", { class: "instr-note", "aria-live": "polite", "aria-atomic": "true" });

    const wrap = h("div", { class: "instr" });
    wrap.append(bar, this.linkBox, this.logits.root, this.predictSlot, this.notes);
    tools.append(wrap);
  }

  say(text) {
    this.notes.textContent = text;
  }

  /** The restore note (above the editor): a sentence and a few buttons. */
  note(text, actions = [], { focus = false } = {}) {
    const p = this.c.restoreNote;
    if (!p) return;
    p.replaceChildren(h("span", {}, text), ...actions.map(([label, fn]) => button(label, fn)));
    p.hidden = false;
    p.setAttribute("tabindex", "-1"); // focus target after its own button replaced itself
    if (focus) p.focus();
  }

  clearNote({ focusEditor = false } = {}) {
    const p = this.c.restoreNote;
    if (!p) return;
    const hadFocus = p.contains(document.activeElement);
    p.replaceChildren();
    p.hidden = true;
    if (hadFocus || focusEditor) this.focusEditor();
  }

  focusEditor() {
    const target = this.section.querySelector(".cm-content") || this.section.querySelector("[data-lab-code]");
    if (target) target.focus();
  }

  // ----- events -----

  wire() {
    this.section.addEventListener("lab:change", (e) => this.onChange(String(e.detail && e.detail.code)));
    this.section.addEventListener("lab:result", (e) => this.onResult(e.detail));
    this.c.beforeRun = (code) => this.beforeRun(code);
    this.liveBox.addEventListener("change", () => {
      this.say(this.liveBox.checked ? "Live mode on: the lab re-runs each edit after a short pause." : "Live mode off.");
      if (!this.liveBox.checked) clearTimeout(this.live.timer);
    });
    // Save what is typed even if the tab closes inside the debounce window.
    addEventListener("pagehide", () => this.flushSave());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "hidden") this.flushSave();
    });
  }

  onChange(code) {
    if (!this.writingLogits) this.logits.sync(code);
    if (this.fromShare) {
      // The learner made the shared code their own: from now on it is saved like any edit, and a reload
      // should bring back their version, not the link's.
      this.fromShare = false;
      const url = new URL(location.href);
      url.hash = "";
      history.replaceState(history.state, "", url.href.replace(/#$/, ""));
    }
    const note = this.c.restoreNote;
    if (code === this.c.original && note && !note.hidden && this.noteKind === "restored") this.clearNote();
    this.scheduleSave();
    this.scheduleLive();
  }

  writeLogits(values, announce) {
    const code = rewriteRaw(this.c.getCode(), values);
    if (code === null) return;
    const resync = values.length !== (this.logits.values || []).length;
    this.writingLogits = true;
    try {
      this.c.setCode(code);
    } finally {
      this.writingLogits = false;
    }
    // Same count: the typed value stays as typed. New count: rebuild the inputs.
    if (resync) this.logits.sync(code);
    else this.logits.values = values.slice();
    if (announce) this.say(announce);
  }

  // ----- saved code -----

  scheduleSave() {
    if (!this.key) return;
    this.dirty = true;
    clearTimeout(this.saveTimer);
    this.saveTimer = setTimeout(() => this.flushSave(), SAVE_DEBOUNCE_MS);
  }

  flushSave() {
    clearTimeout(this.saveTimer);
    if (!this.dirty || !this.key) return;
    this.dirty = false;
    const code = this.c.getCode();
    if (code === this.c.original) {
      // Reset clears the entry, except for an older edit the learner has not decided about yet.
      if (this.other) store.save(this.key, { schema: SCHEMA, base: this.other.base, code: this.other.code, savedAt: this.other.savedAt });
      else store.remove(this.key);
      return;
    }
    const entry = { schema: SCHEMA, base: this.codeHash, code, savedAt: new Date().toISOString() };
    if (this.other) entry.earlier = this.other;
    store.save(this.key, entry);
  }

  loadSaved() {
    const entry = this.key ? store.load(this.key, savedShape(store.is)) : null;
    if (!entry) return null;
    return { base: entry.base, code: entry.code, savedAt: entry.savedAt || null, earlier: entry.earlier || null };
  }

  /** Show `code` without a lab:change (nothing was edited), keeping the logits panel in step. */
  show(code) {
    this.c.setCode(code, { silent: true });
    this.logits.sync(code);
  }

  restoreSaved(saved) {
    if (saved.code === this.c.original && !saved.earlier) {
      store.remove(this.key); // nothing to offer: the edit is exactly the code on screen
      return;
    }
    if (saved.base === this.codeHash) {
      if (saved.code !== this.c.original) this.show(saved.code);
      this.other = saved.earlier;
      this.showRestored();
    } else {
      // The lesson's starter changed: its new code is what the text now describes, so load it, and keep the
      // learner's edit one click away (never silently loaded, never silently dropped).
      this.other = { base: saved.base, code: saved.code, savedAt: saved.savedAt };
      this.showChanged();
    }
  }

  showRestored() {
    this.noteKind = "restored";
    const actions = [["Start from the lesson’s code", () => this.startFromLesson()]];
    let text = "Restored your edited code from your last visit.";
    if (this.other) {
      text += " An edit you made before the lesson’s code changed is kept too.";
      actions.push(["Switch to that older edit", () => this.switchToOther("Switched to your older edit. The newer one is kept.")]);
    }
    this.note(text, actions);
  }

  showChanged() {
    this.noteKind = "changed";
    this.note("The lesson’s code changed since your last visit.", [
      ["Restore my edited version", () => this.switchToOther("Restored your edited version. It was written for the lesson’s earlier code.")],
      ["Keep the new code", () => this.forgetOther()],
    ]);
  }

  startFromLesson() {
    this.c.reset(); // fires lab:change with the original: the saved entry is cleared
    this.noteKind = "reset";
    this.note("Now showing the lesson’s code. Ctrl+Z in the editor brings your edit back.", [], { focus: true });
  }

  switchToOther(message) {
    const target = this.other;
    if (!target) return;
    const current = this.c.getCode();
    // Swap, so nothing is lost: the version being replaced becomes the one on offer (unless it is the starter).
    this.other = current !== this.c.original ? { base: this.codeHash, code: current, savedAt: new Date().toISOString() } : null;
    this.c.setCode(target.code); // an edit from the lab's point of view: saved, panel and Live follow
    this.flushSave();
    this.noteKind = "restored";
    const actions = [["Start from the lesson’s code", () => this.startFromLesson()]];
    if (this.other) actions.push(["Switch back", () => this.switchToOther("Switched back.")]);
    this.note(message, actions, { focus: true });
  }

  forgetOther() {
    this.other = null;
    this.dirty = true;
    this.flushSave();
    this.noteKind = "kept";
    this.note("Keeping the lesson’s new code. Your old edit was removed.", [], { focus: true });
  }

  // ----- share links -----

  async openShared(hash, saved) {
    let shared;
    try {
      shared = await decodeShare(hash);
    } catch (err) {
      console.warn("lab: unreadable share link:", err.message);
      if (saved) this.other = { base: saved.base, code: saved.code, savedAt: saved.savedAt };
      this.noteKind = "bad-link";
      this.note(
        "This shared link could not be read (it may have been cut off or changed), so the lesson’s code is shown.",
        this.other ? [["Restore my edited version", () => this.switchToOther("Restored your edited version.")]] : [],
      );
      return;
    }
    // Shown, never run: the learner decides when code from a link runs.
    this.show(shared.code);
    this.fromShare = true;
    // The learner's own saved edit stays in storage, and is carried along if they edit the shared code.
    if (saved) this.other = { base: saved.base, code: saved.code, savedAt: saved.savedAt };
    this.noteKind = "shared";
    this.note("This code came from a shared link. Press Run to run it.", [["Back to the lesson’s code", () => this.backToLesson()]]);
    this.section.scrollIntoView({ block: "start" });
  }

  backToLesson() {
    this.c.setCode(this.c.original); // lab:change: drops the link from the address bar
    if (this.other) {
      this.noteKind = "changed";
      this.note("Now showing the lesson’s code. Your own edited version is still saved.", [
        ["Restore my edited version", () => this.switchToOther("Restored your edited version.")],
      ], { focus: true });
    } else {
      this.noteKind = "reset";
      this.note("Now showing the lesson’s code.", [], { focus: true });
    }
  }

  async copyLink() {
    let fragment;
    try {
      fragment = await encodeShare(this.labId, this.c.getCode());
    } catch (err) {
      console.warn("lab: could not make a share link", err);
      this.say("Sorry, this browser could not make a link.");
      return;
    }
    const url = new URL(location.href);
    url.searchParams.delete(PRESENT_PARAM); // the class should not open in presenter mode
    url.hash = fragment;
    this.linkField.value = url.href;
    this.linkBox.hidden = false;
    try {
      await navigator.clipboard.writeText(url.href);
      this.say("Link copied. It opens this code without running it.");
    } catch {
      // No clipboard permission (or an insecure origin): leave the link selected for Ctrl+C.
      this.linkField.focus();
      this.linkField.select();
      this.say("Copying was not allowed here: the link is selected below, press Ctrl+C (⌘+C on a Mac) to copy it.");
    }
  }

  // ----- Live mode -----

  scheduleLive() {
    if (!this.liveBox.checked) return;
    clearTimeout(this.live.timer);
    this.live.timer = setTimeout(() => this.liveRun(), LIVE_DEBOUNCE_MS);
  }

  async liveRun() {
    if (this.live.busy) {
      this.live.again = true; // one more run after this one, with whatever the code is then
      return;
    }
    this.live.busy = true;
    try {
      do {
        this.live.again = false;
        // keepOutputOnError: asks the lab to leave the last good output in place when this run fails
        // (ignored by a lab.js without that option; see the report to the lead).
        const record = await this.c.run({ keepOutputOnError: true });
        this.reportLive(record);
      } while (this.live.again && this.liveBox.checked);
    } finally {
      this.live.busy = false;
    }
  }

  reportLive(record) {
    if (!record || record.stopped) return;
    if (record.ok) {
      if (this.liveError) this.say("");
      this.liveError = false;
      return;
    }
    this.liveError = true;
    const runs = this.c.runs;
    const before = runs.length > 1 ? runs[runs.length - 2] : null;
    let where = "";
    if (record.keptOutput) where = " The last good output is still shown.";
    else if (before && before.ok) where = " The last good output is under “Previous run”.";
    const line = record.error && record.error.line ? ` on line ${record.error.line}` : "";
    this.say(`Live: this edit has an error${line}.${where}`);
  }

  // ----- predict, then run -----

  beforeRun(code) {
    // Instructors in Live mode are never stopped by a question; learners are asked once per page load.
    if (this.predictDone || this.liveBox.checked || this.live.busy) return true;
    const raw = parseRaw(code);
    if (!raw || !this.originalRaw || sameList(raw.values, this.originalRaw)) return true;
    if (!largest(this.config.chart).size) return true; // nothing to check a prediction against
    if (!this.predictPromise) {
      this.predictPromise = this.askPrediction(raw.values).finally(() => {
        this.predictPromise = null;
      });
    }
    return this.predictPromise;
  }

  question(values) {
    const o = this.originalRaw;
    const doubled = o.length === values.length && o.some((x) => x !== o[0]) && values.every((x, i) => x - values[0] === 2 * (o[i] - o[0]));
    return doubled
      ? "Before you run: doubling all score gaps will make each distribution…"
      : "Before you run: how will the largest probability move for each head_dim?";
  }

  askPrediction(values) {
    const returnTo = document.activeElement;
    const name = `instr-predict-${this.labId}-${uid++}`;
    const set = h("fieldset", { class: "instr-predict" });
    set.append(h("legend", {}, this.question(values)));
    set.append(h("p", { class: "instr-hint" }, "Compared with the lesson’s output for the original scores. Sharper means the largest probability goes up."));
    const options = h("div", { class: "instr-options" });
    for (const value of ["sharper", "flatter", "unchanged"]) {
      const id = `${name}-${value}`;
      const label = h("label", { for: id, class: "instr-option" });
      label.append(h("input", { type: "radio", name, id, value }), document.createTextNode(` ${value}`));
      options.append(label);
    }
    const problem = h("p", { class: "instr-problem", "aria-live": "assertive" });
    const row = h("div", { class: "instr-row" });
    set.append(options, problem, row);
    this.predictSlot.replaceChildren(set);

    return new Promise((resolve) => {
      const close = (go) => {
        set.remove();
        if (returnTo && returnTo.isConnected) returnTo.focus();
        else this.section.querySelector("[data-lab-run]")?.focus();
        resolve(go);
      };
      const runButton = button("Run with this prediction", () => {
        const chosen = set.querySelector("input:checked");
        if (!chosen) {
          problem.textContent = "Choose sharper, flatter or unchanged first, or press “Skip and run”.";
          set.querySelector("input").focus();
          return;
        }
        this.predictDone = true;
        this.pendingPrediction = chosen.value;
        this.say(`Your prediction: ${chosen.value}. Running…`);
        close(true);
      }, "instr-primary");
      const skip = button("Skip and run", () => {
        this.predictDone = true; // skipping is an answer too: do not ask again on this visit
        this.say("");
        close(true);
      });
      row.append(runButton, skip);
      // Escape backs out entirely: no run, and the question comes back next time.
      set.addEventListener("keydown", (e) => {
        if (e.key === "Escape") {
          e.preventDefault();
          close(false);
        }
      });
      set.querySelector("input").focus();
    });
  }

  onResult(record) {
    if (!record || !this.pendingPrediction || !record.ok) return; // a failed run: check on the next good one
    const raw = parseRaw(record.code);
    if (!raw || sameList(raw.values, this.originalRaw)) return;
    const prediction = this.pendingPrediction;
    this.pendingPrediction = null;
    this.say(verdictText(prediction, compareSharpness(this.config.chart, record.chart)));
  }
}

// ---------- entry ----------

async function attach(section, controller, page, shareHash) {
  if (started.has(section)) return;
  started.add(section);
  try {
    const tools = new Instructor(section, controller, page);
    const saved = tools.loadSaved();
    if (shareHash) await tools.openShared(shareHash, saved);
    else if (saved) tools.restoreSaved(saved);
  } catch (err) {
    console.error("lab: instructor tools could not start", err); // the lab itself keeps working
  }
}

/** Add the tools to every lab under root, now or when its controller is ready (`pageStore`: see the top). */
export function init(root, page, pageStore) {
  if (!pageStore || typeof pageStore.load !== "function" || !pageStore.is) throw new TypeError("lab-instructor: init needs the page's store");
  store = pageStore;
  applyPresenterFromURL();
  const pageData = page || readJSON(document.getElementById("lesson-data")) || {};
  const sections = [...root.querySelectorAll("[data-lab]")];
  const target = shareTarget(location.hash);
  const ids = sections.map((s) => readJSON(s.querySelector("[data-lab-config]"))?.id || s.dataset.lab);
  const unknownTarget = target !== null && !ids.includes(target);
  sections.forEach((section, i) => {
    const shareHash = target !== null && ids[i] === target ? location.hash : null;
    const start = (controller) => {
      attach(section, controller, pageData, shareHash).then(() => {
        if (unknownTarget && i === 0 && section.labController?.restoreNote) {
          const p = section.labController.restoreNote;
          p.textContent = "This link is for a lab that is not on this page, so the lesson’s code is shown.";
          p.hidden = false;
        }
      });
    };
    if (section.labController) start(section.labController);
    else section.addEventListener("lab:ready", (e) => start(e.detail.controller), { once: true });
  });
}
