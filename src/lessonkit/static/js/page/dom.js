// The page's one set of DOM helpers. main.js hands them to every module it starts (`page.dom`), so a module loaded
// later (the lab, the course index) uses these rather than importing them, which would put them in a chunk both
// bundles load.

/** An element with attributes (true: present, false/null/undefined: absent) and optional text (never HTML). */
export function h(tag, attrs = {}, text) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v == null) continue;
    el.setAttribute(k, v === true ? "" : String(v));
  }
  if (text !== undefined) el.textContent = text;
  return el;
}

/** "1 lesson", "2 lessons": a count and its noun (`many` defaults to `one` + "s"). */
export const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Resolves after the next frame has painted (a frame callback, then a task after it). */
export const afterFrame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
