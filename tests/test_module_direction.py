"""The page's modules import one way: a block type's folder uses the page's modules (static/js), never the other way,
and no block type reaches into another's. The prebuilt bundles are refused when an import goes the wrong way
(lessonkit.prebuild.bundles.wrong_way_imports, read from esbuild's own metafile): the toolkit's tree passes, and a
copy with one planted is refused, naming it."""

from __future__ import annotations

from pathlib import Path

import pytest
from places import ROOT, STATIC

from lessonkit import blocks
from lessonkit.assets.scripts import module_tree, script_entries, toolkit_types
from lessonkit.core.errors import RuntimeSetupError
from lessonkit.prebuild import bundles

pytestmark = pytest.mark.skipif(not (ROOT / "node_modules" / ".bin" / "esbuild").exists(), reason="npm ci not run")


def _bundle(tmp_path: Path, planted: dict[str, str]) -> None:
    """Bundle the toolkit's module tree, each of `planted`'s files with a line added on top, into tmp_path."""
    (tmp_path / "node_modules").symlink_to(ROOT / "node_modules")  # the libraries the modules import
    kinds = toolkit_types(blocks.types())
    files = [(rel, (planted[rel] + "\n").encode() + data if rel in planted else data)
             for rel, data in module_tree(STATIC / "js", kinds)]
    bundles._build_scripts(ROOT, files, tmp_path / "out", script_entries(kinds))


def test_the_toolkits_modules_import_one_way(tmp_path: Path) -> None:
    _bundle(tmp_path, {})
    assert (tmp_path / "out" / "main.js").is_file()


def test_a_page_module_reaching_into_a_block_types_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RuntimeSetupError) as caught:
        _bundle(tmp_path, {"static/js/page/shapes.js": 'import { answerOf } from "../../../blocks/quiz/answer.js"; '
                                                       "globalThis.planted = answerOf;"})
    assert str(caught.value) == (
        "the page's modules import the wrong way:\n"
        "  static/js/page/shapes.js imports blocks/quiz/answer.js: a page module may not reach into a block type's "
        "folder — move what both need into the page's modules")
    assert not (tmp_path / "out").exists()


def test_a_block_type_reaching_into_anothers_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RuntimeSetupError, match=r"blocks/explain/explain\.js imports blocks/quiz/answer\.js: one block "
                                                r"type may not reach into another's folder"):
        _bundle(tmp_path, {"blocks/explain/explain.js": 'import { answerOf } from "../quiz/answer.js"; '
                                                        "globalThis.planted = answerOf;"})

