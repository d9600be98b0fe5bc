"""Charts a lab draws: labkit.bars(...) checks its data and records it for the current run; the page draws it.
labkit.heatmap and labkit.lines (_heatmap.py, _lines.py) record theirs here too, with the same helpers.

A chart is plain JSON (the page's lab/protocol.js describes the same shape as `Chart`):
    {"type": "bars", "title", "labels": [str], "series_title", "series": [{"name", "legend", "values": [float]}],
     "x": {"title", "item"}, "y": {"title", "percent": bool}}
Nothing is printed and nothing is parsed from the output: a run's charts are the ones its code drew, in order.
A chart the lab names by neither title nor y_title has the title "": the page and the build call it by its kind in
the course's language ("Bar chart"), from their catalogs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from numbers import Real
from typing import Any

from labkit._limits import MAX_CHARTS, MAX_LABELS, MAX_SERIES, MAX_TEXT

# The charts of the run in progress, oldest first. The list object is made once, when labkit is imported: the clean
# state a run returns to keeps this very object, so what a run drew is still here after its names are put back.
_drawn: list[dict[str, Any]] = []


class ChartError(ValueError):
    """A chart the lab asked for that cannot be drawn; the message says what to change."""


def _text(value: object, what: str, *, default: str = "", who: str = "labkit.bars") -> str:
    """A short string for what: str (trimmed), or a number written as Python writes it. who: the call, for messages."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise TypeError(f"{who}: {what} must be text, not {type(value).__name__}")
    text = value.strip() if isinstance(value, str) else _number_text(value)
    if len(text) > MAX_TEXT:
        raise ChartError(f"{who}: {what} is {len(text):,} characters long; at most {MAX_TEXT} fit on a chart")
    return text


def _number_text(value: float) -> str:
    """1 → "1", 0.25 → "0.25", 4.0 → "4" (a series named by a number reads like the number)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value) if isinstance(value, float) else str(value)


def _values(values: object, name: str) -> list[float]:
    """The series' values as finite floats (a list, or a 1-D NumPy array)."""
    values = as_list(values)
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise TypeError(f"labkit.bars: series {name!r} must be a list of numbers, not {type(values).__name__}")
    out = []
    for i, value in enumerate(values, 1):
        if isinstance(value, bool) or not isinstance(value, Real):
            raise TypeError(f"labkit.bars: value {i} of series {name!r} is {type(value).__name__}, not a number")
        number = float(value)
        if not math.isfinite(number):
            raise ChartError(f"labkit.bars: value {i} of series {name!r} is {number}; a bar needs a finite number")
        out.append(number)
        if len(out) > MAX_LABELS:
            raise ChartError(f"labkit.bars: series {name!r} has more than {MAX_LABELS} values; at most {MAX_LABELS} "
                             "bars fit in one series")
    return out


def _pairs(series: object, who: str = "labkit.bars") -> list[tuple[str, object]]:
    """(name, values) pairs from a mapping or a list of (name, values)."""
    if isinstance(series, Mapping):
        items = list(series.items())
    elif isinstance(series, Iterable) and not isinstance(series, str | bytes):
        items = []
        for n, pair in enumerate(series, 1):
            if not isinstance(pair, tuple | list) or len(pair) != 2:
                raise TypeError(f"{who}: series {n} must be a (name, values) pair")
            items.append((pair[0], pair[1]))
    else:
        raise TypeError(f"{who}: series must map each series name to its values, e.g. {{\"a\": [1, 2]}}")
    if not items:
        raise ChartError(f"{who}: there are no series to draw")
    if len(items) > MAX_SERIES:
        raise ChartError(f"{who}: {len(items)} series; at most {MAX_SERIES} fit on one chart")
    names = [_text(name, f"series name {n}", who=who) for n, (name, _) in enumerate(items, 1)]
    if len(set(names)) != len(names):
        twice = next(name for name in names if names.count(name) > 1)
        raise ChartError(f"{who}: two series are named {twice!r}; give each series its own name")
    return [(name, values) for name, (_, values) in zip(names, items, strict=True)]


def _legends(legend: object, names: list[str], kind: str, who: str) -> list[str]:
    """One legend text per series: the given ones, or "<series_title> = <name>"."""
    if legend is None:
        return [f"{kind} = {name}" if kind else name for name in names]
    if isinstance(legend, str | bytes) or not isinstance(legend, Iterable):
        raise TypeError(f"{who}: legend must be a list of texts, one per series")
    legends = [_text(text, f"legend {i}", who=who) for i, text in enumerate(legend, 1)]
    if len(legends) != len(names):
        raise ChartError(f"{who}: {len(legends)} legend texts for {len(names)} series; give one per series")
    return legends


def _flag(value: object, what: str, who: str) -> bool:
    """A True or False argument."""
    if not isinstance(value, bool):
        raise TypeError(f"{who}: {what} must be True or False")
    return value



def as_list(values: object) -> object:
    """A NumPy array or scalar (anything with tolist() that is not a list already) as the Python lists and numbers
    it holds, so every chart checks arrays as it checks lists; labkit never imports NumPy. Anything else as it is."""
    tolist = getattr(values, "tolist", None)
    if callable(tolist) and not isinstance(values, str | bytes | Mapping | list | tuple):
        return tolist()
    return values


