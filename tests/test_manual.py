"""The manual, docs/: a lessonkit course of its own, built as CI builds it (`lessonkit build --course docs`) with no
problem (the build checks every internal link and anchor); its reference holds what lessonkit's own schemas, command
line and docstrings hold (every key of every block type, course.yaml and the front matter; every command and option;
labkit's functions); every block type is live on its page beside its source, which is the lesson file's own lines;
and the README stays short, every relative link in it landing on a file (and heading) of the repository."""

from __future__ import annotations

import inspect
import re
import shutil
import subprocess
import sys
from pathlib import Path

import lxml.html
import pytest
import yaml
from places import ROOT
from test_cli import PROGRESS

import labkit
from labkit import _limits  # labkit's caps: their one home
from lessonkit.cli import parser
from lessonkit.content.course import SCHEMA as COURSE_SCHEMA
from lessonkit.content.lesson import FRONT_MATTER
from lessonkit.content.schema import Fields, ListOf, MapOf, Type
from lessonkit.pipeline.site import Project
from lessonkit.scaffold import new_course

DOCS = ROOT / "docs"
README = ROOT / "README.md"
BUILT = ("site", "site.tmp-*", "site.old-*", ".lessonkit", "dist", "__pycache__")  # not the manual's sources
TIMEOUT = 600


