// What differs between the two runs the lab shows ("This run" and "Previous run", or the pinned baseline): the
// printed lines of each that the other has not, and the values of each chart that changed. A display comparison of
// two runs' data, no DOM (compare-dom.js marks them on the page).

/** Past this many line pairs the lines are compared position by position, not by a longest common subsequence. */
export const MAX_DIFF_CELLS = 250_000;

/**
 * Which lines differ between `before` and `after` (arrays of lines): {before: [index…], after: [index…]}, the lines
 * of each that are not in their longest common subsequence (a line changed in place is in both; one inserted only in
 * `after`). Very long outputs are compared line by line at the same position.
 */
export function changedLines(before, after) {
  const n = before.length;
  const m = after.length;
  if (n * m > MAX_DIFF_CELLS) {
    const differs = (i, other, lines) => i >= other.length || other[i] !== lines[i];
    return {
      before: before.map((_, i) => i).filter((i) => differs(i, after, before)),
      after: after.map((_, i) => i).filter((i) => differs(i, before, after)),
    };
  }
  // lcs[i][j]: the common subsequence's length of before[i:] and after[j:], in one flat array.
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lcs[i * width + j] = before[i] === after[j] ? lcs[(i + 1) * width + j + 1] + 1
        : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  const out = { before: [], after: [] };
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (before[i] === after[j]) {
      i += 1;
      j += 1;
    } else if (lcs[(i + 1) * width + j] >= lcs[i * width + j + 1]) out.before.push(i++);
    else out.after.push(j++);
  }
  while (i < n) out.before.push(i++);
  while (j < m) out.after.push(j++);
  return out;
}

/** The lines of a run's output text, without the empty one after its last line break. */
export function outputLines(text) {
  const lines = String(text).split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** The chart of `charts` that `chart` is compared with: the one with its title and type, else the one at its place. */
export function counterpart(charts, chart, index) {
  const same = (c) => c && c.type === chart.type;
  return charts.find((c) => same(c) && c.title === chart.title) || (same(charts[index]) ? charts[index] : null);
}

/**
 * A chart's values, each with a key that names it the same way in another run's chart of the same kind: a bar chart's
 * and a line chart's by series name and label (or x), a heatmap's by row and column label. [{key, at, value}], `at`
 * where it is drawn: [series, label] indices, or [row, column].
 */
export function chartValues(chart) {
  if (chart.type === "heatmap") {
    return chart.cells.flatMap((row, i) => row.map((value, j) => ({ key: `${chart.rows[i]}\u0000${chart.cols[j]}`, at: [i, j], value })));
  }
  const labels = chart.type === "lines" ? chart.x.values.map(String) : chart.labels;
  return chart.series.flatMap((s, k) => s.values.map((value, g) => ({ key: `${s.name}\u0000${labels[g]}`, at: [k, g], value })));
}

/**
 * The values of chart `after` that differ from chart `before`'s (paired by chartValues' keys), as `format` writes
 * them (a change too small to show is no change): {changed: [{at, before, after}], total}. A value `before` has no
 * counterpart for is changed, its `before` undefined.
 */
export function changedValues(before, after, format = (v) => v) {
  const was = new Map(chartValues(before).map((v) => [v.key, v.value]));
  const values = chartValues(after);
  const shown = (v) => (v === null ? null : format(v));
  const changed = values.filter((v) => !was.has(v.key) || shown(was.get(v.key)) !== shown(v.value))
    .map((v) => ({ at: v.at, before: was.get(v.key), after: v.value }));
  return { changed, total: values.length };
}
