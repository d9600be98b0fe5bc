"""The build in CPython: parsing, every author error with its exact message, math, numbers, atomic writes."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from lessonkit.errors import BuildError
from lessonkit.site import build_site

ROOT = Path(__file__).resolve().parent.parent
LESSON = ROOT / "lesson" / "scaled-dot-product-attention.md"
SEED = ROOT / "tests" / "fixtures" / "seed-lesson.txt"  # the customer's lesson text, as delivered


def lesson_dir(tmp_path: Path, text: str | None = None, name: str = "scaled-dot-product-attention.md") -> Path:
    """A lesson folder holding one lesson (the real one unless `text` is given)."""
    folder = tmp_path / "lessons"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(LESSON.read_text() if text is None else text, encoding="utf-8")
    return folder


def problems(tmp_path: Path, text: str) -> list[str]:
    """The problems a build of `text` reports (it must fail)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    with pytest.raises(BuildError) as info:
        build_site(ROOT, tmp_path / "site", lessons=lesson_dir(tmp_path, text))
    return [p.replace(f"{tmp_path}/", "") for p in info.value.problems]


def edit(old: str, new: str) -> str:
    """The real lesson with one exact edit."""
    text = LESSON.read_text()
    assert old in text, old
    return text.replace(old, new, 1)


def line_of(text: str, needle: str) -> int:
    """1-based line of `needle` in `text`."""
    return text[: text.index(needle)].count("\n") + 1


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real site, built once."""
    out = tmp_path_factory.mktemp("built") / "site"
    build_site(ROOT, out)
    return out


@pytest.fixture(scope="module")
def page(built: Path) -> str:
    """The lesson page's HTML."""
    return (built / "scaled-dot-product-attention.html").read_text()


