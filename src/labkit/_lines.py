"""labkit.lines(...): curves over one x axis (a sigmoid for a few steepness values, a loss over steps).

The same conventions as labkit.bars (series name → values, legend, percent); it records the chart for the current
run with the others (labkit._chart) and the page draws it (lab/lines.js). A chart is plain JSON (lab/protocol.js
`LinesChart`):
    {"type": "lines", "title", "x": {"title", "values": [float]}, "series_title",
     "series": [{"name", "legend", "values": [float]}], "y": {"title", "percent": bool}}
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from numbers import Real
from typing import Any

from labkit._chart import MAX_SERIES, ChartError, _finite, _flag, _legends, _pairs, _plain, _text, as_list, record
from labkit._limits import MAX_POINTS  # per series: a curve of more points is no smoother on a page

WHO = "labkit.lines"


def _numbers(values: object, what: str) -> list[float]:
    """Finite floats from a list of numbers (or anything with tolist(): a NumPy array)."""
    values = as_list(values)
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise TypeError(f"{WHO}: {what} must be a list of numbers, not {type(values).__name__}")
    out = []
    for i, value in enumerate(values, 1):
        if isinstance(value, bool) or not isinstance(value, Real):
            raise TypeError(f"{WHO}: value {i} of {what} is {type(value).__name__}, not a number")
        number = float(value)
        if not math.isfinite(number):
            raise ChartError(f"{WHO}: value {i} of {what} is {number}; a point needs a finite number")
        out.append(number)
        if len(out) > MAX_POINTS:
            raise ChartError(f"{WHO}: {what} has more than {MAX_POINTS} values; a curve has at most {MAX_POINTS} "
                             "points")
    return out


def lines(
    series: Mapping[Any, Iterable[float]] | Iterable[tuple[Any, Iterable[float]]],
    *,
    x: Iterable[float] | None = None,
    series_title: str = "",
    legend: Iterable[str] | None = None,
    x_title: str = "",
    y_title: str = "",
    percent: bool = False,
    title: str = "",
) -> None:
    """Draw curves under this run's output: one line per series over the same x values.

    series: series name -> values (or a list of (name, values)), every series with one value per x.
    x: the x values, increasing (default 1, 2, …). series_title: what the series names are (e.g. "k").
    legend: one text per series (default "<series_title> = <name>"). x_title / y_title: the axes' titles.
    percent: show values 0…1 as 0…100 %. title: the chart's name, as screen readers announce it (default: y_title;
    without either, "Line chart" in the course's language).
    """
    pairs = _pairs(series, WHO)
    names = [name for name, _ in pairs]
    columns = [(name, _numbers(values, f"series {name!r}")) for name, values in pairs]
    count = len(columns[0][1])
    xs = [float(i) for i in range(1, count + 1)] if x is None else _numbers(x, "x")
    if not xs:
        raise ChartError(f"{WHO}: there are no points to draw; give every series at least one value")
    for i in range(1, len(xs)):
        if xs[i] <= xs[i - 1]:
            raise ChartError(f"{WHO}: x goes from {xs[i - 1]:g} to {xs[i]:g} at value {i + 1}; x must increase from "
                             "one value to the next")
    for name, values in columns:
        if len(values) != len(xs):
            raise ChartError(f"{WHO}: series {name!r} has {len(values)} values but x has {len(xs)}; give every "
                             "series one value per x")
    kind = _text(series_title, "series_title", who=WHO)
    legends = _legends(legend, names, kind, WHO)
    _flag(percent, "percent", WHO)
    y_name = _text(y_title, "y_title", who=WHO)
    record({
        "type": "lines",
        "title": _text(title, "title", who=WHO) or y_name,
        "x": {"title": _text(x_title, "x_title", who=WHO), "values": xs},
        "series_title": kind,
        "series": [{"name": name, "legend": text, "values": values}
                   for (name, values), text in zip(columns, legends, strict=True)],
        "y": {"title": y_name, "percent": percent},
    }, WHO)


def copy(chart: dict[str, Any]) -> dict[str, Any] | None:
    """A checked copy of a recorded line chart (the run's code can reach the record), or None when it is not one."""
    try:
        x, y = chart["x"], chart["y"]
        xs = [_finite(v) for v in x["values"]]
        out = {
            "type": "lines", "title": _plain(chart["title"]),
            "x": {"title": _plain(x["title"]), "values": xs}, "series_title": _plain(chart["series_title"]),
            "series": [{"name": _plain(s["name"]), "legend": _plain(s["legend"]),
                        "values": [_finite(v) for v in s["values"]]} for s in chart["series"]],
            "y": {"title": _plain(y["title"]), "percent": y["percent"] is True},
        }
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    ok = (0 < len(xs) <= MAX_POINTS and 0 < len(out["series"]) <= MAX_SERIES
          and all(len(s["values"]) == len(xs) for s in out["series"]))
    return out if ok else None

