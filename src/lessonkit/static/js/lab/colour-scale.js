// Shading numbers on a colour scale: the page's heatmaps (lab/heatmap.js). The scales live in colour-scales.json,
// which the build reads too (lessonkit/text/heat.py shades a widget's `heat:` cells with the same arithmetic; a test runs
// both on the same values). One perceptually uniform, colour-blind-safe sequential scale (cividis: dark blue to
// yellow), and a diverging one (blue, grey at 0, orange-brown; even steps of OKLab lightness) for values of both
// signs, centred on 0. Text in a cell is black or white, whichever contrasts more with the cell: at least 4.5:1 on
// every colour of both scales.

import scales from "./colour-scales.json" with { type: "json" };

const channels = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const hexOf = (rgb) => `#${rgb.map((c) => Math.floor(c + 0.5).toString(16).padStart(2, "0")).join("")}`;

/** The colour at t (0…1) of the "sequential" or "diverging" scale, as #rrggbb. */
export function colourAt(kind, t) {
  const stops = scales[kind].stops;
  const at = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0));
  let i = 0;
  while (i < stops.length - 2 && at > stops[i + 1][0]) i += 1;
  const [p0, c0] = stops[i];
  const [p1, c1] = stops[i + 1];
  const f = p1 > p0 ? (at - p0) / (p1 - p0) : 0;
  const a = channels(c0);
  const b = channels(c1);
  return hexOf(a.map((x, k) => x + (b[k] - x) * f));
}

const linear = (c) => {
  const s = c / 255;
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
};
const luminance = (hex) => {
  const [r, g, b] = channels(hex).map(linear);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};

/** The WCAG contrast ratio of two #rrggbb colours (1 to 21). */
export function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The text colour (black or white) that contrasts more with background. */
export function textOn(background) {
  const [dark, light] = scales.text;
  return contrast(dark, background) >= contrast(light, background) ? dark : light;
}

/**
 * The scale for these values: percent values on one scale from 0 to 1; values of both signs on the diverging scale,
 * centred on 0; others from their smallest to their largest. Returns {kind, low, high, colour(v), text(v)}.
 */
export function scaleFor(values, { percent = false } = {}) {
  const finite = values.filter(Number.isFinite);
  let low = finite.length ? Math.min(...finite) : 0;
  let high = finite.length ? Math.max(...finite) : 1;
  let kind = "sequential";
  if (percent) {
    low = Math.min(0, low);
    high = Math.max(1, high);
  } else if (low < 0 && high > 0) {
    kind = "diverging";
    high = Math.max(-low, high);
    low = -high;
  }
  const t = (v) => (high > low ? (v - low) / (high - low) : 0.5);
  const colour = (v) => colourAt(kind, t(v));
  return { kind, low, high, colour, text: (v) => textOn(colour(v)) };
}

/** A CSS linear-gradient of a scale, left to right (the legend's bar). */
export function gradient(kind) {
  return `linear-gradient(to right, ${scales[kind].stops.map(([p, c]) => `${c} ${(100 * p).toFixed(2)}%`).join(", ")})`;
}
