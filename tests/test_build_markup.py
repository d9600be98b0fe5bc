"""Lesson markup under attack: LaTeX that would style or link the page, code spans in math, and images."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from course import LESSON, QUIZ_BLOCK, build, line_of, png, problems, write_course


def lesson_with(text: str) -> str:
    """The fixture lesson with more prose at its end."""
    return f"{LESSON}\n{text}\n"


# --- LaTeX --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("tex", "command"), [
    (r"\href{javascript:alert(1)}{x}", r"\href"),
    (r"\style{position:fixed;inset:0;background:red}{x}", r"\style"),
    (r"\class{skip-link}{x}", r"\class"),
    (r"\cssId{lesson-title}{x}", r"\cssId"),
    (r"\url{https://example.com}", r"\url"),
    (r"\htmlStyle{color:red}{x}", r"\htmlStyle"),
    (r"\unicode{x202E}", r"\unicode"),
])
def test_latex_that_links_or_styles_is_refused_at_its_line(tmp_path: Path, tex: str, command: str) -> None:
    """Commands that put links, styles, classes, ids or raw markup on the page are refused, inline or display."""
    text = lesson_with(f"A formula ${tex}$ inline.\n\n$$\n{tex} + 1\n= 2\n$$")
    write_course(tmp_path, {"a.md": text})
    assert problems(tmp_path) == [
        f"lesson/a.md:{line_of(text, 'A formula')}: ${tex}$ uses {command}, which adds links, styles or raw markup "
        "to the page — lessons allow none: remove it",
        f"lesson/a.md:{line_of(text, tex + ' + 1')}: ${tex} + 1 = 2$ uses {command}, which adds links, styles or "
        "raw markup to the page — lessons allow none: remove it",
    ]


def test_what_latex2mathml_emits_is_checked_too(tmp_path: Path) -> None:
    """A colour that is not a colour, a misspelt command (with the command it is closest to, or how to write a name of
    one's own), and a bare < from \\verb are refused by name."""
    text = lesson_with("A $\\color{red;position:fixed}{x}$.\n\nB $\\infinity$.\n\nC $\\verb|a<1|$.\n\n"
                       "D $\\softmax(x)$ and $\\qz$.")
    write_course(tmp_path, {"a.md": text})
    assert problems(tmp_path) == [
        f"lesson/a.md:{line_of(text, 'A $')}: $\\color{{red;position:fixed}}{{x}}$ gives <mstyle "
        'mathcolor="red;position:fixed">, which lessons do not allow — remove the command that adds it',
        f"lesson/a.md:{line_of(text, 'B $')}: $\\infinity$ uses \\infinity, a command latex2mathml does not convert "
        "(it would show as text) — did you mean \\infty?",
        f"lesson/a.md:{line_of(text, 'C $')}: $\\verb|a<1|$ gives broken MathML (not well-formed (invalid token): "
        "line 1, column 45) — write < and > as \\lt and \\gt, or leave out the command that breaks it",
        f"lesson/a.md:{line_of(text, 'D $')}: $\\qz$ uses \\qz, a command latex2mathml does not convert (it would "
        "show as text) — check its spelling",
        f"lesson/a.md:{line_of(text, 'D $')}: $\\softmax(x)$ uses \\softmax, a command latex2mathml does not convert "
        "(it would show as text) — check its spelling, or write a name of your own as \\operatorname{softmax}",
    ]


@pytest.mark.parametrize(("tex", "mathml"), [
    (r"-\infty", '<mo form="prefix">−</mo><mi>&#x0221E;</mi>'),
    (r"x = -1", '<mi>x</mi><mo>=</mo><mo form="prefix">−</mo><mn>1</mn>'),
    (r"[-1, 1]", '<mo stretchy="false">[</mo><mo form="prefix">−</mo><mn>1</mn><mo>,</mo>'),
    (r"\{-1\}", '<mo stretchy="false">&#x0007B;</mo><mo form="prefix">−</mo><mn>1</mn>'),
    (r"e^{-x}", '<mrow><mo form="prefix">−</mo><mi>x</mi></mrow>'),
    (r"a + -b", '<mo>+</mo><mo form="prefix">−</mo><mi>b</mi>'),
    (r"--1", '<mo form="prefix">−</mo><mo form="prefix">−</mo><mn>1</mn>'),
    (r"a - b", "<mi>a</mi><mo>−</mo><mi>b</mi>"),  # between two terms: infix, spaced
    (r"f(x) - 1", '<mo stretchy="false">)</mo><mo>−</mo><mn>1</mn>'),  # after a closing fence: infix
    (r"|x| - 1", '<mo stretchy="false">&#x0007C;</mo><mo>−</mo><mn>1</mn>'),
])
def test_a_leading_minus_is_a_prefix_operator(tex: str, mathml: str) -> None:
    """A sign with nothing before it to act on reads as one signed number (no gap between − and ∞ or 1)."""
    from lessonkit.text.mathml import to_mathml

    assert mathml in to_mathml(tex)


@pytest.mark.parametrize(("tex", "display", "mathml"), [
    # an upright name with no operator's gap before its bracket
    (r"\operatorname{softmax}\left(x\right)", "inline", '<mi>softmax</mi><mrow><mo stretchy="true" fence="true" '
     'form="prefix">(</mo>'),
    (r"\max_j s_j", "inline", "<msub><mi>max</mi><mi>j</mi></msub>"),  # inline: its limit beside it
    (r"\max_j s_j", "block", '<munder><mi>max</mi><mi>j</mi></munder><mspace width="0.167em" /><msub><mi>s</mi>'),
    (r"\log x + \exp(x)", "inline", '<mi>log</mi><mspace width="0.167em" /><mi>x</mi><mo>+</mo><mi>exp</mi><mo '
     'stretchy="false">(</mo>'),  # a thin space between a name and its argument, none before a bracket
    (r"\lim_{n \to \infty}^{2} a_n", "block", "<munderover><mi>lim</mi><mrow><mi>n</mi>"),
    (r"\operatorname*{argmax}_j s_j", "block", "<munder><mi>argmax</mi><mi>j</mi></munder>"),
    (r"\sum_{j} e^{\max_i x_i}", "block", "<msup><mi>e</mi><mrow><munder><mi>max</mi><mi>i</mi></munder>"),
    (r"q_1 + \cdots + q_d", "inline", "<mo>+</mo><mi>⋯</mi><mo>+</mo><msub>"),  # ⋯ is a term: + after it is infix
    # each matrix in a row of its own, so its brackets stretch to its own height, not the tallest matrix beside it
    (r"M = \begin{pmatrix} 1 \\ 2 \end{pmatrix}, W = \begin{bmatrix} 1 \end{bmatrix}", "block",
     "<mo>=</mo><mrow><mo>(</mo><mtable><mtr><mtd><mn>1</mn></mtd></mtr><mtr><mtd><mn>2</mn></mtd></mtr></mtable>"
     "<mo>)</mo></mrow><mo>,</mo><mi>W</mi><mo>=</mo><mrow><mo>&#x0005B;</mo><mtable>"),
])
def test_named_operators_are_upright_names(tex: str, display: str, mathml: str) -> None:
    """latex2mathml's <mo>softmax</mo> (spaced as an unknown operator, "softmax (x)") is an <mi>, as KaTeX writes it,
    with a thin space before a term it applies to; in display math \\max, \\lim and \\operatorname* take their
    limits under them; a matrix's brackets are its own."""
    from lessonkit.text.mathml import to_mathml

    assert mathml in to_mathml(tex, display)


def test_every_formula_reads_as_its_latex() -> None:
    """Each <math> carries its LaTeX, on one line and escaped, as its alttext (a plain reading of it)."""
    from lessonkit.text.mathml import to_mathml

    assert to_mathml(r'x < \frac{a}{2} \text{"}').startswith(
        '<math alttext="x &lt; \\frac{a}{2} \\text{&quot;}"><mrow><mi>x</mi>')
    assert to_mathml("a\n  + b", "block").startswith('<math alttext="a + b" display="block">')


def test_inline_math_keeps_the_punctuation_around_it(tmp_path: Path) -> None:
    """A full stop, a comma, a bracket or a suffix written right after inline math, and a bracket right before it,
    break with it (a span that does not wrap), in prose and in a block's strings; a space still breaks, and display
    math is left alone."""
    text = lesson_with("For every finite $s$. So $n$-th, ($a$), $x$ $y$.\n\n$$\nz\n$$\n\n" + QUIZ_BLOCK.replace(
        "text: This one", "text: Then $k$, and $q$."))
    write_course(tmp_path, {"a.md": text})
    html = (build(tmp_path) / "a.html").read_text()
    glued = re.findall(r'<span class="math-glue">([^<]*)<math alttext="([^"]*)">.*?</math>([^<]*)</span>', html)
    assert list(dict.fromkeys(glued)) == [("", "s", "."), ("", "n", "-th,"), ("(", "a", "),"), ("", "y", "."),
                                          ("", "k", ","), ("", "q", ".")]
    assert '<math alttext="x"><mrow><mi>x</mi></mrow></math> <span class="math-glue">' in html  # a space breaks
    assert '<math alttext="z" display="block"><mrow><mi>z</mi></mrow></math></div>' in html


def test_each_display_equations_box_is_named_after_it(tmp_path: Path) -> None:
    """A display equation scrolls in a focusable box named by its own TeX: two equations, two names."""
    write_course(tmp_path, {"a.md": lesson_with('$$\na \\lt "b"\n$$\n\n$$\nz^2\n$$\n')})
    html = (build(tmp_path) / "a.html").read_text()
    names = re.findall(r'<div class="math-display" tabindex="0" role="group" aria-label="([^"]*)">', html)
    assert names == ["Equation a \\lt &#34;b&#34; (scrolls sideways on narrow screens)",
                     "Equation z^2 (scrolls sideways on narrow screens)"]


def test_plain_colours_and_ampersands_still_convert(tmp_path: Path) -> None:
    """\\color with a colour name, and a bare & latex2mathml leaves in \\text, are fine."""
    write_course(tmp_path, {"a.md": lesson_with("Red $\\color{red}{x}$ and $\\text{a & b}$.")})
    html = (build(tmp_path) / "a.html").read_text()
    assert '<mstyle mathcolor="red">' in html and "<mtext>a&#x000A0;&amp;&#x000A0;b</mtext>" in html


def test_a_backtick_in_math_stays_math_and_dollars_in_code_stay_code(tmp_path: Path) -> None:
    """`$a`b`c$` is math with two backticks (it was a stashed code span, "klzzwxh:0000"); `$5 and $6` is code."""
    write_course(tmp_path, {"a.md": lesson_with("Math $a`b`c$ here, and `cost $5 and $6` there.")})
    html = (build(tmp_path) / "a.html").read_text()
    assert '<math alttext="a`b`c"><mrow><mi>a</mi><mi>`</mi><mi>b</mi><mi>`</mi><mi>c</mi></mrow></math>' in html
    assert "<code>cost $5 and $6</code>" in html
    assert "klzzwxh" not in html and "\x02" not in html


# --- images -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("src", ["https://example.com/x.png", "http://example.com/x.png", "//example.com/x.png",
                                 "data:image/png;base64,iVBORw0KGgo="])
