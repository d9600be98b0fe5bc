"""Page assets: the ES modules and the editor bundled and minified by esbuild, one minified stylesheet; cached by content."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import brotli

from lessonkit.files import atomic_write, link, sha256_path
from lessonkit.runtime import RuntimeSetupError

if TYPE_CHECKING:
    from lessonkit.blocks import BlockType

# The modules the page loads by URL (with the lazy block modules, from the registry). Everything they import
# statically is bundled into them; code two of them share would go into one chunk (one copy of its state for the
# page), so the page keeps --splitting. main.js imports the course index's progress view (INDEX_MODULE) on the
# index page only.
INDEX_MODULE = "course-index.js"
PAGE_ENTRIES = ("main.js", "lab-instructor.js", INDEX_MODULE)
# The page's list of block modules, made from the block registry into the bundler's copy of static/js (main.js
# imports it: the modules of blocks that load at once are bundled into main.js, the others are entries of their own).
BLOCK_LIST = "block-types.js"
# The lab's worker is bundled on its own, without splitting: it is a separate JavaScript realm, so a chunk shared
# with the page (lab-protocol.js) would be one more request on both sides and never one copy.
WORKER_ENTRIES = ("lab-worker.js",)
SCRIPT_ARGS = ("--bundle", "--splitting", "--format=esm", "--minify", "--target=es2020",
               "--entry-names=[name]", "--chunk-names=chunk-[hash]", "--log-level=warning")
# What the modules are made of: ES modules, and the JSON they import (storage-layout.json, which the build reads too).
MODULE_SOURCES = (".js", ".json")
BUNDLE_FORMAT = "bundle.json 2"  # what the cached bundle's manifest holds (2: each entry's chunks)
WORKER_ARGS = tuple(arg for arg in SCRIPT_ARGS if arg != "--splitting")
# Modules the lab imports later by file name (lab.js's importVerified): the page's data carries their integrity.
LAZY_MODULES = ("lab-instructor.js", "editor.js")
SCREEN_CSS = ("lesson.css", "course.css", "progress.css", "lab.css", "instructor.css", "search.css", "matrices.css")
PRINT_CSS = "print.css"
STYLE_NAME = "site.css"
CACHE = Path(".cache") / "pageassets"
# Static files that never ship: the editor bundle's input, and the dev server's script (it adds it to pages itself).
DEV_ONLY = frozenset({"editor-entry.js", "dev-reload.js"})
EDITOR_ENTRY = "editor-entry.js"
EDITOR_CACHE = Path(".cache") / "editor"
EDITOR_ARGS = ("--bundle", "--format=esm", "--minify", "--target=es2020")
EDITOR_BROTLI_QUALITY = 11


@dataclass(frozen=True)
class ScriptBundle:
    """esbuild's output for the page's modules, kept in the cache folder until the site is written."""

    folder: Path
    files: tuple[str, ...]  # what ships in js/
    preload: tuple[str, ...]  # chunks main.js imports statically: fetched beside it, not after it
    replaced: tuple[str, ...]  # source modules now inside a bundle: they do not ship
    chunks: dict[str, tuple[str, ...]] = field(default_factory=dict)  # entry -> chunks it imports statically


def bundle_scripts(root: Path, js: Path, block_types: Mapping[str, BlockType]) -> ScriptBundle:
    """Bundle the page's modules in `js` (esbuild runs only when a module, the block list, the arguments or esbuild
    changed)."""
    sources = sorted(p for p in js.rglob("*") if p.is_file() and p.suffix in MODULE_SOURCES)
    listing = block_list(block_types)
    entries = script_entries(block_types)
    files = [(p.relative_to(js).as_posix(), p.read_bytes()) for p in sources] + [(BLOCK_LIST, listing.encode())]
    key = _key(root, (*SCRIPT_ARGS, *WORKER_ARGS, *entries, BUNDLE_FORMAT), files)
    folder = root / CACHE / f"js-{key}"
    manifest = folder / "bundle.json"
    if not manifest.is_file():
        _build_scripts(root, js, folder, listing, entries)
    data = json.loads(manifest.read_text(encoding="utf-8"))
    chunks = {name: tuple(found) for name, found in data.get("chunks", {}).items()}
    return ScriptBundle(folder, tuple(data["files"]), tuple(data["preload"]), tuple(data["replaced"]), chunks)


def script_entries(block_types: Mapping[str, BlockType]) -> tuple[str, ...]:
    """The page's bundle entries: main.js, the lab's instructor tools, and each lazily loaded block module."""
    lazy = tuple(sorted({t.page_module for t in block_types.values() if t.lazy}))
    return PAGE_ENTRIES + lazy


def block_list(block_types: Mapping[str, BlockType]) -> str:
    """The ES module main.js imports: every block type's page module (imported, or a function that imports it)."""
    lines = ["// Made by the build from the block registry (lessonkit/blocks/): each block type's page module.",
             "// main.js starts every [data-block] element with its type's init(element, island, page)."]
    names = {name: "block_" + re.sub(r"\W", "_", name) for name in block_types}
    lines += [f'import {{ init as {names[name]} }} from "./{t.page_module}";'
              for name, t in sorted(block_types.items()) if not t.lazy]
    lines.append("export const BLOCKS = {")
    for name, t in sorted(block_types.items()):
        how = f'load: () => import("./{t.page_module}")' if t.lazy else f"init: {names[name]}"
        lines.append(f"  {json.dumps(name)}: {{ {how} }},")
    lines.append("};")
    return "\n".join(lines) + "\n"


