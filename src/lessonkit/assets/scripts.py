"""The page's ES modules: the toolkit's, bundled and minified by esbuild into the prebuilt files when the wheel is made
(lessonkit.prebuild.bundles: the page's entries, the lazily loaded block modules, the lab's worker), from the module
tree of static/js and the toolkit's block types' folders; and a course's own block types' modules, published as they
are beside them (the page imports each by the URL its page data gives, checked by the import map's integrity)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lessonkit.core.places import PREBUILT, STATIC
from lessonkit.core.prebuilt import check_sources, manifest, sources_digest
from lessonkit.labs import limits

if TYPE_CHECKING:
    from lessonkit.blocks import BlockType

# The page's modules are bundled from the module tree: static/js/ and each of the toolkit's block types' modules, at
# their paths in the package (a block type's folder is lessonkit/blocks/<type>/ there), and the modules the build
# generates (GENERATED). A module imports another by its relative path in that tree, which is its path in the package
# too.
BLOCKS = "blocks"
GENERATED = "static/js/generated"
# The entries the page loads by URL (with the lazy block modules, from the registry): (file in the site's js/, source
# in the tree). Everything they import statically is bundled into them; code two of them share would go into one
# chunk (one copy of its state for the page), so the page keeps --splitting. main.js imports the course index's
# progress view (INDEX_MODULE) on the index page only.
INDEX_MODULE = "course-index.js"
PAGE_ENTRIES = (("main", "static/js/page/main.js"), ("lab-instructor", "blocks/lab/tools/instructor.js"),
                (INDEX_MODULE.removesuffix(".js"), "static/js/course/index.js"))
# The page's list of block modules, made from the block registry (main.js imports it: the modules of blocks that load
# at once are bundled into main.js, the others are entries of their own).
BLOCK_LIST = "block-types.js"
# Each block type's progress module, for the course's progress (course/progress.js imports it).
PROGRESS_LIST = "block-progress.js"
# The lab's worker is bundled on its own, without splitting: it is a separate JavaScript realm, so a chunk shared
# with the page (the protocol) would be one more request on both sides and never one copy.
WORKER_ENTRIES = (("lab-worker", "static/js/worker/dispatch.js"),)
SCRIPT_ARGS = ("--bundle", "--splitting", "--format=esm", "--minify", "--target=es2020",
               "--entry-names=[name]", "--chunk-names=chunk-[hash]", "--log-level=warning")
# What the modules are made of: ES modules, and the JSON they import (storage-layout.json, which the build reads too).
MODULE_SOURCES = (".js", ".json")
BUNDLE_FORMAT = "bundle.json 3"  # what the cached bundle's manifest holds (3: from the module tree)
WORKER_ARGS = tuple(arg for arg in SCRIPT_ARGS if arg != "--splitting")
# Modules the lab imports later by file name (the lab's importVerified): the page's data carries their integrity.
LAZY_MODULES = ("lab-instructor.js", "editor.js")
# Static files that never ship: the editor bundle's input, and the dev server's script (it adds it to pages itself).
DEV_ONLY = frozenset({"editor-entry.js", "dev-reload.js"})
# The service worker's realm (static/js/sw/): not a page module, and not in static/<hash>/ (the build writes the
# worker at the site's root, after its data: lessonkit.hosting.offline).
SERVICE_WORKER = "sw"


# A course's own block types' modules, in the site's static/<hash>/: blocks/<type>/<file>.
COURSE_BLOCKS = "blocks"


@dataclass(frozen=True)
class ScriptBundle:
    """esbuild's output for the page's modules, in the prebuilt files, and the course's own block modules."""

    folder: Path
    files: tuple[str, ...]  # what ships in js/
    preload: tuple[str, ...]  # chunks main.js imports statically: fetched beside it, not after it
    chunks: dict[str, tuple[str, ...]] = field(default_factory=dict)  # entry -> chunks it imports statically
    # The course's block types' modules: site path under static/<hash>/ -> the file (published as it is).
    course: dict[str, Path] = field(default_factory=dict)
    # A course block type's page module and progress module (if any), by type: site paths under static/<hash>/.
    course_types: dict[str, dict[str, str]] = field(default_factory=dict)


def toolkit_types(block_types: Mapping[str, BlockType]) -> dict[str, BlockType]:
    """The toolkit's own block types among these (the bundle holds their modules)."""
    return {name: kind for name, kind in block_types.items() if kind.own}


def js_digest(block_types: Mapping[str, BlockType]) -> str:
    """The digest of the module tree the prebuilt bundle must have been made from."""
    return sources_digest(module_tree(STATIC / "js", toolkit_types(block_types)))


