"""The build's quicker paths make the very site the plain engines make: the inline converter without the patterns a
string cannot use (lessonkit.text.markup.inline_markdown_for) against Python-Markdown's full one, the templates'
dict lookup against Jinja's own, and the sidebar's list made once per build against its template rendered for each
page, byte for byte over whole sites and string by string over generated author text."""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import jinja2
import pytest
from course import (
    COURSE,
    DEMO,
    DEMO_LAB,
    DEMO_WIDGET,
    EXERCISE,
    LESSON,
    MASK,
    MASK_LAB,
    MASK_WIDGET,
    QUIZ,
    SIGMOID,
    SIGMOID_LAB,
    SIGMOID_WIDGET,
    STATS_LAB,
    write_course,
)
from markdown import postprocessors, treeprocessors, util
from places import FIXTURE

from lessonkit.page import lesson as lesson_page
from lessonkit.page import nav, templates
from lessonkit.pipeline.site import build_site
from lessonkit.text import inlinepass, markup, prose


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def _plain_engines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python-Markdown's own inline pass in every converter, every block string through one full inline converter,
    every template through Jinja's own environment."""
    monkeypatch.setattr(markup, "_Inline", treeprocessors.InlineProcessor)
    monkeypatch.setattr(markup, "_RawHtml", postprocessors.RawHtmlPostprocessor)
    monkeypatch.setattr(inlinepass, "BLOCK_NEEDS", {})
    full = markup.new_inline_markdown()
    monkeypatch.setattr(prose, "inline_markdown_for", lambda text: full)
    monkeypatch.setattr(templates, "_Environment", jinja2.Environment)
    monkeypatch.setattr(lesson_page, "course_sidebar", lambda env, site, page_nav, slug: nav.render_sidebar(env, page_nav))


# A course in parts, in an order of its own, with titles that need escaping.
_PARTS = """title: A course
parts:
  - title: Basics & <first> "steps"
    lessons: [p3, p1]
  - title: Then
    lessons: [p2, p4, p5]
"""


@pytest.mark.parametrize("course", ["repository", "fixtures", "parts", "flat"])
def test_a_clean_build_is_the_site_the_plain_engines_make(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          course: str) -> None:
    if course == "repository":  # the real course: every block type, math, figures, code in strings
        lessons, labs = FIXTURE / "lesson", FIXTURE / "lab"
        shutil.copyfile(FIXTURE / "course.yaml", tmp_path / "course.yaml")
    elif course in ("parts", "flat"):  # the sidebar's list, with parts and without, titles escaped
        titles = ["One & two", "<b>Three</b>", 'Say "four"', "aria-current=&quot;page&quot;", "Five"]
        front = {n: f"title: '{t}'\nslug: p{n}" + (f"\norder: {n}" if course == "flat" else "")
                 for n, t in enumerate(titles, 1)}
        write_course(tmp_path, {f"p{n}.md": LESSON.replace("title: A lesson", text) for n, text in front.items()},
                     course=_PARTS if course == "parts" else COURSE)
        lessons, labs = tmp_path / "lesson", tmp_path / "lab"
    else:  # the tests' own lessons: a block of each type, more widgets (one masked), a quiz, an exercise
        lessons = {"demo.md": DEMO, "sigmoid.md": SIGMOID, "masking.md": MASK, "quiz.md": QUIZ, "averages.md": EXERCISE}
        write_course(tmp_path, {name: text.replace("order: 1", f"order: {n}") for n, (name, text)
                                in enumerate(lessons.items(), 1)},
                     {"demo.py": DEMO_LAB, "demo_widget.py": DEMO_WIDGET, "sigmoid.py": SIGMOID_LAB,
                      "sigmoid_widget.py": SIGMOID_WIDGET, "masking.py": MASK_LAB, "masking_widget.py": MASK_WIDGET,
                      "stats.py": STATS_LAB})
        lessons, labs = tmp_path / "lesson", tmp_path / "lab"
    build_site(tmp_path, tmp_path / "quick", lessons=lessons, labs=labs)
    with monkeypatch.context() as patch:
        _plain_engines(patch)
        build_site(tmp_path, tmp_path / "plain", lessons=lessons, labs=labs)
    quick, plain = _files(tmp_path / "quick"), _files(tmp_path / "plain")
    assert sorted(quick) == sorted(plain)
    assert [name for name in plain if quick[name] != plain[name]] == []


