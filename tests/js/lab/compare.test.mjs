// What differs between two runs the lab shows (static/js/lab/compare.js), without a page.
import assert from "node:assert/strict";
import { test } from "node:test";

import { MAX_DIFF_CELLS, changedLines, changedValues, chartValues, counterpart, outputLines }
  from "../../../static/js/lab/compare.js";

const bars = (values, { title = "Weights", labels = ["1", "2", "3"] } = {}) => ({
  type: "bars", title, labels, series_title: "k", x: { title: "position", item: "position" }, y: { title: "w", percent: true },
  series: Object.entries(values).map(([name, v]) => ({ name, legend: name, values: v })),
});
const heatmap = (cells, rows = ["a", "b"], cols = ["x", "y"]) => ({
  type: "heatmap", title: "Attention", rows, cols, row_title: "Query", col_title: "Key", cells, percent: false,
  values: true, masked: "masked",
});

test("a line changed in place is marked in both runs, the others in neither", () => {
  assert.deepEqual(changedLines(["a", "b", "c"], ["a", "B", "c"]), { before: [1], after: [1] });
  assert.deepEqual(changedLines(["a", "b"], ["a", "b"]), { before: [], after: [] });
});

test("an inserted line is marked in the run that has it, and the lines after it are not", () => {
  assert.deepEqual(changedLines(["a", "b", "c"], ["a", "new", "b", "c"]), { before: [], after: [1] });
  assert.deepEqual(changedLines(["a", "b", "c"], ["a", "c"]), { before: [1], after: [] });
  assert.deepEqual(changedLines([], ["x", "y"]), { before: [], after: [0, 1] });
});

test("a very long output is compared line by line at the same position", () => {
  const n = Math.ceil(Math.sqrt(MAX_DIFF_CELLS)) + 1;
  const before = Array.from({ length: n }, (_, i) => `line ${i}`);
  const after = before.slice();
  after[3] = "other";
  after.push("extra");
  assert.deepEqual(changedLines(before, after), { before: [3], after: [3, n] });
});

test("output text splits into its lines, without the empty one after the last line break", () => {
  assert.deepEqual(outputLines("a\nb\n"), ["a", "b"]);
  assert.deepEqual(outputLines("a\n\nb"), ["a", "", "b"]);
  assert.deepEqual(outputLines(""), []);
});

test("a bar chart's changed values are paired by series name and label, as the chart writes them", () => {
  const before = bars({ "1": [0.5, 0.3, 0.2], "4": [0.1, 0.8, 0.1] });
  const after = bars({ "1": [0.5, 0.3004, 0.1996], "4": [0.1, 0.7, 0.2] });
  const percent = (v) => `${(100 * v).toFixed(1)}%`;
  assert.deepEqual(changedValues(before, after, percent), {
    total: 6,
    changed: [{ at: [1, 1], before: 0.8, after: 0.7 }, { at: [1, 2], before: 0.1, after: 0.2 }],
  });
  // Without a format every difference counts.
  assert.equal(changedValues(before, after).changed.length, 4);
});

test("a series or a label the other chart has not is changed, with no value before", () => {
  const before = bars({ "1": [1, 2] }, { labels: ["1", "2"] });
  const after = bars({ "1": [1, 2, 3], "2": [1, 2, 3] });
  const { changed } = changedValues(before, after);
  assert.deepEqual(changed.map((c) => [c.at, c.before]), [[[0, 2], undefined], [[1, 0], undefined], [[1, 1], undefined],
    [[1, 2], undefined]]);
});

test("a heatmap's cells are paired by row and column label, a masked cell compared as masked", () => {
  const before = heatmap([[1, null], [0.5, 0.5]]);
  const after = heatmap([[1, 0.2], [0.5, null]]);
  assert.deepEqual(changedValues(before, after), {
    total: 4,
    changed: [{ at: [0, 1], before: null, after: 0.2 }, { at: [1, 1], before: 0.5, after: null }],
  });
  assert.equal(changedValues(heatmap([[1, null]], ["a"]), heatmap([[1, null]], ["a"])).changed.length, 0);
});

test("a line chart's points are paired by series and x", () => {
  const lines = (ys, xs = [1, 2]) => ({ type: "lines", title: "L", x: { title: "x", values: xs }, series_title: "",
    series: [{ name: "s", legend: "s", values: ys }], y: { title: "y", percent: false } });
  assert.deepEqual(chartValues(lines([3, 4])).map((v) => v.at), [[0, 0], [0, 1]]);
  assert.deepEqual(changedValues(lines([3, 4]), lines([3, 5])).changed, [{ at: [0, 1], before: 4, after: 5 }]);
});

test("a chart is compared with the other run's chart of its title and type, else the one at its place", () => {
  const a = bars({ "1": [1, 2, 3] }, { title: "A" });
  const b = bars({ "1": [1, 2, 3] }, { title: "B" });
  const h = heatmap([[1, 2], [3, 4]]);
  assert.equal(counterpart([b, a], a, 0), a);
  assert.equal(counterpart([b], { ...a, title: "renamed" }, 0), b);
  assert.equal(counterpart([h], a, 0), null);
  assert.equal(counterpart([], a, 0), null);
});
