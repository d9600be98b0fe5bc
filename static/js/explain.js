// "Explain it back": the learner's draft is saved as they type and comes back after a reload.
import { dropOtherVersions, is, load, remove, save, storeKey, watch } from "./store.js";

const DRAFT = is.shape({ text: is.string, savedAt: is.optional(is.number) });

export function init(root, page) {
  for (const el of root.querySelectorAll("[data-explain]")) {
    try {
      enhance(el, page);
    } catch (err) {
      console.error("explain: could not start", el.id, err); // the rest of the page still starts
    }
  }
}

function enhance(el, page) {
  const config = JSON.parse(el.querySelector("[data-explain-config]").textContent);
  const key = storeKey(page.lesson, config.id, config.version);
  const box = el.querySelector("[data-draft]");
  const status = el.querySelector("[data-saved]");
  const saved = load(key, DRAFT);
  dropOtherVersions(page.lesson, config.id, config.version);
  if (saved && saved.text && !box.value) {
    box.value = saved.text;
    status.textContent = "Your saved draft is back.";
  }
  let timer = 0;
  const flush = () => {
    clearTimeout(timer);
    timer = 0;
    const ok = box.value ? save(key, { text: box.value, savedAt: Date.now() }) : (remove(key), true);
    status.textContent = ok ? "Draft saved in this browser." : "This browser can’t save your draft.";
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
    status.textContent = draft ? "Your draft from another tab is shown." : "Your draft was cleared in another tab.";
  });
}