# Author text as blocks hold it: words, markdown's punctuation, math, code, escapes, line breaks, list and heading
# starts; a few thousand strings of it, the same each run.
_PIECES = ["word", "two words", " ", "  ", "\n", "\n\n", "  \n", "$x$", "$d_k$", "$$", "`code`", "``a`b``", "`", "\\",
           "\\[", "\\]", "\\*", "\\_", "\\`", "\\$", "*", "**", "_", "__", "[", "]", "(", ")", "[a](b.html)", "![i](x.png)",
           "<", ">", "&", "&amp;", "&#36;", "#", "# ", "- ", "* ", "+ ", "1. ", "> ", "---", "===", "    ", "\t", "!",
           "|", "~", "{", "}", ":", "'", '"', "−4 < −2", "a_b_c", "x * y", "<https://x.y>", "<a@b.c>", "√", "0.25"]


def _texts(count: int) -> list[str]:
    rng = random.Random(7)
    return [str(markup.literal("4 * [1]")) * (n % 11 == 0) + "".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 9)))
            for n in range(count)]


def test_each_string_converts_as_the_full_inline_converter_does() -> None:
    full = markup.new_inline_markdown()
    for text in _texts(3000):
        lean = markup.inline_markdown_for(text)
        for md in (lean, full):
            md.math_errors = []
        assert markup.inline(lean, text) == markup.inline(full, text), text
        assert [str(e) for e in lean.math_errors] == [str(e) for e in full.math_errors], text
        lean.reset()
        full.reset()
        assert lean.convert(text) == full.convert(text), text


def test_each_text_converts_as_python_markdowns_own_inline_pass_does(monkeypatch: pytest.MonkeyPatch) -> None:
    for private in ("_InlineProcessor__handleInline", "_InlineProcessor__applyPattern"):  # what markup._Inline uses
        assert hasattr(treeprocessors.InlineProcessor, private)
    quick = markup.new_markdown()
    monkeypatch.setattr(markup, "_Inline", treeprocessors.InlineProcessor)
    monkeypatch.setattr(markup, "_RawHtml", postprocessors.RawHtmlPostprocessor)
    monkeypatch.setattr(inlinepass, "BLOCK_NEEDS", {})
    plain, inline_plain = markup.new_markdown(), markup.new_inline_markdown()
    monkeypatch.undo()
    inline_quick = markup.new_inline_markdown()
    assert type(quick.treeprocessors["inline"]) is markup._Inline
    assert type(plain.treeprocessors["inline"]) is treeprocessors.InlineProcessor
    for text in _texts(2000):
        for a, b in ((quick, plain), (inline_quick, inline_plain)):
            a.reset()
            b.reset()
            assert a.convert(text) == b.convert(text), text


def test_a_lean_converter_drops_only_what_the_text_cannot_use() -> None:
    md = markup.inline_markdown_for("Scores: $q_1$ and `raw`")
    assert "em_strong" in md.inlinePatterns and "backtick" in md.inlinePatterns  # `_` is in the text
    assert "link" not in md.inlinePatterns and "entity" not in md.inlinePatterns and "escape" not in md.inlinePatterns
    assert "paragraph" in md.parser.blockprocessors and "olist" not in md.parser.blockprocessors
    listed = markup.inline_markdown_for("1. a [link](x.html) &amp; *b*\nnext")
    assert all(name in listed.inlinePatterns for name in ("link", "entity", "em_strong", "linebreak"))
    assert "olist" in listed.parser.blockprocessors
    assert markup.inline_markdown_for("Scores: $q_2$ and `x`") is md  # made once per kind of text


