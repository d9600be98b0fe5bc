"""labkit.bars in CPython: what a lab's chart becomes, what it refuses (and why), and that a run keeps only its own."""

from __future__ import annotations

import json

import numpy  # noqa: F401 — before any run's clean state: a run's `import numpy` must not import it a second time
import pytest
from labkit_runs import charts_of, refusal, run


def test_a_chart_with_every_option() -> None:
    (chart,) = charts_of(
        "import labkit\n"
        "labkit.bars({'0.25': [0.1, 0.9], '4': (1, 0)}, labels=['left ', 'right'], series_title=' k ',"
        " legend=['gentle', 'steep'], x_title='Side', item='side', y_title='Share', percent=True, title='Shares')\n"
    )
    assert chart == {
        "type": "bars", "title": "Shares", "labels": ["left", "right"], "series_title": "k",
        "series": [{"name": "0.25", "legend": "gentle", "values": [0.1, 0.9]},
                   {"name": "4", "legend": "steep", "values": [1.0, 0.0]}],
        "x": {"title": "Side", "item": "side"}, "y": {"title": "Share", "percent": True},
    }
    json.dumps(chart, allow_nan=False)  # what the worker sends


def test_defaults_and_series_as_pairs_named_by_numbers() -> None:
    (chart,) = charts_of("import labkit\nlabkit.bars([(0.25, [1, 2, 3]), (4.0, [3, -2, 1.5])], series_title='k')\n")
    assert chart["labels"] == ["1", "2", "3"]
    assert [(s["name"], s["legend"]) for s in chart["series"]] == [("0.25", "k = 0.25"), ("4", "k = 4")]
    assert chart["title"] == "" and chart["x"] == {"title": "", "item": ""}  # the page names it ("Bar chart")
    assert chart["y"] == {"title": "", "percent": False}
    (chart,) = charts_of("import labkit\nlabkit.bars({'a': [1]}, y_title='Height')\n")
    assert chart["title"] == "Height" and chart["series"][0]["legend"] == "a"


def test_bars_prints_nothing_and_returns_nothing() -> None:
    result, out = run("import labkit\nprint(labkit.bars({'a': [1, 2]}))\n")
    assert out == "None\n" and len(result["charts"]) == 1


def test_charts_keep_their_order_and_a_run_draws_at_most_sixteen() -> None:
    """Enough for small multiples (a heatmap per head); the cap is labkit's one, the one the page learns."""
    from labkit import _limits

    assert _limits.MAX_CHARTS == 16 and _limits.for_the_page()["charts"] == 16
    code = "import labkit\nfor n in range(16):\n    labkit.bars({'a': [n]}, title=f'chart {n}')\n"
    assert [c["title"] for c in charts_of(code)] == [f"chart {n}" for n in range(16)]
    result, out = run(code + "labkit.bars({'a': [1]})\n")
    assert result["error"]["line"] == 4
    assert out.rstrip().splitlines()[-1] == "labkit._chart.ChartError: labkit.bars: a run draws at most 16 charts"
    assert len(result["charts"]) == 16  # what it drew before the error is still shown


