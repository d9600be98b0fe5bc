"""The page's ES modules bundled and minified by esbuild (the page's entries, the lazily loaded block modules, the
lab's worker), from the module tree of static/js and the block types' folders; cached by content."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from lessonkit.assets.esbuild import CACHE, cache_key, run_esbuild
from lessonkit.labs import limits

if TYPE_CHECKING:
    from lessonkit.blocks import BlockType

# The page's modules are bundled from the module tree: static/js/ and each block type's modules, at their paths from
# the project's root (a block type's folder is lessonkit/blocks/<type>/ there, wherever it is on disk), and the
# modules the build generates (GENERATED). A module imports another by its relative path in that tree, which is its
# path in the repository too.
BLOCKS = "lessonkit/blocks"
GENERATED = "static/js/generated"
# The entries the page loads by URL (with the lazy block modules, from the registry): (file in the site's js/, source
# in the tree). Everything they import statically is bundled into them; code two of them share would go into one
# chunk (one copy of its state for the page), so the page keeps --splitting. main.js imports the course index's
# progress view (INDEX_MODULE) on the index page only.
INDEX_MODULE = "course-index.js"
PAGE_ENTRIES = (("main", "static/js/page/main.js"), ("lab-instructor", "static/js/lab/tools/instructor.js"),
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


@dataclass(frozen=True)
class ScriptBundle:
    """esbuild's output for the page's modules, kept in the cache folder until the site is written."""

    folder: Path
    files: tuple[str, ...]  # what ships in js/
    preload: tuple[str, ...]  # chunks main.js imports statically: fetched beside it, not after it
    replaced: tuple[str, ...]  # static/js modules now inside a bundle (paths under js/): they do not ship
    chunks: dict[str, tuple[str, ...]] = field(default_factory=dict)  # entry -> chunks it imports statically


def bundle_scripts(root: Path, js: Path, block_types: Mapping[str, BlockType]) -> ScriptBundle:
    """Bundle the page's modules: `js` and the block types' (esbuild runs only when a module of the tree, the
    arguments or esbuild changed)."""
    files = module_tree(js, block_types)
    entries = script_entries(block_types)
    key = cache_key(root, (*SCRIPT_ARGS, *WORKER_ARGS, *(f"{name}={src}" for name, src in entries), BUNDLE_FORMAT), files)
    folder = root / CACHE / f"js-{key}"
    manifest = folder / "bundle.json"
    if not manifest.is_file():
        _build_scripts(root, files, folder, entries)
    data = json.loads(manifest.read_text(encoding="utf-8"))
    chunks = {name: tuple(found) for name, found in data.get("chunks", {}).items()}
    return ScriptBundle(folder, tuple(data["files"]), tuple(data["preload"]), tuple(data["replaced"]), chunks)


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


def _build_scripts(root: Path, files: list[tuple[str, bytes]], folder: Path, entries: tuple[tuple[str, str], ...]) -> None:
    """Run esbuild on the module tree, written into a temporary folder, then move the finished bundle into the cache
    in one rename."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "out"
        write_module_tree(files, src)
        outputs: dict[str, dict] = {}
        inputs: set[Path] = set()
        for group, names, args in (("page", entries, SCRIPT_ARGS), ("worker", WORKER_ENTRIES, WORKER_ARGS)):
            meta_file = Path(tmp) / f"meta-{group}.json"
            run_esbuild(root, [f"{name}={src / rel}" for name, rel in names],
                     [*args, f"--outdir={out}", f"--metafile={meta_file}"])
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
            outputs.update({Path(path).name: info for path, info in meta["outputs"].items()})
            inputs.update((root / rel).resolve() for rel in meta["inputs"])
        main = outputs["main.js"]
        preload = [Path(i["path"]).name for i in main.get("imports", []) if i.get("kind") == "import-statement"]
        static = (src / "static" / "js").resolve()
        replaced = sorted(p.relative_to(static).as_posix() for p in inputs if p.is_relative_to(static)
                          and not p.is_relative_to(src.resolve() / GENERATED))
        # The lazy entries' shared chunk (the lab's and the exercise's: the page's one Python client) is preloaded
        # with them, with its integrity: a static import carries none of its own.
        chunks = {f"{name}.js": [Path(i["path"]).name for i in outputs[f"{name}.js"].get("imports", [])
                                 if i.get("kind") == "import-statement"] for name, _ in entries}
        manifest = {"files": sorted(outputs), "preload": preload, "replaced": replaced, "chunks": chunks}
        (out / "bundle.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(out, folder)


def write_scripts(bundle: ScriptBundle, js: Path) -> None:
    """Put the bundle into the site's js/ folder in place of the modules it contains."""
    for rel in bundle.replaced:
        (js / rel).unlink(missing_ok=True)
    for folder in sorted({(js / rel).parent for rel in bundle.replaced}, reverse=True):
        if folder != js and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    for name in bundle.files:
        shutil.copyfile(bundle.folder / name, js / name)
