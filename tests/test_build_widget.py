"""The {widget} block at build time: several parameters and their combinations, labelled options, shaded `heat:`
columns with masked cells, number formats, and every author error at its `path:line` — on a fixture course of its
own (causal masking: tests/course.py MASK)."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from course import (
    DEMO,
    LAB_LESSON,
    MASK,
    MASK_LAB,
    MASK_WIDGET,
    build,
    edit,
    island,
    line_of,
    problems,
    write_course,
    write_demo,
    write_masking,
)
from places import STATIC

from lessonkit.core.colour import contrast
from lessonkit.text.heat import SCALES, colour_at, scale_for, text_on


def mask_problems(tmp_path: Path, lesson: str = MASK, widget: str = MASK_WIDGET) -> list[str]:
    """The problems of the masking course with its lesson (or widget file) replaced."""
    write_course(tmp_path, {"masking.md": lesson}, {"masking.py": MASK_LAB, "masking_widget.py": widget})
    return problems(tmp_path)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The built masking lesson."""
    root = write_masking(tmp_path_factory.mktemp("masking"))
    return (build(root) / "masking.html").read_text(encoding="utf-8")


def widget_of(page: str) -> str:
    start = page.index('<figure class="widget"')
    return page[start:page.index("</figure>", start)]


def rows_of(html: str) -> list[list[str]]:
    """The body rows of the first table in html, as cell texts (tags dropped)."""
    body = html[html.index("<tbody"):html.index("</tbody>")]
    return [[re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)]
            for row in re.findall(r"<tr>(.*?)</tr>", body)]


def test_two_parameters_make_every_combination_and_the_default_is_in_the_page(page: str) -> None:
    widget = widget_of(page)
    assert island(page, "widget") == {
        "default": "1,before", "id": "mask", "lesson": "masking", "version": island(page, "widget")["version"],
        "options": ["0.5,scores", "0.5,before", "0.5,after", "1,scores", "1,before", "1,after", "2,scores",
                    "2,before", "2,after"],
        "parameters": [["0.5", "1", "2"], ["scores", "before", "after"]],
    }
    assert re.findall(r'<template data-widget-state="([^"]+)">', widget) == island(page, "widget")["options"]
    shown = widget[:widget.index("<template")]
    assert '<p class="widget-caption" data-widget-caption aria-live="polite">T = 1: query 4 keeps 63.1% for itself</p>' \
        in shown
    # One radio group per parameter, each option once, the default checked; labels as the author wrote them.
    assert re.findall(r'<input type="radio" name="mask-(\w+)" value="([^"]+)"( checked)?>', shown) == [
        ("temperature", "0.5", ""), ("temperature", "1", " checked"), ("temperature", "2", ""),
        ("show", "scores", ""), ("show", "before", " checked"), ("show", "after", "")]
    assert "<span>Mask before softmax</span>" in shown and "<span>Zero after softmax</span>" in shown
    assert "<span>Scores <span class=\"math-glue\"><math alttext=\"s / T\">" in shown  # inline markdown and math
    assert rows_of(shown) == [
        ["The", "100.0%", "−∞ (masked)", "−∞ (masked)", "−∞ (masked)", "100.0%"],
        ["cat", "18.2%", "81.8%", "−∞ (masked)", "−∞ (masked)", "100.0%"],
        ["sat", "24.5%", "9.0%", "66.5%", "−∞ (masked)", "100.0%"],
        ["down", "8.5%", "23.2%", "5.2%", "63.1%", "100.0%"],
    ]


def test_an_options_formats_and_the_real_minus_sign(page: str) -> None:
    state = re.search(r'<template data-widget-state="1,scores">(.*?)</template>', page, re.S).group(1)
    assert rows_of(state) == [
        ["The", "2.0", "−∞ (masked)", "−∞ (masked)", "−∞ (masked)", "2.0"],
        ["cat", "0.5", "2.0", "−∞ (masked)", "−∞ (masked)", "2.5"],
        ["sat", "1.0", "0.0", "2.0", "−∞ (masked)", "3.0"],
        ["down", "0.0", "1.0", "−0.5", "2.0", "2.5"],
    ]


