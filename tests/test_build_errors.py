"""Author errors, each pinned with its exact message and line, against fixture courses of the tests' own."""

from __future__ import annotations

from pathlib import Path

import pytest
from course import DEMO, DEMO_LAB, DEMO_WIDGET, LESSON, build, edit, line_of, problems, write_course, write_demo


def demo_problems(tmp_path: Path, text: str, **labs: str) -> list[str]:
    """The problems of the demo course with its lesson replaced by `text`."""
    write_demo(tmp_path, text, **labs)
    return problems(tmp_path)


# --- front matter ---------------------------------------------------------------------------------------------------

def test_malformed_front_matter(tmp_path: Path) -> None:
    """A YAML error names its line, and the advice fits it: here a flow list that is never closed."""
    text = edit(DEMO, "order: 1", "order: 1\nsummary: [unclosed")
    assert demo_problems(tmp_path, text) == [
        "lesson/demo.md:6: front matter is not valid YAML (did not find expected ',' or ']'): close the list with "
        '"]" and separate its items with ",", e.g. [1, 4, 16]',
    ]


def test_front_matter_without_title_and_unknown_key(tmp_path: Path) -> None:
    """Missing title and a typo'd key are both reported, the typo at its own line with the key it meant."""
    text = edit(DEMO, "title: Demo lesson\n", "titel: Demo\n")
    assert demo_problems(tmp_path, text) == [
        'lesson/demo.md:2: the front matter needs "title:" with the lesson\'s title, e.g. "title: My lesson"',
        'lesson/demo.md:2: unknown key "titel" in the front matter (did you mean "title"?) — use one of: '
        "language, next_section, order, pyodide, requires, slug, summary, title",
    ]


@pytest.mark.parametrize(("order", "message"), [
    ("second", '"order:" in the front matter must be a whole number, e.g. "order: 2"'),
    ("1.5", '"order:" in the front matter must be a whole number, e.g. "order: 2"'),
])
def test_an_order_that_is_not_a_whole_number(tmp_path: Path, order: str, message: str) -> None:
    """`order: second` was a traceback in site.py."""
    text = edit(DEMO, "order: 1", f"order: {order}")
    assert demo_problems(tmp_path, text) == [f"lesson/demo.md:4: {message}"]


def test_two_lessons_with_one_order(tmp_path: Path) -> None:
    """Each lesson has its own place in the course."""
    first = edit(LESSON, "title: A lesson", "title: A\norder: 2")
    second = edit(LESSON, "title: A lesson", "title: B\norder: 2")
    write_course(tmp_path, {"a.md": first, "b.md": second})
    assert problems(tmp_path) == [
        'lesson/b.md:3: order 2 is also the order of lesson/a.md — give each lesson its own "order:"',
    ]


# --- YAML: advice that fits the mistake ------------------------------------------------------------------------------

@pytest.mark.parametrize(("old", "new", "line", "message"), [
    ("  hint: multiplies every score\n", "  hint: multiplies every score\n options: [1]\n", " options:",
     "{widget} block is not valid YAML (did not find expected key): this line's indentation does not fit the lines "
     "above it: put each nested key two spaces deeper than its parent, keys of one mapping at the same depth"),
    ("  hint: multiplies every score\n", "  hint: multiplies every score\n    default: 1\n", "    default",
     "{widget} block is not valid YAML (mapping values are not allowed in this context): this line is indented "
     "deeper than the key above it, which already has a value: put each nested key two spaces deeper than its "
     "parent, keys of one mapping at the same depth"),
    ("        why: Bigger gaps.", "        why: Bigger gaps: more weight.", "Bigger gaps:",
     "{quiz} block is not valid YAML (mapping values are not allowed in this context): quote text that contains "
     '": ", e.g. note: "Bigger gaps: more weight."'),
    ("      - text: Nothing\n", "      - Nothing\n", "why: The gaps",
     "{quiz} block is not valid YAML (mapping values are not allowed in this context): YAML reads this line as more "
     "of the text above it: put each nested key two spaces deeper than its parent, keys of one mapping at the same "
     'depth, and a list item\'s keys lined up with the first key after its "- "'),
    ("        why: Bigger gaps.", "        why: `k` widens gaps.", "`k` widens",
     "{quiz} block is not valid YAML (found character that cannot start any token): quote text that starts with a "
     'symbol (` @ % | >), e.g. note: "`code` in a note"'),
    ("  hint: multiplies every score\n", "  hint: multiplies every score\n\tdefault: 1\n", "\tdefault",
     "{widget} block is not valid YAML (found a tab character that violates indentation): indent with spaces, not "
     "tabs"),
])
def test_a_yaml_error_s_advice_fits_the_error(tmp_path: Path, old: str, new: str, line: str, message: str) -> None:
    """Indentation gets indentation advice, a colon in text gets quoting advice."""
    text = edit(DEMO, old, new)
    assert demo_problems(tmp_path, text) == [f"lesson/demo.md:{line_of(text, line)}: {message}"]