def text_of(html: str) -> str:
    """Visible text of a page, roughly: tags dropped, entities kept, whitespace collapsed."""
    html = re.sub(r"<(script|template|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


# --- the real lesson -------------------------------------------------------------------------------------------

def test_every_section_of_the_seed_is_on_the_page(page: str) -> None:
    """Each heading of the customer's lesson is a heading of the page, in order."""
    headings = re.findall(r"<h2 id=\"[^\"]+\">(.*?)</h2>", page)
    assert headings == [
        "Goal", "The problem: wider heads can make softmax too sharp", "Hold the logits fixed and isolate the scaling effect",
        "Predict", "Why the square root appears", "Compare raw and scaled scores in the Lab",
        "Scaling does not reorder the keys", "Quick Check", "Explain it back", "Key Takeaways", "Next Lesson",
        "References",
    ]


def test_each_heading_starts_a_part_that_holds_its_content(page: str) -> None:
    """Every h2 opens a <section class="part"> (rendered lazily by the stylesheet) that runs to the next h2."""
    article = page[page.index('<article class="lesson">'):page.index("</article>")]
    intro, *parts = article.split('<section class="part">')
    assert "<h2" not in intro and 'class="summary"' in intro  # title and summary stay outside: the first screen
    assert len(parts) == 12
    for part in parts:
        body, _, after = part.rpartition("</section>")  # a lab is a <section> of its own inside its part
        assert body.lstrip().startswith("<h2 id="), body[:80]
        assert body.count("<h2") == 1 and not after.strip(), after[:80]
    lab = next(p for p in parts if 'id="compare-raw-and-scaled-scores-in-the-lab"' in p)
    assert 'data-lab="scaled-softmax"' in lab  # blocks land inside their part
    assert 'data-quiz' in next(p for p in parts if 'id="quick-check"' in p)
    rule = (ROOT / "static" / "css" / "lesson.css").read_text()
    assert re.search(r"\.part \{[^}]*content-visibility: auto", rule)
    assert ".part { content-visibility: visible; }" in (ROOT / "static" / "css" / "print.css").read_text()


def test_seed_sentences_survive_verbatim(page: str) -> None:
    """Long sentences of the seed appear word for word (math aside)."""
    text = text_of(page)
    seed = SEED.read_text()
    checked = 0
    sentences = [s for para in re.split(r"\n\s*\n", seed) for s in re.split(r"(?<=[.?!])\s+", para)]
    for sentence in sentences:
        sentence = " ".join(sentence.split())
        if len(sentence) < 60 or "sqrt" in sentence or "d_k" in sentence or "QK^T" in sentence or "•" in sentence:
            continue
        if "41416" in sentence or "\t" in sentence or re.search(r"[a-z][A-Z]", sentence):
            continue  # extraction glitches: widget labels and quiz options run together in the seed
        sentence = re.sub(r"^\d\. ", "", sentence)
        assert sentence in text, sentence
        checked += 1
    assert checked >= 20


def test_quiz_options_and_takeaways(page: str) -> None:
    """All options of all four questions, the five takeaways and three references are there."""
    text = text_of(page)
    for phrase in [
        "It becomes sharper", "It becomes flatter", "It is exactly unchanged",
        "Because scaling is meant to compensate for sequence length rather than feature width",
        "Because the typical dot-product standard deviation grows roughly like the square root of the number of "
        "similarly scaled components",
        "Softmax changes the ordering after scaling", "No; dividing everything by the same positive number keeps the order",
        "Yes, if some original scores are negative", "They force the attention output width to grow",
        "They can make softmax extremely saturated and gradients less informative",
        "They make the causal mask less strict", "0 of 3 questions answered",
        "Query-key dot products are scaled before softmax.",
        "Positive scaling preserves score ordering but changes distribution sharpness.",
        "Separate the statistical reason for the factor from the Lab that demonstrates its numerical effect.",
        "Next, convert the normalized scores into a weighted mixture of value vectors.",
        "Attention Is All You Need", "scaled_dot_product_attention", "FlashAttention: Fast and Memory-Efficient Exact",
        "not correct; ranking is preserved.", "the intended idea.",
    ]:
        assert phrase in text, phrase
    assert page.count('href="https://') >= 3


def test_exactly_one_correct_option_per_question_and_the_right_one(page: str) -> None:
    """The correct options are the customer's."""
    correct = re.findall(r'<input type="radio" name="[^"]+" value="\d" data-correct>\s*<span>(.*?)</span>', page, re.S)
    assert [" ".join(c.split()) for c in correct] == [
        "It becomes sharper",
        "Because the typical dot-product standard deviation grows roughly like the square root of the number of "
        "similarly scaled components",
        "No; dividing everything by the same positive number keeps the order",
        "They can make softmax extremely saturated and gradients less informative",
    ]


def test_math_is_mathml_at_build_time(page: str) -> None:
    """The formula, sqrt(d_k) and the component sum are MathML; no math script ships."""
    assert "<math display=\"block\"><mrow><mo>softmax</mo>" in page
    assert "<msqrt><mrow><msub><mi>d</mi><mi>k</mi></msub></mrow></msqrt>" in page
    assert "<msub><mi>q</mi><mi>d</mi></msub><msub><mi>k</mi><mi>d</mi></msub>" in page
    assert "$" not in text_of(page).replace("$$", "")
    assert "katex" not in page.lower() and "mathjax" not in page.lower()


def test_math_is_kept_between_builds(tmp_path: Path) -> None:
    """A rebuild reads converted math from .cache/mathml and never imports latex2mathml (70-100 ms of a build)."""
    build_site(ROOT, tmp_path / "first")  # fills the cache (the repository's own .cache, as `build.py` does)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from pathlib import Path; from lessonkit.site import build_site; "
            "build_site(Path(sys.argv[1]), Path(sys.argv[2])); print('latex2mathml' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code, str(ROOT), str(tmp_path / "second")],
                            capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
    assert (tmp_path / "second" / "index.html").read_text() == (tmp_path / "first" / "index.html").read_text()


def test_a_cached_conversion_is_used_and_a_new_one_is_kept(tmp_path: Path) -> None:
    """The cache answers by content: an entry is read back as it is; a miss converts and writes an entry."""
    from lessonkit import markup

    markup.to_mathml.cache_clear()
    markup.keep_math_in(tmp_path)
    try:
        fresh = markup.to_mathml("x^2 + 1")
        [entry] = tmp_path.glob("*.mml")
        assert entry.read_text() == fresh == "<math><mrow><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo><mn>1</mn></mrow></math>"
        entry.write_text("<math>from the cache</math>")
        markup.to_mathml.cache_clear()
        assert markup.to_mathml("x^2 + 1") == "<math>from the cache</math>"
        assert markup.to_mathml("x^2 + 1", "block") != "<math>from the cache</math>"  # another key
        with pytest.raises(markup.MathError):
            markup.to_mathml("\\frac{1}{")
        assert len(list(tmp_path.glob("*.mml"))) == 2  # errors are not kept
    finally:
        markup.keep_math_in(None)
        markup.to_mathml.cache_clear()


def test_widget_numbers_come_from_the_lab(page: str) -> None:
    """Default state pre-rendered: caption, the three rows and the computed bars."""
    assert "Divide by √4 = 2.00" in page
    rows = re.findall(r'<td data-scaled>([\d.]+)</td>\s*<td class="prob"><span data-prob>([\d.]+%)</span>', page)
    assert rows == [("0.000", "9.0%"), ("2.000", "66.5%"), ("1.000", "24.5%")]


def test_widget_states_for_every_option(page: str) -> None:
    """The JSON island carries all three states, computed by lab/scaled_softmax.py's softmax."""
    import json

    island = re.search(r"<script type=\"application/json\" data-headdim-config>(.*?)</script>", page, re.S)
    states = json.loads(island.group(1))["states"]
    probs = {d: [r["prob"] for r in s["rows"]] for d, s in states.items()}
    assert probs == {"1": ["1.6%", "86.7%", "11.7%"], "4": ["9.0%", "66.5%", "24.5%"],
                     "16": ["18.6%", "50.6%", "30.7%"]}
    assert states["16"]["caption"] == "Divide by √16 = 4.00"


def test_changing_the_lab_changes_the_widget(tmp_path: Path) -> None:
    """One source of truth: the widget's numbers follow lab/…'s raw logits."""
    lab = tmp_path / "lab"
    lab.mkdir()
    (lab / "labkit").symlink_to(ROOT / "lab" / "labkit")
    (lab / "scaled_softmax.py").write_text((ROOT / "lab" / "scaled_softmax.py").read_text().replace(
        "raw = [0.0, 4.0, 2.0]", "raw = [0.0, 8.0, 4.0]"))
    text = LESSON.read_text().replace('  4: ["9.0%", "66.5%", "24.5%"]\n', "")
    assert text != LESSON.read_text()
    build_site(ROOT, tmp_path / "site", lessons=lesson_dir(tmp_path, text), labs=lab)
    html = (tmp_path / "site" / "index.html").read_text()
    island = re.search(r"<script type=\"application/json\" data-headdim-config>(.*?)</script>", html, re.S)
    import json

    states = json.loads(island.group(1))["states"]
    assert [r["prob"] for r in states["1"]["rows"]] == ["0.0%", "98.2%", "1.8%"]


def test_json_islands_escape_script_endings(tmp_path: Path) -> None:
    """Author text that looks like a closing script tag stays inside its island."""
    text = edit("id: explain-it-back", "id: explain-it-back\n# </script><script>alert(1)</script>")
    out = tmp_path / "site"
    build_site(ROOT, out, lessons=lesson_dir(tmp_path, text))
    html = (out / "index.html").read_text()
    assert "<script>alert(1)" not in html


def test_no_raw_author_html_and_csp_present(page: str) -> None:
    """A strict CSP is in the page; scripts are external modules only."""
    assert "Content-Security-Policy" in page and "script-src &#39;self&#39; &#39;wasm-unsafe-eval&#39;" in page
    assert re.findall(r"<script(?![^>]*type=\"(?:module|application/json)\")", page) == []


def test_site_layout(built: Path) -> None:
    """Index, lesson page, hashed static folder, headers and the build marker."""
    assert (built / "index.html").read_text() == (built / "scaled-dot-product-attention.html").read_text()
    assert (built / ".lessonkit-build").is_file()
    assert (built / "_headers").is_file() and (built / "nginx.conf").is_file()
    static = [p.name for p in (built / "static").iterdir()]
    assert len(static) == 1 and re.fullmatch(r"[0-9a-f]{10}", static[0])
    assert (built / "static" / static[0] / "js" / "main.js").is_file()


def test_each_script_bundle_is_one_request(built: Path) -> None:
    """The bundles share no chunk: a shared one (esbuild's helpers) is one more request before the lab is needed."""
    js = next((built / "static").iterdir()) / "js"
    assert not list(js.glob("chunk-*.js"))
    for name in ("main.js", "lab.js", "lab-instructor.js", "lab-worker.js"):
        static_imports = re.findall(r"""(?:^|[;}\n])\s*import\s*(?:[\w{}*,\s]+from\s*)?["']([^"']+)["']""",
                                    (js / name).read_text())
        assert static_imports == [], f"{name} imports {static_imports}"


# --- author errors: each pinned with its exact message -----------------------------------------------------------

def test_malformed_front_matter(tmp_path: Path) -> None:
    """YAML errors point at the front matter line."""
    text = edit("order: 1", "order: 1\nsummary: [unclosed")
    assert problems(tmp_path, text) == [
        "lessons/scaled-dot-product-attention.md:6: front matter is not valid YAML (did not find expected ',' or ']'): "
        'write one "key: value" per line and quote values that contain ":"',
    ]


def test_front_matter_without_title_and_unknown_key(tmp_path: Path) -> None:
    """Missing title and a typo'd key are both reported."""
    text = edit("title: Scaled Dot-Product Attention\n", "titel: Scaled\n")
    assert problems(tmp_path, text) == [
        'lessons/scaled-dot-product-attention.md:1: front matter needs a title: add a line like "title: My lesson"',
        'lessons/scaled-dot-product-attention.md:2: unknown front matter key "titel" (did you mean "title"?) — use '
        "one of: order, requires, slug, summary, title",
    ]


def test_unknown_block_type(tmp_path: Path) -> None:
    """A typo in a block type names the known types."""
    text = edit("```{quiz}\nid: predict", "```{quizz}\nid: predict")
    assert problems(tmp_path, text) == [
        f'lessons/scaled-dot-product-attention.md:{line_of(text, "```{quizz}")}: unknown block type "quizz" '
        '(did you mean "quiz"?) — use one of: explain, lab, quiz, widget',
    ]


def test_quiz_with_no_correct_option(tmp_path: Path) -> None:
    """No option marked correct."""
    text = edit("      - text: It becomes sharper\n        correct: true\n", "      - text: It becomes sharper\n")
    line = line_of(text, "  - question: >-\n      If every")
    assert problems(tmp_path, text) == [
        f'lessons/scaled-dot-product-attention.md:{line}: question 1 ("If every logit is multiplied by a large…") '
        'has no correct option — mark exactly one option with "correct: true"',
    ]


def test_quiz_with_two_correct_options(tmp_path: Path) -> None:
    """Two options marked correct."""
    text = edit("      - text: It becomes flatter\n", "      - text: It becomes flatter\n        correct: true\n")
    line = line_of(text, "  - question: >-\n      If every")
    assert problems(tmp_path, text) == [
        f'lessons/scaled-dot-product-attention.md:{line}: question 1 ("If every logit is multiplied by a large…") '
        'has 2 correct options — mark exactly one option with "correct: true"',
    ]


def test_quiz_with_one_option(tmp_path: Path) -> None:
    """Fewer than two options."""
    start = LESSON.read_text().index("      - text: Softmax changes the ordering")
    end = LESSON.read_text().index("      - text: No; dividing everything")
    text = LESSON.read_text()
    rest_end = text.index("  - question: Why avoid")
    text = text[:start] + text[end:rest_end].split("      - text: Yes, if some")[0] + text[rest_end:]
    line = line_of(text, "  - question: Does division")
    assert problems(tmp_path, text) == [
        f'lessons/scaled-dot-product-attention.md:{line}: question 2 ("Does division by one positive common…") has '
        "1 option — give at least two options",
    ]


def test_duplicate_block_id(tmp_path: Path) -> None:
    """Two blocks with one id: both places named."""
    text = edit("id: quick-check", "id: predict")
    first = line_of(text, "id: predict")
    second = line_of(text, "id: predict\nquestions:\n  - question: >-\n      Why does")
    assert problems(tmp_path, text) == [
        f'lessons/scaled-dot-product-attention.md:{second}: duplicate block id "predict" (first used at '
        f"lessons/scaled-dot-product-attention.md:{first}) — give each block its own id",
    ]


def test_missing_lab_file(tmp_path: Path) -> None:
    """A lab block naming a file that does not exist (the widget that uses it is then skipped)."""
    text = edit("file: scaled_softmax.py", "file: scaled_softmax2.py")
    assert problems(tmp_path, text) == [
        f'lessons/scaled-dot-product-attention.md:{line_of(text, "```{lab}")}: lab file "lab/scaled_softmax2.py" '
        'not found — create it or fix "file:" (Python files in lab/: scaled_softmax.py)',
    ]


def test_prose_figures_that_disagree_with_the_lab(tmp_path: Path) -> None:
    """The seed's typed table figures are checked against the computation."""
    text = edit('4: ["9.0%", "66.5%", "24.5%"]', '4: ["9.0%", "66.0%", "24.5%"]')
    assert problems(tmp_path, text) == [
        f'lessons/scaled-dot-product-attention.md:{line_of(text, "  4: [")}: figure for head_dim 4, position 2 says '
        "66.0% but the lab computes 66.5% — correct the text",
    ]


def test_inline_figure_is_computed_and_checked(tmp_path: Path) -> None:
    """`[[widget:option:position]]` is filled by the build; `= value` is checked."""
    good = edit("Softmax reacts strongly to score gaps.", "Softmax reacts strongly to score gaps ([[head-dim:4:2]]).")
    out = tmp_path / "site"
    build_site(ROOT, out, lessons=lesson_dir(tmp_path, good))
    assert "Softmax reacts strongly to score gaps (66.5%)." in (out / "index.html").read_text()
    bad = edit("Softmax reacts strongly to score gaps.", "Softmax reacts strongly to score gaps ([[head-dim:16:2 = 50.0%]]).")
    assert problems(tmp_path / "b", bad) == [
        f"lessons/scaled-dot-product-attention.md:{line_of(bad, '[[head-dim')}: figure \"[[head-dim:16:2]]\" says 50.0% "
        "but the lab computes 50.6% — correct the text",
    ]


def test_broken_internal_link(tmp_path: Path) -> None:
    """A link to an id that is not on the page."""
    text = edit("as the Lab.", "as the [Lab](#the-lab).")
    found = problems(tmp_path, text)
    assert found == [
        f'lessons/scaled-dot-product-attention.md:{line_of(text, "(#the-lab)")}: link "#the-lab" points to no heading '
        "or block on the page — link to one of: #compare-raw-and-scaled-scores-in-the-lab, #explain-it-back, #goal, "
        "#hold-the-logits-fixed-and-isolate-the-scaling-effect, #key-takeaways, #lesson-title, #next-lesson, "
        "#predict, #quick-check, #references, #scaling-does-not-reorder-the-keys, "
        "#the-problem-wider-heads-can-make-softmax-too-sharp, #why-the-square-root-appears",
    ]


def test_raw_html_and_script_links_are_refused(tmp_path: Path) -> None:
    """Raw HTML and javascript: links never reach the page."""
    text = edit("## Goal\n", "## Goal\n\n<script>alert(1)</script> and [x](javascript:alert(1))\n")
    line = line_of(text, "<script>")
    assert problems(tmp_path, text) == [
        f'lessons/scaled-dot-product-attention.md:{line}: link "javascript:alert(1)" uses a script URL — link to a page '
        "or a section instead",
        f'lessons/scaled-dot-product-attention.md:{line}: raw HTML "<script" is not allowed in lessons — use markdown, '
        "or a {quiz}, {lab}, {widget} or {explain} block",
    ]


def test_bad_math_is_reported(tmp_path: Path) -> None:
    """LaTeX that cannot become MathML."""
    text = edit("## Goal\n\n", "## Goal\n\nBroken $\\frac{1}{$ math.\n\n")
    found = problems(tmp_path, text)
    assert len(found) == 1 and found[0].startswith(f"lessons/scaled-dot-product-attention.md:{line_of(text, 'Broken')}: "
                                                   "cannot turn $\\frac{1}{$ into MathML")


def test_every_problem_at_once(tmp_path: Path) -> None:
    """Several problems in one run, sorted by line."""
    text = edit("```{quiz}\nid: predict", "```{quizz}\nid: predict")
    text = text.replace('4: ["9.0%", "66.5%", "24.5%"]', '4: ["9.1%", "66.5%", "24.5%"]')
    text = text.replace("file: scaled_softmax.py", "file: nope.py")
    found = problems(tmp_path, text)
    assert len(found) == 2  # the missing lab hides the widget's figure check, which needs the lab
    assert [int(p.split(":")[1]) for p in found] == sorted(int(p.split(":")[1]) for p in found)


# --- the command line and atomic writes -------------------------------------------------------------------------

def tree_digest(folder: Path) -> str:
    """Hash of every file in a folder."""
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(folder).as_posix().encode() + p.read_bytes())
    return h.hexdigest()