def test_shaded_cells_keep_their_text_readable_and_masked_cells_are_not_shaded(page: str) -> None:
    widget = widget_of(page)
    shaded = re.findall(r'<td class="heat" style="background-color: (#[0-9a-f]{6}); color: (#[0-9a-f]{6})">([^<]+)</td>',
                        widget)
    # The shown table and every combination's: ten numbers in the four shaded columns where six are masked (the
    # scores, and the weights masked before softmax), sixteen where later weights are zeroed after it.
    assert len(shaded) == 10 + 3 * 10 + 3 * 10 + 3 * 16
    for background, text, _ in shaded:
        assert contrast(background, text) >= 4.5
    masked = re.findall(r'<td class="heat heat-masked">([^<]*)<span class="visually-hidden">([^<]*)</span></td>', widget)
    assert len(masked) == 6 + 6 * 6 and set(masked) == {("−∞", " (masked)")}
    # Weights are shaded from 0 to 100 %: the cell of 100.0% is the scale's top, and the scales' own colours.
    assert ("#fee838", "#000000", "100.0%") in shaded
    # The scores of both signs are on the diverging scale, grey at 0.
    scores = re.search(r'<template data-widget-state="1,scores">(.*?)</template>', widget, re.S).group(1)
    assert '<td class="heat" style="background-color: #f5f5f5; color: #000000">0.0</td>' in scores


def test_each_table_has_its_legend(page: str) -> None:
    widget = widget_of(page)
    legend = re.search(r'<div data-widget-legend><p class="heat-legend">(.*?)</p></div>', widget).group(1)
    assert re.sub(r"<[^>]+>", "", legend).split() == ["Shading:", "0.0%100.0%", "−∞:", "masked"]
    assert 'aria-label="Colour scale from 0.0% (dark blue) to 100.0% (yellow)"' in legend
    scores = re.search(r'<template data-widget-state="1,scores">(.*?)</template>', widget, re.S).group(1)
    assert 'aria-label="Colour scale from −2.0 (blue) through 0.0 (grey) to 2.0 (brown)"' in scores


def test_figures_and_checks_name_a_combination(page: str) -> None:
    assert "Token 2 (\"cat\") puts 81.8% of its weight on itself when the mask comes before softmax,\nand only 57.9% " \
        "when the later keys are zeroed after it." in page


def test_a_select_for_more_than_six_labelled_options_and_a_slider_among_parameters(tmp_path: Path) -> None:
    widget = MASK_WIDGET.replace("def table(temperature, show):", "def table(temperature, show):\n"
                                 "    show = {'s': 'scores', 'b': 'before'}.get(show[0], 'after')")
    lesson = edit(MASK, "    options: [0.5, 1, 2]\n    default: 1\n",
                  "    range: {min: 0.5, max: 2, step: 0.5}\n    default: 1\n")
    lesson = edit(lesson, "      - {value: after, label: Zero after softmax}\n",
                  "".join(f"      - {{value: after{n}, label: Zero after softmax ({n})}}\n" for n in range(1, 6)))
    lesson = lesson.replace('  "2, after":', '  "2, after1":').replace("[[mask:1,after:2:cat]]", "[[mask:1,after3:2:cat]]")
    write_course(tmp_path, {"masking.md": lesson}, {"masking.py": MASK_LAB, "masking_widget.py": widget})
    html = (build(tmp_path) / "masking.html").read_text(encoding="utf-8")
    shown = widget_of(html)[:widget_of(html).index("<template")]
    assert '<input type="range" id="widget-mask-temperature" min="0.5" max="2" step="0.5" value="1"' in shown
    assert '<select id="widget-mask-show" name="mask-show">' in shown
    assert re.findall(r'<option value="(\w+)"( selected)?>([^<]+)</option>', shown)[:3] == [
        ("scores", "", "Scores s/T, masked"), ("before", " selected", "Mask before softmax"),
        ("after1", "", "Zero after softmax (1)")]
    assert len(island(html, "widget")["options"]) == 4 * 7


def test_a_whole_float_shows_as_a_whole_number_unless_a_format_says_otherwise(tmp_path: Path) -> None:
    widget = '''def table(k):\n    return [{"Key": 1, "Score": 2.0 * k, "Half": k / 2, "Neg": -0.0001 * k}]\n'''
    lesson = edit(DEMO, 'caption: "k = {value}: the largest weight is {top:.3f}"\nbar: Weight\n', "")
    lesson = re.sub(r"check:\n  1: \[[^\]]+\]\n", "", lesson)
    lesson = lesson.replace("[[mix:2:2]]", "[[mix:2:1:Score]]").replace("[[mix:0.5:2]]", "[[mix:0.5:1:Half]]")
    write_demo(tmp_path, lesson, demo_widget=widget)
    html = (build(tmp_path) / "demo.html").read_text(encoding="utf-8")
    assert rows_of(widget_of(html)) == [["1", "2", "0.500", "0.000"]]  # 2.0 → 2; −0.0001 is shown as zero: no sign
    write_demo(tmp_path, edit(lesson, "note:", 'formats: {Score: "{:.1f}", Half: percent, Neg: "{:.4f}"}\nnote:'),
               demo_widget=widget)
    html = (build(tmp_path) / "demo.html").read_text(encoding="utf-8")
    assert rows_of(widget_of(html)) == [["1", "2.0", "50.0%", "−0.0001"]]


