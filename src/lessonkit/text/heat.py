"""Shading numbers on a colour scale at build time: a widget's `heat:` cells, right in the page without JavaScript.

The scales live in static/js/lab/colour-scales.json, which the page's colour-scale.js reads too, and the arithmetic here
is that module's, step for step (tests run both on the same values): one perceptually uniform, colour-blind-safe
sequential scale (cividis), and a diverging one centred on 0 for values of both signs. A cell's text is black or
white, whichever contrasts more with its colour: at least 4.5:1 on every colour of both scales.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from lessonkit.core.colour import channels, contrast
from lessonkit.core.places import STATIC

SCALE_FILE = STATIC / "js" / "lab" / "colour-scales.json"
SCALES = json.loads(SCALE_FILE.read_text(encoding="utf-8"))


def _hex(rgb: Iterable[float]) -> str:
    return "#" + "".join(f"{math.floor(c + 0.5):02x}" for c in rgb)  # halves up, as JavaScript's Math.floor(c + .5)


# Each scale's stops with their colours' channels, read once.
_STOPS = {kind: [(p, list(channels(c))) for p, c in SCALES[kind]["stops"]] for kind in ("sequential", "diverging")}


def colour_at(kind: str, t: float) -> str:
    """The colour at t (0…1) of the "sequential" or "diverging" scale, as #rrggbb."""
    stops = _STOPS[kind]
    at = min(1.0, max(0.0, t if math.isfinite(t) else 0.0))
    i = 0
    while i < len(stops) - 2 and at > stops[i + 1][0]:
        i += 1
    (p0, c0), (p1, c1) = stops[i], stops[i + 1]
    f = (at - p0) / (p1 - p0) if p1 > p0 else 0.0
    return _hex(x + (y - x) * f for x, y in zip(c0, c1, strict=True))


@lru_cache(maxsize=4096)  # a table's cells share a few dozen colours: each one's contrast is worked out once
def text_on(background: str) -> str:
    """The text colour (black or white) that contrasts more with background."""
    dark, light = SCALES["text"]
    return dark if contrast(dark, background) >= contrast(light, background) else light


@dataclass(frozen=True)
class Scale:
    """A scale fitted to some values: which one, its ends, and each value's colour and text colour."""

    kind: str  # "sequential" or "diverging"
    low: float
    high: float

    def colour(self, value: float) -> str:
        t = (value - self.low) / (self.high - self.low) if self.high > self.low else 0.5
        return colour_at(self.kind, t)

    def text(self, value: float) -> str:
        return text_on(self.colour(value))

    def gradient(self) -> str:
        """A CSS linear-gradient of the scale, left to right (the legend's bar)."""
        stops = ", ".join(f"{c} {100 * p:.2f}%" for p, c in SCALES[self.kind]["stops"])
        return f"linear-gradient(to right, {stops})"


def scale_for(values: Iterable[float], *, percent: bool = False) -> Scale:
    """Percent values on one scale from 0 to 1; values of both signs on the diverging scale, centred on 0; others
    from their smallest to their largest."""
    finite = [v for v in values if math.isfinite(v)]
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    if percent:
        return Scale("sequential", min(0.0, low), max(1.0, high))
    if low < 0 < high:
        most = max(-low, high)
        return Scale("diverging", -most, most)
    return Scale("sequential", low, high)

