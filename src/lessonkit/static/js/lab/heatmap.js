// Heatmaps (inline SVG) of the matrices a lab draws with labkit.heatmap (lab/protocol.js `HeatmapChart`): one cell per
// number, shaded on one colour scale (colour-scale.js: cividis; a diverging scale centred on 0 when the values have
// both signs; 0…1 for percent charts), the value printed in a cell where it fits, in black or white for 4.5:1
// contrast on that cell. A masked cell (None or -inf) is hatched and called what the lab calls it (`masked`, "masked"
// unless worded) in the legend, its tooltip and the table, and counted in the figure's accessible name, never shaded
// like a small value. A legend shows the scale (and the hatch), and "Chart data as a table" lists every value. Every
// text is set as text.

import { t, tn } from "../page/words.js";
import { CHAR_PX, chartTitle, dataTable, drawn, html, maskedOf, mirror, plain, svg, titleOf, valueText } from "./chart-parts.js";
import { gradient, scaleFor } from "./colour-scale.js";

const M = { top: 8, right: 8, gap: 6 };
const LINE = 16; // one line of 12 px labels
const MAX_CELL = 56;
const MIN_TEXT_CELL = 16; // px: a cell smaller than this shows no value
const SPOKEN_CELLS = 64; // a matrix this small says every value in its accessible name

let patterns = 0; // each figure's hatch pattern has an id of its own

/** A cell's value as the chart writes it: "66.5%" on percent charts, whole numbers as they are, else 3 decimals. */
export function cellText(chart, value) {
  return value === null ? maskedOf(chart) : valueText(value, chart.percent);
}

/** A shorter form for a small cell: "67" (percent), "0.42" (2 significant digits), or "" when nothing shorter. */
function shortText(chart, value) {
  if (chart.percent) return plain(Math.round(100 * value), 0);
  return plain(Number(value.toPrecision(2)));
}

const rowName = (chart, i) => (chart.row_title ? `${chart.row_title} ${chart.rows[i]}` : t("chart.row", { name: chart.rows[i] }));
const colName = (chart, j) => (chart.col_title ? `${chart.col_title} ${chart.cols[j]}` : t("chart.column", { name: chart.cols[j] }));

/** What the figure says to a screen reader: its shape, its range, its masked cells, and (when small) every value. */
function summary(chart, finite) {
  const masked = chart.cells.flat().filter((v) => v === null).length;
  const titled = (text, title) => (title ? `${text} (${title})` : text);
  const rows = titled(tn("chart.n_rows", chart.rows.length), chart.row_title);
  const cols = titled(tn("chart.n_cols", chart.cols.length), chart.col_title);
  const shape = t("chart.heatmap", { rows, cols });
  const range = finite.length ? t("chart.range", { low: cellText(chart, Math.min(...finite)), high: cellText(chart, Math.max(...finite)) }) : "";
  const hidden = masked ? tn("chart.masked", masked) : "";
  if (chart.rows.length * chart.cols.length > SPOKEN_CELLS) return `${shape}${range}${hidden}${t("chart.see_table")}`;
  const values = chart.cells.map((row, i) => `${rowName(chart, i)}: ${row.map((v, j) => `${colName(chart, j)} ${cellText(chart, v)}`).join(", ")}`);
  return `${shape}${range}${hidden}. ${values.join("; ")}`;
}

/** Every nth label, so that labels `size` px apart never overlap. */
const every = (size, widest) => Math.max(1, Math.ceil(widest / size));