def test_today_s_one_parameter_widget_is_unchanged(tmp_path: Path) -> None:
    """`parameter:`, radio buttons over numbers, the function called with one value: the island and the HTML of before."""
    write_demo(tmp_path)
    html = (build(tmp_path) / "demo.html").read_text(encoding="utf-8")
    data = island(html, "widget")
    assert {k: data[k] for k in ("default", "options")} == {"default": "1", "options": ["0.5", "1", "2"]}
    assert "parameters" not in data
    assert '<input type="radio" name="mix-value" value="1" checked> <span>1</span>' in html


def test_the_colour_scales_keep_text_readable_and_are_even_steps_of_lightness() -> None:
    """Every colour of both scales takes black or white text at 4.5:1 or more; the sequential scale's lightness
    rises evenly, the diverging one's rises to grey at 0 and falls again (OKLab, of each stop)."""
    for kind in ("sequential", "diverging"):
        for i in range(1001):
            colour = colour_at(kind, i / 1000)
            assert contrast(colour, text_on(colour)) >= SCALES["contrast"], (kind, i, colour)
    lightness = {kind: [_oklab_lightness(c) for _, c in SCALES[kind]["stops"]] for kind in ("sequential", "diverging")}
    steps = [b - a for a, b in itertools.pairwise(lightness["sequential"])]
    assert all(step > 0 for step in steps) and max(steps) / min(steps) < 1.6
    half = len(lightness["diverging"]) // 2
    rising = lightness["diverging"][:half + 1]
    assert all(b > a for a, b in itertools.pairwise(rising))
    assert lightness["diverging"] == pytest.approx(lightness["diverging"][::-1], abs=0.01)  # symmetric about 0


def _oklab_lightness(hex_colour: str) -> float:
    def linear(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(int(hex_colour[i:i + 2], 16)) for i in (1, 3, 5))
    lms = (0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b, 0.2119034982 * r + 0.6806995451 * g
           + 0.1073969566 * b, 0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b)
    l_, m_, s_ = (x ** (1 / 3) for x in lms)
    return 0.2104542553 * l_ + 0.7936177850 * m_ - 0.0040720468 * s_


def test_which_scale_a_set_of_values_gets() -> None:
    assert (scale_for([0.1, 0.5], percent=True).kind, scale_for([0.1, 0.5], percent=True).low) == ("sequential", 0)
    assert scale_for([-1, 3]).kind == "diverging" and (scale_for([-1, 3]).low, scale_for([-1, 3]).high) == (-3, 3)
    assert (scale_for([2, 5]).low, scale_for([2, 5]).high) == (2, 5)
    assert scale_for([4, 4]).colour(4) == colour_at("sequential", 0.5)


# ---- every author error, at its line ----------------------------------------------------------------------------

RAISES = MASK_WIDGET.replace('    if show == "scores":', '    if show == "after" and temperature == 2:\n'
                             '        raise ValueError("too warm")\n    if show == "scores":')
CLASH = MASK_WIDGET.replace('"top": weights(scaled)[3][3]', '"top": 1, "show": 2')
TEXT_ONLY = MASK_WIDGET.replace('**dict(zip(tokens, row)), "Sum": sum(x for x in row if x is not None and x != -math.inf)',
                                '**{k: str(v) for k, v in zip(tokens, row)}')
