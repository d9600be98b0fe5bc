"""Search across the course at build time: Pagefind's index in site/pagefind/, its pinned binary, its failures."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from course import LESSON, ROOT, build, write_course, write_demo

from lessonkit import runtime
from lessonkit.assets import search
from lessonkit.core.errors import BuildError
from lessonkit.core.files import sri

SECOND = """---
title: Another lesson
order: 2
---

## Only here

A quokka lives on this page.
"""


def fragments(site: Path) -> dict[str, str]:
    """Each indexed page's URL -> the text Pagefind keeps of it (fragments are gzipped JSON after a signature)."""
    found = {}
    for path in (site / "pagefind" / "fragment").glob("*.pf_fragment"):
        data = gzip.decompress(path.read_bytes()).removeprefix(b"pagefind_dcd")
        fragment = json.loads(data)
        found[fragment["url"]] = fragment["content"]
    return found


def test_the_build_indexes_every_lesson_page_and_nothing_else(tmp_path: Path) -> None:
    root = write_demo(tmp_path)
    (root / "lessons" / "second.md").write_text(SECOND, encoding="utf-8")
    site = build(root)
    entry = json.loads((site / "pagefind" / "pagefind-entry.json").read_text(encoding="utf-8"))
    assert entry["version"] == search.PAGEFIND_VERSION
    assert [lang["page_count"] for lang in entry["languages"].values()] == [2]  # not index.html
    texts = fragments(site)
    assert sorted(texts) == ["/demo.html", "/second.html"]
    assert "quokka" in texts["/second.html"]
    # The lessons list and the previous/next links name the other lesson: they are not this lesson's text.
    assert "Another lesson" not in texts["/demo.html"] and "Demo lesson" not in texts["/second.html"]
    assert "Previous lesson" not in texts["/second.html"]
    # Only what search.js loads is published: no Pagefind UI bundles, one wasm per language the course uses.
    published = sorted(p.relative_to(site / "pagefind").as_posix() for p in (site / "pagefind").rglob("*")
                       if p.is_file() and "/" not in p.relative_to(site / "pagefind").as_posix())
    assert [p for p in published if "ui" in p or "highlight" in p] == []
    assert [p for p in published if p.startswith("wasm.")] == ["wasm.en.pagefind"]
    assert "pagefind.js.br" in published and "pagefind-worker.js.br" in published


def test_the_index_holds_the_lessons_text_and_blocks_not_the_labs_code_or_the_pages_chrome(tmp_path: Path) -> None:
    site = build(write_demo(tmp_path))
    text = fragments(site)["/demo.html"]
    for kept in ("Demo lesson", "Every block once.", "Multiplying the scores by 2", "What does a larger k do?",
                 "Bigger gaps.", "Demo lab", "Explain the difference:", "k changes the order."):
        assert kept in text
    for left_out in ("Weights that add up to 1",  # the lab's code
                     "k=1 [",  # its output at build time
                     "Ctrl+Enter", "Running the lab needs JavaScript",  # its controls
                     "Search the course", "On this page", "Built with lessonkit", '"rows"'):  # chrome, islands
        assert left_out not in text, left_out


@pytest.mark.parametrize("page", ["demo.html", "index.html"])
def test_every_page_has_one_search_box_naming_the_bundle_and_its_hash(page: str, tmp_path: Path) -> None:
    site = build(write_demo(tmp_path))
    html = (site / page).read_text(encoding="utf-8")
    boxes = re.findall(r'<div class="site-search" role="search"[^>]*>', html)
    assert len(boxes) == 1
    assert 'data-search-bundle="pagefind/pagefind.js"' in boxes[0]
    assert f'data-search-integrity="{sri(site / "pagefind" / "pagefind.js")}"' in boxes[0]
    assert " hidden" in boxes[0]  # search needs JavaScript: the box shows only when search.js starts
    assert 'data-pagefind-ignore="all"' in boxes[0]
    assert html.index("<header") < html.index('class="site-search"') < html.index("</header>")


def test_the_service_worker_precaches_and_checks_the_index(tmp_path: Path) -> None:
    site = build(write_demo(tmp_path))
    sw = (site / "sw.js").read_text(encoding="utf-8")
    precache = json.loads(re.search(r"const PRECACHE = (\[.*?\]);", sw, re.S).group(1))
    digests = json.loads(re.search(r"const DIGESTS = (\{.*?\});", sw, re.S).group(1))
    files = sorted(p.relative_to(site).as_posix() for p in (site / "pagefind").rglob("*")
                   if p.is_file() and p.suffix != ".br")
    assert files and set(files) <= set(precache)
    for rel in files:
        assert digests[rel] == hashlib.sha256((site / rel).read_bytes()).hexdigest()


