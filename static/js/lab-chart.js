// Grouped bar chart (inline SVG) of softmax probability per position, one bar colour per head_dim,
// plus a text table with the same numbers. Input: labkit.chart_data output {series:[{head_dim, probs:[...]}]}.

const SVG = "http://www.w3.org/2000/svg";
const H = 260;
const M = { top: 16, right: 12, bottom: 46, left: 52 };

function svg(tag, attrs = {}, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

function html(tag, attrs = {}, text) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

const pct = (p) => `${(100 * p).toFixed(1)}%`;

function usable(chart) {
  const series = (chart && Array.isArray(chart.series) ? chart.series : []).filter(
    (s) => s && Array.isArray(s.probs) && s.probs.length && s.probs.every((p) => Number.isFinite(p)),
  );
  return series.slice(0, 8); // more bars than this stop being readable; the table still lists all
}

function summary(series) {
  return series
    .map((s) => `head_dim ${s.head_dim}: ${s.probs.map((p, i) => `position ${i + 1} ${pct(p)}`).join(", ")}`)
    .join("; ");
}

// Each drawn figure's SVG and number summary, so a figure that moves (e.g. to "Previous run") can be renamed.
const drawn = new WeakMap();

/** Rename a figure drawn by renderChart (its aria-label), without redrawing it. */
export function relabelChart(figure, label) {
  const entry = drawn.get(figure);
  if (entry) entry.svg.setAttribute("aria-label", `${label}. ${entry.summary}.`);
}

/**
 * Draw chart into container (replacing its content); returns the figure element or null when nothing to draw.
 * `width` is the container's width when the caller knows it (reading it here after DOM writes forces a layout).
 * The figure is built detached and attached with one DOM write.
 */
export function renderChart(container, chart, { label = "Softmax probability per position", width } = {}) {
  const all = chart && Array.isArray(chart.series) ? chart.series.filter((s) => s && Array.isArray(s.probs)) : [];
  const series = usable(chart);
  if (!series.length) {
    container.replaceChildren();
    return null;
  }
  // Draw at the container's width (within limits) so labels keep a readable size on phones.
  const W = Math.round(Math.max(300, Math.min(560, width || container.clientWidth || 560)));
  const positions = Math.max(...series.map((s) => s.probs.length));
  const top = Math.max(1, ...series.flatMap((s) => s.probs)); // probabilities; > 1 only if a learner prints oddities
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const groupW = plotW / positions;
  const barW = Math.min(36, (groupW * 0.8) / series.length);
  const y = (p) => M.top + plotH - (Math.max(0, p) / top) * plotH;

  const figure = html("figure", { class: "lab-chart-figure" });
  const said = summary(series);
  const root = svg("svg", {
    viewBox: `0 0 ${W} ${H}`,
    class: "lab-chart-svg",
    role: "img",
    "aria-label": `${label}. ${said}.`,
    preserveAspectRatio: "xMidYMid meet",
  });

  // Grid and y axis (0–100 %).
  for (let i = 0; i <= 4; i += 1) {
    const value = (top * i) / 4;
    const yy = y(value);
    root.append(svg("line", { x1: M.left, x2: W - M.right, y1: yy, y2: yy, class: "lab-chart-grid" }));
    root.append(svg("text", { x: M.left - 6, y: yy + 4, "text-anchor": "end", class: "lab-chart-tick" }, `${Math.round(100 * value)}%`));
  }
  root.append(svg("line", { x1: M.left, x2: M.left, y1: M.top, y2: M.top + plotH, class: "lab-chart-axis" }));
  root.append(svg("line", { x1: M.left, x2: W - M.right, y1: M.top + plotH, y2: M.top + plotH, class: "lab-chart-axis" }));
  root.append(
    svg("text", { x: 14, y: M.top + plotH / 2, transform: `rotate(-90 14 ${M.top + plotH / 2})`, "text-anchor": "middle", class: "lab-chart-label" }, "Probability"),
  );
  root.append(svg("text", { x: M.left + plotW / 2, y: H - 6, "text-anchor": "middle", class: "lab-chart-label" }, "Position (key)"));

  for (let pos = 0; pos < positions; pos += 1) {
    const gx = M.left + pos * groupW + (groupW - barW * series.length) / 2;
    root.append(svg("text", { x: M.left + pos * groupW + groupW / 2, y: M.top + plotH + 16, "text-anchor": "middle", class: "lab-chart-tick" }, String(pos + 1)));
    series.forEach((s, k) => {
      const p = s.probs[pos];
      if (p === undefined) return;
      const x = gx + k * barW;
      const bar = svg("rect", {
        x: x + 1,
        y: y(p),
        width: Math.max(1, barW - 2),
        height: Math.max(0, M.top + plotH - y(p)),
        class: `lab-chart-bar lab-series-${k % 8}`,
      });
      bar.append(svg("title", {}, `head_dim ${s.head_dim}, position ${pos + 1}: ${pct(p)}`));
      root.append(bar);
      if (barW >= 18) {
        root.append(svg("text", { x: x + barW / 2, y: y(p) - 3, "text-anchor": "middle", class: "lab-chart-value" }, (100 * p).toFixed(1)));
      }
    });
  }
  figure.append(root);

  // Legend as HTML so it wraps and zooms like text.
  const legend = html("ul", { class: "lab-chart-legend", "aria-label": "Legend" });
  series.forEach((s, k) => {
    const item = html("li");
    item.append(html("span", { class: `lab-chart-swatch lab-series-${k % 8}`, "aria-hidden": "true" }));
    item.append(document.createTextNode(`head_dim = ${s.head_dim}${s.divisor ? ` (divide by ${Number(s.divisor).toFixed(2)})` : ""}`));
    legend.append(item);
  });
  const caption = html("figcaption", { class: "lab-chart-caption" });
  caption.append(legend);

  // Text equivalent: the same numbers as a table.
  const details = html("details", { class: "lab-chart-table" });
  details.append(html("summary", {}, "Chart data as a table"));
  const table = html("table");
  const head = html("tr");
  head.append(html("th", { scope: "col" }, "head_dim"));
  const widest = Math.max(...all.map((s) => s.probs.length));
  for (let i = 0; i < widest; i += 1) head.append(html("th", { scope: "col" }, `Position ${i + 1}`));
  const thead = html("thead");
  thead.append(head);
  table.append(thead);
  const body = html("tbody");
  for (const s of all) {
    const row = html("tr");
    row.append(html("th", { scope: "row" }, String(s.head_dim)));
    for (let i = 0; i < widest; i += 1) row.append(html("td", {}, s.probs[i] === undefined ? "" : pct(s.probs[i])));
    body.append(row);
  }
  table.append(body);
  details.append(table);
  caption.append(details);
  figure.append(caption);
  drawn.set(figure, { svg: root, summary: said });
  container.replaceChildren(figure);
  return figure;
}