WIDGET_CASES = {
    "both parameter and parameters": (
        "parameters:\n", "parameter:\n  label: x\n  options: [1]\nparameters:\n", "```{widget}",
        'the {widget} block needs "parameter:" (one control) or "parameters:" (a list of them, each with a "name:"), '
        "not both"),
    "neither": (
        MASK[MASK.index("parameters:"):MASK.index("caption:")], "", "```{widget}",
        'the {widget} block needs "parameter:" with its label and options (or range), or "parameters:" for several'),
    "a name twice": (
        "  - name: show", "  - name: temperature", "  - name: temperature\n    label: Show",
        '"parameters:" names "temperature" twice — give each parameter its own name'),
    "no name": (
        "  - name: show\n    label: Show", "  - label: Show", "  - label: Show",
        'parameter 2 of "parameters:" needs "name:" naming the function\'s keyword argument, e.g. "name: heads"'),
    "an unknown key": (
        "    hint: divides every score", "    hnit: divides every score", "hnit:",
        'unknown key "hnit" in parameter 1 ("temperature") of "parameters:" (did you mean "hint"?) — use one of: '
        "default, hint, label, name, options, range"),
    "numbers and words": (
        "options: [0.5, 1, 2]", "options: [0.5, one, 2]", "options: [0.5, one",
        'option 2 of parameter 1 of the {widget} block\'s "parameters:" is the word "one", but option 1 is a number '
        "— give every option a number, or every option a word"),
    "a default that is no option": (
        "    default: before", "    default: during", "default: during",
        '"default:" during is not one of the values (scores, before, after) — choose one of them'),
    "a labelled option without a value": (
        "      - {value: before, label: Mask before softmax}", "      - {label: Mask before softmax}",
        "{label: Mask before softmax}",
        'item 2 of "options:" of parameter 2 ("show") of "parameters:" needs "value:" with the value the function '
        'gets, e.g. "value: before"'),
    "too many combinations": (
        "caption:", "  - name: step\n    label: Step\n    range: {min: 1, max: 50, step: 1}\ncaption:", "parameters:",
        '"parameters:" gives 3 × 3 × 50 = 450 combinations — a widget holds at most 400 tables: offer fewer options'),
    "heat: a column that is not one": (
        "heat: [The, cat, sat, down]", "heat: [The, cta]", "heat:",
        '"heat:" names the column "cta", which table() does not return (did you mean "cat"?) — use one of: Query, '
        "The, cat, sat, down, Sum"),
    "heat: the row header": (
        "heat: [The, cat, sat, down]", "heat: [Query, cat]", "heat:",
        '"heat:" names "Query", the row header — shade other columns'),
    "a masked cell outside heat:": (
        "heat: [The, cat, sat, down]", "heat: [The, sat, down]", "function: table",
        'row 1 of table(temperature=0.5, show="scores") has "cat": -inf (not a finite number) — None and -inf are '
        'masked cells, shown only in a "heat:" column: name the column in "heat:", or return a number'),
    "formats: a column that is not one": (
        "formats: {The: percent,", "formats: {Teh: percent,", "formats: {Teh",
        '"formats:" names the column "Teh", which table() does not return (did you mean "The"?) — use one of: Query, '
        "The, cat, sat, down, Sum"),
    "formats: an unknown format": (
        "Sum: percent}", "Sum: percents}", "formats: {The: percent",
        '"formats:" gives "Sum" the format "percents" — write number, percent or text, or one format in braces like '
        '"{:.2f}"'),
    "formats: two fields": (
        "Sum: percent}", 'Sum: "{:.2f} {:.1f}"}', "formats: {The: percent",
        '"formats:" gives "Sum" the format "{:.2f} {:.1f}" — write number, percent or text, or one format in braces '
        'like "{:.2f}"'),
    "formats: one that fits no number": (
        "Sum: percent}", 'Sum: "{:q}"}', "formats: {The: percent",
        '"formats:" gives "Sum" the format "{:q}" (Unknown format code \'q\' for object of type \'float\') — write '
        'number, percent or text, or one format in braces like "{:.2f}"'),
    "formats: one these numbers do not fit": (
        "Sum: percent}", 'Sum: "{:d}"}', "formats: {The: percent",
        'row 1 of table(temperature=0.5, show="before") has "Sum": 1.0, which the format "{:d}" cannot write (Unknown '
        "format code 'd' for object of type 'float') — choose a format for numbers like it"),
    "an option's formats: a column that is not one": (
        'formats: {The: "{:.1f}", cat:', 'formats: {Thee: "{:.1f}", cat:', "formats: {Thee",
        '"formats:" of the option scores names the column "Thee", which table() does not return (did you mean '
        '"The"?) — use one of: Query, The, cat, sat, down, Sum'),
    "check: a combination that is not one": (
        '"2, after":', '"3,after":', '"3,after"',
        '"check:" names the option 3,after, which is not one of the values — use one of: 0.5,scores, 0.5,before, '
        "0.5,after, 1,scores, 1,before, 1,after, 2,scores, 2,before, 2,after"),
    "check: a figure the lab does not compute": (
        '"1,before": ["−∞", "81.8%"', '"1,before": ["−∞", "81.9%"', '"1,before"',
        '"check:" says 81.9% for option 1,before, row 2 of "cat", but table(temperature=1, show="before") gives '
        "81.8% — correct the figure"),
    "a figure naming one option of two": (
        "[[mask:1,after:2:cat]]", "[[mask:1:2:cat]]", "[[mask:1:2:cat]]",
        'figure "[[mask:1:2:cat]]" names the option 1, which the widget does not have — a combination names one '
        "option of each parameter in order (temperature, show), e.g. 1,before: its options are 0.5,scores, "
        "0.5,before, 0.5,after, 1,scores, 1,before, 1,after, 2,scores, 2,before, 2,after"),
    "a caption naming no value": (
        'caption: "T = {temperature}', 'caption: "T = {temp}', "caption:",
        '"caption:" uses {temp}, which names no value — use {temperature}, {show}, {top} (a format spec may follow a '
        "colon: {temperature:.2f})"),
}