def page_bundle(block_types: Mapping[str, BlockType], folder: Path = PREBUILT) -> ScriptBundle:
    """The prebuilt bundle of the page's modules (refused unless made from the installed modules), with the course's
    own block types' modules beside it."""
    check_sources("js", js_digest(block_types), "page bundles", folder)
    data = manifest(folder)["bundle"]
    chunks = {name: tuple(found) for name, found in data.get("chunks", {}).items()}
    course: dict[str, Path] = {}
    course_types: dict[str, dict[str, str]] = {}
    for name, kind in sorted(block_types.items()):
        if kind.own:
            continue
        for path in sorted(kind.folder.rglob("*")):
            if path.is_file() and path.suffix in MODULE_SOURCES and "__pycache__" not in path.parts:
                course[f"{COURSE_BLOCKS}/{name}/{path.relative_to(kind.folder).as_posix()}"] = path
        entry = {"module": f"{COURSE_BLOCKS}/{name}/{kind.page_module.name}"} if kind.page_module.is_file() else {}
        if kind.progress_module.is_file():
            entry["progress"] = f"{COURSE_BLOCKS}/{name}/{kind.progress_module.name}"
        course_types[name] = entry
    return ScriptBundle(folder / "js", tuple(data["files"]), tuple(data["preload"]), chunks, course, course_types)


def script_entries(block_types: Mapping[str, BlockType]) -> tuple[tuple[str, str], ...]:
    """The page's bundle entries: main.js, the lab's instructor tools, the course index, and each lazily loaded block
    module, as (output name, source in the module tree)."""
    lazy = tuple((name, f"{BLOCKS}/{name}/{t.page_module.name}") for name, t in sorted(block_types.items()) if t.lazy)
    return PAGE_ENTRIES + lazy


def module_tree(js: Path, block_types: Mapping[str, BlockType]) -> list[tuple[str, bytes]]:
    """The page's module sources by their path in the module tree (see BLOCKS): static/js (`js`), each block type's
    modules, and the generated ones."""
    files = [(f"static/js/{p.relative_to(js).as_posix()}", p.read_bytes()) for p in sorted(js.rglob("*"))
             if p.is_file() and p.suffix in MODULE_SOURCES and p.relative_to(js).parts[0] != SERVICE_WORKER]
    for name, kind in sorted(block_types.items()):
        files += [(f"{BLOCKS}/{name}/{p.relative_to(kind.folder).as_posix()}", p.read_bytes())
                  for p in sorted(kind.folder.rglob("*")) if p.is_file() and p.suffix in MODULE_SOURCES]
    files.append((f"{GENERATED}/{BLOCK_LIST}", block_list(block_types).encode()))
    files.append((f"{GENERATED}/{PROGRESS_LIST}", progress_list(block_types).encode()))
    files.append((f"{GENERATED}/{limits.MODULE}", limits.page_module().encode()))
    return files


def write_module_tree(files: list[tuple[str, bytes]], dest: Path) -> None:
    """Write a module tree (module_tree) under `dest`, each file at its path."""
    for rel, data in files:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def block_list(block_types: Mapping[str, BlockType]) -> str:
    """The ES module main.js imports: every block type's page module (imported, or a function that imports it)."""
    lines = ["// Made by the build from the block registry (lessonkit/blocks/): each block type's page module.",
             "// main.js starts every [data-block] element with its type's init(element, island, page)."]
    names = {name: _js_name(name) for name in block_types}
    path = {name: f"../../../{BLOCKS}/{name}/{t.page_module.name}" for name, t in block_types.items()}
    lines += [f'import {{ init as {names[name]} }} from "{path[name]}";'
              for name, t in sorted(block_types.items()) if not t.lazy]
    lines.append("export const BLOCKS = {")
    for name, t in sorted(block_types.items()):
        how = f'load: () => import("{path[name]}")' if t.lazy else f"init: {names[name]}"
        lines.append(f"  {json.dumps(name)}: {{ {how} }},")
    lines.append("};")
    return "\n".join(lines) + "\n"


def progress_list(block_types: Mapping[str, BlockType]) -> str:
    """The ES module the course's progress imports: the progress module of every block type that has one."""
    kept = {name: t for name, t in sorted(block_types.items()) if t.progress_module.is_file()}
    lines = ["// Made by the build from the block registry (lessonkit/blocks/): each block type's progress.js, for the",
             "// course index and the progress file (course/progress.js)."]
    lines += [f'import {{ progress as {_js_name(name)} }} from "../../../{BLOCKS}/{name}/progress.js";' for name in kept]
    lines.append("export const PROGRESS = {")
    lines += [f"  {json.dumps(name)}: {_js_name(name)}," for name in kept]
    lines.append("};")
    return "\n".join(lines) + "\n"


def _js_name(block: str) -> str:
    """The name a generated module gives a block type's module."""
    return "block_" + re.sub(r"\W", "_", block)


def write_scripts(bundle: ScriptBundle, static: Path) -> None:
    """Put the bundle into the site's static/<hash>/js/ folder, and the course's block modules beside it."""
    js = static / "js"
    js.mkdir(parents=True, exist_ok=True)
    for name in bundle.files:
        shutil.copyfile(bundle.folder / name, js / name)
    for rel, path in bundle.course.items():
        (static / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, static / rel)
