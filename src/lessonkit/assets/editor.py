"""The CodeMirror editor: one esbuild bundle (and its brotli) the lab imports when its code comes near the viewport,
made into the prebuilt files when the wheel is made (lessonkit.prebuild.bundles), from static/js/lab/editor-entry.js
and CodeMirror's npm packages."""

from __future__ import annotations

from pathlib import Path

from lessonkit.core.files import link
from lessonkit.core.places import PACKAGE, PREBUILT
from lessonkit.core.prebuilt import check_sources, manifest, sources_digest

EDITOR_ENTRY = "lab/editor-entry.js"

EDITOR_NAME = "editor.js"  # in the prebuilt js/ folder, with its .br


def editor_bundle(folder: Path = PREBUILT) -> Path:
    """The prebuilt CodeMirror bundle (a .br beside it), refused unless made from the installed entry and the
    modules of the package it imports."""
    made = manifest(folder)["editor"]
    local = [(rel, (PACKAGE / rel).read_bytes()) for rel in made["inputs"] if (PACKAGE / rel).is_file()]
    check_sources("editor", sources_digest(local), "editor bundle", folder)
    return folder / "js" / EDITOR_NAME


def write_editor(bundle: Path, out_file: Path) -> None:
    """Link a bundle made by editor_bundle, and its .br, to out_file."""
    out_file.parent.mkdir(parents=True, exist_ok=True)
    link(bundle, out_file)
    link(bundle.with_name(bundle.name + ".br"), out_file.with_name(out_file.name + ".br"))
