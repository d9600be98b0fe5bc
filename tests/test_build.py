"""The build in CPython: the demo course as built (the repository's lesson/ and lab/), the command line, atomic
writes, parallel rendering and the page's script bundles. Author errors are in test_build_errors.py, the widget in
test_build_widget.py, each against a fixture course of its own."""

from __future__ import annotations

import base64
import hashlib
import html as html_lib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from course import DEMO, ROOT, build, edit, island, write_demo
from places import FIXTURE, STATIC, TEMPLATES

from lessonkit.core.errors import BuildError
from lessonkit.hosting import headers as H  # noqa: N812
from lessonkit.pipeline.site import build_site

SEED = ROOT / "tests" / "fixtures" / "seed-lesson.txt"  # the customer's lesson text, as delivered


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo course, built once."""
    out = tmp_path_factory.mktemp("built") / "site"
    build_site(FIXTURE, out)
    return out


@pytest.fixture(scope="module")
def page(built: Path) -> str:
    """The seed lesson's page."""
    return (built / "scaled-dot-product-attention.html").read_text()


def text_of(html: str) -> str:
    """Visible text of a page, roughly: tags dropped, entities kept, whitespace collapsed."""
    html = re.sub(r"<(script|template|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


# --- the demo course -------------------------------------------------------------------------------------------

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
    article = page[page.index('<article class="lesson"'):page.index("</article>")]
    intro, *parts = article.split('<section class="part">')
    assert "<h2" not in intro and 'class="summary"' in intro  # title and summary stay outside: the first screen
    assert len(parts) == 12
    for part in parts:
        body, _, after = part.rpartition("</section>")  # a lab is a <section> of its own inside its part
        assert body.lstrip().startswith("<h2 id="), body[:80]
        assert body.count("<h2") == 1 and not after.strip(), after[:80]
    lab = next(p for p in parts if 'id="compare-raw-and-scaled-scores-in-the-lab"' in p)
    assert 'data-lab="scaled-softmax"' in lab  # blocks land inside their part
    assert 'data-block="quiz"' in next(p for p in parts if 'id="quick-check"' in p)
    rule = (STATIC / "css" / "lesson.css").read_text()
    assert re.search(r"\.part \{[^}]*content-visibility: auto", rule)
    assert ".part { content-visibility: visible; }" in (STATIC / "css" / "print.css").read_text()


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
    assert "display=\"block\"><mrow><mi>softmax</mi>" in page
    assert "<msqrt><mrow><msub><mi>d</mi><mi>k</mi></msub></mrow></msqrt>" in page
    assert "<msub><mi>q</mi><mi>d</mi></msub><msub><mi>k</mi><mi>d</mi></msub>" in page
    assert "$" not in text_of(page).replace("$$", "")
    assert "katex" not in page.lower() and "mathjax" not in page.lower()


def test_math_is_kept_between_builds(tmp_path: Path) -> None:
    """A rebuild reads converted math from the course's .lessonkit/mathml and never imports latex2mathml."""
    course = tmp_path / "course"  # a course of its own: its build state (the math cache) is read by this test alone
    shutil.copytree(FIXTURE, course, ignore=shutil.ignore_patterns(".lessonkit", "site", "__pycache__"))
    code = ("import sys; from pathlib import Path; "
            "from lessonkit.pipeline.site import build_site; build_site(Path(sys.argv[1]), Path(sys.argv[2])); "
            "print('latex2mathml' in sys.modules)")
    # Both builds in processes of their own, as two `lessonkit build`s are: the first fills the course's math cache
    # (.lessonkit/mathml), never answered from this process's memory of an earlier build's conversions.
    subprocess.run([sys.executable, "-c", code, str(course), str(tmp_path / "first")], capture_output=True, text=True,
                   check=True)
    result = subprocess.run([sys.executable, "-c", code, str(course), str(tmp_path / "second")],
                            capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
    assert (tmp_path / "second" / "index.html").read_text() == (tmp_path / "first" / "index.html").read_text()


def test_a_cached_conversion_is_used_and_a_new_one_is_kept(tmp_path: Path) -> None:
    """The cache answers by content: an entry is read back as it is; a miss converts and writes an entry."""
    from lessonkit.text import mathml

    mathml.to_mathml.cache_clear()
    mathml.keep_math_in(tmp_path)
    try:
        fresh = mathml.to_mathml("x^2 + 1")
        [entry] = tmp_path.glob("*.mml")
        assert entry.read_text() == fresh == ('<math alttext="x^2 + 1"><mrow><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo>'
                                              "<mn>1</mn></mrow></math>")
        entry.write_text("<math>from the cache</math>")
        mathml.to_mathml.cache_clear()
        assert mathml.to_mathml("x^2 + 1") == "<math>from the cache</math>"
        assert mathml.to_mathml("x^2 + 1", "block") != "<math>from the cache</math>"  # another key
        with pytest.raises(mathml.MathError):
            mathml.to_mathml("\\frac{1}{")
        assert len(list(tmp_path.glob("*.mml"))) == 2  # errors are not kept
    finally:
        mathml.keep_math_in(None)
        mathml.to_mathml.cache_clear()


def test_widget_numbers_come_from_the_lab(page: str) -> None:
    """Default state pre-rendered: caption, the three rows with their scaled scores and computed bars."""
    widget = page[page.index('<figure class="widget" id="widget-head-dim"'):page.index("</figure>")]
    shown = widget[:widget.index("<template")]
    assert '<p class="widget-caption" data-widget-caption aria-live="polite">Divide by √4 = 2.00</p>' in shown
    rows = re.findall(r'<td>([\d.]+)</td><td class="bar-cell"><span data-value>([\d.]+%)</span>', shown)
    assert rows == [("0.000", "9.0%"), ("2.000", "66.5%"), ("1.000", "24.5%")]
    assert re.findall(r'<th scope="col">(.*?)</th>', shown) == ["Position", "Fixed raw logit", "Scaled logit",
                                                               "Softmax probability"]


def test_widget_states_for_every_option(page: str) -> None:
    """Every option's caption and rows are in a template, computed by the lab's own raw scores and softmax."""
    states = dict(re.findall(r'<template data-widget-state="(\d+)">(.*?)</template>', page, re.S))
    probs = {key: re.findall(r"<span data-value>(.*?)</span>", html) for key, html in states.items()}
    assert probs == {"1": ["1.6%", "86.7%", "11.7%"], "4": ["9.0%", "66.5%", "24.5%"],
                     "16": ["18.6%", "50.6%", "30.7%"]}
    assert "<p data-widget-caption>Divide by √16 = 4.00</p>" in states["16"]
    assert island(page, "widget") == {"default": "4", "id": "head-dim", "lesson": "scaled-dot-product-attention",
                                      "options": ["1", "4", "16"], "version": island(page, "widget")["version"]}


def test_the_lab_declares_its_panel_and_prediction(page: str) -> None:
    """The lab's island carries its title, build charts and the declarations lab.js's instructor tools read."""
    lab = island(page, "lab")
    assert lab["title"] == "Scaled softmax lab" and lab["filename"] == "scaled_softmax.py" and lab["charts"]
    assert lab["panel"] == {"variable": "raw", "legend": "Raw scores: the <code>raw = [...]</code> line",
                            "item": "Position {n} logit", "min": 2, "max": 12, "matrix": False, "rows": [],
                            "cols": []}
    assert lab["predict"]["answers"] == [{"text": "sharper", "move": "up"}, {"text": "flatter", "move": "down"},
                                         {"text": "unchanged", "move": "same"}]  # the author's order
    assert lab["predict"]["when_gaps_scaled"] == {"2": "Before you run: doubling all score gaps will make each "
                                                  "distribution…"}
    assert '<h3 class="lab-title">Scaled softmax lab</h3>' in page


def test_a_fenced_block_in_a_list_item_is_code(page: str) -> None:
    """The Lab's step 3 shows the new scores as a code block inside the list, not as inline text."""
    assert re.search(r"<li>\s*<p>Find <code>raw = \[0\.0, 4\.0, 2\.0\]</code> and change it to:</p>\s*"
                     r'<pre class="highlight"><code class="language-python">raw = \[0\.0, 8\.0, 4\.0\]</code></pre>\s*</li>',
                     page)
    assert "<code>python" not in page


def test_the_header_comes_from_the_course_config(page: str) -> None:
    """The course's title from lesson/course.yaml heads every page and ends its <title>."""
    assert '<p class="course"><a href="index.html">Attention, one idea at a time</a></p>' in page
    assert "<title>Scaled Dot-Product Attention · Attention, one idea at a time</title>" in page
    assert "Attention, one idea at a time" not in (TEMPLATES / "lesson.html").read_text()


def test_changing_the_lab_changes_the_widget(tmp_path: Path) -> None:
    """One source of truth: the widget's numbers follow the starter code's raw logits, the file it imports."""
    lab = tmp_path / "lab"
    lab.mkdir()
    (lab / "scaled_softmax_widget.py").write_text((FIXTURE / "lab" / "scaled_softmax_widget.py").read_text())
    (lab / "scaled_softmax.py").write_text(edit((FIXTURE / "lab" / "scaled_softmax.py").read_text(),
                                                "raw = [0.0, 4.0, 2.0]", "raw = [0.0, 8.0, 4.0]"))
    lessons = tmp_path / "lesson"
    lessons.mkdir()
    (tmp_path / "course.yaml").write_text((FIXTURE / "course.yaml").read_text())
    text = (FIXTURE / "lesson" / "scaled-dot-product-attention.md").read_text()
    (lessons / "a.md").write_text(edit(text, '  4: ["9.0%", "66.5%", "24.5%"]\n', ""))
    build_site(tmp_path, tmp_path / "site", lessons=lessons, labs=lab)
    html = (tmp_path / "site" / "scaled-dot-product-attention.html").read_text()
    state = re.search(r'<template data-widget-state="1">(.*?)</template>', html, re.S).group(1)
    assert re.findall(r"<span data-value>(.*?)</span>", state) == ["0.0%", "98.2%", "1.8%"]


def test_json_islands_escape_script_endings(tmp_path: Path) -> None:
    """Author text that looks like a closing script tag stays inside its island."""
    write_demo(tmp_path, edit(DEMO, "id: explain\n", "id: explain\n# </script><script>alert(1)</script>\n"))
    html = (build(tmp_path) / "demo.html").read_text()
    assert "<script>alert(1)" not in html


def test_no_raw_author_html_and_csp_present(page: str) -> None:
    """A strict CSP is in the page; scripts are external modules, JSON islands and the one import map only."""
    assert "Content-Security-Policy" in page and "script-src &#39;self&#39; &#39;wasm-unsafe-eval&#39;" in page
    assert re.findall(r"<script(?![^>]*type=\"(?:module|application/json|importmap)\")", page) == []
    assert page.count('<script type="importmap">') == 1


def test_the_import_map_checks_every_module_and_the_csp_allows_only_it(built: Path) -> None:
    """Every module of the site is in each page's import map with the hash of the bytes written; the page's meta
    policy, the served one (marker), _headers and nginx.conf allow that map's exact text and no other inline script."""
    static = next((built / "static").iterdir())
    modules = sorted(p.relative_to(built).as_posix() for p in static.rglob("*.js"))
    maps = set()
    for page in ("index.html", "scaled-dot-product-attention.html"):
        text = (built / page).read_text()
        found = re.search(r'<script type="importmap">(.*?)</script>', text, re.S)
        assert found, page
        entries = json.loads(found[1])["integrity"]
        for rel in modules:
            digest = base64.b64encode(hashlib.sha384((built / rel).read_bytes()).digest()).decode()
            assert entries.pop(f"./{rel}") == f"sha384-{digest}", rel
        assert list(entries) == ["./pagefind/pagefind.js"]
        script_hash = "sha256-" + base64.b64encode(hashlib.sha256(found[1].encode()).digest()).decode()
        meta = html_lib.unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', text)[1])
        assert meta == H.meta_csp([script_hash]), page
        maps.add(script_hash)
    assert len(maps) == 1  # one text on every page: one hash for the host's headers
    assert H.site_script_hashes(built) == tuple(maps)
    header_policy = H.csp(tuple(maps))
    assert f"Content-Security-Policy: {header_policy}" in (built / "_headers").read_text()
    assert f'add_header Content-Security-Policy "{header_policy}" always;' in (built / "nginx.conf").read_text()


def test_site_layout(built: Path) -> None:
    """Index, lesson page, hashed static folder, headers and the build marker."""
    assert 'id="course-manifest"' in (built / "index.html").read_text()
    assert 'id="course-manifest"' not in (built / "scaled-dot-product-attention.html").read_text()
    assert (built / ".lessonkit-build").is_file()
    assert (built / "_headers").is_file() and (built / "nginx.conf").is_file()
    static = [p.name for p in (built / "static").iterdir()]
    assert len(static) == 1 and re.fullmatch(r"[0-9a-f]{10}", static[0])
    assert (built / "static" / static[0] / "js" / "main.js").is_file()


def test_each_script_bundle_is_one_request(built: Path) -> None:
    """The page's bundle shares no chunk (one would be one more request before the page starts); the lab and the
    exercise share one, loaded with either after the first paint: the page's one Python client is in it. The index's
    progress view shares progress.js with the LMS reporter (a chunk main.js imports only inside an LMS), and the
    index page preloads it beside the view."""
    js = next((built / "static").iterdir()) / "js"
    (shared,) = {re.findall(r'from"\./(chunk-\w+\.js)"', (js / name).read_text())[0] for name in ("lab.js", "exercise.js")}
    index_chunks = re.findall(r'from"\./(chunk-\w+\.js)"', (js / "course-index.js").read_text())
    index_page = (built / "index.html").read_text()
    assert index_chunks and all(f'rel="modulepreload" href="static/{js.parent.name}/js/{c}"' in index_page
                                for c in index_chunks)
    assert not (js / "blocks").exists() and not (js / "quiz.js").exists()  # bundled into main.js, not shipped
    assert not (js / "storage-layout.json").exists()  # store.js's layout, in main.js too
    # A static import's names are the minifier's: letters, digits, _ and $ ("i as $t").
    pattern = r"""(?:^|[;}\n])\s*import\s*(?:[\w${}*,\s]+from\s*)?["']([^"']+)["']"""
    for name in ("main.js", "lab-instructor.js", "lab-worker.js"):
        static_imports = re.findall(pattern, (js / name).read_text())
        assert static_imports == [], f"{name} imports {static_imports}"
    for name in ("lab.js", "exercise.js"):
        assert re.findall(pattern, (js / name).read_text()) == [f"./{shared}"]
    assert "createPython" not in (js / "lab.js").read_text()


# --- the command line and atomic writes -------------------------------------------------------------------------

def tree_digest(folder: Path) -> str:
    """Hash of every file in a folder."""
    h = hashlib.sha256()
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(folder).as_posix().encode() + p.read_bytes())
    return h.hexdigest()


def test_failed_build_leaves_the_last_good_site(tmp_path: Path) -> None:
    """`lessonkit build` exits 1, prints path:line problems, and the old site is byte for byte the same."""
    write_demo(tmp_path)
    out = tmp_path / "site"
    command = [sys.executable, "-m", "lessonkit", "build", "--course", str(tmp_path)]
    ok = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    before = tree_digest(out)
    (tmp_path / "lesson" / "demo.md").write_text(edit(DEMO, "```{quiz}", "```{quizz}"))
    bad = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 1
    assert re.search(r"^.*demo\.md:\d+: unknown block type \"quizz\"", bad.stderr, re.M)
    assert "site/ was left as it was" in bad.stderr
    assert tree_digest(out) == before
    assert not list(tmp_path.glob("site.tmp-*")) and not list(tmp_path.glob("site.old-*"))


def test_refuses_to_overwrite_a_folder_it_did_not_make(tmp_path: Path) -> None:
    """An unrelated non-empty folder is never deleted."""
    out = tmp_path / "precious"
    out.mkdir()
    (out / "thesis.txt").write_text("years of work")
    with pytest.raises(BuildError, match="was not made by this build"):
        build_site(FIXTURE, out)
    assert (out / "thesis.txt").read_text() == "years of work"


def test_large_course_renders_in_parallel_with_the_same_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A course past PARALLEL_FROM lessons is split over processes; pages and problems are the same as serial."""
    from lessonkit.pipeline import parallel as site_module

    write_demo(tmp_path)
    folder = tmp_path / "lesson"
    (folder / "demo.md").unlink()
    count = site_module.PARALLEL_FROM + 6
    for n in range(1, count + 1):
        body = edit(edit(DEMO, "slug: demo", f"slug: lesson-{n:02d}"), "order: 1", f"order: {n}")
        (folder / f"lesson-{n:02d}.md").write_text(body)
    build_site(tmp_path, tmp_path / "parallel")
    monkeypatch.setattr(site_module, "PARALLEL_FROM", 10_000)
    build_site(tmp_path, tmp_path / "serial")
    for n in (1, 2, 17, count):
        name = f"lesson-{n:02d}.html"
        assert (tmp_path / "parallel" / name).read_text() == (tmp_path / "serial" / name).read_text()
    monkeypatch.undo()
    (folder / "lesson-17.md").write_text(edit((folder / "lesson-17.md").read_text(), "{quiz}", "{quizz}"))
    with pytest.raises(BuildError) as info:
        build_site(tmp_path, tmp_path / "parallel")
    assert [p.split(": ", 1)[1] for p in info.value.problems] == [
        'unknown block type "quizz" (did you mean "quiz"?) — use one of: exercise, explain, lab, quiz, widget']
    assert info.value.problems[0].startswith("lesson/lesson-17.md:")


def test_the_page_starts_every_block_type_of_the_registry(built: Path) -> None:
    """main.js carries the block list the build made from lessonkit/blocks/: the lab's module is imported later."""
    from lessonkit import blocks
    from lessonkit.assets import scripts as assets

    listing = assets.block_list(blocks.types())
    assert 'import { init as block_quiz } from "../../../blocks/quiz/quiz.js";' in listing
    assert '"lab": { load: () => import("../../../blocks/lab/lab.js") },' in listing
    assert '"widget": { init: block_widget },' in listing
    main = (next((built / "static").iterdir()) / "js" / "main.js").read_text()
    assert '"./lab.js"' in main and "data-widget-state" in main  # the lab loads later; the widget is bundled in
