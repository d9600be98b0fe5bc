"""Search across the course at build time: Pagefind's index in site/pagefind/, its binary from pagefind-bin checked
against lessonkit's sha256 pins, its failures."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from course import LESSON, build, write_course, write_demo

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
    (root / "lesson" / "second.md").write_text(SECOND, encoding="utf-8")
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


def test_the_installed_binary_is_a_pinned_pagefind() -> None:
    """pagefind-bin's binary, as lessonkit depends on it: a build whose sha256 is pinned, of the pinned version."""
    exe = search.binary()
    spec = importlib.util.find_spec(search.PAGEFIND_PACKAGE)
    assert spec is not None and spec.origin is not None and exe.parent == Path(spec.origin).parent
    assert hashlib.sha256(exe.read_bytes()).hexdigest() in search.PAGEFIND_SHA256[exe.name]
    assert metadata.version("pagefind-bin") == search.PAGEFIND_VERSION
    said = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=True, timeout=60).stdout
    assert said.split() == ["pagefind", search.PAGEFIND_VERSION]
    for pins in search.PAGEFIND_SHA256.values():
        assert pins and all(re.fullmatch(r"[0-9a-f]{64}", pin) for pin in pins)


def failing_pagefind(tmp_path: Path) -> Path:
    """A stand-in binary: the real one for the build's sample page (its bundle hash), a failure for the site."""
    fake = tmp_path / "pagefind-fails"
    fake.write_text("#!/bin/sh\n"
                    f'case "$*" in *"{{page.html}}"*) exec "{search.binary()}" "$@";; esac\n'
                    'echo "Error: the disk is full" >&2\nexit 3\n', encoding="utf-8")
    fake.chmod(0o755)
    return fake


def test_a_pagefind_failure_is_a_build_error_and_the_last_good_site_stays(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_demo(tmp_path)
    site = build(root)
    before = {p.relative_to(site).as_posix(): p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}
    fake = failing_pagefind(tmp_path)
    monkeypatch.setattr(search, "binary", lambda: fake)
    # No bundle hash cached for the stand-in: the build runs it on its sample page too (an absolute folder in place
    # of the user cache's pagefind/).
    monkeypatch.setattr(search, "CACHE", str(tmp_path / "pagefind-cache"))
    (root / "lesson" / "second.md").write_text(SECOND, encoding="utf-8")
    with pytest.raises(BuildError) as info:
        build(root)
    assert info.value.problems == [
        f"{search.PAGEFIND_BINARY}:1: Pagefind could not index the site: Error: the disk is full — the last good "
        "site is kept"]
    assert list((tmp_path / "pagefind-cache").glob("bundle-*.json"))  # the sample page was indexed by the stand-in
    after = {p.relative_to(site).as_posix(): p.stat().st_mtime_ns for p in site.rglob("*") if p.is_file()}
    assert after == before
    assert [p.name for p in site.parent.iterdir() if p.name.startswith("site.")] == []  # no staging folder left


def test_a_missing_pagefind_bin_is_named_with_how_to_fix_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_course(tmp_path, {"a.md": LESSON})
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == search.PAGEFIND_PACKAGE else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(BuildError) as info:
        build(root)
    assert info.value.problems == [
        f"{search.PAGEFIND_BINARY}:1: not installed — reinstall lessonkit (pip install lessonkit), which installs "
        f"pagefind-bin=={search.PAGEFIND_VERSION}"]
    assert not (tmp_path / "site").exists()


def other_pagefind_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, binary: str | None) -> Path:
    """A pagefind_bin package first on sys.path, holding `binary` as its pagefind (None: no binary); a run of it
    leaves a file named ran."""
    folder = tmp_path / "elsewhere" / search.PAGEFIND_PACKAGE
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("", encoding="utf-8")
    if binary is not None:
        (folder / "pagefind").write_text(binary, encoding="utf-8")
        (folder / "pagefind").chmod(0o755)
    monkeypatch.delitem(sys.modules, search.PAGEFIND_PACKAGE, raising=False)
    monkeypatch.syspath_prepend(str(folder.parent))
    return folder


def test_a_binary_whose_sha256_is_not_pinned_is_refused_once_and_never_run(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    ran = tmp_path / "ran"
    folder = other_pagefind_bin(tmp_path, monkeypatch, f'#!/bin/sh\ntouch "{ran}"\n')
    digest = hashlib.sha256((folder / "pagefind").read_bytes()).hexdigest()
    with pytest.raises(BuildError) as info:
        build(write_course(tmp_path, {"a.md": LESSON}))
    assert info.value.problems == [
        f"{search.PAGEFIND_BINARY}:1: {folder / 'pagefind'} has sha256 {digest}, not a build lessonkit pins for "
        f"pagefind-bin {search.PAGEFIND_VERSION} — reinstall it (pip install --force-reinstall "
        f"pagefind-bin=={search.PAGEFIND_VERSION})"]
    assert not ran.exists() and not (tmp_path / "site").exists()


def test_a_pagefind_bin_without_its_binary_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = other_pagefind_bin(tmp_path, monkeypatch, None)
    with pytest.raises(BuildError) as info:
        build(write_course(tmp_path, {"a.md": LESSON}))
    assert info.value.problems == [
        f"{search.PAGEFIND_BINARY}:1: {folder} holds no Pagefind binary — reinstall "
        f"pagefind-bin=={search.PAGEFIND_VERSION}"]


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