def record(chart: dict[str, Any], who: str) -> None:
    """Add a checked chart to this run's, within MAX_CHARTS."""
    if len(_drawn) >= MAX_CHARTS:
        raise ChartError(f"{who}: a run draws at most {MAX_CHARTS} charts")
    _drawn.append(chart)


def bars(
    series: Mapping[Any, Iterable[float]] | Iterable[tuple[Any, Iterable[float]]],
    *,
    labels: Iterable[Any] | None = None,
    series_title: str = "",
    legend: Iterable[str] | None = None,
    x_title: str = "",
    item: str = "",
    y_title: str = "",
    percent: bool = False,
    title: str = "",
) -> None:
    """Draw a bar chart under this run's output: one group of bars per label, one bar colour per series.

    series: series name -> values (or a list of (name, values)), every series with one value per label.
    labels: the groups' names (default "1", "2", …). series_title: what the series names are (e.g. "k").
    legend: one text per series (default "<series_title> = <name>"). x_title / y_title: the axes' titles.
    item: how one label is spoken ("position" → "position 2"). percent: show values 0…1 as 0…100 %.
    title: the chart's name, as screen readers announce it (default: y_title; without either, "Bar chart" in the
    course's language).
    """
    if len(_drawn) >= MAX_CHARTS:
        raise ChartError(f"labkit.bars: a run draws at most {MAX_CHARTS} charts")
    pairs = _pairs(series)
    names = [name for name, _ in pairs]
    columns = [(name, _values(values, name)) for name, values in pairs]
    count = len(columns[0][1])
    if labels is None:
        shown = [str(i) for i in range(1, count + 1)]
    else:
        if isinstance(labels, str | bytes) or not isinstance(labels, Iterable):
            raise TypeError("labkit.bars: labels must be a list, one per value")
        shown = [_text(label, f"label {i}") for i, label in enumerate(labels, 1)]
    if not shown or len(shown) > MAX_LABELS:
        raise ChartError(f"labkit.bars: {len(shown)} labels; a chart has 1 to {MAX_LABELS}")
    for name, values in columns:
        if len(values) != len(shown):
            raise ChartError(f"labkit.bars: series {name!r} has {len(values)} values but there are {len(shown)} "
                             "labels; give every series one value per label")
    kind = _text(series_title, "series_title")
    legends = _legends(legend, names, kind, "labkit.bars")
    _flag(percent, "percent", "labkit.bars")
    y_name = _text(y_title, "y_title")
    record({
        "type": "bars",
        "title": _text(title, "title") or y_name,
        "labels": shown,
        "series_title": kind,
        "series": [{"name": name, "legend": text, "values": values}
                   for (name, values), text in zip(columns, legends, strict=True)],
        "x": {"title": _text(x_title, "x_title"), "item": _text(item, "item")},
        "y": {"title": y_name, "percent": percent},
    }, "labkit.bars")


def start_run() -> None:
    """Forget what an earlier run drew (called before a run's code)."""
    del _drawn[:]


def take() -> list[dict[str, Any]]:
    """The charts of the run that just ended, as fresh JSON-ready copies; only ones bars() could have made.

    The run's code can reach this module, so whatever it left in the list is checked again here (and dropped when
    it is not a chart) rather than trusted.
    """
    drawn = list(_drawn)
    del _drawn[:]
    charts = []
    for chart in drawn[:MAX_CHARTS]:
        copy = _checked(chart)
        if copy is not None:
            charts.append(copy)
    return charts


def _checked(chart: object) -> dict[str, Any] | None:
    """A checked copy of one recorded chart of any kind labkit draws, or None when it is not one."""
    from labkit import _heatmap, _lines  # they import this module; both are loaded (and put back) with labkit

    kind = chart.get("type") if type(chart) is dict else None
    copier = {"bars": _copy, "heatmap": _heatmap.copy, "lines": _lines.copy}.get(kind) if type(kind) is str else None
    return copier(chart) if copier is not None else None


def _copy(chart: object) -> dict[str, Any] | None:
    """A checked copy of one recorded chart, or None when it is not one."""
    try:
        if not isinstance(chart, dict) or chart.get("type") != "bars":
            return None
        x, y, series = chart["x"], chart["y"], chart["series"]
        labels = [_plain(label) for label in chart["labels"]]
        copy = {
            "type": "bars", "title": _plain(chart["title"]), "labels": labels,
            "series_title": _plain(chart["series_title"]),
            "series": [{"name": _plain(s["name"]), "legend": _plain(s["legend"]),
                        "values": [_finite(v) for v in s["values"]]} for s in series],
            "x": {"title": _plain(x["title"]), "item": _plain(x["item"])},
            "y": {"title": _plain(y["title"]), "percent": y["percent"] is True},
        }
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    ok = (0 < len(labels) <= MAX_LABELS and 0 < len(copy["series"]) <= MAX_SERIES
          and all(len(s["values"]) == len(labels) for s in copy["series"]))
    return copy if ok else None


def _plain(value: object) -> str:
    """value when it is a str of chart size, else ValueError."""
    if type(value) is not str or len(value) > MAX_TEXT:
        raise ValueError("not chart text")
    return str(value)


def _finite(value: object) -> float:
    """value when it is a finite float, else ValueError."""
    if type(value) is not float or not math.isfinite(value):
        raise ValueError("not a chart value")
    return float(value)
