"""The {widget} block at build time when each value's table has its own rows and columns (a causal mask over n tokens
is n × n: its header, shading and formats follow), what `bar:`, `figure:` and figures may name then, and what a
shaded cell may hold — on the causal-masking course (tests/course.py CAUSAL), each author error at its `path:line`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from course import CAUSAL, CAUSAL_WIDGET, build, edit, island, line_of, problems, write_causal


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The built causal-masking lesson."""
    return (build(write_causal(tmp_path_factory.mktemp("causal"))) / "causal.html").read_text(encoding="utf-8")


def table_of(html: str, key: str | None = None) -> tuple[list[str], list[list[tuple[str, str]]]]:
    """A widget state's header and its rows as (class, text) per cell: the page's own table, or a <template>'s."""
    widget = html[html.index('<figure class="widget"'):]
    if key is not None:
        widget = widget[widget.index(f'<template data-widget-state="{key}">'):]
        widget = widget[:widget.index("</template>")]
    head = re.findall(r'<th scope="col">(.*?)</th>', widget[:widget.index("<tbody")])
    body = widget[widget.index("<tbody"):widget.index("</tbody>")]
    rows = [[(cls or "", re.sub(r"<[^>]+>", "", text)) for cls, text in
             re.findall(r'<t[hd](?: scope="row")?(?: class="([^"]*)")?[^>]*>(.*?)</t[hd]>', row)]
            for row in re.findall(r"<tr>(.*?)</tr>", body)]
    return head, rows


def test_each_value_has_its_own_rows_and_columns(page: str) -> None:
    """n = 4 is in the page, 4 × 4 with its sum; n = 2's template has its own header row and 2 × 2 shaded cells."""
    head, rows = table_of(page)
    assert head == ["Query", "The", "cat", "sat", "on", "Sum"]
    assert [[text for _, text in row] for row in rows] == [
        ["The", "100.0%", "masked", "masked", "masked", "100.0%"],
        ["cat", "18.2%", "81.8%", "masked", "masked", "100.0%"],
        ["sat", "24.5%", "9.0%", "66.5%", "masked", "100.0%"],
        ["on", "8.5%", "23.2%", "5.2%", "63.1%", "100.0%"],
    ]
    head, rows = table_of(page, "2,weights")
    assert head == ["Query", "The", "cat", "Sum"]
    assert [[text for _, text in row] for row in rows] == [["The", "100.0%", "masked", "100.0%"],
                                                           ["cat", "18.2%", "81.8%", "100.0%"]]
    # The heat follows the table: its keys shaded (a masked one hatched), the sum not.
    assert [[cls for cls, _ in row] for row in rows] == [["", "heat", "heat heat-masked", ""],
                                                         ["", "heat", "heat", ""]]
    head, rows = table_of(page, "5,scores")  # the option's own formats, over five keys
    assert head == ["Query", "The", "cat", "sat", "on", "mats", "Sum"]
    assert [text for _, text in rows[4]] == ["mats", "1.5", "−1.0", "0.5", "1.0", "2.0", "4.0"]
    assert island(page, "widget")["parameters"] == [["2", "3", "4", "5"], ["scores", "weights"]]


def test_a_figure_names_a_column_of_its_own_values_table(tmp_path: Path) -> None:
    """`[[mask:2,weights:2:cat]]` reads n = 2's table; a key that table lacks is named with the columns it has."""
    text = edit(CAUSAL, "## Weights\n", "Then [[mask:2,weights:2:cat]] and [[mask:2,weights:2:sat]].\n\n## Weights\n")
    write_causal(tmp_path, text)
    assert problems(tmp_path) == [
        f'lesson/causal.md:{line_of(text, "Then [[")}: figure "[[mask:2,weights:2:sat]]" names the column "sat", '
        'which table(n=2, show="weights") does not return (did you mean "cat"?) — use one of: Query, The, cat, Sum']


@pytest.mark.parametrize(("key", "column"), [("figure", "sat"), ("bar", "on")])
def test_bar_and_figure_name_a_column_every_table_has(tmp_path: Path, key: str, column: str) -> None:
    text = edit(CAUSAL, "figure: The\n", f"{key}: {column}\n" if key == "figure" else f"bar: {column}\n")
    text = edit(text, 'heat: [The, cat, sat, "on", mats]', "heat: [The, cat, sat, mats]") if key == "bar" else text
    write_causal(tmp_path, text)
    assert problems(tmp_path) == [
        f'lesson/causal.md:{line_of(text, f"{key}: {column}")}: "{key}:" names the column "{column}", which '
        f'table(n=2, show="scores") does not return — "{key}:" reads it in every value\'s table: return it for every '
        "value, or name a column every table has"]


def test_a_text_cell_in_a_shaded_column_is_refused_at_heat(tmp_path: Path) -> None:
    """"" for a masked weight, in a column `heat:` shades: what a shaded cell holds, and how to fix it."""
    widget = edit(CAUSAL_WIDGET, "[None if j > i else w", '["" if j > i else w')
    widget = edit(widget, "if x is not None and x > -1e300", 'if x != "" and x > -1e300')
    write_causal(tmp_path, causal_widget=widget)
    assert problems(tmp_path) == [
        f'lesson/causal.md:{line_of(CAUSAL, "heat: [")}: "heat:" shades "cat", but row 1 of table(n=2, '
        'show="weights") has "cat": text ("") — a shaded cell holds a number, or None or -inf for a masked cell '
        '(hatched, and written as "masked:" says): return one there, or leave "cat" out of "heat:"']
