// "Explain it back": the learner's draft is saved as they type and comes back after a reload.
import { load, remove, save, storeKey } from "./store.js";

export function init(root, page) {
  for (const el of root.querySelectorAll("[data-explain]")) enhance(el, page);
}

function enhance(el, page) {
  const config = JSON.parse(el.querySelector("[data-explain-config]").textContent);
  const key = storeKey(page.lesson, config.id, config.version);
  const box = el.querySelector("[data-draft]");
  const status = el.querySelector("[data-saved]");
  const saved = load(key);
  if (saved && typeof saved.text === "string" && !box.value) {
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
}