/** A figure for one heatmap, `label` saying where it is ("Chart of this run"), at most W px wide. */
export function heatmapFigure(chart, label, W) {
  const finite = chart.cells.flat().filter((v) => v !== null);
  const scale = scaleFor(finite, { percent: chart.percent });
  const rows = chart.rows.length;
  const cols = chart.cols.length;
  const rowChars = Math.max(...chart.rows.map((l) => l.length));
  const left = (chart.row_title ? LINE + 4 : 0) + Math.min(Math.round(W * 0.3), rowChars * CHAR_PX) + M.gap;
  const cell = Math.max(4, Math.min(MAX_CELL, Math.floor((W - left - M.right) / cols)));
  const gridW = cell * cols;
  const gridH = cell * rows;
  const bottom = M.gap + LINE + (chart.col_title ? LINE + 2 : 0);
  const H = M.top + gridH + bottom;
  const width = left + gridW + M.right;
  const id = `lab-hatch-${(patterns += 1)}`;

  const figure = html("figure", { class: "lab-chart-figure lab-heatmap-figure" });
  figure.append(chartTitle(chart));
  const text = `${titleOf(chart)}. ${summary(chart, finite)}`;
  const root = svg("svg", {
    viewBox: `0 0 ${width} ${H}`,
    class: "lab-chart-svg lab-heatmap-svg",
    role: "img",
    "aria-label": `${label}. ${text}.`,
    preserveAspectRatio: "xMinYMin meet",
    style: `--lab-heat-w: ${width}px`, // its drawn width: as wide at most (lab.css), wider in presenter mode
  });
  const defs = svg("defs");
  const pattern = svg("pattern", { id, width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" });
  pattern.append(svg("rect", { width: 6, height: 6, class: "lab-heat-hatch-ground" }), svg("line", { x1: 0, y1: 0, x2: 0, y2: 6, class: "lab-heat-hatch" }));
  defs.append(pattern);
  root.append(defs);

  const maxChars = Math.floor((left - M.gap - (chart.row_title ? LINE + 4 : 0)) / CHAR_PX);
  const clip = (l) => (l.length > maxChars ? `${l.slice(0, Math.max(1, maxChars - 1))}…` : l);
  const rowEvery = every(cell, LINE - 2);
  chart.rows.forEach((name, i) => {
    if (i % rowEvery) return;
    root.append(svg("text", { x: left - M.gap, y: M.top + i * cell + cell / 2 + 4, "text-anchor": "end", class: "lab-chart-tick" }, clip(name)));
  });
  const colEvery = every(cell, Math.max(...chart.cols.map((l) => l.length)) * CHAR_PX + 4);
  chart.cols.forEach((name, j) => {
    if (j % colEvery) return;
    root.append(svg("text", { x: left + j * cell + cell / 2, y: M.top + gridH + M.gap + 11, "text-anchor": "middle", class: "lab-chart-tick" }, name));
  });
  if (chart.row_title) {
    const middle = M.top + gridH / 2;
    root.append(svg("text", { x: 12, y: middle, transform: `rotate(-90 12 ${middle})`, "text-anchor": "middle", class: "lab-chart-label" }, chart.row_title));
  }
  if (chart.col_title) {
    root.append(svg("text", { x: left + gridW / 2, y: H - 4, "text-anchor": "middle", class: "lab-chart-label" }, chart.col_title));
  }

  chart.cells.forEach((row, i) => {
    row.forEach((value, j) => {
      const x = left + j * cell;
      const y = M.top + i * cell;
      const masked = value === null;
      const rect = svg("rect", {
        x, y, width: cell, height: cell,
        class: masked ? "lab-heat-cell lab-heat-masked" : "lab-heat-cell",
        fill: masked ? `url(#${id})` : scale.colour(value),
        "data-at": `${i},${j}`, // which value it is (compare-dom.js marks the changed ones)
      });
      rect.append(svg("title", {}, `${rowName(chart, i)}, ${colName(chart, j)}: ${cellText(chart, value)}`));
      root.append(rect);
      if (!chart.values || masked || cell < MIN_TEXT_CELL) return;
      const full = cellText(chart, value);
      const shown = [full, shortText(chart, value)].find((t) => t.length * CHAR_PX + 4 <= cell);
      if (shown) {
        root.append(svg("text", { x: x + cell / 2, y: y + cell / 2 + 4, "text-anchor": "middle", class: "lab-heat-value",
          fill: scale.text(value), "aria-hidden": "true" }, shown));
      }
    });
  });
  figure.append(mirror(root, width));

  const caption = html("figcaption", { class: "lab-chart-caption" });
  caption.append(legend(chart, scale, finite.length < chart.cells.flat().length), table(chart));
  figure.append(caption);
  drawn.set(figure, { svg: root, text, chart });
  return figure;
}

/** The colour scale's bar with its ends (and 0 in the middle of a diverging scale), and the hatch when it is used. */
function legend(chart, scale, anyMasked) {
  const box = html("div", { class: "lab-heat-legend" });
  const ends = [scale.low, scale.high].map((v) => cellText(chart, v));
  const bar = html("span", { class: "lab-heat-bar", role: "img",
    "aria-label": scale.kind === "diverging" ? t("chart.heat_diverging", { low: ends[0], zero: cellText(chart, 0), high: ends[1] })
      : t("chart.heat_sequential", { low: ends[0], high: ends[1] }) });
  bar.style.backgroundImage = gradient(scale.kind);
  const scaleRow = html("span", { class: "lab-heat-scale" });
  scaleRow.append(html("span", { class: "lab-heat-end" }, ends[0]), bar, html("span", { class: "lab-heat-end" }, ends[1]));
  box.append(scaleRow);
  if (anyMasked) {
    const item = html("span", { class: "lab-heat-key" });
    item.append(html("span", { class: "lab-heat-swatch-masked", "aria-hidden": "true" }), document.createTextNode(maskedOf(chart)));
    box.append(item);
  }
  return box;
}

/** The same numbers as a table, in a disclosure: a row per matrix row, a column per matrix column. */
function table(chart) {
  const corner = [chart.row_title, chart.col_title].filter(Boolean).join(" \\ ");
  return dataTable([corner, ...chart.cols.map((_, j) => colName(chart, j))],
    chart.cells.map((row, i) => [rowName(chart, i), ...row.map((value) => (value === null
      ? { text: cellText(chart, value), class: "lab-heat-masked-cell" } : cellText(chart, value)))]));
}
