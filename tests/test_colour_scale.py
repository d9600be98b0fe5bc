"""The colour scales in both hosts: the page's static/js/lab/colour-scale.js (under Node) and the build's lessonkit/text/heat.py
give every value the same colour and the same text colour, from the one colour-scales.json."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from places import STATIC

from lessonkit.core.colour import contrast
from lessonkit.text.heat import colour_at, scale_for, text_on

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")

# stdin: {"points": [[kind, t]], "sets": [[values, percent]]}; prints the page's answers as JSON.
_JS = r"""
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const { colourAt, contrast, gradient, scaleFor, textOn } = await import(pathToFileURL(process.argv[1]).href);
const asked = JSON.parse(readFileSync(0, "utf8"));
console.log(JSON.stringify({
  points: asked.points.map(([kind, t]) => { const c = colourAt(kind, t); return [c, textOn(c), contrast(c, textOn(c))]; }),
  sets: asked.sets.map(([values, percent]) => {
    const s = scaleFor(values, { percent });
    return [s.kind, s.low, s.high, values.map((v) => [s.colour(v), s.text(v)]), gradient(s.kind)];
  }),
}));
"""

SETS = [([0.09, 0.665, 0.245], True), ([-2.0, 0.0, 0.5, 2.0], False), ([1, 3, 4.5], False), ([7, 7], False),
        ([0.2, 1.4], True), ([-0.25, -3.5], False), ([], False)]


def test_the_page_and_the_build_shade_alike() -> None:
    points = [[kind, i / 200] for kind in ("sequential", "diverging") for i in range(201)] + [["sequential", -1],
                                                                                          ["diverging", 2]]
    proc = subprocess.run(["node", "--input-type=module", "-e", _JS, str(STATIC / "js/lab/colour-scale.js")],
                          input=json.dumps({"points": points, "sets": SETS}), capture_output=True, text=True,
                          check=True)
    page = json.loads(proc.stdout)
    for (kind, t), (colour, text, ratio) in zip(points, page["points"], strict=True):
        assert (colour, text) == (colour_at(kind, t), text_on(colour_at(kind, t))), (kind, t)
        assert ratio == pytest.approx(contrast(colour, text)) and ratio >= 4.5
    for (values, percent), (kind, low, high, cells, gradient) in zip(SETS, page["sets"], strict=True):
        scale = scale_for(values, percent=percent)
        assert (kind, low, high) == (scale.kind, scale.low, scale.high), values
        assert cells == [[scale.colour(v), scale.text(v)] for v in values]
        assert gradient == scale.gradient()