def _build_scripts(root: Path, js: Path, folder: Path, listing: str, entries: tuple[str, ...]) -> None:
    """Run esbuild on a copy of `js` with the block list beside it, into a temporary folder, then move the finished
    bundle into the cache in one rename."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "out"
        for path in (p for p in js.rglob("*") if p.is_file() and p.suffix in MODULE_SOURCES):
            target = src / path.relative_to(js)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        (src / BLOCK_LIST).write_text(listing, encoding="utf-8")
        outputs: dict[str, dict] = {}
        inputs: set[Path] = set()
        for group, names, args in (("page", entries, SCRIPT_ARGS), ("worker", WORKER_ENTRIES, WORKER_ARGS)):
            meta_file = Path(tmp) / f"meta-{group}.json"
            _esbuild(root, [str(src / name) for name in names], [*args, f"--outdir={out}", f"--metafile={meta_file}"])
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
            outputs.update({Path(path).name: info for path, info in meta["outputs"].items()})
            inputs.update((root / rel).resolve() for rel in meta["inputs"])
        main = outputs["main.js"]
        preload = [Path(i["path"]).name for i in main.get("imports", []) if i.get("kind") == "import-statement"]
        shipped = {*entries, *WORKER_ENTRIES, BLOCK_LIST}
        base = src.resolve()
        replaced = sorted(rel for p in inputs if p.is_relative_to(base)
                          and (rel := p.relative_to(base).as_posix()) not in shipped)
        # The lazy entries' shared chunk (the lab's and the exercise's: the page's one Python client) is preloaded
        # with them, with its integrity: a static import carries none of its own.
        chunks = {Path(name).name: [Path(i["path"]).name for i in outputs[Path(name).name].get("imports", [])
                                    if i.get("kind") == "import-statement"] for name in entries}
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


def bundle_styles(root: Path, css: Path) -> Path:
    """One minified stylesheet from the parts in `css`: the screen parts, then print rules under @media print (no
    second request). Returns its path in the cache (esbuild runs only when a part changed)."""
    parts = [css / name for name in SCREEN_CSS if (css / name).is_file()]
    text = "\n".join(p.read_text(encoding="utf-8") for p in parts)
    printed = css / PRINT_CSS
    if printed.is_file():
        text += f"\n@media print {{\n{printed.read_text(encoding='utf-8')}\n}}\n"
    cached = root / CACHE / f"css-{_key(root, ('css',), [('site.css', text.encode())])}.css"
    if not cached.is_file():
        minified = _esbuild(root, ["--loader=css", "--minify", "--log-level=warning"], [], stdin=text)
        atomic_write(cached, minified.encode())
    return cached


def write_styles(style: Path, css: Path) -> None:
    """Put the stylesheet from bundle_styles into the site's css/ folder in place of its parts."""
    shutil.copyfile(style, css / STYLE_NAME)
    for name in (*SCREEN_CSS, PRINT_CSS):
        # Only the bundle ships: nothing (the service worker included) should fetch the parts.
        (css / name).unlink(missing_ok=True)