@pytest.mark.parametrize(("old", "new", "needle", "message"), list(WIDGET_CASES.values()), ids=list(WIDGET_CASES))
def test_widget_errors_at_their_line(tmp_path: Path, old: str, new: str, needle: str, message: str) -> None:
    text = edit(MASK, old, new)
    assert mask_problems(tmp_path, text) == [f"lesson/masking.md:{line_of(text, needle)}: {message}"]


@pytest.mark.parametrize(("widget", "message"), [
    (RAISES, 'table(temperature=2, show="after") raised ValueError: too warm (at lab/masking_widget.py:12) — fix the '
     "function: the build calls it once per value"),
    (CLASH, 'table(temperature=0.5, show="scores") returns "show", the name of a parameter, which the caption writes '
     "as {show} already — give the scalar another name"),
])
def test_what_the_function_does_wrong_is_named_at_function(tmp_path: Path, widget: str, message: str) -> None:
    assert mask_problems(tmp_path, widget=widget) == [f"lesson/masking.md:{line_of(MASK, 'function: table')}: {message}"]


@pytest.mark.parametrize(("times", "message"), [
    (63, 'table(temperature=0.5, show="scores") returns 252 rows — a widget shows at most 200'),
    (30_000, 'table(temperature=0.5, show="scores") is 10,620,037 characters of JSON, more than the 100,000 the build '
     "reads — return less: a page shows a few hundred numbers, not a whole grid"),
])
def test_a_widget_returning_a_huge_table_is_refused_at_function(tmp_path: Path, times: int, message: str) -> None:
    widget = MASK_WIDGET + ("\n_table = table\n\n\ndef table(temperature, show):\n    out = _table(temperature, show)\n"
                            f"    return {{**out, 'rows': out['rows'] * {times}}}\n")
    assert mask_problems(tmp_path, widget=widget) == [f"lesson/masking.md:{line_of(MASK, 'function: table')}: {message}"]


def test_heat_all_needs_a_column_of_numbers(tmp_path: Path) -> None:
    text = edit(edit(MASK, "heat: [The, cat, sat, down]", "heat: all"), ", Sum: percent}", "}")
    text = edit(text, ', Sum: "{:.1f}"}', "}")
    assert mask_problems(tmp_path, text, TEXT_ONLY) == [
        f'lesson/masking.md:{line_of(text, "heat: all")}: "heat: all" shades every column of numbers, but table() '
        "returns none besides the row header — return numbers, or leave heat: out"]


def test_a_prediction_needs_a_chart(tmp_path: Path) -> None:
    """A heatmap is compared row by row; a lab that draws no chart is told what a prediction compares."""
    lesson = edit(LAB_LESSON, "timeout: 1\n", "timeout: 1\npanel:\n  variable: raw\npredict:\n  question: Which way?\n"
                  "  answers: {up: up, down: down}\n")
    drawn = write_course(tmp_path / "heatmap", {"a.md": lesson},
                         {"demo.py": "import labkit\n\nraw = [1.0, 2.0]\nlabkit.heatmap([raw])\n"})
    assert island((build(drawn) / "a.html").read_text(encoding="utf-8"), "lab")["predict"]["measure"] == "largest"
    write_course(tmp_path, {"a.md": lesson}, {"demo.py": "raw = [1.0, 2.0]\nprint(raw)\n"})
    assert problems(tmp_path) == [
        f'lesson/a.md:{line_of(lesson, "predict:")}: "predict:" compares a chart of the lesson\'s run with the '
        "learner's, but demo.py draws no chart at build time — draw one with labkit.bars, labkit.lines or "
        "labkit.heatmap (its series, or a heatmap's rows, are what the prediction is about)"]


def test_the_heat_json_is_the_pages_own() -> None:
    """The scales the build reads are the file the page's colour-scale.js imports."""
    page = STATIC / "js" / "lab" / "colour-scales.json"
    assert json.loads(page.read_text(encoding="utf-8")) == SCALES
