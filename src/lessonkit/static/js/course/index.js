// The course index's progress (main.js imports this on the page whose data says "page": "index"): each lesson's
// progress in this browser in its `[data-lesson-progress]`, the Continue link in `[data-course-continue]`, and the
// progress tools in `[data-progress-tools]` (Download my progress, Load progress, Reset progress). The page reads
// without it: these elements are hidden until it fills them. The course manifest is the page's JSON island
// `#course-manifest`; progress.js does the reading, writing and checking, this module only shows it.
import * as progress from "./progress.js";
import { language, num, t, tn } from "./progress.js";

// The page's DOM helpers (page/dom.js: h, plural), handed in with the page by init(): this bundle shares no module
// with the page's.
let h = null;
let plural = null;

/** A file's export time for a person: "1 December 2026, 10:15" in their own time zone, or the text as written. */
function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(language(), { dateStyle: "long", timeStyle: "short" });
}

/** A course's own block types' progress modules (page.blockModules), registered before anything is counted. */
export async function loadCourseTypes(page) {
  const types = Object.entries(page.blockModules || {}).filter(([, urls]) => urls.progress);
  const loaded = await Promise.all(types.map(([, urls]) => import(new URL(urls.progress, document.baseURI).href)));
  types.forEach(([name], n) => progress.registerProgress(name, loaded[n].progress));
}

/** Start the index's progress: `page` is the page's data (main.js), with its store. */
export function init(page) {
  ({ h, plural } = page.dom);
  const manifest = JSON.parse(document.getElementById("course-manifest").textContent);
  const store = page.store;
  const tools = document.querySelector("[data-progress-tools]");
  const cont = document.querySelector("[data-course-continue]");

  /** A meter of `done` of `total`, named for what it measures (`label`); none when there is nothing to measure. */
  function meter(done, total, label) {
    if (!total) return null;
    return h("meter", { class: "progress-meter", min: "0", max: String(total), value: String(done), "aria-label": label });
  }

  /** Fill every lesson's progress, each part's total and the Continue link from what this browser saved now. */
  function refresh() {
    const states = new Map();
    for (const item of document.querySelectorAll("[data-lesson]")) {
      const lesson = manifest.lessons.find((l) => l.slug === item.dataset.lesson);
      const slot = item.querySelector("[data-lesson-progress]");
      if (!lesson || !slot) continue;
      const p = progress.lessonProgress(lesson, store);
      const status = progress.state(p);
      const measured = progress.measure(p);
      states.set(lesson.slug, { status, measured });
      slot.replaceChildren(
        h("span", { class: "progress-state", "data-state": status }, progress.STATE_WORDS[status]),
        ...[meter(measured.done, measured.total, t("index.meter", { title: lesson.title }))].filter(Boolean),
        ...(p.started ? [h("span", { class: "progress-words" }, progress.describe(p, plural))] : []),
      );
      slot.dataset.started = String(p.started);
      slot.hidden = false;
    }
    for (const section of document.querySelectorAll("[data-part]")) {
      const part = (manifest.parts || []).find((pt) => pt.id === section.dataset.part);
      const slot = section.querySelector("[data-part-progress]");
      if (!part || !slot) continue;
      const mine = part.lessons.map((slug) => states.get(slug)).filter(Boolean);
      const done = mine.filter((s) => s.status === "done").length;
      const sum = mine.reduce((acc, s) => ({ done: acc.done + s.measured.done, total: acc.total + s.measured.total }),
        { done: 0, total: 0 });
      slot.replaceChildren(
        h("span", { class: "progress-words" }, tn("index.part_done", mine.length, { done: num(done) })),
        ...[meter(sum.done, sum.total, t("index.meter", { title: part.title }))].filter(Boolean),
        ...(sum.total ? [h("span", { class: "progress-words" }, tn("index.part_answered", sum.total, { done: num(sum.done) }))] : []),
      );
      slot.hidden = false;
    }
    const last = progress.lastLesson(manifest, store);
    if (cont) {
      cont.replaceChildren();
      if (last) cont.append(t("index.continue"), h("a", { href: last.href }, last.title));
      cont.hidden = !last;
    }
  }

  refresh();
  addEventListener("storage", refresh); // another tab answered, drafted or reset
  addEventListener("pageshow", (event) => event.persisted && refresh()); // back from a lesson (back/forward cache)
  if (tools) initTools(tools, manifest, store, refresh);
}