def sri(path: Path) -> str:
    """Subresource Integrity value of a file, as the page's integrity attributes carry it."""
    return "sha384-" + base64.b64encode(hashlib.sha384(path.read_bytes()).digest()).decode()


def _key(root: Path, args: tuple[str, ...], files: list[tuple[str, bytes]]) -> str:
    """Cache key: esbuild's pinned version (the lock file), its arguments and the input files."""
    digest = hashlib.sha256("\0".join(args).encode())
    lock = root / "package-lock.json"
    digest.update(lock.read_bytes() if lock.is_file() else b"")
    for name, data in files:
        digest.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return digest.hexdigest()[:16]


def _esbuild(root: Path, entries: list[str], args: list[str], *, stdin: str | None = None) -> str:
    """Run the project's pinned esbuild; return what it printed (the output when reading stdin)."""
    esbuild = root / "node_modules" / ".bin" / "esbuild"
    if not esbuild.exists():
        raise RuntimeSetupError(f'{esbuild} not found — run "npm ci"')
    result = subprocess.run([str(esbuild), *entries, *args], cwd=root, input=stdin, capture_output=True,
                            text=True, check=False)
    if result.returncode != 0:
        raise RuntimeSetupError(f"esbuild failed:\n{result.stderr.strip()}")
    return result.stdout


# ---- the CodeMirror editor: one bundle the lab imports when it comes near the viewport --------------------------


def editor_bundle(root: Path, entry: Path | None = None) -> Path:
    """The cached CodeMirror ESM bundle (a .br beside it), built by esbuild only when its inputs changed."""
    entry = entry or root / "static" / "js" / EDITOR_ENTRY
    if not entry.is_file():
        raise RuntimeSetupError(f"{entry}: the editor entry module is missing")
    key_src = hashlib.sha256("\0".join(EDITOR_ARGS).encode())
    key_src.update((root / "package-lock.json").read_bytes())
    key_src.update(entry.read_bytes())
    cache = root / EDITOR_CACHE
    bundle = cache / f"{key_src.hexdigest()[:16]}.js"
    packed = bundle.with_name(bundle.name + ".br")
    inputs_file = bundle.with_suffix(".inputs.json")
    # The key covers the lock file and the entry; other local modules the entry imports are rechecked by hash.
    if (bundle.is_file() and packed.is_file() and inputs_file.is_file()
            and _local_inputs_match(root, json.loads(inputs_file.read_text()))):
        return bundle
    print(f"lessonkit.assets: bundling the editor with esbuild ({entry.name})", file=sys.stderr, flush=True)
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp:
        out_tmp, meta_tmp = Path(tmp) / "editor.js", Path(tmp) / "meta.json"
        _esbuild(root, [str(entry)], [*EDITOR_ARGS, f"--outfile={out_tmp}", f"--metafile={meta_tmp}",
                                      "--log-level=warning"])
        meta = json.loads(meta_tmp.read_text())
        local = {}
        for rel in meta["inputs"]:
            path = (root / rel).resolve()
            if "node_modules" not in Path(rel).parts and path.is_file():
                local[os.path.relpath(path, root)] = sha256_path(path)
        # Precompressed once per bundle (~1 s at q11); the server sends it to browsers that accept br.
        atomic_write(packed, brotli.compress(out_tmp.read_bytes(), quality=EDITOR_BROTLI_QUALITY))
        os.replace(out_tmp, bundle)
        atomic_write(inputs_file, json.dumps(local, indent=1, sort_keys=True).encode())
    return bundle


def write_editor(bundle: Path, out_file: Path) -> None:
    """Link a bundle made by editor_bundle, and its .br, to out_file."""
    out_file.parent.mkdir(parents=True, exist_ok=True)
    link(bundle, out_file)
    link(bundle.with_name(bundle.name + ".br"), out_file.with_name(out_file.name + ".br"))


def _local_inputs_match(root: Path, inputs: dict[str, str]) -> bool:
    """Whether every recorded project-local bundle input still has its recorded hash."""
    return all((root / rel).is_file() and sha256_path(root / rel) == digest for rel, digest in inputs.items())