def failing_pagefind(tmp_path: Path) -> Path:
    """A stand-in binary: the real one for the build's sample page (its bundle hash), a failure for the site."""
    fake = tmp_path / "pagefind-fails"
    fake.write_text("#!/bin/sh\n"
                    f'case "$*" in *"{{page.html}}"*) exec "{search.binary(ROOT)}" "$@";; esac\n'
                    'echo "Error: the disk is full" >&2\nexit 3\n', encoding="utf-8")
    fake.chmod(0o755)
    return fake


def test_a_pagefind_failure_is_a_build_error_and_the_last_good_site_stays(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_demo(tmp_path)
    site = build(root)
    before = {p.relative_to(site).as_posix(): p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}
    fake = failing_pagefind(tmp_path)
    monkeypatch.setattr(search, "binary", lambda _root: fake)
    monkeypatch.setattr(search, "CACHE", Path(".cache") / "pagefind-test" / tmp_path.name)  # no cached hash
    (root / "lessons" / "second.md").write_text(SECOND, encoding="utf-8")
    with pytest.raises(BuildError) as info:
        build(root)
    assert info.value.problems == [
        f"{search.PAGEFIND_BINARY}:1: Pagefind could not index the site: Error: the disk is full — the last good "
        "site is kept"]
    after = {p.relative_to(site).as_posix(): p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}
    assert after == before
    assert [p.name for p in site.parent.iterdir() if p.name.startswith("site.")] == []  # no staging folder left
    shutil.rmtree(ROOT / ".cache" / "pagefind-test", ignore_errors=True)


def test_a_missing_binary_is_named_with_how_to_fix_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_course(tmp_path, {"a.md": LESSON})
    monkeypatch.setattr(search, "binary", lambda _root: tmp_path / "no-such-pagefind")
    with pytest.raises(BuildError) as info:
        build(root)
    assert info.value.problems == [
        f'{search.PAGEFIND_BINARY}:1: missing — run "npm ci" to install pagefind {search.PAGEFIND_VERSION}']
    assert not (tmp_path / "site").exists()


def test_the_binary_is_checked_against_the_vendor_manifest(tmp_path: Path) -> None:
    shutil.copyfile(ROOT / "vendor-manifest.json", tmp_path / "vendor-manifest.json")
    rel = search.PAGEFIND_BINARY
    pinned = next(e for e in json.loads((ROOT / "vendor-manifest.json").read_text())["files"] if e["path"] == rel)
    assert pinned["version"] == search.PAGEFIND_VERSION and pinned["package"] == search.PAGEFIND_PACKAGE

    def ours(problems: list[str]) -> list[str]:
        return [p for p in problems if p.startswith(rel)]

    assert ours(runtime.check_vendor(tmp_path)) == [f'{rel}: missing — run "npm ci" to restore the pinned files']
    fake = tmp_path / rel
    fake.parent.mkdir(parents=True)
    fake.write_bytes(b"\0" * 10)
    assert ours(runtime.check_vendor(tmp_path)) == [
        f'{rel}: size is 10 bytes, vendor-manifest.json pins {pinned["size"]} — run "npm ci" to restore the pinned files']
    with fake.open("wb") as fh:  # the same size, other bytes
        fh.truncate(pinned["size"])
    assert ours(runtime.check_vendor(tmp_path)) == [
        f"{rel}: sha256 is {hashlib.sha256(fake.read_bytes()).hexdigest()}, vendor-manifest.json pins "
        f'{pinned["sha256"]} — run "npm ci" to restore the pinned files']
    assert ours(runtime.check_vendor(ROOT)) == []


def test_a_binary_the_check_refused_is_reported_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    message = f'{search.PAGEFIND_BINARY}: missing — run "npm ci" to restore the pinned files'
    monkeypatch.setattr(runtime, "check_vendor", lambda _root: [message])
    monkeypatch.setattr(search, "binary", lambda _root: tmp_path / "no-such-pagefind")
    with pytest.raises(BuildError) as info:
        build(write_course(tmp_path, {"a.md": LESSON}))
    assert info.value.problems == [f"vendor-manifest.json:1: {message}"]


def test_pagefind_ignores_a_config_file_and_variables_of_its_own(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAGEFIND_OUTPUT_SUBDIR", "elsewhere")
    monkeypatch.setenv("PAGEFIND_ROOT_SELECTOR", "footer")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pagefind.yml").write_text("output_subdir: elsewhere\n", encoding="utf-8")
    site = build(write_demo(tmp_path))
    assert (site / "pagefind" / "pagefind.js").is_file() and not (site / "elsewhere").exists()
    assert "Every block once." in fragments(site)["/demo.html"]
    assert os.environ["PAGEFIND_OUTPUT_SUBDIR"] == "elsewhere"  # the build's own environment is left alone
