"""lessonkit/content/course.py on its own: the course config read and checked (every author error pinned at its
line), the lessons put in course order, and the accent measured against the page's colours, on a course folder and a
stylesheet each test writes. tests/test_course.py builds whole courses with it."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from lessonkit.content import accent as A  # noqa: N812 (short name, as C)
from lessonkit.content import course as C  # noqa: N812 (short name for many asserts)
from lessonkit.content import yamlsrc
from lessonkit.core.errors import Problem

STYLESHEET = """:root {
  --bg: #ffffff;
  --panel: #f4f4f4;
  --accent-fg: #ffffff;
  --text: #222222;
}
@media (prefers-color-scheme: dark) {
  :root { --bg: #101010; --panel: #1a1a1a; --accent-fg: #000000; }
}
"""


def load(tmp_path: Path, config: str | None) -> tuple[C.Course | None, list[str]]:
    """load_course on a course folder holding `config` as course.yaml (none when None), and the problems."""
    folder = tmp_path / "course"
    folder.mkdir(exist_ok=True)
    if config is not None:
        (folder / C.NAME).write_text(config, encoding="utf-8")
    stylesheet = tmp_path / "page.css"
    stylesheet.write_text(STYLESHEET, encoding="utf-8")
    problems: list[Problem] = []
    return C.load_course(folder, "", stylesheet, problems), [str(p) for p in problems]


def test_a_course_in_parts_is_read_with_the_line_of_each_lesson(tmp_path: Path) -> None:
    course, problems = load(tmp_path, 'title: Über Attention!\ntagline: A *short* line\naccent: "#2F5BD3"\n'
                                      "parts:\n  - title: Basics\n    lessons: [one, two]\n"
                                      '  - title: "  The   rest "\n    lessons:\n      - three\n')
    assert problems == []
    assert course is not None
    assert (course.id, course.title, course.tagline, course.rel) == ("uber-attention", "Über Attention!",
                                                                      "A *short* line", "course.yaml")
    assert [(p.id, p.title, p.line, p.lessons) for p in course.parts or []] == [
        ("basics", "Basics", 5, ["one", "two"]), ("the-rest", "The rest", 7, ["three"])]
    assert course.lessons == [("one", 6), ("two", 6), ("three", 9)]
    assert course.listing == "parts"
    assert course.accent["light"] == "#2f5bd3"  # as written, in one case
    assert course.accent["dark"] != course.accent["light"]  # too dark on the dark theme: lightened
    assert str(course.style()) == (f":root{{--accent:#2f5bd3}}@media (prefers-color-scheme: dark){{:root{{--accent:"
                                   f"{course.accent['dark']}}}}}")


def test_a_course_without_an_accent_or_an_order_keeps_the_defaults(tmp_path: Path) -> None:
    course, problems = load(tmp_path, "id: my-course\ntitle: T\n")
    assert problems == []
    assert course is not None
    assert (course.id, course.accent, course.lessons, course.parts, course.listing) == ("my-course", {}, None, None,
                                                                                         "lessons")
    assert str(course.style()) == ""


def test_the_dark_accent_is_the_least_lightened_colour_that_reads(tmp_path: Path) -> None:
    (tmp_path / "page.css").write_text(STYLESHEET, encoding="utf-8")
    dark = A.page_colours(tmp_path / "page.css")["dark"]
    assert dark == {"--bg": "#101010", "--panel": "#1a1a1a", "--accent-fg": "#000000"}
    lightened = A.lighten("#2f5bd3", dark)
    assert all(A.contrast(lightened, colour) >= A.MIN_CONTRAST for colour in dark.values())
    # One 5 % step less white does not read: the colour keeps as much of the author's as it can.
    step = [int(lightened[i:i + 2], 16) for i in (1, 3, 5)]
    original = [0x2F, 0x5B, 0xD3]
    t = (step[2] - original[2]) / (255 - original[2]) - 0.05
    less = "#" + "".join(f"{round(c + (255 - c) * t):02x}" for c in original)
    assert any(A.contrast(less, colour) < A.MIN_CONTRAST for colour in dark.values())
    grey = dict.fromkeys(A.AGAINST, "#bbbbbb")  # nothing lighter than the accent reads on it
    assert A.contrast("#ffffff", "#bbbbbb") < A.MIN_CONTRAST
    assert A.lighten("#2f5bd3", grey) == "#ffffff"


def test_contrast_is_wcags_ratio() -> None:
    assert A.contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert A.contrast("#ffffff", "#000000") == A.contrast("#000000", "#ffffff")
    assert A.contrast("#777777", "#777777") == pytest.approx(1.0)
    assert A.contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)  # the grey WCAG's examples use


def test_slugs_are_made_from_any_text() -> None:
    assert C.slug_of("Über Attention!") == "uber-attention"
    assert C.slug_of("  Part 2:  the  REST ") == "part-2-the-rest"
    assert C.slug_of("!!!") == "course"
    assert C.slug_of("…", "part") == "part"


def test_a_stylesheet_without_both_themes_is_our_bug(tmp_path: Path) -> None:
    css = tmp_path / "page.css"
    css.write_text(":root { --bg: #ffffff; }\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match="no :root colours for the light and dark themes"):
        A.page_colours(css)
    css.write_text(":root { --bg: #ffffff; }\n@media (prefers-color-scheme: dark) { :root { --bg: #000000; } }\n",
                   encoding="utf-8")
    with pytest.raises(RuntimeError, match=":root sets no --panel, --accent-fg"):
        A.page_colours(css)


@pytest.mark.parametrize(("config", "problem"), [
    (None, '1: course config is missing — create it with at least "title: My course"'),
    ("- a\n- b\n", '1: the course config must be "key: value" lines, e.g. "title: My course"'),
    ("title: T\nlessons: [a]\nparts:\n  - title: P\n    lessons: [a]\n",
     '2: "lessons:" and "parts:" both give the order of the lessons — keep "parts:" (its parts list the lessons in '
     'order) and remove "lessons:"'),
    ("title: T\nlessons:\n  - a\n  - b\n  - a\n",
     '5: lesson "a" is listed twice in "lessons:" (first at line 3) — list each lesson once'),
    ("title: T\nparts:\n  - title: P\n    lessons: [a]\n  - title: Q\n    lessons: [b, a]\n",
     '6: lesson "a" is listed twice in "parts:" (first at line 4) — list each lesson once'),
    ('title: T\naccent_dark: "#ffffff"\n', '2: "accent_dark:" needs "accent:" (the light theme\'s) beside it'),
    ("title: T\nparts:\n  - title: Attention\n    lessons: [a]\n  - title: attention!\n    lessons: [b]\n",
     '5: part "attention!" has a title that reads as the same ("Attention") of the part at line 3 — give each part '
     "its own title"),
    ("title: T\nparts:\n  - title: P\n    lessons: [a]\n  - title: P\n    lessons: [b]\n",
     '5: part "P" has the title of the part at line 3 — give each part its own title'),
])
def test_each_author_error_in_the_config_is_pinned_at_its_line(tmp_path: Path, config: str | None,
                                                               problem: str) -> None:
    course, problems = load(tmp_path, config)
    assert problems == [f"course.yaml:{problem}"]
    # A config that cannot be read gives no course; a repeated name is reported with the course still read.
    assert (course is None) == ("twice" not in problem and "its own title" not in problem)


@pytest.mark.parametrize(("accent", "dark", "line", "theme", "role", "against", "fix"), [
    ("#ffcc00", None, 2, "light", "background", "#ffffff", "choose a darker colour"),
    ("#2f5bd3", "#000080", 3, "dark", "background", "#101010", 'choose another colour, or set "accent_dark:"'),
])
def test_an_accent_that_does_not_read_is_refused_with_its_contrast(tmp_path: Path, accent: str, dark: str | None,
                                                                   line: int, theme: str, role: str, against: str,
                                                                   fix: str) -> None:
    config = f'title: T\naccent: "{accent}"\n' + (f'accent_dark: "{dark}"\n' if dark else "")
    course, problems = load(tmp_path, config)
    colour = dark or accent
    assert course is None
    assert problems == [f'course.yaml:{line}: accent "{colour}" has a contrast of '
                        f"{A.contrast(colour, against):.1f}:1 against the {theme} theme's {role} ({against}) — "
                        f"{fix}, with at least {A.MIN_CONTRAST}:1"]


def lesson(slug: str, front: str = "") -> Any:
    """What order_lessons reads of a lesson: its slug, its path, its front matter with lines."""
    return SimpleNamespace(slug=slug, rel=f"lesson/{slug}.md", meta=yamlsrc.load(front or "{}\n", first_line=2))


def test_without_a_list_lessons_follow_their_order_then_their_slugs() -> None:
    lessons = [lesson("c", "order: 1\n"), lesson("b"), lesson("a", "order: 2\n"), lesson("z", "order: 1\n"),
               lesson("aa")]
    problems: list[Problem] = []
    ordered = C.order_lessons(lessons, None, problems)
    assert [les.slug for les in ordered] == ["c", "z", "a", "aa", "b"]
    assert [str(p) for p in problems] == [
        'lesson/z.md:2: order 1 is also the order of lesson/c.md — give each lesson its own "order:"']


def test_a_list_orders_the_lessons_and_must_name_each_one_alone(tmp_path: Path) -> None:
    course, config_problems = load(tmp_path, "title: T\nlessons:\n  - two\n  - one\n  - tree\n")
    assert config_problems == [] and course is not None
    lessons = [lesson("one"), lesson("two", "title: Two\norder: 4\n"), lesson("three")]
    problems: list[Problem] = []
    ordered = C.order_lessons(lessons, course, problems)
    assert [les.slug for les in ordered] == ["two", "one", "three"]
    assert sorted(str(p) for p in problems) == sorted([
        f'course.yaml:5: "lessons:" lists "tree", a missing lesson{C.did_you_mean("tree", ["one", "two", "three"])}'
        " — add lesson/tree.md, or list one of: one, three, two",
        'lesson/three.md:1: lesson "three" is not in the course\'s "lessons:" list (course.yaml:2) — add '
        '"- three" there',
        'lesson/two.md:3: "order:" is not used: course.yaml lists the lessons in order ("lessons:", line 2) '
        "— remove this line",
    ])
    assert "three" in C.did_you_mean("tree", ["one", "two", "three"])  # the near miss is named


def test_a_lesson_outside_every_part_is_told_to_join_one(tmp_path: Path) -> None:
    course, config_problems = load(tmp_path, "title: T\nparts:\n  - title: P\n    lessons: [one]\n")
    assert config_problems == [] and course is not None
    problems: list[Problem] = []
    C.order_lessons([lesson("one"), lesson("two")], course, problems)
    assert [str(p) for p in problems] == [
        'lesson/two.md:1: lesson "two" is not in the course\'s "parts:" parts (course.yaml:2) — add "- two" '
        "to the lessons of one of its parts"]