def test_each_run_has_only_its_own_charts() -> None:
    assert len(charts_of("import labkit\nlabkit.bars({'a': [1]})\n")) == 1
    assert charts_of("print('no chart')") == []
    result, _ = run("import labkit\nlabkit.bars({'a': [1]})\n1 / 0\n")
    assert not result["ok"] and len(result["charts"]) == 1
    assert charts_of("x = 1") == []


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("labkit.bars({})", "ChartError: labkit.bars: there are no series to draw"),
        ("labkit.bars('abc')",
         'TypeError: labkit.bars: series must map each series name to its values, e.g. {"a": [1, 2]}'),
        ("labkit.bars([('a', [1]), 'b'])", "TypeError: labkit.bars: series 2 must be a (name, values) pair"),
        ("labkit.bars({'a': 5})", "TypeError: labkit.bars: series 'a' must be a list of numbers, not int"),
        ("labkit.bars({'a': [1, '2']})", "TypeError: labkit.bars: value 2 of series 'a' is str, not a number"),
        ("labkit.bars({'a': [True]})", "TypeError: labkit.bars: value 1 of series 'a' is bool, not a number"),
        ("labkit.bars({'a': [1, float('nan')]})",
         "ChartError: labkit.bars: value 2 of series 'a' is nan; a bar needs a finite number"),
        ("labkit.bars({'a': [float('inf')]})",
         "ChartError: labkit.bars: value 1 of series 'a' is inf; a bar needs a finite number"),
        ("labkit.bars({'a': [1, 2], 'b': [1]})",
         "ChartError: labkit.bars: series 'b' has 1 values but there are 2 labels; give every series one value per "
         "label"),
        ("labkit.bars({'a': [1, 2]}, labels=['x'])",
         "ChartError: labkit.bars: series 'a' has 2 values but there are 1 labels; give every series one value per "
         "label"),
        ("labkit.bars({'a': []})", "ChartError: labkit.bars: 0 labels; a chart has 1 to 64"),
        ("labkit.bars({'a': [1] * 65})",
         "ChartError: labkit.bars: series 'a' has more than 64 values; at most 64 bars fit in one series"),
        ("labkit.bars({str(i): [1] for i in range(13)})", "ChartError: labkit.bars: 13 series; at most 12 fit on one chart"),
        ("labkit.bars([('a', [1]), ('a', [2])])",
         "ChartError: labkit.bars: two series are named 'a'; give each series its own name"),
        ("labkit.bars({'a': [1]}, legend=['x', 'y'])",
         "ChartError: labkit.bars: 2 legend texts for 1 series; give one per series"),
        ("labkit.bars({'a': [1]}, legend='x')", "TypeError: labkit.bars: legend must be a list of texts, one per series"),
        ("labkit.bars({'a': [1]}, labels='x')", "TypeError: labkit.bars: labels must be a list, one per value"),
        ("labkit.bars({'a': [1]}, title=['x'])", "TypeError: labkit.bars: title must be text, not list"),
        ("labkit.bars({'a': [1]}, title='x' * 201)",
         "ChartError: labkit.bars: title is 201 characters long; at most 200 fit on a chart"),
        ("labkit.bars({'a': [1]}, percent='yes')", "TypeError: labkit.bars: percent must be True or False"),
        ("labkit.bars({'a': [1]}, colour='red')", "TypeError: bars() got an unexpected keyword argument 'colour'"),
    ],
)
def test_what_bars_refuses_and_why(call: str, message: str) -> None:
    assert refusal(call).endswith(message)


def test_only_charts_bars_could_make_reach_the_result() -> None:
    # The run's code can reach labkit's record of its charts; what it puts there is checked, not trusted.
    code = (
        "import labkit, labkit._chart as c\n"
        "labkit.bars({'a': [1]})\n"
        "c._drawn.append({'type': 'bars', 'title': '<b>', 'labels': ['1'], 'series_title': '', 'x': {}, 'y': {},"
        " 'series': []})\n"
        "c._drawn.append({**c._drawn[0], 'title': 'copied'})\n"
        "c._drawn.append({**c._drawn[0], 'series': [{'name': 'a', 'legend': 'a', 'values': [float('nan')]}]})\n"
        "c._drawn.append({'type': 'pie'})\n"
    )
    assert [c["title"] for c in charts_of(code)] == ["", "copied"]


def test_a_chart_list_replaced_by_the_run_is_put_back() -> None:
    code = "import labkit, labkit._chart as c\nlabkit.bars({'a': [1]})\nc._drawn = [{'type': 'bars'}]\n"
    assert len(charts_of(code)) == 1
    assert len(charts_of("import labkit\nlabkit.bars({'b': [2]})\n")) == 1


# ---- NumPy arrays (the build's labs and the page's Pyodide 0.27.7 both have NumPy 2.0.2) ----------------------------

def test_bars_take_numpy_arrays_as_their_numbers() -> None:
    charts = charts_of("import numpy as np, labkit\n"
                       "labkit.bars({'w': np.array([0.25, 0.5], dtype=np.float32), 'n': np.arange(2)}, labels=['a', 'b'])")
    assert [s["values"] for s in charts[0]["series"]] == [[0.25, 0.5], [0.0, 1.0]]


@pytest.mark.parametrize(("values", "message"), [
    ("np.array([True, False])", "labkit.bars: value 1 of series 'w' is bool, not a number"),
    ("np.ones((2, 2))", "labkit.bars: value 1 of series 'w' is list, not a number"),
    ("np.array([1.0, np.nan])", "labkit.bars: value 2 of series 'w' is nan; a bar needs a finite number"),
])
def test_bars_refuse_arrays_that_are_not_a_row_of_finite_numbers(values: str, message: str) -> None:
    result, _ = run(f"import numpy as np, labkit\nlabkit.bars({{'w': {values}}})")
    assert result["error"]["message"] == message