def test_failed_build_leaves_the_last_good_site(tmp_path: Path) -> None:
    """`python build.py` exits 1, prints path:line problems, and the old site is byte for byte the same."""
    out = tmp_path / "site"
    good = lesson_dir(tmp_path)
    ok = subprocess.run([sys.executable, "build.py", "--out", str(out), "--lessons", str(good)], cwd=ROOT,
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    before = tree_digest(out)
    (good / "scaled-dot-product-attention.md").write_text(edit("```{quiz}\nid: predict", "```{quizz}\nid: predict"))
    bad = subprocess.run([sys.executable, "build.py", "--out", str(out), "--lessons", str(good)], cwd=ROOT,
                         capture_output=True, text=True)
    assert bad.returncode == 1
    assert re.search(r"^.*scaled-dot-product-attention\.md:\d+: unknown block type \"quizz\"", bad.stderr, re.M)
    assert "site/ was left as it was" in bad.stderr
    assert tree_digest(out) == before
    assert not list(tmp_path.glob("site.tmp-*")) and not list(tmp_path.glob("site.old-*"))


def test_refuses_to_overwrite_a_folder_it_did_not_make(tmp_path: Path) -> None:
    """An unrelated non-empty folder is never deleted."""
    out = tmp_path / "precious"
    out.mkdir()
    (out / "thesis.txt").write_text("years of work")
    with pytest.raises(BuildError, match="was not made by this build"):
        build_site(ROOT, out)
    assert (out / "thesis.txt").read_text() == "years of work"


def test_large_course_renders_in_parallel_with_the_same_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A course past PARALLEL_FROM lessons is split over processes; pages and problems are the same as serial."""
    from lessonkit import site as site_module

    folder = tmp_path / "course"
    folder.mkdir()
    text = LESSON.read_text()
    count = site_module.PARALLEL_FROM + 6
    for n in range(1, count + 1):
        body = text.replace("slug: scaled-dot-product-attention", f"slug: lesson-{n:02d}").replace("order: 1", f"order: {n}")
        (folder / f"lesson-{n:02d}.md").write_text(body)
    build_site(ROOT, tmp_path / "parallel", lessons=folder)
    monkeypatch.setattr(site_module, "PARALLEL_FROM", 10_000)
    build_site(ROOT, tmp_path / "serial", lessons=folder)
    for n in (1, 2, 17, count):
        name = f"lesson-{n:02d}.html"
        assert (tmp_path / "parallel" / name).read_text() == (tmp_path / "serial" / name).read_text()
    monkeypatch.undo()
    broken = (folder / "lesson-17.md").read_text().replace("{quiz}\nid: predict", "{quizz}\nid: predict")
    (folder / "lesson-17.md").write_text(broken)
    with pytest.raises(BuildError) as info:
        build_site(ROOT, tmp_path / "parallel", lessons=folder)
    assert [p.split(": ", 1)[1] for p in info.value.problems] == [
        'unknown block type "quizz" (did you mean "quiz"?) — use one of: explain, lab, quiz, widget']
    assert info.value.problems[0].startswith(str(folder / "lesson-17.md") + ":")
