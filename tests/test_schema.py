"""lessonkit/content/schema.py: author YAML checked key by key, each problem at its own line in the author's terms
(fixtures made here; the block types' schemas are tested through their folders)."""

from __future__ import annotations

from typing import Any

from lessonkit.content import yamlsrc
from lessonkit.content.schema import Choice, Fields, Key, ListOf, Number, Src, Text, Whole, did_you_mean

SCHEMA = Fields({
    "name": Key(Text(r"[a-z]+", "lowercase letters", '"name: scores"'), required=True, hint="naming the list"),
    "size": Key(Whole(min=1, max=10), default=3),
    "scale": Key(Number(above=0)),
    "kind": Key(Choice("bars", "lines"), default="bars"),
    "items": Key(ListOf(Fields({"text": Key(Text(), required=True)}), noun="item", min=1)),
})


def check(source: str) -> tuple[Any, list[tuple[int, str]]]:
    """The checked data (or None) and the problems, for YAML starting on line 10."""
    found: list[tuple[int, str]] = []
    data = SCHEMA.validate(yamlsrc.load(source, 10), "the {demo} block", lambda line, msg: found.append((line, msg)), 9)
    return data, found


def test_good_data_comes_back_with_defaults_and_lines() -> None:
    data, problems = check("name: scores\nscale: 0.5\nitems:\n  - text: one\n")
    assert problems == []
    assert data == {"name": "scores", "scale": 0.5, "items": [{"text": "one"}], "size": 3, "kind": "bars"}
    assert isinstance(data["name"], Src) and data["name"].line == 10
    assert data.lines["scale"] == 11


def test_each_problem_is_reported_at_its_line_in_the_authors_terms() -> None:
    _, problems = check("nmae: x\nsize: 11\nscale: -1\nkind: pie\nitems:\n  - txt: one\n")
    assert problems == [
        (10, 'unknown key "nmae" in the {demo} block (did you mean "name"?) — use one of: items, kind, name, scale, size'),
        (11, '"size:" in the {demo} block must be a whole number at least 1 and at most 10'),
        (12, '"scale:" in the {demo} block must be a number more than 0'),
        (13, '"kind:" in the {demo} block must be one of: bars, lines'),
        (15, 'unknown key "txt" in item 1 (did you mean "text"?) — use one of: text'),
        (15, 'item 1 needs "text:"'),
        (9, 'the {demo} block needs "name:" naming the list'),
    ]


def test_did_you_mean_names_the_closest_choice_only() -> None:
    assert did_you_mean("widgt", ["widget", "quiz"]) == ' (did you mean "widget"?)'
    assert did_you_mean("zzz", ["widget", "quiz"]) == ""
