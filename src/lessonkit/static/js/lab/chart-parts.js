// What the lab's chart modules share (lab/chart.js, lab/heatmap.js, lab/lines.js): making SVG and HTML elements
// (every text set as text), numbers as charts write them (in the page's language: page/words.js `num` and `pct`,
// the build's own formats, without thousands separators, as a widget's table writes its cells), the value axis,
// each drawn figure's description, a chart's name, the title above a figure and the caption under it: its legend and
// its data as a table.
import { num, pct, t, tn } from "../page/words.js";

const SVG = "http://www.w3.org/2000/svg";

export const CHAR_PX = 6.5; // about one character of a 12 px label

/** An SVG element with these attributes (and text). */
export function svg(tag, attrs = {}, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** An HTML element with these attributes (and text). */
export function html(tag, attrs = {}, text) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** A number's text with a real minus sign (U+2212), and no sign on a value shown as zero ("-0,000" → "0,000"). */
export function signed(text) {
  if (!/[1-9]/.test(text)) return text.replace(/^[-\u2212]/, "");
  return text.replace(/^-/, "\u2212");
}

/** A number as a chart writes it: the page's language's digits and signs, no thousands separators; `digits`
 * decimals, or (null) as many as it has, up to 6. */
export const plain = (value, digits = null) => signed(num(value, digits, { grouping: false }));

/** A value as charts write it: "66.5%" when percent ("66,5 %" in German), whole numbers as they are, else 3
 * decimals; a real minus. */
export function valueText(value, percent) {
  if (percent) return signed(pct(value, 1, { grouping: false }));
  return plain(value, Number.isInteger(value) ? 0 : 3);
}

/** A chart's name: labkit's `title=` (or its y axis' title), else its kind in the page's language ("Bar chart"). */
export function titleOf(chart) {
  if (chart.title) return chart.title;
  if (chart.type === "heatmap") return t("chart.heatmap_title");
  return chart.type === "lines" ? t("chart.lines_title") : t("chart.bars_title");
}

/** What a heatmap calls a masked cell: the lab's words, else "masked" in the page's language. */
export const maskedOf = (chart) => chart.masked || t("widget.masked");

/**
 * A chart's title as text above it (titleOf): two charts side by side each have their caption in sight. Screen
 * readers have it already, first in the image's name, so it is hidden from them here.
 */
export function chartTitle(chart) {
  return html("p", { class: "lab-chart-title", "aria-hidden": "true" }, titleOf(chart));
}

/** Whether the page reads right to left (its <html dir>): its charts are then drawn mirrored (mirror). */
export const rightToLeft = () => document.documentElement.dir === "rtl";

const ANCHORS = { start: "end", end: "start", middle: "middle" };
const flip = (W, value) => String(Math.round((W - Number(value)) * 100) / 100);

/**
 * A drawn chart's SVG (`W` wide) mirrored for a right-to-left page, as a right-to-left reader lays out a chart: the
 * first group of bars, a heatmap's first column and a line chart's first x on the right, the value axis and the row
 * labels on the right, every text still read as written (the SVG's own direction left to right, anchors swapped).
 * Nothing changes on a left-to-right page. Returns root.
 */
export function mirror(root, W) {
  if (!rightToLeft()) return root;
  root.style.direction = "ltr"; // the anchors below are the drawing's own sides, not the text's
  for (const el of root.querySelectorAll("line, rect, text, circle, polyline")) {
    if (el.closest("defs")) continue; // a hatch pattern's own tile
    for (const name of ["x1", "x2", "cx"]) if (el.hasAttribute(name)) el.setAttribute(name, flip(W, el.getAttribute(name)));
    if (el.tagName === "rect" && el.hasAttribute("x")) {
      el.setAttribute("x", flip(W, Number(el.getAttribute("x")) + Number(el.getAttribute("width") || 0)));
    } else if (el.tagName === "text") {
      el.setAttribute("x", flip(W, el.getAttribute("x")));
      el.setAttribute("text-anchor", ANCHORS[el.getAttribute("text-anchor") || "start"]);
      const turn = /^rotate\(([-\d.]+) ([-\d.]+) ([-\d.]+)\)$/.exec(el.getAttribute("transform") || "");
      if (turn) el.setAttribute("transform", `rotate(${turn[1]} ${flip(W, turn[2])} ${turn[3]})`);
    } else if (el.tagName === "polyline") {
      el.setAttribute("points", el.getAttribute("points").split(" ")
        .map((point) => point.split(",")).map(([x, y]) => `${flip(W, x)},${y}`).join(" "));
    }
  }
  return root;
}

// Each drawn figure's SVG and its description, so a figure that moves (to "Previous run") can be renamed.
export const drawn = new WeakMap();

/**
 * The value axis: its ends, its ticks and the short text above a bar ("66.5" on percent charts; otherwise as many
 * decimals as the axis' step needs). Percent charts run 0…100 % (further when a value is beyond).
 */
export function scale(chart, values) {
  const low = Math.min(0, ...values);
  if (chart.y.percent) {
    const high = Math.max(1, ...values);
    const ticks = [0, 1, 2, 3, 4].map((i) => low + ((high - low) * i) / 4);
    return { low, high, ticks, tick: (v) => signed(pct(v, 0, { grouping: false })), bar: (v) => plain(100 * v, 1) };
  }
  let high = Math.max(0, ...values);
  if (high === low) high = low + 1;
  const rough = (high - low) / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= rough);
  const first = Math.floor(low / step) * step;
  const last = Math.ceil(high / step) * step;
  const ticks = [];
  for (let v = first; v <= last + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  const decimals = values.every(Number.isInteger) ? 0 : Math.max(0, Math.ceil(-Math.log10(step)) + 1);
  return { low: first, high: last, ticks, tick: (v) => plain(Number(v.toPrecision(4))), bar: (v) => plain(v, decimals) };
}


/**
 * A chart's caption: the legend of the `shown` series as HTML (so it wraps and zooms like text; `swatch(k)` is the
 * k-th series' swatch class), a note when the chart shows fewer series than it has, and the data as a table.
 */
export function legendCaption(chart, shown, swatch, table) {
  const caption = html("figcaption", { class: "lab-chart-caption" });
  const legend = html("ul", { class: "lab-chart-legend", "aria-label": t("chart.legend") });
  shown.forEach((s, k) => {
    const item = html("li");
    item.append(html("span", { class: swatch(k), "aria-hidden": "true" }), document.createTextNode(s.legend));
    legend.append(item);
  });
  caption.append(legend);
  if (chart.series.length > shown.length) {
    caption.append(html("p", { class: "lab-chart-more" },
      tn("chart.more_series", chart.series.length, { shown: num(shown.length) })));
  }
  caption.append(table);
  return caption;
}

/**
 * A chart's numbers as a table, in a disclosure: `columns` the header row's texts (the first heads the row headers),
 * `rows` each [its header, ...its cells]; a cell is its text, or {text, class}.
 */
export function dataTable(columns, rows) {
  const details = html("details", { class: "lab-chart-table" });
  details.append(html("summary", {}, t("chart.as_table")));
  const head = html("tr");
  for (const text of columns) head.append(html("th", { scope: "col" }, text));
  const thead = html("thead");
  thead.append(head);
  const body = html("tbody");
  for (const [header, ...cells] of rows) {
    const tr = html("tr");
    tr.append(html("th", { scope: "row" }, header));
    for (const cell of cells) {
      tr.append(cell !== null && typeof cell === "object" ? html("td", { class: cell.class }, cell.text) : html("td", {}, cell));
    }
    body.append(tr);
  }
  const grid = html("table");
  grid.append(thead, body);
  // The table scrolls sideways in its own box where it is wider than the output: a named, focusable scroller, so
  // the keyboard can scroll it (its name: nameTable).
  const scroller = html("div", { class: "lab-chart-table-scroll", tabindex: "0", role: "group" });
  scroller.append(grid);
  details.append(scroller);
  return details;
}

/** Where a figure is, from the label it was drawn with ("this run" of "Chart of this run"), in the page's words. */
function whereOf(label) {
  if (!label) return "";
  if (label === t("chart.of_this_run")) return t("chart.where_this_run");
  if (label === t("chart.of_previous")) return t("chart.where_previous");
  if (label === t("chart.of_build")) return t("chart.where_build");
  return label;
}

/**
 * Name a figure's data table after its chart and where it is (`label`: "Chart of this run"), so that the disclosures
 * and scrollers of a page's charts (this run's, the previous run's, other labs') each have a name of their own.
 */
export function nameTable(figure, label) {
  const details = figure.querySelector(".lab-chart-table");
  if (!details) return;
  const title = (figure.querySelector(".lab-chart-title") || {}).textContent || t("chart.untitled");
  const where = whereOf(label);
  const named = where ? t("chart.named_where", { chart: title, where }) : title;
  const summary = details.querySelector("summary");
  let hidden = summary.querySelector(".visually-hidden");
  if (!hidden) {
    hidden = html("span", { class: "visually-hidden" });
    summary.append(hidden);
  }
  hidden.textContent = `: ${named}`;
  const scroller = details.querySelector(".lab-chart-table-scroll");
  if (scroller) scroller.setAttribute("aria-label", t("chart.data_of", { chart: named }));
}