def test_a_key_written_twice(tmp_path: Path) -> None:
    """YAML keeps the last of two equal keys without a word: the build names both."""
    text = edit(DEMO, "caption:", "note: First.\ncaption:")
    assert demo_problems(tmp_path, text) == [
        f'lesson/demo.md:{line_of(text, "note: At")}: {{widget}} block has the key "note" twice (first at line '
        f'{line_of(text, "note: First.")}) — keep one "note:" line',
    ]


# --- blocks ---------------------------------------------------------------------------------------------------------

def test_unknown_block_type(tmp_path: Path) -> None:
    """A typo in a block type names the known types (the registry's)."""
    text = edit(DEMO, "```{quiz}", "```{quizz}")
    assert demo_problems(tmp_path, text) == [
        f'lesson/demo.md:{line_of(text, "```{quizz}")}: unknown block type "quizz" (did you mean "quiz"?) — use one '
        "of: exercise, explain, lab, quiz, widget",
    ]


@pytest.mark.parametrize(("old", "new", "needle", "message"), [
    ("  hint: multiplies every score", "  hnit: multiplies every score", "hnit:",
     'unknown key "hnit" in the {widget} block\'s "parameter:" (did you mean "hint"?) — use one of: default, hint, '
     "label, options, range"),
    ("caption:", "captoin:", "captoin:",
     'unknown key "captoin" in the {widget} block (did you mean "caption"?) — use one of: bar, caption, check, '
     "figure, file, formats, function, heat, id, masked, note, parameter, parameters, timeout"),
    ("        correct: true", "        corect: true", "corect:",
     'unknown key "corect" in option 1 of question 1 ("What does a larger k do?") (did you mean "correct"?) — use '
     "one of: correct, text, why"),
    ("title: Demo lab", "titel: Demo lab", "titel:",
     'unknown key "titel" in the {lab} block (did you mean "title"?) — use one of: file, id, panel, predict, '
     "timeout, title"),
    ("  - text: k changes the order.", "  - text: k changes the order.\n    verdit: no", "verdit:",
     'unknown key "verdit" in claim 1 (did you mean "verdict"?) — use one of: text, verdict'),
])
def test_unknown_keys_are_named_at_their_line(tmp_path: Path, old: str, new: str, needle: str, message: str) -> None:
    """`hnit:` was silently ignored (and the hint rendered as "()"); every block's keys are checked now."""
    text = edit(DEMO, old, new)
    assert demo_problems(tmp_path, text) == [f"lesson/demo.md:{line_of(text, needle)}: {message}"]


def test_an_option_without_why_is_named_at_its_own_line(tmp_path: Path) -> None:
    """The option's line, not its question's."""
    text = edit(DEMO, "        why: That is what a smaller k does.\n", "")
    assert demo_problems(tmp_path, text) == [
        f'lesson/demo.md:{line_of(text, "- text: Flatter")}: option 2 of question 1 ("What does a larger k do?") needs '
        '"why:" saying why it is right or wrong',
    ]


@pytest.mark.parametrize(("old", "new", "needle", "message"), [
    ("  options: [0.5, 1, 2]", "  options: [0.5, one, 2]", "options: [0.5",
     'option 2 of the {widget} block\'s "parameter:" is the word "one", but option 1 is a number — give every option '
     "a number, or every option a word"),
    ("  options: [0.5, 1, 2]", "  options: [0.5, [1], 2]", "options: [0.5",
     'item 2 of the {widget} block\'s "parameter:"\'s "options:" must be a number, a word, or "{value: …, label: …}", '
     'e.g. [1, 2, 4] or [{value: before, label: "Before the step"}]'),
    ("timeout: 5", "timeout: soon", "timeout: soon",
     '"timeout:" is the seconds the lab may run at build time, more than 0 and at most 600, e.g. "timeout: 20"'),
    ("        correct: true", "        correct: yes please", "correct: yes",
     '"correct:" in option 1 of question 1 ("What does a larger k do?") must be true or false'),
    ('prompt: "Explain the difference:"', "prompt: [1, 2]", "prompt: [1",
     '"prompt:" in the {explain} block must be text'),
    ("      - text: Nothing\n        why: The gaps change.\n", "      - Nothing\n", "- Nothing",
     'option 3 of question 1 ("What does a larger k do?") must be "key: value" lines'),
])
def test_values_of_the_wrong_kind(tmp_path: Path, old: str, new: str, needle: str, message: str) -> None:
    """A value's type is checked where it is written."""
    text = edit(DEMO, old, new)
    assert demo_problems(tmp_path, text) == [f"lesson/demo.md:{line_of(text, needle)}: {message}"]


