"""`serve`'s rebuilds (lessonkit.build.memo): after each kind of edit, the site a rebuild leaves is the one a clean
build of the same sources writes, byte for byte, and only what the edit affects was rendered again."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from lessonkit.build.memo import Memo
from lessonkit.build.pipeline import build_site
from lessonkit.content.errors import BuildError

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted(p.stem for p in (ROOT / "lesson").glob("*.md"))


def _project(tmp: Path) -> Path:
    """A project of its own to edit: templates/, static/, lab/ and lesson/ copied; caches and node_modules shared."""
    project = tmp / "project"
    project.mkdir()
    for name in ("templates", "static", "lab", "lesson"):
        shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("node_modules", ".cache", "vendor-manifest.json", "package.json", "package-lock.json", "pyproject.toml"):
        (project / name).symlink_to(ROOT / name)
    return project


def _build(project: Path, out: Path, memo: Memo | None) -> None:
    build_site(project, out, lessons=project / "lesson", labs=project / "lab", memo=memo)
    if memo is not None:
        memo.finish()  # what serve runs once the pages are out: the search index


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name} has no {old!r}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _second(project: Path) -> Path:
    return project / "lesson" / f"{LESSONS[1]}.md"


EDITS: dict[str, tuple[Callable[[Path], None], Callable[[list[str]], bool]]] = {
    # edit, and what the rebuild rendered again (slugs whose content was rendered)
    "lesson text": (lambda p: _replace(_second(p), "## Goal", "## Goal\n\nA new first paragraph."),
                    lambda done: done == [LESSONS[1]]),
    "lesson title": (lambda p: _replace(_second(p), "title: ", "title: Retitled "), lambda done: done == [LESSONS[1]]),
    "lesson summary": (lambda p: _replace(_second(p), "summary: ", "summary: Now "), lambda done: done == [LESSONS[1]]),
    "course config": (lambda p: _replace(p / "lesson" / "course.yaml", "title: ", "title: Renamed "),
                      lambda done: done == []),
    "lab file": (lambda p: _replace(next(iter(sorted((p / "lab").glob("*.py")))), "\n", "\n# an edit\n"),
                 lambda done: len(done) == len(LESSONS)),
    "template": (lambda p: _replace(p / "templates" / "lesson.html", "</main>", "</main>\n<!-- an edit -->"),
                 lambda done: len(done) == len(LESSONS)),
    "stylesheet": (lambda p: (p / "static" / "css" / "lesson.css").write_text(
        (p / "static" / "css" / "lesson.css").read_text(encoding="utf-8") + "\n.an-edit { color: inherit; }\n",
        encoding="utf-8"), lambda done: len(done) == len(LESSONS)),
    "new lesson": (lambda p: (p / "lesson" / "zz-added.md").write_text(
        "---\ntitle: Added\nslug: zz-added\norder: 99\nsummary: One more.\n---\n\n## Goal\n\nA lesson added.\n",
        encoding="utf-8"), lambda done: done == ["zz-added"]),
    "deleted lesson": (lambda p: _second(p).unlink(), lambda done: done == []),
}


@pytest.fixture
def served(tmp_path: Path) -> tuple[Path, Path, Memo]:
    """A project, its site as `serve` built it first, and the memo serve keeps."""
    project = _project(tmp_path)
    memo = Memo()
    _build(project, tmp_path / "site", memo)
    return project, tmp_path / "site", memo


@pytest.mark.parametrize("kind", list(EDITS))
def test_rebuild_after_an_edit_is_a_clean_build(kind: str, served: tuple[Path, Path, Memo], tmp_path: Path) -> None:
    project, site, memo = served
    change, rendered = EDITS[kind]
    change(project)
    _build(project, site, memo)
    assert rendered(memo.rendered), f"after an edit of the {kind}, rendered again: {memo.rendered}"
    _build(project, tmp_path / "clean", None)
    ours, clean = _files(site), _files(tmp_path / "clean")
    assert sorted(ours) == sorted(clean)
    assert [name for name in clean if ours[name] != clean[name]] == []


def test_rebuild_before_the_search_index_follows(served: tuple[Path, Path, Memo], tmp_path: Path) -> None:
    """The pages are published first (with the last search index); the index follows and then all is a clean build."""
    project, site, memo = served
    index_before = _files(site / "pagefind")
    EDITS["lesson text"][0](project)
    build_site(project, site, lessons=project / "lesson", labs=project / "lab", memo=memo)
    assert "A new first paragraph." in (site / f"{LESSONS[1]}.html").read_text(encoding="utf-8")
    assert _files(site / "pagefind") == index_before
    assert memo.pending is not None
    memo.finish()
    _build(project, tmp_path / "clean", None)
    assert _files(site) == _files(tmp_path / "clean")


def test_a_failed_rebuild_keeps_the_site_and_the_next_one_is_clean(served: tuple[Path, Path, Memo],
                                                                  tmp_path: Path) -> None:
    project, site, memo = served
    before = _files(site)
    _replace(_second(project), "title: ", "titel: ")
    with pytest.raises(BuildError) as failed:
        _build(project, site, memo)
    assert any("titel" in str(problem) for problem in failed.value.problems), failed.value.problems
    assert _files(site) == before
    _replace(_second(project), "titel: ", "title: Fixed ")
    _build(project, site, memo)
    _build(project, tmp_path / "clean", None)
    assert _files(site) == _files(tmp_path / "clean")


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
    _build(project, tmp_path / "clean", None)
    assert _files(site) == _files(tmp_path / "clean")