def test_off_site_images_are_refused(tmp_path: Path, src: str) -> None:
    """The page loads images from the site only: a remote or data: image is named, with where to put the file."""
    text = lesson_with(f"![A plot]({src})")
    write_course(tmp_path, {"a.md": text})
    assert problems(tmp_path) == [
        f'lesson/a.md:{line_of(text, "![A plot]")}: image "{src}" is not on this site (the page loads images from '
        "the site only) — save it in lesson/, e.g. lesson/img/plot.png, and write ![A plot](img/plot.png)",
    ]


def test_script_missing_and_wrong_images_are_refused(tmp_path: Path) -> None:
    """javascript:, a missing file, an SVG, a file outside lessons/ and a PNG that is not one."""
    text = lesson_with("![a](javascript:alert(1))\n\n![b](img/missing.png)\n\n![c](img/logo.svg)\n\n"
                       "![d](../secret.png)\n\n![e](img/fake.png)")
    write_course(tmp_path, {"a.md": text, "img/logo.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>",
                            "img/fake.png": "not a png"})
    (tmp_path / "secret.png").write_bytes(png())
    assert problems(tmp_path) == [
        f'lesson/a.md:{line_of(text, "![a]")}: image "javascript:alert(1)" uses a script URL — images are files '
        "next to the lesson, e.g. ![A plot](img/plot.png) for lesson/img/plot.png",
        f'lesson/a.md:{line_of(text, "![b]")}: image "img/missing.png" not found (looked for '
        "lesson/img/missing.png) — add the file or fix the path",
        f'lesson/a.md:{line_of(text, "![c]")}: image "img/logo.svg": SVG images can carry scripts — use PNG, JPEG, '
        "GIF, WebP or AVIF",
        f'lesson/a.md:{line_of(text, "![d]")}: image "../secret.png" must be a path inside lesson/ relative to the '
        "lesson, e.g. img/plot.png",
        f'lesson/a.md:{line_of(text, "![e]")}: image "img/fake.png" is not a PNG file (its first bytes say '
        "otherwise) — export it again, or fix its extension",
    ]


