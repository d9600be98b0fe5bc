/**
 * The lab protocol's charts (protocol.js): what a run's `result.charts` may carry.
 *
 * `result.charts` are the charts the run's code drew with labkit.bars, labkit.heatmap and labkit.lines
 * (lab/labkit/_chart.py, _heatmap.py and _lines.py make and check them; lab/chart.js, lab/heatmap.js and
 * lab/lines.js draw them), at most `limits.charts` of them (labkit's cap, brought by Ready; lab/gate.js holds a
 * result to it). The build sends the lesson's own run's charts to the page in the lab's island.
 */

import { LABKIT } from "../generated/labkit.js";
import { arrayOf, boolean, both, expect, finite, nullable, oneOf, plain, shape, show, string } from "./protocol-fields.js";

/** What one run may draw (labkit refuses more, with the learner's line): labkit's own numbers (lab/labkit/_limits.py,
 * written by the build into generated/labkit.js). */
const CHART_LIMITS = LABKIT.chart;

/**
 * @typedef {object} ChartSeries
 * @property {string} name                the series' name ("4"), spoken after the chart's series_title
 * @property {string} legend              its legend text ("k = 4 (steepest)")
 * @property {number[]} values            one finite number per label
 *
 * @typedef {object} Chart                 a bar chart labkit.bars recorded; every text is plain text
 * @property {"bars"} type
 * @property {string} title               the figure's accessible name
 * @property {string[]} labels            one per group of bars ("1", "2", "3")
 * @property {string} series_title        what the series' names are ("k"; may be "")
 * @property {ChartSeries[]} series
 * @property {{title: string, item: string}} x   the axis title, and how one label is spoken ("position" → "position 2")
 * @property {{title: string, percent: boolean}} y  the axis title; values 0…1 shown as 0…100 %
 *
 * @typedef {object} HeatmapChart          a matrix labkit.heatmap recorded: one shaded cell per number
 * @property {"heatmap"} type
 * @property {string} title               the figure's accessible name
 * @property {string[]} rows              one label per row (1 to CHART_LIMITS.side)
 * @property {string[]} cols              one label per column
 * @property {string} row_title           what the rows are ("Query"; may be "")
 * @property {string} col_title           what the columns are ("Key"; may be "")
 * @property {(number|null)[][]} cells    one row per label, one finite number or null (masked) per column
 * @property {boolean} percent            values 0…1 shown as 0…100 %, shaded on one scale from 0 to 1
 * @property {boolean} values             each value printed in its cell (where it fits)
 * @property {string} masked              what a masked cell is called (the legend, its tooltip, the table)
 *
 * @typedef {object} LinesChart            curves labkit.lines recorded, over one x axis
 * @property {"lines"} type
 * @property {string} title
 * @property {{title: string, values: number[]}} x   the axis title and the x values (increasing)
 * @property {string} series_title
 * @property {ChartSeries[]} series       one value per x each
 * @property {{title: string, percent: boolean}} y
 */

const text = expect((v) => typeof v === "string" && v.length <= CHART_LIMITS.text, `a string of at most ${CHART_LIMITS.text} characters`);

const bars = both(
  shape({
    type: oneOf("bars"),
    title: text,
    labels: arrayOf(text, { least: 1, most: CHART_LIMITS.labels }),
    series_title: text,
    series: arrayOf(shape({ name: text, legend: text, values: arrayOf(finite) }), { least: 1, most: CHART_LIMITS.series }),
    x: shape({ title: text, item: text }),
    y: shape({ title: text, percent: boolean }),
  }),
  (value) => {
    const wrong = value.series.findIndex((s) => s.values.length !== value.labels.length);
    return wrong < 0 ? "" : `.series[${wrong}].values: expected one per label (${value.labels.length}), got ${value.series[wrong].values.length}`;
  },
);

const heatmap = both(
  shape({
    type: oneOf("heatmap"),
    title: text,
    rows: arrayOf(text, { least: 1, most: CHART_LIMITS.side }),
    cols: arrayOf(text, { least: 1, most: CHART_LIMITS.side }),
    row_title: text,
    col_title: text,
    cells: arrayOf(arrayOf(nullable(finite)), { least: 1, most: CHART_LIMITS.side }),
    percent: boolean,
    values: boolean,
    masked: text,
  }),
  (value) => {
    if (value.cells.length !== value.rows.length) return `.cells: expected one row per label (${value.rows.length}), got ${value.cells.length}`;
    const wrong = value.cells.findIndex((row) => row.length !== value.cols.length);
    return wrong < 0 ? "" : `.cells[${wrong}]: expected one per column (${value.cols.length}), got ${value.cells[wrong].length}`;
  },
);

const lines = both(
  shape({
    type: oneOf("lines"),
    title: text,
    x: shape({ title: text, values: arrayOf(finite, { least: 1, most: CHART_LIMITS.points }) }),
    series_title: text,
    series: arrayOf(shape({ name: text, legend: text, values: arrayOf(finite) }), { least: 1, most: CHART_LIMITS.series }),
    y: shape({ title: text, percent: boolean }),
  }),
  (value) => {
    const wrong = value.series.findIndex((s) => s.values.length !== value.x.values.length);
    return wrong < 0 ? "" : `.series[${wrong}].values: expected one per x (${value.x.values.length}), got ${value.series[wrong].values.length}`;
  },
);

const CHARTS = { bars, heatmap, lines };
export const chart = (value) => {
  if (!plain(value)) return `expected an object, got ${show(value)}`;
  return Object.hasOwn(CHARTS, value.type) ? CHARTS[value.type](value) : `.type: expected ${Object.keys(CHARTS).map((t) => JSON.stringify(t)).join(" or ")}, got ${show(value.type)}`;
};

/** "" when value is a chart a lab could have drawn, else what is wrong (the page checks the build's charts too). */
export function chartProblem(value) {
  return chart(value);
}
