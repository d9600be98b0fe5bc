// {explain} block, "Explain it back": the learner's draft is saved as they type and comes back after a reload, with
// the page's store (page.store: store.js, with shapes.js's `saved`).
import { t } from "../../static/js/page/i18n.js";

/** Start one block: `island` is its JSON island ({lesson, id, version}), `page` the page's data. */
export function init(el, island, page) {
  const { dropOtherVersions, load, remove, save, saved: shapes, storeKey, watch } = page.store;
  const DRAFT = shapes.draft;
  const key = storeKey(page.lesson, island.id, island.version);
  const box = el.querySelector("[data-draft]");
  const status = el.querySelector("[data-saved]");
  const saved = load(key, DRAFT);
  dropOtherVersions(page.lesson, island.id, island.version);
  if (saved && saved.text && !box.value) {
    box.value = saved.text;
    status.textContent = t("explain.back");
  }
  let timer = 0;
  const flush = () => {
    clearTimeout(timer);
    timer = 0;
    const ok = box.value ? save(key, { text: box.value, savedAt: Date.now() }) : (remove(key), true);
    status.textContent = ok ? t("explain.saved") : t("explain.not_saved");
  };
  box.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(flush, 300);
  });
  // Save a pending draft when the tab is hidden or closed, so a quick reload loses nothing.
  addEventListener("pagehide", () => timer && flush());
  document.addEventListener("visibilitychange", () => document.hidden && timer && flush());
  // A draft written in another tab replaces this one unless the learner is writing here (then theirs is saved).
  watch(key, DRAFT, (draft) => {
    if (timer || document.activeElement === box) return;
    box.value = draft ? draft.text : "";
    status.textContent = draft ? t("explain.other_tab") : t("explain.cleared");
  });
}