def test_the_lab_title_is_shown(tmp_path: Path) -> None:
    """A lab's `title:` is its heading and its name for screen readers (it was read, then dropped)."""
    write_demo(tmp_path)
    html = (build(tmp_path) / "demo.html").read_text()
    assert '<section class="lab" data-block="lab" data-lab="demo" id="lab-demo" aria-label="Python lab: Demo lab">' in html
    assert '<h3 class="lab-title">Demo lab</h3>' in html


def test_quiz_with_no_correct_option(tmp_path: Path) -> None:
    """No option marked correct: named at the question."""
    text = edit(DEMO, "        correct: true\n", "")
    assert demo_problems(tmp_path, text) == [
        f'lesson/demo.md:{line_of(text, "  - question: What")}: question 1 ("What does a larger k do?") has no correct '
        'option — mark exactly one option with "correct: true"',
    ]


def test_quiz_with_two_correct_options(tmp_path: Path) -> None:
    """Two options marked correct."""
    text = edit(DEMO, "      - text: Flatter weights\n", "      - text: Flatter weights\n        correct: true\n")
    assert demo_problems(tmp_path, text) == [
        f'lesson/demo.md:{line_of(text, "  - question: What")}: question 1 ("What does a larger k do?") has 2 correct '
        'options — mark exactly one option with "correct: true"',
    ]


def test_quiz_with_one_option(tmp_path: Path) -> None:
    """Fewer than two options."""
    start, end = DEMO.index("      - text: Flatter"), DEMO.index("```\n\n## Lab")
    text = DEMO[:start] + DEMO[end:]
    assert demo_problems(tmp_path, text) == [
        f'lesson/demo.md:{line_of(text, "  - question: What")}: question 1 ("What does a larger k do?") has 1 option '
        "— give at least two options",
    ]


def test_duplicate_block_id(tmp_path: Path) -> None:
    """Two blocks with one id: both places named."""
    text = edit(DEMO, "id: explain\n", "id: predict\n")
    assert demo_problems(tmp_path, text) == [
        f'lesson/demo.md:{line_of(text, "prompt:") - 1}: duplicate block id "predict" (first used at '
        f'lesson/demo.md:{line_of(text, "id: predict")}) — give each block its own id',
    ]


# --- labs and widgets: one problem each, never follow-ons ---------------------------------------------------------

def test_missing_lab_file(tmp_path: Path) -> None:
    """A lab block naming a file that does not exist: one problem, listing the lab folder's own files."""
    text = edit(DEMO, "file: demo.py", "file: demo2.py")
    assert demo_problems(tmp_path, text) == [
        f'lesson/demo.md:{line_of(text, "file: demo2.py")}: lab file "lab/demo2.py" not found — create it or fix '
        '"file:" (Python files in lab/: demo.py, demo_widget.py)',
    ]


def test_a_missing_widget_file_is_one_problem_and_its_figures_stay_quiet(tmp_path: Path) -> None:
    """No "figure names no widget" for each figure of a widget that could not compute: its own problem says why."""
    text = edit(DEMO, "file: demo_widget.py", "file: gone.py")
    assert demo_problems(tmp_path, text) == [
        f'lesson/demo.md:{line_of(text, "file: gone.py")}: lab file "lab/gone.py" not found — create it or fix '
        '"file:" (Python files in lab/: demo.py, demo_widget.py)',
    ]


def test_an_error_in_one_lesson_never_reports_in_another(tmp_path: Path) -> None:
    """A lesson linking to a block of another lesson that failed: only the failing lesson's own problem."""
    broken = edit(DEMO, "        correct: true\n", "")
    linking = edit(LESSON, "Some text.", "See [the quiz](demo.html#quiz-predict) and [goal](demo.html#goal).")
    write_course(tmp_path, {"demo.md": broken, "a.md": linking}, {"demo.py": DEMO_LAB, "demo_widget.py": DEMO_WIDGET})
    assert problems(tmp_path) == [
        f'lesson/demo.md:{line_of(broken, "  - question: What")}: question 1 ("What does a larger k do?") has no '
        'correct option — mark exactly one option with "correct: true"',
    ]