def test_an_image_over_the_courses_limit_is_refused(tmp_path: Path) -> None:
    """5 MB by default: every visitor downloads it (a 200 MB "PNG" was published and precached); course.yaml's
    "max_image_mb:" sets another limit, which must be a positive number."""
    big = png() + b"\0" * 6_000_000  # 6.0 MB: a PNG's first bytes are all the build reads of its kind
    text = lesson_with("![A big plot](img/big.png)")
    write_course(tmp_path / "default", {"a.md": text, "img/big.png": big})
    assert problems(tmp_path / "default") == [
        f'lesson/a.md:{line_of(text, "![A big")}: image "img/big.png" is 6.0 MB, more than the 5 MB a lesson\'s image '
        "may be (every visitor of the page downloads it) — make it smaller (export it at the size it is shown, or as "
        'WebP or AVIF), or set "max_image_mb:" in course.yaml',
    ]
    write_course(tmp_path / "raised", {"a.md": text, "img/big.png": big}, course="title: A course\nmax_image_mb: 6.5\n")
    assert (build(tmp_path / "raised") / "a.html").is_file()
    write_course(tmp_path / "zero", {"a.md": text, "img/big.png": big}, course="title: A course\nmax_image_mb: 0\n")
    assert problems(tmp_path / "zero") == [
        'course.yaml:2: "max_image_mb:" in the course config must be a number more than 0, e.g. '
        '"max_image_mb: 8"']


