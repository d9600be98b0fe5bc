// Line charts (inline SVG) of the curves a lab draws with labkit.lines (lab/protocol.js `LinesChart`): one line per
// series over one x axis, in the bar charts' series colours, a point marker with a tooltip where points are few, a
// legend, and "Chart data as a table" (a row per x, a column per series). Every text is set as text.

import { num, t, tn } from "../page/words.js";
import { CHAR_PX, chartTitle, dataTable, drawn, html, legendCaption, mirror, plain, scale, svg, titleOf,
  valueText } from "./chart-parts.js";

const H = 260;
const M = { top: 16, right: 16, bottom: 46, left: 52 };
const DRAWN_SERIES = 8; // line colours (lab-chart.css): more series are listed in the table, not drawn
const MARKED_POINTS = 40; // a curve of at most this many points marks each one (with its tooltip)
const SPOKEN_POINTS = 60; // values a figure's accessible name lists before it points to the table

/** A y value as the chart shows it (the bar charts' way: "66.5%", whole numbers as they are, else 3 decimals). */
export function lineValue(chart, value) {
  return valueText(value, chart.y.percent);
}

/** An x value as the axis writes it: as few digits as it needs. */
const xText = (x) => plain(Number(x.toPrecision(6)));

/** Nice ticks from low to high (about five), without forcing 0 in. */
function xTicks(low, high) {
  if (high === low) return [low];
  const rough = (high - low) / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= rough);
  const ticks = [];
  for (let v = Math.ceil(low / step) * step; v <= high + step / 1e6; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

const seriesName = (chart, s) => (chart.series_title ? `${chart.series_title} ${s.name}` : s.name);
const xName = (chart, x) => (chart.x.title ? `${chart.x.title} ${xText(x)}` : xText(x));

function summary(chart) {
  const xs = chart.x.values;
  const shape = tn("chart.lines", chart.series.length, { points: num(xs.length), x: chart.x.title || "x", low: xText(xs[0]), high: xText(xs[xs.length - 1]) });
  if (xs.length * chart.series.length > SPOKEN_POINTS) return `${shape}${t("chart.see_table")}`;
  return `${shape}. ${chart.series.map((s) => `${seriesName(chart, s)}: ${s.values.map((v, i) => `${xName(chart, xs[i])} ${lineValue(chart, v)}`).join(", ")}`).join("; ")}`;
}

/** A figure for one line chart, `label` saying where it is ("Chart of this run"), W px wide. */
export function linesFigure(chart, label, W) {
  const series = chart.series.slice(0, DRAWN_SERIES);
  const xs = chart.x.values;
  const { low, high, ticks, tick } = scale({ y: chart.y }, series.flatMap((s) => s.values));
  const x0 = xs[0];
  const x1 = xs[xs.length - 1];
  const plotW = W - M.left - M.right;
  const plotH = H - M.top - M.bottom;
  const x = (v) => M.left + (x1 > x0 ? ((v - x0) / (x1 - x0)) * plotW : plotW / 2);
  const y = (v) => M.top + plotH - ((v - low) / (high - low)) * plotH;

  const figure = html("figure", { class: "lab-chart-figure lab-lines-figure" });
  figure.append(chartTitle(chart));
  const text = `${titleOf(chart)}. ${summary(chart)}`;
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "lab-chart-svg", role: "img", "aria-label": `${label}. ${text}.`,
    preserveAspectRatio: "xMidYMid meet" });
  for (const value of ticks) {
    root.append(svg("line", { x1: M.left, x2: W - M.right, y1: y(value), y2: y(value), class: "lab-chart-grid" }));
    root.append(svg("text", { x: M.left - 6, y: y(value) + 4, "text-anchor": "end", class: "lab-chart-tick" }, tick(value)));
  }
  const marks = xTicks(x0, x1);
  const widest = Math.max(...marks.map((v) => xText(v).length)) * CHAR_PX + 8;
  const skip = Math.max(1, Math.ceil(widest / (plotW / Math.max(1, marks.length - 1 || 1))));
  marks.forEach((value, i) => {
    if (i % skip) return;
    root.append(svg("line", { x1: x(value), x2: x(value), y1: M.top + plotH, y2: M.top + plotH + 4, class: "lab-chart-axis" }));
    root.append(svg("text", { x: x(value), y: M.top + plotH + 16, "text-anchor": "middle", class: "lab-chart-tick" }, xText(value)));
  });
  root.append(svg("line", { x1: M.left, x2: M.left, y1: M.top, y2: M.top + plotH, class: "lab-chart-axis" }));
  root.append(svg("line", { x1: M.left, x2: W - M.right, y1: M.top + plotH, y2: M.top + plotH, class: "lab-chart-axis" }));
  if (low < 0) root.append(svg("line", { x1: M.left, x2: W - M.right, y1: y(0), y2: y(0), class: "lab-chart-axis" }));
  const middle = M.top + plotH / 2;
  root.append(svg("text", { x: 14, y: middle, transform: `rotate(-90 14 ${middle})`, "text-anchor": "middle", class: "lab-chart-label" }, chart.y.title));
  root.append(svg("text", { x: M.left + plotW / 2, y: H - 6, "text-anchor": "middle", class: "lab-chart-label" }, chart.x.title));

  series.forEach((s, k) => {
    const points = s.values.map((v, i) => `${x(xs[i]).toFixed(2)},${y(v).toFixed(2)}`).join(" ");
    root.append(svg("polyline", { points, class: `lab-line lab-line-${k}` }));
    if (xs.length > MARKED_POINTS) return;
    s.values.forEach((v, i) => {
      const dot = svg("circle", { cx: x(xs[i]), cy: y(v), r: 3.5, class: `lab-line-point lab-series-${k}`, "data-at": `${k},${i}` });
      dot.append(svg("title", {}, `${seriesName(chart, s)}, ${xName(chart, xs[i])}: ${lineValue(chart, v)}`));
      root.append(dot);
    });
  });
  figure.append(mirror(root, W));

  figure.append(legendCaption(chart, series, (k) => `lab-line-swatch lab-line-${k}`, table(chart)));
  drawn.set(figure, { svg: root, text, chart });
  return figure;
}

/** The same numbers as a table, in a disclosure: a row per x, a column per series. */
function table(chart) {
  return dataTable([chart.x.title || "x", ...chart.series.map((s) => seriesName(chart, s))],
    chart.x.values.map((xv, i) => [xText(xv), ...chart.series.map((s) => lineValue(chart, s.values[i]))]));
}