# --- figures, links, raw HTML, math ----------------------------------------------------------------------------------

def test_figures_under_check_that_disagree_with_the_lab(tmp_path: Path) -> None:
    """The typed figures are compared with the computation."""
    text = edit(DEMO, '1: ["1.6%", "86.7%", "11.7%"]', '1: ["1.6%", "86.0%", "11.7%"]')
    assert demo_problems(tmp_path, text) == [
        f'lesson/demo.md:{line_of(text, "  1: [")}: "check:" says 86.0% for option 1, row 2 of "Weight", but '
        "table(1) gives 86.7% — correct the figure",
    ]


def test_inline_figure_is_computed_and_checked(tmp_path: Path) -> None:
    """`[[widget:option:row]]` is filled by the build; `= value` is checked."""
    write_demo(tmp_path / "a", edit(DEMO, "## Weights\n", "## Weights\n\nAt k = 1: [[mix:1:2 = 86.7%]].\n"))
    assert "<p>At k = 1: 86.7%.</p>" in (build(tmp_path / "a") / "demo.html").read_text()
    text = edit(DEMO, "## Weights\n", "## Weights\n\nAt k = 1: [[mix:1:2 = 80.0%]].\n")
    assert demo_problems(tmp_path / "b", text) == [
        f'lesson/demo.md:{line_of(text, "At k = 1")}: figure "[[mix:1:2]]" says 80.0% but the lab computes 86.7% — '
        "correct the text",
    ]


def test_broken_internal_link(tmp_path: Path) -> None:
    """A link to an id that is not on the page."""
    text = edit(DEMO, "## Goal\n", "## Goal\n\nSee [the lab](#the-lab).\n")
    assert demo_problems(tmp_path, text) == [
        f'lesson/demo.md:{line_of(text, "(#the-lab)")}: link "#the-lab" points to no heading or block on the page — '
        "link to one of: #explain-it-back, #goal, #lab, #lesson-title, #predict, #weights",
    ]


def test_raw_html_and_script_links_are_refused(tmp_path: Path) -> None:
    """Raw HTML and javascript: links never reach the page."""
    text = edit(DEMO, "## Goal\n", "## Goal\n\n<script>alert(1)</script> and [x](javascript:alert(1))\n")
    line = line_of(text, "<script>")
    assert demo_problems(tmp_path, text) == [
        f'lesson/demo.md:{line}: link "javascript:alert(1)" uses a script URL — link to a page or a section instead',
        f'lesson/demo.md:{line}: raw HTML "<script" is not allowed in lessons — use markdown, or a block: {{exercise}}, '
        "{explain}, {lab}, {quiz}, {widget}",
    ]


def test_a_script_link_written_with_character_references_is_named_at_its_own_line(tmp_path: Path) -> None:
    """`&#106;avascript:` is javascript: once decoded, and so is a scheme a browser reads through a tab or a leading
    space: each refused at the line it is on (the same link twice, at both), in prose and in a block's string."""
    prose = "\n\n".join(["[click](&#106;avascript:alert(1))", "[tab](java&#9;script:alert(2))",
                          "[space](&#32;JaVaScRiPt:alert(3))", "[again](&#x6A;avascript:alert(1))"])
    text = edit(DEMO, "## Goal\n", f"## Goal\n\n{prose}\n")
    text = edit(text, "why: Bigger gaps.", "why: Bigger gaps, [see](&#x76;bscript:msgbox).")
    script = 'uses a script URL — link to a page or a section instead'
    assert line_of(text, "[click]") > 1
    assert demo_problems(tmp_path, text) == sorted([
        f'lesson/demo.md:{line_of(text, "[click]")}: link "javascript:alert(1)" {script}',
        f'lesson/demo.md:{line_of(text, "[tab]")}: link "javascript:alert(2)" {script}',
        f'lesson/demo.md:{line_of(text, "[space]")}: link "JaVaScRiPt:alert(3)" {script}',
        f'lesson/demo.md:{line_of(text, "[again]")}: link "javascript:alert(1)" {script}',
        f'lesson/demo.md:{line_of(text, "[see]")}: link "vbscript:msgbox" {script}',
    ], key=lambda p: int(p.split(":")[1]))


def test_raw_html_in_a_block_string_is_named_at_its_line(tmp_path: Path) -> None:
    """An option's text, not the block's first line."""
    text = edit(DEMO, "why: Bigger gaps.", "why: Bigger <b>gaps</b>.")
    assert demo_problems(tmp_path, text) == [
        f'lesson/demo.md:{line_of(text, "Bigger <b>")}: raw HTML "<b" is not allowed in lessons — use markdown',
    ]


