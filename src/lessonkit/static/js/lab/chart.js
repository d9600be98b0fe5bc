// Grouped bar charts (inline SVG) of the charts a lab draws with labkit.bars (the `Chart` of lab/protocol.js): one
// group per label, one bar colour per series, a legend, and a table with the same numbers. Every text is set as
// text. The figure's accessible name says where it is ("Chart of this run"), the chart's title, and every value.
// Heatmaps and line charts (labkit.heatmap, labkit.lines) are drawn by lab/heatmap.js and lab/lines.js.

import { t } from "../page/words.js";
import { heatmapFigure } from "./heatmap.js";
import { CHAR_PX, chartTitle, dataTable, drawn, html, legendCaption, mirror, nameTable, scale, svg, titleOf,
  valueText } from "./chart-parts.js";
import { linesFigure } from "./lines.js";

const H = 260;
const M = { top: 16, right: 12, bottom: 46, left: 52 };
const DRAWN_SERIES = 8; // bar colours (lab-chart.css): more series are listed in the table, not drawn

/** A value as the chart shows it, in the page's language: percent charts "66.5%" ("66,5 %" in German), others
 * whole numbers as they are, else 3 decimals; a negative one with a real minus sign ("−0.665"). A heatmap says it is a percent chart itself, the others by their y axis. */
export function formatValue(chart, value) {
  return valueText(value, chart.type === "heatmap" ? chart.percent : chart.y.percent);
}

/** "k 4" (or the series' name alone when the chart does not say what its series are). */
function seriesName(chart, series) {
  return chart.series_title ? `${chart.series_title} ${series.name}` : series.name;
}

/** "position 2" (or the label alone). */
function spoken(chart, label) {
  return chart.x.item ? `${chart.x.item} ${label}` : label;
}

/** "k 1: input -4 0.018, input -2 0.119, …; k 4: …" */
function summary(chart) {
  return chart.series
    .map((s) => `${seriesName(chart, s)}: ${s.values.map((v, i) => `${spoken(chart, chart.labels[i])} ${formatValue(chart, v)}`).join(", ")}`)
    .join("; ");
}


/** Rename every figure renderCharts drew in container (their aria-labels), without redrawing them. */
export function relabelCharts(container, label) {
  for (const figure of container.children) {
    const entry = drawn.get(figure);
    if (entry) entry.svg.setAttribute("aria-label", `${label}. ${entry.text}.`);
    nameTable(figure, label);
  }
}

/**
 * Draw charts into container (replacing its content): one figure each. `label` says where they are ("Chart of this
 * run"); `width` is the container's width when the caller knows it (reading it here after DOM writes would force a
 * layout). The figures are built detached and attached with one DOM write. Returns the figures.
 */
export function renderCharts(container, charts, { label, width } = {}) {
  const W = Math.round(Math.max(300, Math.min(560, width || container.clientWidth || 560)));
  const draw = { heatmap: heatmapFigure, lines: linesFigure };
  const figures = charts.map((chart) => (draw[chart.type] || figureFor)(chart, label, W));
  for (const figure of figures) nameTable(figure, label);
  container.replaceChildren(...figures);
  return figures;
}

function figureFor(chart, label, W) {
  const series = chart.series.slice(0, DRAWN_SERIES);
  const groups = chart.labels.length;
  const { low, high, ticks, tick, bar: barText } = scale(chart, series.flatMap((s) => s.values));
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const groupW = plotW / groups;
  const barW = Math.min(36, (groupW * 0.8) / series.length);
  const y = (v) => M.top + plotH - ((v - low) / (high - low)) * plotH;

  const figure = html("figure", { class: "lab-chart-figure" });
  figure.append(chartTitle(chart));
  const text = `${titleOf(chart)}. ${summary(chart)}`;
  const root = svg("svg", {
    viewBox: `0 0 ${W} ${H}`,
    class: "lab-chart-svg",
    role: "img",
    "aria-label": `${label}. ${text}.`,
    preserveAspectRatio: "xMidYMid meet",
  });

  for (const value of ticks) {
    const yy = y(value);
    root.append(svg("line", { x1: M.left, x2: W - M.right, y1: yy, y2: yy, class: "lab-chart-grid" }));
    root.append(svg("text", { x: M.left - 6, y: yy + 4, "text-anchor": "end", class: "lab-chart-tick" }, tick(value)));
  }
  root.append(svg("line", { x1: M.left, x2: M.left, y1: M.top, y2: M.top + plotH, class: "lab-chart-axis" }));
  root.append(svg("line", { x1: M.left, x2: W - M.right, y1: M.top + plotH, y2: M.top + plotH, class: "lab-chart-axis" }));
  if (low < 0) root.append(svg("line", { x1: M.left, x2: W - M.right, y1: y(0), y2: y(0), class: "lab-chart-axis" }));
  const middle = M.top + plotH / 2;
  root.append(svg("text", { x: 14, y: middle, transform: `rotate(-90 14 ${middle})`, "text-anchor": "middle", class: "lab-chart-label" },
    chart.y.title));
  root.append(svg("text", { x: M.left + plotW / 2, y: H - 6, "text-anchor": "middle", class: "lab-chart-label" }, chart.x.title));

  // Group names under the axis; on a crowded axis only every few, so they never overlap.
  const widest = Math.max(...chart.labels.map((l) => l.length)) * CHAR_PX;
  // Values above the bars only when the longest fits over its bar (the tooltips and the table have them all).
  const valuesFit = barW >= 18 && Math.max(...series.flatMap((s) => s.values.map((v) => barText(v).length))) * CHAR_PX <= barW - 2;
  const every = Math.max(1, Math.ceil(widest / groupW));
  for (let g = 0; g < groups; g += 1) {
    const gx = M.left + g * groupW + (groupW - barW * series.length) / 2;
    if (g % every === 0) {
      root.append(svg("text", { x: M.left + g * groupW + groupW / 2, y: M.top + plotH + 16, "text-anchor": "middle",
        class: "lab-chart-tick" }, chart.labels[g]));
    }
    series.forEach((s, k) => {
      const value = s.values[g];
      const x = gx + k * barW;
      const top = Math.min(y(value), y(0));
      const bar = svg("rect", {
        x: x + 1,
        y: top,
        width: Math.max(1, barW - 2),
        height: Math.max(0, Math.abs(y(value) - y(0))),
        class: `lab-chart-bar lab-series-${k}`,
        "data-at": `${k},${g}`, // which value it is (compare-dom.js marks the changed ones)
      });
      bar.append(svg("title", {}, `${seriesName(chart, s)}, ${spoken(chart, chart.labels[g])}: ${formatValue(chart, value)}`));
      root.append(bar);
      if (valuesFit) {
        root.append(svg("text", { x: x + barW / 2, y: top - 3, "text-anchor": "middle", class: "lab-chart-value" }, barText(value)));
      }
    });
  }
  figure.append(mirror(root, W));

  figure.append(legendCaption(chart, series, (k) => `lab-chart-swatch lab-series-${k}`, table(chart)));
  drawn.set(figure, { svg: root, text, chart });
  return figure;
}

/** The same numbers as a table, in a disclosure: a row per series, a column per label. */
function table(chart) {
  const item = chart.x.item ? chart.x.item[0].toUpperCase() + chart.x.item.slice(1) : "";
  return dataTable([chart.series_title || t("chart.series"), ...chart.labels.map((label) => (item ? `${item} ${label}` : label))],
    chart.series.map((s) => [s.name, ...s.values.map((value) => formatValue(chart, value))]));
}