def _lessonkit(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`lessonkit ARGS` (as `python -m lessonkit`), its stderr without a first step's progress lines."""
    done = subprocess.run([sys.executable, "-m", "lessonkit", *args], capture_output=True, text=True,
                          timeout=TIMEOUT, check=False, cwd=cwd)
    done.stderr = PROGRESS.sub("", done.stderr)
    return done


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The manual built from a copy of docs/ (its build state the copy's own, so no other run shares it): the site."""
    work = tmp_path_factory.mktemp("manual")
    course = work / "docs"
    shutil.copytree(DOCS, course, ignore=shutil.ignore_patterns(*BUILT))
    done = _lessonkit("build", "--course", str(course), "--out", str(work / "site"), cwd=work)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert re.fullmatch(r"built \d+ lesson pages into \S+/ in \d+ ms\n", done.stdout), done.stdout
    return work / "site"


def _page(site: Path, name: str) -> lxml.html.HtmlElement:
    return lxml.html.fromstring((site / name).read_text(encoding="utf-8"))


def _text(element: lxml.html.HtmlElement) -> str:
    return " ".join(element.text_content().split())


def _paths(schema: Fields, prefix: str = "") -> dict[str, str]:
    """Every key of a schema at every depth, by its path as the reference writes it (`questions[].options[].why`: `[]`
    is each item of a list, `.<key>` an author's own key of a mapping), with its doc."""
    found = {}
    for name, key in schema.keys.items():
        path = f"{prefix}{name}"
        found[path] = key.doc
        inner: Type = key.type
        step = ""
        while isinstance(inner, ListOf | MapOf):
            step += "[]" if isinstance(inner, ListOf) else ".<key>"
            inner = inner.item if isinstance(inner, ListOf) else inner.value
        if isinstance(inner, Fields):
            found |= _paths(inner, f"{path}{step}.")
    return found


def _keys_table(page: lxml.html.HtmlElement, of: str) -> dict[str, str]:
    """The {keys} table of `of` on a page: each row's key path and its text."""
    tables = page.xpath(f'//div[@data-keys-of="{of}"]')
    assert len(tables) == 1, f"one table of the keys of {of}"
    return {_text(row.xpath("./th//code")[0]): _text(row) for row in tables[0].xpath(".//tbody/tr")}


def _plain(doc: str) -> str:
    """A key's doc as the page shows it: its inline markdown's backticks gone, its spaces as the page's."""
    return " ".join(doc.replace("`", "").split())


def _block_types() -> dict[str, Path]:
    """Every block type the manual's lessons may use, and the page its reference is on: the toolkit's own each on
    its own page, the manual's own types on the guide to writing one."""
    return {name: Path(f"block-{name}.html" if kind.own else "own-blocks.html")
            for name, kind in Project.at(DOCS).kinds.items()}


def test_the_manual_is_a_course_of_its_own_block_types() -> None:
    kinds = Project.at(DOCS).kinds
    own = sorted(name for name, kind in kinds.items() if not kind.own)
    assert own == ["commands", "keys", "labkit", "limits", "messages", "package", "problem", "source"]
    assert all(kinds[name].folder == (DOCS / "blocks" / name).resolve() for name in own)


@pytest.mark.parametrize("name", sorted(_block_types()))
def test_every_key_of_every_block_type_is_on_its_page(manual: Path, name: str) -> None:
    """The table holds exactly the schema's keys, at every depth, each with the schema's own words."""
    page = _page(manual, str(_block_types()[name]))
    table = _keys_table(page, name)
    expected = _paths(Project.at(DOCS).kinds[name].schema)
    assert sorted(table) == sorted(expected)
    for path, doc in expected.items():
        assert _plain(doc) in table[path], path


@pytest.mark.parametrize(("of", "schema", "name"), [("course", COURSE_SCHEMA, "course-yaml.html"),
                                                    ("front-matter", FRONT_MATTER, "lessons.html")])
def test_every_course_yaml_and_front_matter_key_is_on_its_page(manual: Path, of: str, schema: Fields, name: str) -> None:
    table = _keys_table(_page(manual, name), of)
    expected = _paths(schema)
    assert sorted(table) == sorted(expected)
    for path, doc in expected.items():
        assert _plain(doc) in table[path], path


def test_a_required_key_and_a_default_read_as_the_schema_says(manual: Path) -> None:
    exercise = _keys_table(_page(manual, "block-exercise.html"), "exercise")
    assert "required" in exercise["prompt"]
    attempts = Project.at(DOCS).kinds["exercise"].schema.keys["attempts"].default
    assert f"{attempts}" in exercise["attempts"].split()


def test_every_command_and_option_is_on_the_commands_page(manual: Path) -> None:
    page = _page(manual, "commands.html")
    top = parser()
    shown = {section.get("data-command"): section for section in page.xpath("//section[@data-command]")}
    assert list(shown) == ["lessonkit", *top.commands]
    assert "--version" in _text(shown["lessonkit"])
    for name, command in top.commands.items():
        section = shown[name]
        assert command.description.rstrip(".") in _text(section).replace(command.description[:1].upper(),
                                                                         command.description[:1], 1)
        terms = " ".join(_text(dt) for dt in section.xpath(".//dt"))
        for action in command._actions:
            for spelling in action.option_strings or [action.metavar or action.dest]:
                if spelling not in ("-h", "--help"):
                    assert spelling in terms.split(), f"{name}: {spelling}"
            if action.help and action.option_strings != ["-h", "--help"]:
                assert " ".join(action.help.split()) in _text(section), f"{name}: {action.help}"


def test_labkits_functions_and_caps_are_on_its_page(manual: Path) -> None:
    page = _page(manual, "labkit.html")
    shown = {section.get("data-function"): section for section in page.xpath("//section[@data-function]")}
    assert list(shown) == list(labkit.OFFERED)
    for name, section in shown.items():
        function = getattr(labkit, name)
        text = _text(section)
        assert (inspect.getdoc(function) or "").split("\n\n")[0].split()[0] in text
        for parameter in inspect.signature(function).parameters:
            assert re.search(rf"\b{parameter}\b", text), f"labkit.{name}: {parameter}"
    caps = {_text(row.xpath("./th")[0]): _text(row.xpath("./td")[0])
            for row in page.xpath('//div[@id="labkit-caps"]//tbody/tr')}
    assert caps["OUTPUT_LINES"] == f"{_limits.OUTPUT_LINES:,}" and caps["MAX_CHARTS"] == f"{_limits.MAX_CHARTS}"
    assert caps["CHECK_TIMEOUT"] == f"{_limits.CHECK_TIMEOUT:g}"


def test_every_block_type_is_live_beside_its_source(manual: Path) -> None:
    """Every block type works on a page of the manual (lessonkit's each on its own reference page), and right after
    it a {source} figure shows the markdown of that very block: the lesson file's own lines, fences and all."""
    for name, kind in Project.at(DOCS).kinds.items():
        pages = [Path(f"block-{name}.html")] if kind.own else sorted(Path(p.name) for p in manual.glob("*.html"))
        found = False
        for html in pages:
            for figure in _page(manual, str(html)).xpath('//figure[@data-block="source"]'):
                code = figure.xpath(".//pre/code")[0].text_content()
                block = re.match(rf"`{{3,}}\{{{name}\}}\nid: ([a-z0-9-]+)\n", code)
                live = figure.getprevious()
                if block and live is not None and block.group(1) in (live.get("id") or ""):
                    found = True
        assert found, f"{{{name}}}: no live block with its source beside it"


def test_a_source_figure_is_its_homes_own_text(manual: Path) -> None:
    """Every {source} figure of the manual shows exactly the lines of the file it names, from the line it names."""
    figures = 0
    for html in sorted(manual.glob("*.html")):
        for figure in _page(manual, html.name).xpath('//figure[@data-block="source"]'):
            home, start = figure.get("data-home"), int(figure.get("data-start"))
            shown = figure.xpath(".//pre/code")[0].text_content().split("\n")
            lines = (DOCS / home).read_text(encoding="utf-8").split("\n")
            assert shown == lines[start - 1:start - 1 + len(shown)], f"{html.name}: {home}:{start}"
            if home.startswith("lesson/"):
                assert re.fullmatch(r"(`{3,})\{[a-z-]+\}", shown[0]) and shown[-1] == shown[0].split("{")[0]
            figures += 1
    assert figures >= 10


def test_a_limit_is_the_value_its_module_holds(manual: Path) -> None:
    from lessonkit.content import bounds, lesson

    rows = {_text(row.xpath("./th/code")[0]): _text(row.xpath("./td")[0])
            for row in _page(manual, "lessons.html").xpath('//div[@id="limits-limits"]//tbody/tr')}
    assert rows["MAX_SLUG_LENGTH"] == f"{lesson.MAX_SLUG_LENGTH:,}"
    assert rows["RENDER_SECONDS"] == f"{bounds.RENDER_SECONDS:g}"


def test_the_tutorial_holds_every_kind_of_block(manual: Path) -> None:
    page = _page(manual, "tutorial.html")
    for name in ("quiz", "widget", "lab", "explain", "exercise"):
        assert page.xpath(f'//*[@data-block="{name}"]'), name
    messages = _text(page.xpath('//div[@id="problem-misspelt-key"]//pre[@class="problem-messages"]')[0])
    assert 'unknown key "wyh"' in messages and '(did you mean "why"?)' in messages
    assert messages.startswith("lesson/softmax-temperature.md:")


def test_no_page_of_the_manual_repeats_an_id(manual: Path) -> None:
    for html in sorted(manual.glob("*.html")):
        ids = _page(manual, html.name).xpath("//@id")
        assert sorted(i for i in set(ids) if ids.count(i) > 1) == [], html.name


def test_a_broken_link_in_the_manual_fails_its_build(manual: Path, tmp_path: Path) -> None:
    """The build checks the manual's links: a section that is not there is a problem at its line."""
    course = tmp_path / "docs"
    shutil.copytree(DOCS, course, ignore=shutil.ignore_patterns(*BUILT))
    shutil.copytree(manual.parent / "docs" / ".lessonkit", course / ".lessonkit")  # the labs' answers: not run again
    lesson = course / "lesson" / "parts.md"
    text = lesson.read_text(encoding="utf-8")
    lesson.write_text(text + "\nSee [the limits](lessons.html#no-such-section).\n", encoding="utf-8")
    done = _lessonkit("check", "--course", str(course), cwd=tmp_path)
    line = len(text.splitlines()) + 2
    assert done.returncode == 1
    assert f'lesson/parts.md:{line}: link "lessons.html#no-such-section" points to no heading or block' in done.stderr


def _github_anchor(heading: str) -> str:
    """The anchor GitHub gives a markdown heading: lowercase, punctuation but dashes and underscores gone, spaces as
    dashes."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_readme_is_short_and_its_links_resolve() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    prose = re.sub(r"```.*?```", "", text, flags=re.S)  # links in code are not links
    links = re.findall(r"\]\(([^)\s]+)\)", prose)
    assert links, "the README links into the manual"
    for link in links:
        if re.match(r"[a-z]+:", link) or link.startswith("#"):
            continue
        target, _, anchor = link.partition("#")
        path = (README.parent / target).resolve()
        assert path.is_relative_to(ROOT) and path.exists(), link
        if anchor:
            headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.M)
            assert anchor in {_github_anchor(h) for h in headings}, link
    manual = {p.stem for p in (DOCS / "lesson").glob("*.md")}
    linked = {Path(link).stem for link in links if link.startswith("docs/lesson/")}
    assert linked == manual, "the README links every page of the manual"


def test_the_pages_workflow_the_manual_describes(tmp_path: Path) -> None:
    """What docs/lesson/github-pages.md says of the workflow `lessonkit new` writes: it builds on a push to main
    with the course's pinned lessonkit and `lessonkit build`, uploads site/ and deploys it to Pages."""
    new_course(tmp_path / "course", "A course")
    workflow = yaml.safe_load((tmp_path / "course" / ".github" / "workflows" / "publish.yml").read_text("utf-8"))
    triggers = workflow[True]  # YAML 1.1 reads the key `on` as true
    assert triggers["push"] == {"branches": ["main"]} and "pull_request" not in triggers
    steps = workflow["jobs"]["build"]["steps"]
    assert [s["run"] for s in steps if "run" in s] == ["pip install -r requirements.txt", "lessonkit build"]
    upload = [s for s in steps if s.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert len(upload) == 1 and upload[0]["with"]["path"] == "site"
    deploy = workflow["jobs"]["deploy"]
    assert deploy["needs"] == "build" and deploy["steps"][0]["uses"].startswith("actions/deploy-pages@")
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    page = (DOCS / "lesson" / "github-pages.md").read_text(encoding="utf-8")
    assert "requirements.txt" in page and "`lessonkit build`" in page and "push" in page