def test_every_problem_at_once(tmp_path: Path) -> None:
    """Several problems in one run, sorted by line."""
    text = edit(DEMO, "```{quiz}", "```{quizz}")
    text = edit(text, '1: ["1.6%", "86.7%", "11.7%"]', '1: ["1.7%", "86.7%", "11.7%"]')
    text = edit(text, "file: demo.py", "file: nope.py")
    found = demo_problems(tmp_path, text)
    assert len(found) == 3
    assert [int(p.split(":")[1]) for p in found] == sorted(int(p.split(":")[1]) for p in found)


# --- fences left open, slugs taken twice --------------------------------------------------------------------------

_HEAD = "---\ntitle: A lesson\n---\n\n## Part\n\n"
_EXPLAIN = '```{explain}\nid: e1\nprompt: "Say it:"\nclaims:\n  - text: one\n    verdict: right\n'
_QUIZ = ("```{quiz}\nid: check\nquestions:\n  - question: Which?\n    options:\n      - text: This one\n"
         "        correct: true\n        why: Yes.\n      - text: That\n        why: Because.\n```\n")


@pytest.mark.parametrize(("text", "expected"), [
    (_HEAD + _EXPLAIN + "\n## Check\n\n" + _QUIZ,
     'lesson/a.md:7: block "{explain}" is not closed before line 16 ("```{quiz}" opens another) — add a line "```" '
     "after this block's last line"),
    (_HEAD + _EXPLAIN + "\nSome prose.\n\n```python\nprint(1)\n```\n",
     'lesson/a.md:7: block "{explain}" is not closed before line 16 ("```python" opens another) — add a line "```" '
     "after this block's last line"),
    (_HEAD + "```python\nprint(1)\n\n## Check\n\n" + _QUIZ,
     'lesson/a.md:7: a code fence "```python" opens here and is not closed before the block on line 12 ("```{quiz}") '
     '— add a line "```" after its last line of code'),
    (_HEAD + "```python\nprint(1)\n\n## More\n\nText.\n",
     'lesson/a.md:7: a code fence "```python" opens here and is never closed — add a line "```" after its last line '
     "of code"),
    (_HEAD + _EXPLAIN, 'lesson/a.md:7: block "{explain}" is never closed: add a line "```" after its last line'),
], ids=["block before a block", "block before code", "code before a block", "code to the end", "block to the end"])
def test_a_fence_left_open_is_reported_at_its_own_line(tmp_path: Path, text: str, expected: str) -> None:
    """Not as invalid YAML at the next block's fence: the fence that was left open, at its line, and only that (the
    next block is still read: a problem of its own would be reported too)."""
    write_course(tmp_path, {"a.md": text})
    assert problems(tmp_path) == [expected]


def test_the_next_block_after_an_open_one_is_still_checked(tmp_path: Path) -> None:
    text = _HEAD + _EXPLAIN + "\n## Check\n\n" + _QUIZ.replace("id: check", "id: Check")
    write_course(tmp_path, {"a.md": text})
    assert [p.split(": ", 1)[0] for p in problems(tmp_path)] == ["lesson/a.md:7", "lesson/a.md:17"]


def test_two_lessons_with_one_slug_are_both_named_at_their_slug_lines(tmp_path: Path) -> None:
    first = edit(LESSON, "title: A lesson", "title: A lesson\nslug: same")
    second = edit(LESSON, "title: A lesson", "title: Another\nsummary: Newer.\nslug: same")
    write_course(tmp_path, {"a.md": first, "b.md": second})
    assert problems(tmp_path) == [
        'lesson/a.md:3: slug "same" is also the slug of lesson/b.md (line 4: "slug: same") — give each lesson its '
        "own slug",
        'lesson/b.md:4: slug "same" is also the slug of lesson/a.md (line 3: "slug: same") — give each lesson its '
        "own slug",
    ]


def test_a_slug_that_is_another_lessons_file_name(tmp_path: Path) -> None:
    second = edit(LESSON, "title: A lesson", "title: Another\nsummary: Newer.\nslug: same")
    write_course(tmp_path, {"same.md": LESSON, "b.md": second})
    named = ' (a lesson without "slug:" is named by its file: add a "slug:" line to it, or rename it)'
    assert problems(tmp_path) == [
        f'lesson/b.md:4: slug "same" is also the slug of lesson/same.md (its file name) — give each lesson its own '
        f"slug{named}",
        f'lesson/same.md:1: slug "same" is also the slug of lesson/b.md (line 4: "slug: same") — give each lesson its '
        f"own slug{named}",
    ]
