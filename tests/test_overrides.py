"""A course's own overrides and additions, as its author makes them in the course folder: templates/ before the
toolkit's (a page's and a block type's), static/ files published in the site's static/<hash>/, static/css/*.css
appended to the one stylesheet, and a block type of its own in blocks/<type>/ (the shape of the toolkit's: schema and
build, template, page module, styles, example, progress wording). A block folder's mistakes are `path:line`
problems from `lessonkit check`, never a traceback."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from course import build, edit, line_of, write_course
from places import PACKAGE, TEMPLATES
from test_cli import PROGRESS

from lessonkit import blocks
from lessonkit.core.errors import BuildError

TICK_INIT = '''"""{tick}: a box the learner ticks once they have done what its label says (the course's own block type)."""

from lessonkit.blocks import BlockType
from lessonkit.content.schema import Fields, Inline, Key

SCHEMA = Fields({
    "label": Key(Inline(), required=True, hint="saying what to do before ticking it", doc="what the learner does"),
})


def build(ctx):
    return {"label": ctx.inline(ctx.data["label"])}


BLOCK = BlockType("tick", "a box the learner ticks when done", SCHEMA, build,
                  island=lambda data: {"label": str(data["label"])}, progress=lambda data: {}, example_order=150)
'''
TICK = {
    "__init__.py": TICK_INIT,
    "tick.html": '''<div class="tick" id="tick-{{ block.id }}" data-block="tick">
  <script type="application/json" data-block-island>{{ data|tojson }}</script>
  <label><input type="checkbox" data-tick> {{ block.label }}</label>
  <p class="tick-status" data-tick-status role="status"></p>
</div>
''',
    # The page module: main.js imports it by the URL the page's data gives, and calls init(element, island, page).
    "tick.js": '''// {tick}: the box keeps its state in the page's store, under the block's key.
import { STARTED, isTick } from "./shape.js";

export function init(el, island, page) {
  const { load, save, storeKey } = page.store;
  const key = storeKey(page.lesson, island.id, island.version);
  const box = el.querySelector("[data-tick]");
  const status = el.querySelector("[data-tick-status]");
  box.checked = Boolean((load(key, isTick) || {}).done);
  status.textContent = STARTED + (box.checked ? " Done." : " Not yet.");
  box.addEventListener("change", () => {
    save(key, { done: box.checked });
    status.textContent = STARTED + (box.checked ? " Done." : " Not yet.");
  });
  el.dataset.tickStarted = island.label;
}
''',
    "shape.js": '''// What a {tick} block saves: {done: true or false}.
export const STARTED = "Tick module started.";
export const isTick = (value) => value !== null && typeof value === "object" && typeof value.done === "boolean";
''',
    "progress.js": '''// {tick}'s progress on the course index: a count of its own, measured by the lesson's meter.
import { isTick } from "./shape.js";

export const progress = {
  entries: (block) => [{ part: block.version, shape: isTick, count: "ticks" }],
  counts: {
    ticks: {
      order: 25,
      meter: true,
      add: (sum, value) => {
        sum.total += 1;
        sum.done += value && value.done ? 1 : 0;
      },
      words: ({ done, total }, plural) => (done ? `${done} of ${plural(total, "box", "boxes")} ticked` : ""),
    },
  },
};
''',
    "tick.css": ".tick { border-left: 4px solid var(--accent); padding: 0 1rem; }\n",
    "example.md.j2": "## Done?\n\n```{tick}\nid: done   # its state is saved under it\nlabel: I ran the lab.\n```\n",
}
LESSON = """---
title: Ticking boxes
order: 1
summary: A quiz and a box to tick.
---

## Check

```{quiz}
id: check
questions:
  - question: Is this course branded?
    options:
      - text: "Yes"
        correct: true
        why: Its templates say so.
      - text: "No"
        why: Look at the header.
```

## Done

```{tick}
id: done
label: I read the *whole* lesson.
```
"""
LOGO = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><circle cx="12" cy="12" r="10"/></svg>\n'
BRAND_CSS = ".course-logo { vertical-align: middle; }\n.quiz-brand { font-style: italic; }\n"
# The header's course link, in the toolkit's lesson.html, and the course's logo before its title.
HEADER = '<p class="course"><a href="{{ index }}">'
LOGO_HTML = '<img class="course-logo" src="{{ site.static }}/img/logo.svg" alt="" width="24" height="24"> '
QUIZ_FOOTER = '  <div class="quiz-footer">\n'
QUIZ_BRAND = '  <p class="quiz-brand">Checked by the Branded course</p>\n'


def write_overrides(root: Path) -> Path:
    """A course folder with every kind of override: a page template and a block template copied from the toolkit and
    edited, a logo and a stylesheet in static/, and the {tick} block type in blocks/tick/."""
    write_course(root, {"course.yaml": "title: Branded course\nid: branded\n", "ticks.md": LESSON})
    (root / "templates" / "quiz").mkdir(parents=True)
    lesson_html = (TEMPLATES / "lesson.html").read_text(encoding="utf-8")
    (root / "templates" / "lesson.html").write_text(edit(lesson_html, HEADER, HEADER + LOGO_HTML), encoding="utf-8")
    quiz_html = (PACKAGE / "blocks" / "quiz" / "quiz.html").read_text(encoding="utf-8")
    (root / "templates" / "quiz" / "quiz.html").write_text(edit(quiz_html, QUIZ_FOOTER, QUIZ_BRAND + QUIZ_FOOTER),
                                                           encoding="utf-8")
    (root / "static" / "img").mkdir(parents=True)
    (root / "static" / "img" / "logo.svg").write_bytes(LOGO)
    (root / "static" / "css").mkdir()
    (root / "static" / "css" / "brand.css").write_text(BRAND_CSS, encoding="utf-8")
    write_block(root, TICK)
    return root


def write_block(root: Path, files: dict[str, str], name: str = "tick") -> Path:
    """blocks/<name>/ in the course at `root`, with these files."""
    folder = root / "blocks" / name
    folder.mkdir(parents=True, exist_ok=True)
    for file, text in files.items():
        (folder / file).write_text(text, encoding="utf-8")
    return folder


def static_dir(site: Path) -> Path:
    """The site's one static/<hash>/ folder."""
    (found,) = [p for p in (site / "static").iterdir() if p.is_dir()]
    return found


def json_script(page: str, element_id: str) -> dict:
    """The JSON of a page's <script type="application/json" id=...>."""
    found = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', page, re.S)
    assert found is not None, element_id
    return json.loads(found.group(1))


def sri(data: bytes) -> str:
    return "sha384-" + base64.b64encode(hashlib.sha384(data).digest()).decode()


def test_templates_and_static_files_override_the_toolkits(tmp_path: Path) -> None:
    """templates/lesson.html replaces the lesson page's template (the index keeps the toolkit's); templates/quiz/
    quiz.html replaces the quiz's; static/img/logo.svg is published at static/<hash>/img/logo.svg, where the
    override's {{ site.static }} points; static/css/brand.css is appended to the one stylesheet, not published."""
    site = build(write_overrides(tmp_path))
    static = static_dir(site)
    page = (site / "ticks.html").read_text(encoding="utf-8")
    logo = f'<img class="course-logo" src="static/{static.name}/img/logo.svg" alt="" width="24" height="24"> '
    assert f'<p class="course"><a href="index.html">{logo}Branded course</a></p>' in page
    assert (static / "img" / "logo.svg").read_bytes() == LOGO
    assert "course-logo" not in (site / "index.html").read_text(encoding="utf-8")
    assert page.count(QUIZ_BRAND.strip()) == 1 and page.index(QUIZ_BRAND.strip()) < page.index('class="quiz-footer"')
    assert '<fieldset class="question" data-question="1">' in page  # the rest of the toolkit's quiz template

    style = (static / "css" / "site.css").read_text(encoding="utf-8")
    toolkit = (PACKAGE / "_prebuilt" / "css" / "site.css").read_text(encoding="utf-8")
    assert style.startswith(toolkit)
    assert style[len(toolkit):] == f"\n/* tick.css */\n{TICK['tick.css']}\n/* brand.css */\n{BRAND_CSS}"
    assert sorted(p.name for p in (static / "css").iterdir() if not p.name.endswith(".br")) == ["site.css"]


def test_a_static_files_change_moves_the_static_folder(tmp_path: Path) -> None:
    """The static/<hash>/ URL is immutable: another logo, or another line of the course's CSS, is another hash."""
    root = write_overrides(tmp_path)
    first = static_dir(build(root)).name
    (root / "static" / "img" / "logo.svg").write_bytes(LOGO.replace(b'r="10"', b'r="11"'))
    second = static_dir(build(root)).name
    (root / "static" / "css" / "brand.css").write_text(BRAND_CSS + ".course-logo { width: 2rem; }\n", encoding="utf-8")
    third = static_dir(build(root)).name
    assert len({first, second, third}) == 3


def test_a_course_block_type_builds_and_its_modules_are_published(tmp_path: Path) -> None:
    """blocks/tick/: its template renders the block, its page and progress modules (and the module they import) are
    published as they are under static/<hash>/blocks/tick/, named in the page data's blockModules and in the import
    map with their integrity, and the course index's manifest lists the block's progress."""
    root = write_overrides(tmp_path)
    site = build(root)
    static = static_dir(site)
    page = (site / "ticks.html").read_text(encoding="utf-8")
    assert '<label><input type="checkbox" data-tick> I read the <em>whole</em> lesson.</label>' in page
    island = re.search(r'<div class="tick" id="tick-done" data-block="tick">\s*<script type="application/json" '
                       r"data-block-island>(.*?)</script>", page, re.S)
    assert island is not None
    assert {k: v for k, v in json.loads(island.group(1)).items() if k != "version"} == {
        "lesson": "ticks", "id": "done", "label": "I read the <em>whole</em> lesson."}

    base = f"static/{static.name}/blocks/tick"
    modules = {"module": f"{base}/tick.js", "progress": f"{base}/progress.js"}
    assert json_script(page, "lesson-data")["blockModules"] == {"tick": modules}
    index = (site / "index.html").read_text(encoding="utf-8")
    assert json_script(index, "lesson-data")["blockModules"] == {"tick": modules}
    imports = json.loads(html.unescape(re.search(r'<script type="importmap">(.*?)</script>', page, re.S).group(1)))
    for name in ("tick.js", "progress.js", "shape.js"):
        published = static / "blocks" / "tick" / name
        assert published.read_bytes() == (root / "blocks" / "tick" / name).read_bytes()
        assert imports["integrity"][f"./{base}/{name}"] == sri(published.read_bytes())
    assert not (static / "blocks" / "tick" / "__init__.py").exists()  # its Python is the build's, not the page's

    manifest = json_script(index, "course-manifest")
    (lesson,) = manifest["lessons"]
    assert [(b["type"], b["id"]) for b in lesson["blocks"]] == [("quiz", "check"), ("tick", "done")]
    assert lesson["blocks"][1]["version"] == json.loads(island.group(1))["version"]


def test_a_course_block_is_checked_by_its_schema(tmp_path: Path) -> None:
    root = write_overrides(tmp_path)
    text = edit(LESSON, "label: I read the *whole* lesson.\n", "lable: I read it.\n")
    (root / "lesson" / "ticks.md").write_text(text, encoding="utf-8")
    with pytest.raises(BuildError) as info:
        build(root)
    at = line_of(text, "```{tick}")
    assert info.value.problems == [
        f'lesson/ticks.md:{at}: the {{tick}} block needs "label:" saying what to do before ticking it',
        f'lesson/ticks.md:{at + 2}: unknown key "lable" in the {{tick}} block (did you mean "label"?) — use one of: '
        "id, label"]


def test_a_course_block_types_python_raising_is_the_authors_problem(tmp_path: Path) -> None:
    """What the course's build(ctx) raises is a problem at the block's line naming the course's file and line."""
    root = write_overrides(tmp_path)
    raising = edit(TICK_INIT, '    return {"label": ctx.inline(ctx.data["label"])}\n',
                   '    return {"label": ctx.inline(ctx.data["label"]), "width": int(str(ctx.data["label"]))}\n')
    write_block(root, {"__init__.py": raising})
    with pytest.raises(BuildError) as info:
        build(root)
    assert info.value.problems == [
        f"lesson/ticks.md:{line_of(LESSON, '```{tick}')}: the {{tick}} block's build(ctx) raised ValueError: invalid "
        "literal for int() with base 10: 'I read the *whole* lesson.' (at tick/__init__.py:"
        f"{line_of(raising, 'int(str(')}) — fix the block type's Python there"]


def _check(root: Path, command: str = "check") -> subprocess.CompletedProcess[str]:
    """`lessonkit check` (or another command) in the course folder, its stderr without progress lines."""
    done = subprocess.run([sys.executable, "-m", "lessonkit", command], cwd=root, capture_output=True, text=True,
                          timeout=300, check=False)
    done.stderr = PROGRESS.sub("", done.stderr)
    return done


BLOCK_LINE = line_of(TICK_INIT, "BLOCK = BlockType(")
RAISING = edit(TICK_INIT, "\n\ndef build(ctx):", '\nraise ValueError("no labels yet")\n\ndef build(ctx):')
# A course's blocks/tick/ that makes no block type: its files, and what `lessonkit check` says (path:line: message).
BROKEN = {
    "raises": ({"__init__.py": RAISING},
               f"blocks/tick/__init__.py:{line_of(RAISING, 'raise ValueError')}: importing the block type "
               '"tick" raised ValueError: no labels yet — fix its Python here'),
    "another name": ({"__init__.py": edit(TICK_INIT, 'BlockType("tick"', 'BlockType("tock"')},
                     f'blocks/tick/__init__.py:{BLOCK_LINE}: BLOCK is the block type "tock", in the folder tick/ — '
                     'name it "tick" (lessons write ```{tick}), or rename the folder to tock/'),
    "no BLOCK": ({"__init__.py": edit(TICK_INIT, "BLOCK = BlockType(", "TICK = BlockType(")},
                 "blocks/tick/__init__.py:1: the block folder tick/ defines no BLOCK — end its __init__.py with "
                 'BLOCK = BlockType("tick", "what it is", SCHEMA, build) (lessonkit.blocks.BlockType; lessonkit\'s own '
                 "block types are examples)"),
    "not a BlockType": ({"__init__.py": TICK_INIT + 'BLOCK = {"name": "tick"}\n'},
                        f"blocks/tick/__init__.py:{TICK_INIT.count(chr(10)) + 1}: BLOCK is dict {{'name': 'tick'}}, not "
                        'a block type — write BLOCK = BlockType("tick", "what it is", SCHEMA, build) '
                        "(lessonkit.blocks.BlockType; lessonkit's own block types are examples)"),
    "syntax": ({"__init__.py": edit(TICK_INIT, "def build(ctx):", "def build(ctx)")},
               f"blocks/tick/__init__.py:{line_of(TICK_INIT, 'def build(ctx):')}: the block type's Python does not "
               "parse: expected ':' — fix this line"),
    "a module it imports": ({"__init__.py": edit(TICK_INIT, "from lessonkit.blocks import BlockType\n",
                                                 "from lessonkit.blocks import BlockType\n\nfrom . import words\n"),
                             "words.py": '"""Words."""\n\nLABELS = {"done": "Done"}["finished"]\n'},
                            "blocks/tick/words.py:3: importing the block type \"tick\" raised KeyError: 'finished' — "
                            "fix its Python here"),
    "an id in its schema": ({"__init__.py": edit(TICK_INIT, "SCHEMA = Fields({\n",
                                                 'SCHEMA = Fields({\n    "id": Key(Inline()),\n')},
                            f'blocks/tick/__init__.py:{BLOCK_LINE + 1}: the block type\'s schema has "id:", which every '
                            'block has already (lessonkit adds it) — leave "id" out of its keys'),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_block_folder_is_a_problem_at_its_line(tmp_path: Path, case: str) -> None:
    """blocks/tick/ that raises, names another type, defines no BLOCK or something else, does not parse, imports a
    module of its own that raises, or puts "id" in its schema: exit 1, that one problem at its line (never a
    traceback), and no site."""
    root = write_overrides(tmp_path)
    files, problem = BROKEN[case]
    write_block(root, files)
    done = _check(root)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines() == [problem, "check failed: 1 problem"]
    assert not (root / "site").exists()


def test_block_folders_that_are_not_block_types(tmp_path: Path) -> None:
    """A folder named like one of the toolkit's types, one without __init__.py, one without its template, and one
    whose name a lesson cannot write: each a problem, all reported together with the course config's."""
    root = write_overrides(tmp_path)
    (root / "course.yaml").write_text("title: Branded course\nid: Branded\n", encoding="utf-8")
    write_block(root, {**TICK, "__init__.py": TICK_INIT.replace('"tick"', '"quiz"')}, "quiz")
    write_block(root, {"callout.html": "<aside></aside>\n"}, "callout")
    write_block(root, {"__init__.py": TICK_INIT.replace('"tick"', '"plain"')}, "plain")
    write_block(root, {"__init__.py": TICK_INIT}, "Big_Box")
    (root / "blocks" / "_shared").mkdir()  # `_` folders and files are the author's helpers, not types
    (root / "blocks" / "README.md").write_text("Our block types.\n", encoding="utf-8")
    done = _check(root)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines() == [
        'blocks/Big_Box/__init__.py:1: the block folder "Big_Box/" is not a block type\'s name (lessons write it as '
        "```{name}) — rename it with lowercase letters, digits and single dashes, e.g. big-box/",
        "blocks/callout/__init__.py:1: the block folder callout/ has no __init__.py — write one that defines "
        'BLOCK = BlockType("callout", …) (lessonkit.blocks.BlockType), or move the folder out of blocks/',
        'blocks/plain/plain.html:1: the block type "plain" has no template: write plain.html in its folder '
        "(lessonkit's own block types' are examples)",
        'blocks/quiz/__init__.py:1: the block type "quiz" is one of lessonkit\'s own block types — give this folder '
        "another name (to change how {quiz} blocks look, override quiz/quiz.html in the course's templates/)",
        'course.yaml:2: "id:" in the course config must be lowercase letters, digits and single dashes, e.g. "id: '
        'my-course"',
        "check failed: 5 problems"]


def test_an_edited_block_type_is_read_again(tmp_path: Path) -> None:
    """The registry reads a course's block folder again once its Python changed (`lessonkit serve` rebuilds in one
    process), and a fixed folder builds."""
    root = write_overrides(tmp_path)
    folder = write_block(root, {"__init__.py": edit(TICK_INIT, 'BlockType("tick"', 'BlockType("tock"')})
    with pytest.raises(BuildError):
        blocks.types([root / "blocks"], root)
    write_block(root, {"__init__.py": TICK_INIT + "\n"})
    assert blocks.types([root / "blocks"], root)["tick"].folder == folder.resolve()
    assert (build(root) / "ticks.html").is_file()


def test_a_mistake_in_a_course_template_is_a_problem_at_its_line(tmp_path: Path) -> None:
    """An override that does not parse, one that names what its page is not given, and a course block's template
    that does: `lessonkit check` and `lessonkit build` say where (exit 1), the last good site is kept."""
    root = write_overrides(tmp_path)
    good = build(root)
    published = {p: p.read_bytes() for p in good.rglob("*") if p.is_file()}
    lesson_html = (root / "templates" / "lesson.html").read_text(encoding="utf-8")
    at = line_of(lesson_html, HEADER)
    (root / "templates" / "lesson.html").write_text(edit(lesson_html, LOGO_HTML, "{{ site.static | }}"),
                                                    encoding="utf-8")
    done = _check(root)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines() == [
        f"templates/lesson.html:{at}: the template does not parse: expected token 'name', got 'end of print statement' — fix "
        "this line",
        "check failed: 1 problem"]
    (root / "templates" / "lesson.html").write_text(edit(lesson_html, LOGO_HTML, "{{ site.logo.url }}"),
                                                    encoding="utf-8")
    done = _check(root, "build")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines() == [
        f"templates/lesson.html:{at}: the template uses a name its page does not give it: 'dict object' has no "
        "attribute 'logo' — fix this line",
        "build failed: 1 problem; site/ was left as it was"]
    assert {p: p.read_bytes() for p in good.rglob("*") if p.is_file()} == published

    (root / "templates" / "lesson.html").write_text(lesson_html, encoding="utf-8")
    write_block(root, {"tick.html": TICK["tick.html"].replace("{{ block.label }}", "{{ block.label|shout }}")})
    done = _check(root)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines() == [
        "blocks/tick/tick.html:3: the template does not parse: No filter named 'shout'. — fix this line",
        "check failed: 1 problem"]