def test_a_sidebar_list_the_template_marks_otherwise_is_rendered_for_each_page(tmp_path: Path) -> None:
    (tmp_path / "course-nav.html").write_text(
        '{% for les in nav.lessons %}<a href="{{ les.href }}"{% if les.current %} class="here"{% endif %}>'
        "{{ les.title }}</a>{% endfor %}", encoding="utf-8")
    env = templates.environment(tmp_path)
    site = {"lessons": [{"slug": s, "title": s, "href": f"{s}.html", "number": n} for n, s in enumerate("ab", 1)],
            "parts": []}
    page_nav = nav.course_nav(site["lessons"], "b")
    assert nav.course_sidebar(env, site, page_nav, "b") == '<a href="a.html">a</a><a href="b.html" class="here">b</a>'


# Lines of words and math as authors write them in blocks, with what makes them need markdown after all.
_MATH_PIECES = ["word", "two words", " ", "$x$", "$d_k$", "$\\sqrt{d_k}$", "$x^$", "$\\href{a}{b}$", "'", '"', "(", ")",
                ",", ".", ":", "?", "−", "√", "é",  # text and math (then what makes markdown needed after all)
                "  ", "$ x$", "$x $", "$", "$$", "$5 and $6", "a$b$c", "\\$x$", "_", "*", "`", "[", "&", "<", "\n", "\t",
                "\u00a0", "1. ", "# ", "- ", "--", "..."]


def test_a_line_of_text_and_math_is_what_its_conversion_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    """inline() makes a line of plain text and math without converting it: the same HTML and math errors as the
    conversion, through the lean converter for it and the full one, on a few thousand lines (a fifth of them or
    more taken the quick way)."""
    rng = random.Random(11)
    texts = ["".join(rng.choice(_MATH_PIECES[:n]) for _ in range(rng.randint(1, 7)))
             for n in (19, len(_MATH_PIECES)) for _ in range(1500)]  # text and math, then anything
    texts += ["$x$", " $x$", "$x$ ", "$x^$", "$\\href{a}{b}$", "$x$$y$", "$a$ $b$"]
    full = markup.new_inline_markdown()

    def made(text: str) -> list[tuple[str, list[str]]]:
        out = []
        for md in (markup.inline_markdown_for(text), full):
            md.math_errors = []
            out.append((markup.inline(md, text), [str(e) for e in md.math_errors]))
        return out

    quick = [made(text) for text in texts]
    taken = sum(markup._text_and_math(full, text) is not None for text in texts)
    monkeypatch.setattr(markup, "_text_and_math", lambda md, text: None)
    assert [made(text) for text in texts] == quick
    assert taken > len(texts) // 5



def test_the_raw_html_pass_puts_back_what_python_markdowns_own_does() -> None:
    """inlinepass.RawHtml tries its pattern only at placeholders: the same text as Python-Markdown's own pass on
    documents of placeholders (in paragraphs alone, beside text, unknown ones, broken ones) and stashed HTML that
    is a block, inline, empty, or holds placeholders itself."""
    md = markup.new_markdown()
    stash = ["<math>x</math>", "<div>block</div>", "", "<b>b</b>", "<p>inner</p>", "<span>PH1 PH3</span>", "<!-- c -->"]
    pieces = ["<p>", "</p>", "PH0", "PH1", "PH2", "PH3", "PH4", "PH5", "PH6", "PH9", "\x02wzxhzdk:", "\x02wzxhzdk:x\x03",
              "\n", "text", " ", "<", "p>", "</"]
    rng = random.Random(13)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(3000)]
    ours, theirs = inlinepass.RawHtml(md), postprocessors.RawHtmlPostprocessor(md)
    md.htmlStash.reset()
    for html in stash:
        md.htmlStash.store(html.replace("PH1", util.HTML_PLACEHOLDER % 1).replace("PH3", util.HTML_PLACEHOLDER % 3))
    for text in texts:
        text = re.sub(r"PH(\d)", lambda m: util.HTML_PLACEHOLDER % m.group(1), text)
        assert ours.run(text) == theirs.run(text), text
