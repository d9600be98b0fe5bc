"""`serve`'s rebuilds (lessonkit.pipeline.memo): after each kind of edit, the site a rebuild leaves is the one a clean
build of the same sources writes, byte for byte, and only what the edit affects was rendered again; told what the
watcher saw change (as `serve` tells it) or not told, and both as the rebuild publishes the pages (everything but
what is derived from them) and once what it left for later is done."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from places import FIXTURE, TEMPLATES

from lessonkit.core.errors import BuildError
from lessonkit.core.files import stat_stamp as memo_stamp
from lessonkit.hosting.headers import HEADER_FILES
from lessonkit.pipeline.memo import Memo
from lessonkit.pipeline.site import build_site
from lessonkit.serve.dev import _differences, _snapshot

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted(p.stem for p in (FIXTURE / "lesson").glob("*.md"))
# The lesson the edits change: the course's third, so an edit of its order moves it past two others.
EDITED = next(stem for stem in LESSONS if "\norder: 3\n" in (FIXTURE / "lesson" / f"{stem}.md").read_text(encoding="utf-8"))

# The lab file the lab edit changes (the first by name), and the lessons that use it: those naming it or a lab file
# that imports it (its widget's file imports the lab's starter code).
LAB = sorted(p.stem for p in (FIXTURE / "lab").glob("*.py"))[0]
USING_LAB = [stem for stem in LESSONS if any(
    name in (FIXTURE / "lesson" / f"{stem}.md").read_text(encoding="utf-8")
    for name in [LAB, *(p.stem for p in (FIXTURE / "lab").glob("*.py") if f"import {LAB}" in p.read_text(encoding="utf-8")
                        or f"from {LAB} import" in p.read_text(encoding="utf-8"))])]


def _project(tmp: Path) -> Path:
    """A course of its own to edit: the fixture course's course.yaml, lab/ and lesson/ copied, with a template and a
    stylesheet of its own (templates/lesson.html overriding the toolkit's, static/css/extra.css added to its)."""
    project = tmp / "project"
    project.mkdir()
    for name in ("lab", "lesson"):
        shutil.copytree(FIXTURE / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(FIXTURE / "course.yaml", project / "course.yaml")
    (project / "templates").mkdir()
    shutil.copyfile(TEMPLATES / "lesson.html", project / "templates" / "lesson.html")
    (project / "static" / "css").mkdir(parents=True)
    (project / "static" / "css" / "extra.css").write_text(".course-extra { color: inherit; }\n", encoding="utf-8")
    return project


# What a rebuild publishes at once from the last site, brought up to date by memo.finish() (the pages come first).
DERIVED = ("pagefind/", "sw.js", "sw.js.br", *HEADER_FILES)
SOURCES = ("lesson", "lab", "templates", "static", "course.yaml")  # what serve watches


def _build(project: Path, out: Path, memo: Memo | None) -> None:
    build_site(project, out, lessons=project / "lesson", labs=project / "lab", memo=memo)
    if memo is not None:
        memo.finish()  # what serve runs once the pages are out: the search index, the service worker, host files


def _edit(project: Path, memo: Memo, change: Callable[[Path], None], told: bool) -> None:
    """Make the edit; when `told`, the memo hears which files changed, as serve's watcher tells it."""
    before = _snapshot([project / name for name in SOURCES])
    change(project)
    if told:
        memo.note_changes(_differences(before, _snapshot([project / name for name in SOURCES])))


def _assert_clean(project: Path, site: Path, tmp_path: Path, name: str = "clean") -> None:
    """The site is, byte for byte, what a clean build of the project writes (into tmp_path / name)."""
    _build(project, tmp_path / name, None)
    ours, clean = _files(site), _files(tmp_path / name)
    assert sorted(ours) == sorted(clean), name
    assert [rel for rel in clean if ours[rel] != clean[rel]] == [], name


def _derived(name: str) -> bool:
    return name.startswith(DERIVED[0]) or name in DERIVED[1:]


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name} has no {old!r}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _edited(project: Path) -> Path:
    return project / "lesson" / f"{EDITED}.md"


EDITS: dict[str, tuple[Callable[[Path], None], Callable[[list[str]], bool]]] = {
    # edit, and what the rebuild rendered again (slugs whose content was rendered)
    "lesson text": (lambda p: _replace(_edited(p), "## Goal", "## Goal\n\nA new first paragraph."),
                    lambda done: done == [EDITED]),
    "lesson title": (lambda p: _replace(_edited(p), "title: ", "title: Retitled "), lambda done: done == [EDITED]),
    "lesson summary": (lambda p: _replace(_edited(p), "summary: ", "summary: Now "), lambda done: done == [EDITED]),
    "lesson order": (lambda p: _replace(_edited(p), "order: 3", "order: 0"), lambda done: done == [EDITED]),
    "course config": (lambda p: _replace(p / "course.yaml", "title: ", "title: Renamed "),
                      lambda done: done == []),
    "lab file": (lambda p: _replace(p / "lab" / f"{LAB}.py", "\n", "\n# an edit\n"),
                 lambda done: done == USING_LAB and len(done) < len(LESSONS)),  # the lessons whose labs import it
    "new lab file": (lambda p: (p / "lab" / "zz_added.py").write_text("X = 1\n", encoding="utf-8"),
                     lambda done: len(done) == len(LESSONS)),  # every import and every "not found" may change
    "template": (lambda p: _replace(p / "templates" / "lesson.html", "</main>", "</main>\n<!-- an edit -->"),
                 lambda done: len(done) == len(LESSONS)),
    "stylesheet": (lambda p: (p / "static" / "css" / "extra.css").write_text(
        (p / "static" / "css" / "extra.css").read_text(encoding="utf-8") + "\n.an-edit { color: inherit; }\n",
        encoding="utf-8"), lambda done: done == []),  # the contents kept, their images' URLs moved
    "new lesson": (lambda p: (p / "lesson" / "zz-added.md").write_text(
        "---\ntitle: Added\nslug: zz-added\norder: 99\nsummary: One more.\n---\n\n## Goal\n\nA lesson added.\n",
        encoding="utf-8"), lambda done: done == ["zz-added"]),
    "deleted lesson": (lambda p: _edited(p).unlink(), lambda done: done == []),
}


@pytest.fixture(scope="module")
def built_before(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project after one build: its build state (.lessonkit: the labs' results, compressed files) is what each
    test's project starts from, as an author's folder keeps it from one `serve` to the next."""
    project = _project(tmp_path_factory.mktemp("built-before"))
    _build(project, project.parent / "site", None)
    return project


@pytest.fixture
def served(tmp_path: Path, built_before: Path) -> tuple[Path, Path, Memo]:
    """A project, its site as `serve` built it first, and the memo serve keeps."""
    project = tmp_path / "project"
    shutil.copytree(built_before, project)
    memo = Memo()
    _build(project, tmp_path / "site", memo)
    return project, tmp_path / "site", memo


@pytest.mark.parametrize("told", [True, False], ids=["told what changed", "not told"])
@pytest.mark.parametrize("kind", list(EDITS))
def test_rebuild_after_an_edit_is_a_clean_build(kind: str, told: bool, served: tuple[Path, Path, Memo],
                                                tmp_path: Path) -> None:
    project, site, memo = served
    change, rendered = EDITS[kind]
    _edit(project, memo, change, told)
    build_site(project, site, lessons=project / "lesson", labs=project / "lab", memo=memo)
    assert rendered(memo.rendered), f"after an edit of the {kind}, rendered again: {memo.rendered}"
    _build(project, tmp_path / "clean", None)
    clean = _files(tmp_path / "clean")
    published = _files(site)  # what open pages reload into: every page and asset already the clean build's
    assert sorted(n for n in published if not _derived(n)) == sorted(n for n in clean if not _derived(n))
    assert [name for name in clean if not _derived(name) and published[name] != clean[name]] == []
    memo.finish()
    ours = _files(site)
    assert sorted(ours) == sorted(clean)
    assert [name for name in clean if ours[name] != clean[name]] == []


def test_rebuild_before_the_search_index_follows(served: tuple[Path, Path, Memo], tmp_path: Path) -> None:
    """The pages are published first (with the last search index); the index follows and then all is a clean build."""
    project, site, memo = served
    index_before = _files(site / "pagefind")
    EDITS["lesson text"][0](project)
    build_site(project, site, lessons=project / "lesson", labs=project / "lab", memo=memo)
    assert "A new first paragraph." in (site / f"{EDITED}.html").read_text(encoding="utf-8")
    assert _files(site / "pagefind") == index_before
    assert memo.pending is not None
    memo.finish()
    _assert_clean(project, site, tmp_path)


@pytest.mark.parametrize("told", [True, False], ids=["told what changed", "not told"])
def test_a_failed_rebuild_keeps_the_site_and_the_next_one_is_clean(told: bool, served: tuple[Path, Path, Memo],
                                                                  tmp_path: Path) -> None:
    project, site, memo = served
    before = _files(site)
    _edit(project, memo, lambda p: _replace(_edited(p), "title: ", "titel: "), told)
    with pytest.raises(BuildError) as failed:
        _build(project, site, memo)
    assert any("titel" in str(problem) for problem in failed.value.problems), failed.value.problems
    assert _files(site) == before
    _edit(project, memo, lambda p: _replace(_edited(p), "titel: ", "title: Fixed "), told)
    _build(project, site, memo)
    _assert_clean(project, site, tmp_path)


def test_an_edit_during_the_search_index_stops_it_and_the_next_rebuild_is_clean(served: tuple[Path, Path, Memo],
                                                                                tmp_path: Path) -> None:
    """serve stops the last build's index when an edit comes in (its run is killed); the site keeps the last one."""
    project, site, memo = served
    index_before = _files(site / "pagefind")
    EDITS["lesson text"][0](project)
    build_site(project, site, lessons=project / "lesson", labs=project / "lab", memo=memo)
    stop = threading.Event()
    stop.set()
    memo.finish(stop)
    assert memo.pending is None
    assert _files(site / "pagefind") == index_before
    EDITS["lesson title"][0](project)
    _build(project, site, memo)
    _assert_clean(project, site, tmp_path)


def test_edits_of_every_kind_in_a_row_each_told_leave_a_clean_build(served: tuple[Path, Path, Memo],
                                                                     tmp_path: Path) -> None:
    """What a rebuild keeps of the last one (the bundles, the templates) is made again after an edit of its sources,
    and kept again after: a lesson edit after a stylesheet edit publishes the new stylesheet's pages."""
    project, site, memo = served
    for kind in ("lesson text", "stylesheet", "lesson title", "template", "course config", "lab file", "new lesson"):
        _edit(project, memo, EDITS[kind][0], told=True)
        _build(project, site, memo)
        if kind in ("stylesheet", "lab file"):
            _assert_clean(project, site, tmp_path, kind)
    _edit(project, memo, lambda p: _replace(_edited(p), "A new first paragraph.", "Edited once more."), told=True)
    _build(project, site, memo)
    _assert_clean(project, site, tmp_path)


def test_an_edit_the_watcher_did_not_report_is_still_read_again(served: tuple[Path, Path, Memo],
                                                                tmp_path: Path) -> None:
    """Told that nothing changed while a lesson's file did (its stat says so): the lesson is read again."""
    project, site, memo = served
    EDITS["lesson text"][0](project)
    memo.note_changes(set())
    _build(project, site, memo)
    assert memo.rendered == [EDITED]
    _assert_clean(project, site, tmp_path)


def test_a_lesson_the_watcher_reports_is_read_again_though_its_stat_is_the_same(served: tuple[Path, Path, Memo],
                                                                                tmp_path: Path) -> None:
    """Two saves within one tick of the file system's clock leave the same stat: the watcher's word decides."""
    project, site, memo = served
    lesson = _edited(project)
    known = dict(memo.stats)
    EDITS["lesson text"][0](project)
    rel = next(name for name in known if name.endswith(f"/{lesson.name}"))
    memo.stats = {**known, rel: memo_stamp(lesson)}  # as if it had been loaded after the save
    memo.note_changes({lesson})
    _build(project, site, memo)
    assert memo.rendered == [EDITED]
    _assert_clean(project, site, tmp_path)


PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 24  # what the build checks of a PNG: its signature


@pytest.mark.parametrize("told", [True, False], ids=["told what changed", "not told"])
def test_a_lesson_image_after_a_stylesheet_edit_and_an_image_edit(told: bool, tmp_path: Path) -> None:
    """A content kept across a change of the static folder's URL has its images' URLs moved; a new image file (one
    the lesson names) and an edited one are the static folder's too, and what a lesson's check of them says."""
    project = _project(tmp_path)
    (project / "lesson" / "img").mkdir()
    (project / "lesson" / "img" / "dot.png").write_bytes(PNG)
    _replace(_edited(project), "## Goal", "## Goal\n\n![A dot](img/dot.png)\n\n![A square](img/square.png)")
    memo = Memo()
    with pytest.raises(BuildError) as failed:  # the second image is not there yet
        _build(project, tmp_path / "site", memo)
    assert any("square.png" in str(problem) for problem in failed.value.problems), failed.value.problems
    site = tmp_path / "site"
    for n, change in enumerate([
        lambda p: (p / "lesson" / "img" / "square.png").write_bytes(PNG),
        EDITS["stylesheet"][0],
        lambda p: (p / "lesson" / "img" / "dot.png").write_bytes(PNG + b"an edit"),
    ]):
        _edit(project, memo, change, told)
        _build(project, site, memo)
        _assert_clean(project, site, tmp_path, f"clean{n}")
        if n == 1:  # the stylesheet: every content kept
            assert memo.rendered == []
            assert (site / f"{EDITED}.html").read_text(encoding="utf-8").count("/media/img/dot.png") == 1
