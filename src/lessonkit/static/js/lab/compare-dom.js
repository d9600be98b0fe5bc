// What changed between the two runs shown, marked on the page (compare.js finds it): in both runs' output each line
// the other run has not gets a marker in the output's gutter ("▸", read as "changed"; its text is not part of the
// output, so copying it copies what was printed), and a note under "This run" says how many; in this run's charts
// each bar, cell or point whose value changed is outlined (dashed, its tooltip says what it was), and a note under
// the chart's title says how many of its values changed. `markChanges(current, previous)` marks; `clearChanges(panel)`
// takes a panel's marks away (its run is about to be compared with another).

import { num, t, tn } from "../page/words.js";
import { drawn, html } from "./chart-parts.js";
import { formatValue } from "./chart.js";
import { changedLines, changedValues, counterpart, outputLines } from "./compare.js";

const titles = new WeakMap(); // a marked chart element -> its tooltip before it was marked

/** Put a gutter marker before each line of `pre` whose index is in `lines`. */
function markLines(pre, lines) {
  pre.style.setProperty("--lab-changed-word", JSON.stringify(t("compare.changed")));
  pre.classList.add("lab-pre-compared");
  const wanted = new Set(lines);
  if (!wanted.size) return;
  const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  const places = []; // [text node, offset] where a marked line starts
  let line = 0;
  let first = true;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (first && wanted.has(0)) places.push([node, 0]);
    first = false;
    const text = node.data;
    for (let at = text.indexOf("\n"); at >= 0; at = text.indexOf("\n", at + 1)) {
      line += 1;
      if (wanted.has(line)) places.push([node, at + 1]);
    }
  }
  for (const [node, offset] of places.reverse()) {
    const mark = html("span", { class: "lab-line-mark", "data-lab-mark": "" });
    if (offset >= node.data.length) node.after(mark);
    else node.splitText(offset).before(mark);
  }
}

/** The figures drawn in a panel's chart container, each with its chart. */
function figures(panel) {
  return [...panel.chart.children].map((figure) => ({ figure, entry: drawn.get(figure) })).filter((f) => f.entry && f.entry.chart);
}

/** Outline the values of `figure` that changed from chart `before`'s, and say how many under its title. */
function markChart(figure, chart, before) {
  const { changed, total } = changedValues(before, chart, (v) => formatValue(chart, v));
  for (const { at, before: was } of changed) {
    const el = figure.querySelector(`[data-at="${at.join(",")}"]`);
    if (!el) continue; // not drawn (more series than colours, or too many points): the note counts it
    el.classList.add("lab-changed");
    const title = el.querySelector("title");
    if (title) {
      titles.set(el, title.textContent);
      title.textContent = was === undefined || was === null ? t("compare.value_new", { value: title.textContent })
        : t("compare.value_was", { value: title.textContent, was: formatValue(chart, was) });
    }
  }
  const note = html("p", { class: "lab-changes", "data-lab-changes": "" },
    changed.length ? tn("compare.values_changed", changed.length, { total: num(total) }) : t("compare.values_same"));
  const title = figure.querySelector(".lab-chart-title");
  if (title) title.after(note);
  else figure.prepend(note);
}

/** Mark what differs between the run in `current` and the one in `previous` (panels.js's panels). */
export function markChanges(current, previous) {
  clearChanges(current);
  clearChanges(previous);
  if (previous.root.hidden) return;
  const lines = changedLines(outputLines(previous.pre.textContent), outputLines(current.pre.textContent));
  markLines(current.pre, lines.after);
  markLines(previous.pre, lines.before);
  const note = html("p", { class: "lab-changes", "data-lab-changes": "" },
    lines.after.length || lines.before.length
      ? tn("compare.lines_changed", Math.max(lines.after.length, lines.before.length), { label: previous.label.textContent })
      : t("compare.lines_same", { label: previous.label.textContent }));
  current.label.after(note);
  const before = figures(previous).map((f) => f.entry.chart);
  figures(current).forEach(({ figure, entry }, i) => {
    const other = counterpart(before, entry.chart, i);
    if (other) markChart(figure, entry.chart, other);
  });
}

/** Take away a panel's marks (its output and charts stay as they are). */
export function clearChanges(panel) {
  for (const el of panel.root.querySelectorAll("[data-lab-changes], [data-lab-mark]")) el.remove();
  panel.pre.classList.remove("lab-pre-compared");
  for (const el of panel.chart.querySelectorAll(".lab-changed")) {
    el.classList.remove("lab-changed");
    const title = el.querySelector("title");
    if (title && titles.has(el)) title.textContent = titles.get(el);
    titles.delete(el);
  }
}