def test_a_local_image_is_published_under_the_static_folder(tmp_path: Path) -> None:
    """lesson/img/plot.png is copied to static/<hash>/media/img/plot.png and the page points there."""
    write_course(tmp_path, {"a.md": lesson_with("![A plot](img/plot.png)"), "img/plot.png": png()})
    site = build(tmp_path)
    src = re.search(r'<img alt="A plot" src="([^"]+)"', (site / "a.html").read_text()).group(1)
    assert re.fullmatch(r"static/[0-9a-f]{10}/media/img/plot\.png", src)
    assert (site / src).read_bytes() == png()
    assert src in (site / "sw.js").read_text()  # precached with the other static files: the image works offline


def test_figures_are_filled_in_prose_and_never_in_code(tmp_path: Path) -> None:
    """`[[…]]` in a code span or a fenced block is code (Python's nested lists, the notation itself), left as written;
    in prose it is a figure, and a wrong one is a problem at its line."""
    lesson = LESSON + "\nIn code, `m = [[1, 2]]` and `[[mix:2:2]]` stay.\n\n```python\nm = [[1, 2], [3, 4]]\n```\n"
    write_course(tmp_path, {"a.md": lesson})
    html = (build(tmp_path) / "a.html").read_text(encoding="utf-8")
    assert "<code>m = [[1, 2]]</code>" in html and "<code>[[mix:2:2]]</code>" in html
    assert "m = [[1, 2], [3, 4]]" in html
    other = tmp_path / "prose"
    write_course(other, {"a.md": LESSON + "\nIn prose [[mix:2:2]] is a figure.\n"})
    assert problems(other) == [f"lesson/a.md:{line_of(LESSON, 'Some text.') + 2}: figure \"[[mix:2:2]]\" names no "
                               "widget of this lesson — this lesson has no {widget} block"]
