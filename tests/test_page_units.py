"""Units of lessonkit/page/ that builds exercise only whole: computed figures (figures), what math may contain
(mathcheck) and the course manifest (manifest), with fixtures made here and every author error pinned."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from places import TEMPLATES

from lessonkit.page import links, manifest
from lessonkit.text import mathcheck
from lessonkit.text.figures import FigureError, Figures, Table, option_key, parse_option


def figures() -> Figures:
    """One widget's table: options 1 and 0.5, two rows each, columns Score and Share (Share is its figure's)."""
    rows = {"1": [{"Score": "1.0", "Share": "27%"}, {"Score": "2.0", "Share": "73%"}],
            "0.5": [{"Score": "0.5", "Share": "38%"}, {"Score": "1.0", "Share": "62%"}]}
    return Figures({"shares": Table("shares", "table", ["Score", "Share"], "Share", rows)}, {"broken"})


def test_options_have_one_spelling() -> None:
    assert [option_key(v) for v in (4.0, 0.25, -3, 1e20)] == ["4", "0.25", "-3", "1e+20"]
    assert [parse_option(t) for t in (".25", "2.5e-1", " 4 ", "inf", "x")] == ["0.25", "0.25", "4", None, None]


def test_a_figure_is_the_value_the_lab_computed() -> None:
    f = figures()
    assert f.resolve("shares:1:2", None) == "73%"
    assert f.resolve("shares:.5:1:Score", "0.5") == "0.5"
    assert f.resolve("broken:1:1", "9") is None  # its widget's own problem says what is wrong


@pytest.mark.parametrize(("ref", "expect", "message"), [
    ("shares:1", None, 'figure "[[shares:1]]" must be [[widget-id:option:row]] or [[widget-id:option:row:Column]]'),
    ("share:1:1", None, 'figure "[[share:1:1]]" names no widget of this lesson (did you mean "shares"?) — use one of: '
                        "shares"),
    ("shares:2:1", None, 'figure "[[shares:2:1]]" names the option 2, which the widget does not have — its options '
                         "are 1, 0.5"),
    ("shares:1:3", None, 'figure "[[shares:1:3]]" names the row 3 — option 1 has rows 1 to 2'),
    ("shares:1:1:Scor", None, 'figure "[[shares:1:1:Scor]]" names the column "Scor", which table(1) does not return '
                              '(did you mean "Score"?) — use one of: Score, Share'),
    ("shares:1:1", "28%", 'figure "[[shares:1:1]]" says 28% but the lab computes 27% — correct the text'),
])
def test_a_wrong_figure_says_how_to_fix_it(ref: str, expect: str | None, message: str) -> None:
    with pytest.raises(FigureError) as info:
        figures().resolve(ref, expect)
    assert str(info.value) == message


def test_math_braces_and_commands_are_checked() -> None:
    assert mathcheck.refused_latex(r"\frac{a}{\sqrt{d_k}}") is None
    assert mathcheck.unbalanced_braces(r"\{x\}") is None
    assert mathcheck.refused_latex("x}") == 'has a "}" that closes nothing — remove it, or add the "{" it should close'
    assert mathcheck.refused_latex("{{x") == 'opens 2 "{" that are never closed — add the "}"'
    assert mathcheck.refused_latex(r"\href{x}{y}") == ("uses \\href, which adds links, styles or raw markup to the page "
                                                       "— lessons allow none: remove it")
    assert mathcheck.refused_latex(r"\fraq{1}{2}") == ("uses \\fraq, a command latex2mathml does not convert (it would "
                                                       "show as text) — did you mean \\frac?")
    assert mathcheck.advice("MissingEndError") == "every \\begin{…} needs its \\end{…}"


def test_only_presentation_mathml_reaches_the_page() -> None:
    assert mathcheck.unsafe_mathml('<math display="inline"><mi>x</mi></math>') is None
    assert mathcheck.unsafe_mathml('<math><script>alert(1)</script></math>') == (
        "gives a <script> element, which lessons do not allow — remove what makes it")
    assert mathcheck.unsafe_mathml("<math><mi>x</mi>").startswith("gives broken MathML (")


def test_the_manifest_lists_every_lesson_in_order_with_its_progress_blocks() -> None:
    lesson = SimpleNamespace(slug="one", title="One", meta={"summary": "First"}, version="v1")
    quiz = {"type": "quiz", "id": "check", "version": "q1", "questions": 2}
    pages = [SimpleNamespace(lesson=lesson, progress=[quiz]),
             SimpleNamespace(lesson=SimpleNamespace(slug="two", title="Two", meta={}, version="v2"), progress=[])]
    assert manifest.course_manifest({"id": "c", "title": "C", "other": 1}, pages) == {
        "course": {"id": "c", "title": "C"}, "format": manifest.FORMAT,
        "lessons": [{"slug": "one", "title": "One", "summary": "First", "version": "v1", "href": "one.html",
                     "blocks": [quiz]},
                    {"slug": "two", "title": "Two", "summary": "", "version": "v2", "href": "two.html", "blocks": []}],
        "parts": [],
    }
    part = {"id": "basics", "title": "Basics", "lessons": ("one", "two"), "line": 3}
    assert manifest.course_manifest({"id": "c", "title": "C"}, pages, [part])["parts"] == [
        {"id": "basics", "title": "Basics", "lessons": ["one", "two"]}]


def test_templates_read_a_dicts_keys_as_jinja_does(tmp_path) -> None:
    """A key of a plain dict reads as in any Jinja environment: a dict method's name is the method, a missing key is
    an error (StrictUndefined), and other mappings and objects are looked up as Jinja always does."""
    import jinja2

    from lessonkit.page.templates import environment

    (tmp_path / "t.html").write_text("{{ d.title }}|{{ d.items()|list|length }}|{{ o.title }}|{{ m.title }}",
                                     encoding="utf-8")
    env = environment(tmp_path)

    class Mapping(dict):  # a dict subclass may have attributes of its own: looked up as Jinja does
        title = "attribute"

    page = env.get_template("t.html").render(d={"title": "<b>", "items": 3}, o=SimpleNamespace(title="o"),
                                             m=Mapping(title="key"))
    assert page == "&lt;b&gt;|2|o|attribute"
    plain = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    assert plain.from_string("{{ d.items()|list|length }}|{{ m.title }}").render(
        d={"title": "<b>", "items": 3}, m=Mapping(title="key")) == "2|attribute"
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ d.missing }}").render(d={})


def test_the_ids_of_a_page_are_what_the_id_pattern_finds_in_it() -> None:
    """links.ids_in starts its search only where an id can begin: the same (tag, id) pairs as the pattern's own
    findall over tags, attributes, quotes and text in every order, and over the page template."""
    pieces = ["<", ">", "<a", "<h2", "<p", "<x-y", " ", "\t", "\n", '"', "=", "x", "id", 'id="', ' id="', '\tid="',
              ' id=""', ' id="a"', 'data-id="b"', ' href="c"', '<p id="d" id="e">', "</p>", "é", "\u2003"]
    rng = random.Random(5)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 40))) for _ in range(4000)]
    page = (TEMPLATES / "lesson.html").read_text(encoding="utf-8")
    for text in [*texts, page]:
        assert links.ids_in(text) == links._ID.findall(text), text
    assert sum(bool(links.ids_in(text)) for text in texts) > 500