/** The Download / Load / Reset tools, their confirmation step and their messages (a live region). */
function initTools(tools, manifest, store, refresh) {
  const intro = h("p", {}, t("index.tools_intro"));
  const actions = h("div", { class: "progress-actions" });
  const download = h("button", { type: "button" }, t("index.download"));
  const load = h("button", { type: "button", class: "secondary" }, t("index.load"));
  const reset = h("button", { type: "button", class: "secondary" }, t("index.reset"));
  const input = h("input", { type: "file", accept: ".json,application/json", "aria-label": t("index.file"), hidden: "" });
  actions.append(download, load, reset, input);
  const confirm = h("div", { class: "progress-confirm", role: "group", "aria-labelledby": "progress-confirm-text" });
  confirm.hidden = true;
  const message = h("p", { class: "progress-message", role: "status", "aria-live": "polite" });
  tools.append(intro, actions, confirm, message);
  tools.hidden = false;

  const say = (text) => {
    message.textContent = text;
  };

  /** Ask before acting: a question (and a list), then `yes` or `no`; focus returns to `back`. */
  function ask({ question, items = [], yes, onYes, no = t("index.cancel"), onNo, focusNo = false, back }) {
    confirm.replaceChildren();
    const text = h("p", { id: "progress-confirm-text" }, question);
    confirm.append(text);
    if (items.length) {
      const list = h("ul");
      for (const item of items) list.append(h("li", {}, item));
      confirm.append(list);
    }
    const yesButton = h("button", { type: "button" }, yes);
    const noButton = h("button", { type: "button", class: "secondary" }, no);
    const row = h("div", { class: "progress-actions" });
    row.append(yesButton, noButton);
    confirm.append(row);
    confirm.hidden = false;
    const close = () => {
      confirm.hidden = true;
      confirm.replaceChildren();
      back.focus();
    };
    yesButton.addEventListener("click", () => {
      close();
      onYes();
    });
    noButton.addEventListener("click", () => {
      close();
      onNo();
    });
    confirm.onkeydown = (event) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      close();
      onNo();
    };
    (focusNo ? noButton : yesButton).focus();
  }

  download.addEventListener("click", async () => {
    let file;
    try {
      file = await progress.exportProgress(manifest, store);
    } catch (err) {
      say(t("index.download_failed", { error: err.message }));
      return;
    }
    const name = progress.fileName(manifest);
    const url = URL.createObjectURL(new Blob([progress.fileText(file)], { type: "application/json" }));
    const link = h("a", { href: url, download: name });
    link.hidden = true;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000); // the download has long started by then
    const kept = Object.values(file.lessons).filter((l) => Object.keys(l.entries).length).length;
    say(tn("index.downloaded", kept, { name, total: num(manifest.lessons.length) }));
  });

  load.addEventListener("click", () => {
    input.value = ""; // the same file chosen again is a new choice
    input.click();
  });

  input.addEventListener("change", async () => {
    const chosen = input.files && input.files[0];
    if (!chosen) return;
    confirm.hidden = true;
    let checked;
    try {
      checked = chosen.size > progress.MAX_FILE_BYTES ? { ok: false, message: progress.REFUSED.large }
        : await progress.checkFile(await chosen.text(), manifest, store, plural);
    } catch (err) {
      checked = { ok: false, message: err.message };
    }
    if (!checked.ok) {
      say(t("index.not_loaded", { why: checked.message, nothing: String(progress.NOTHING_CHANGED) }));
      load.focus();
      return;
    }
    const { plan } = checked;
    const skipped = skippedText(plan.skipped);
    if (!plan.writes.length) {
      say(t("index.nothing_to_load", { name: chosen.name, skipped: spaced(skipped), nothing: String(progress.NOTHING_CHANGED) }));
      load.focus();
      return;
    }
    say("");
    ask({
      question: tn("index.load_question", plan.lessons.length, { name: chosen.name, when: when(plan.exported),
        skipped: spaced(skipped) }),
      items: plan.lessons.map((l) => `${l.title}: ${l.progress}`),
      yes: t("index.restore"),
      onYes: () => {
        if (!progress.applyPlan(plan, store)) {
          say(t("index.not_saved", { nothing: String(progress.NOTHING_CHANGED) }));
          return;
        }
        refresh();
        say(tn("index.restored", plan.lessons.length, { entries: tn("index.entries", plan.writes.length), name: chosen.name }));
      },
      onNo: () => say(t("index.load_cancelled", { nothing: String(progress.NOTHING_CHANGED) })),
      back: load,
    });
  });

  reset.addEventListener("click", () => {
    say("");
    ask({
      question: t("index.reset_question"),
      yes: t("index.remove"),
      onYes: () => {
        const removed = progress.resetProgress(manifest, store);
        refresh();
        const entries = tn("index.saved_entries", removed.entries);
        say(removed.entries ? tn("index.reset_done", removed.lessons, { entries }) : t("index.nothing_to_reset"));
      },
      onNo: () => say(t("index.kept", { nothing: String(progress.NOTHING_CHANGED) })),
      focusNo: true,
      back: reset,
    });
  });
}

/** A sentence after another: " " and it, or "" for none. */
const spaced = (text) => (text ? ` ${text}` : "");

/** "Skipped 1 lesson and 2 entries this course does not have (they were not loaded)." or "". */
function skippedText({ lessons, entries }) {
  const parts = [];
  if (!lessons && !entries) return "";
  const what = lessons && entries ? t("index.and", { a: tn("index.lessons", lessons), b: tn("index.entries", entries) })
    : lessons ? tn("index.lessons", lessons) : tn("index.entries", entries);
  return t("index.skipped", { what });
}
