"""The page's bundles, stylesheet and editor, made with the toolkit repository's pinned esbuild for the prebuilt files
(lessonkit.assets reads them): each cached by content in the repository's .cache, so making the prebuilt files again
after an edit rebuilds only what the edit changed."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import brotli

from lessonkit.assets.editor import EDITOR_ENTRY, EDITOR_NAME
from lessonkit.assets.scripts import (
    BLOCKS,
    BUNDLE_FORMAT,
    GENERATED,
    SCRIPT_ARGS,
    WORKER_ARGS,
    WORKER_ENTRIES,
    module_tree,
    script_entries,
    toolkit_types,
    write_module_tree,
)
from lessonkit.assets.styles import STYLE_NAME, toolkit_text
from lessonkit.core.errors import RuntimeSetupError
from lessonkit.core.files import atomic_write, link, sha256_path
from lessonkit.core.places import PACKAGE, STATIC
from lessonkit.prebuild.esbuild import CACHE, cache_key, run_esbuild
from lessonkit.prebuild.mathfont import font_faces_css

if TYPE_CHECKING:
    from lessonkit.blocks import BlockType

EDITOR_CACHE = Path(".cache") / "editor"
EDITOR_ARGS = ("--bundle", "--format=esm", "--minify", "--target=es2020")
EDITOR_BROTLI_QUALITY = 11


def make_scripts(root: Path, block_types: Mapping[str, BlockType], out: Path) -> dict[str, Any]:
    """Bundle the page's modules (the toolkit's block types') into `out` (esbuild runs only when a module of the
    tree, the arguments or esbuild changed); return the bundle's manifest (files, preload, chunks)."""
    kinds = toolkit_types(block_types)
    files = module_tree(STATIC / "js", kinds)
    entries = script_entries(kinds)
    key = cache_key(root, (*SCRIPT_ARGS, *WORKER_ARGS, *(f"{name}={src}" for name, src in entries), BUNDLE_FORMAT), files)
    folder = root / CACHE / f"js-{key}"
    if not (folder / "bundle.json").is_file():
        _build_scripts(root, files, folder, entries)
    data: dict[str, Any] = json.loads((folder / "bundle.json").read_text(encoding="utf-8"))
    out.mkdir(parents=True, exist_ok=True)
    for name in data["files"]:
        shutil.copyfile(folder / name, out / name)
    return data


def _build_scripts(root: Path, files: list[tuple[str, bytes]], folder: Path, entries: tuple[tuple[str, str], ...]) -> None:
    """Run esbuild on the module tree, written into a temporary folder, then move the finished bundle into the cache
    in one rename."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
        src, out = Path(tmp) / "src", Path(tmp) / "out"
        write_module_tree(files, src)
        outputs: dict[str, dict] = {}
        for group, names, args in (("page", entries, SCRIPT_ARGS), ("worker", WORKER_ENTRIES, WORKER_ARGS)):
            meta_file = Path(tmp) / f"meta-{group}.json"
            run_esbuild(root, [f"{name}={src / rel}" for name, rel in names],
                     [*args, f"--outdir={out}", f"--metafile={meta_file}"])
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
            wrong = wrong_way_imports(meta["inputs"], src, root)
            if wrong:
                raise RuntimeSetupError("the page's modules import the wrong way:\n" + "\n".join(f"  {w}" for w in wrong))
            outputs.update({Path(path).name: info for path, info in meta["outputs"].items()})
        main = outputs["main.js"]
        preload = [Path(i["path"]).name for i in main.get("imports", []) if i.get("kind") == "import-statement"]
        # The lazy entries' shared chunk (the lab's and the exercise's: the page's one Python client) is preloaded
        # with them, with its integrity: a static import carries none of its own.
        chunks = {f"{name}.js": [Path(i["path"]).name for i in outputs[f"{name}.js"].get("imports", [])
                                 if i.get("kind") == "import-statement"] for name, _ in entries}
        manifest = {"files": sorted(outputs), "preload": preload, "chunks": chunks}
        (out / "bundle.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(out, folder)




def wrong_way_imports(inputs: Mapping[str, Any], tree: Path, cwd: Path) -> list[str]:
    """The imports of an esbuild metafile's `inputs` (paths relative to `cwd`, the module tree written at `tree`) that
    go from general to specific: a page module (static/js, the generated registry aside) into a block type's folder,
    or one block type's folder into another's. A block type's folder uses the page's modules, never the other way."""

    def place(path: str) -> tuple[str, ...] | None:
        try:
            return (cwd / path).resolve().relative_to(tree.resolve()).parts
        except ValueError:
            return None  # a library in node_modules, or esbuild's own

    wrong = []
    for path, info in sorted(inputs.items()):
        here = place(path)
        if here is None or here[:3] == tuple(GENERATED.split("/")):
            continue
        for imported in info.get("imports", []):
            there = place(imported["path"])
            if there is None or there[0] != BLOCKS:
                continue
            if here[0] != BLOCKS:
                wrong.append(f"{'/'.join(here)} imports {'/'.join(there)}: a page module may not reach into a block "
                             "type's folder — move what both need into the page's modules")
            elif there[1] != here[1]:
                wrong.append(f"{'/'.join(here)} imports {'/'.join(there)}: one block type may not reach into "
                             "another's folder — move what both need into the page's modules")
    return wrong


def make_style(root: Path, block_types: Mapping[str, BlockType], out: Path) -> None:
    """The toolkit's stylesheet, minified, into `out`/site.css: the math font's @font-face rules, then its parts
    (esbuild runs only when a part changed)."""
    text = font_faces_css(root) + toolkit_text(block_types)
    cached = root / CACHE / f"css-{cache_key(root, ('css',), [('site.css', text.encode())])}.css"
    if not cached.is_file():
        minified = run_esbuild(root, ["--loader=css", "--minify", "--log-level=warning"], [], stdin=text)
        atomic_write(cached, minified.encode())
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(cached, out / STYLE_NAME)


def make_editor(root: Path, out: Path) -> list[str]:
    """The CodeMirror bundle and its brotli into `out`; return the package's modules it was made from (paths in the
    package), which the build checks it against."""
    entry = STATIC / "js" / EDITOR_ENTRY
    key_src = hashlib.sha256("\0".join(EDITOR_ARGS).encode())
    key_src.update((root / "package-lock.json").read_bytes())
    key_src.update(entry.read_bytes())
    cache = root / EDITOR_CACHE
    bundle = cache / f"{key_src.hexdigest()[:16]}.js"
    packed = bundle.with_name(bundle.name + ".br")
    inputs_file = bundle.with_suffix(".inputs.json")
    # The key covers the lock file and the entry; other local modules the entry imports are rechecked by hash.
    if not (bundle.is_file() and packed.is_file() and inputs_file.is_file()
            and _local_inputs_match(json.loads(inputs_file.read_text()))):
        print(f"lessonkit.prebuild: bundling the editor with esbuild ({entry.name})", file=sys.stderr, flush=True)
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache) as tmp:
            out_tmp, meta_tmp = Path(tmp) / "editor.js", Path(tmp) / "meta.json"
            run_esbuild(root, [str(entry)], [*EDITOR_ARGS, f"--outfile={out_tmp}", f"--metafile={meta_tmp}",
                                             "--log-level=warning"])
            meta = json.loads(meta_tmp.read_text())
            local = {}
            for rel in meta["inputs"]:
                path = (root / rel).resolve()
                if "node_modules" not in Path(rel).parts and path.is_file():
                    local[path.relative_to(PACKAGE).as_posix()] = sha256_path(path)
            atomic_write(packed, brotli.compress(out_tmp.read_bytes(), quality=EDITOR_BROTLI_QUALITY))
            os.replace(out_tmp, bundle)
            atomic_write(inputs_file, json.dumps(local, indent=1, sort_keys=True).encode())
    out.mkdir(parents=True, exist_ok=True)
    link(bundle, out / EDITOR_NAME)
    link(packed, out / f"{EDITOR_NAME}.br")
    return sorted(json.loads(inputs_file.read_text()))


def _local_inputs_match(inputs: dict[str, str]) -> bool:
    """Whether every recorded package-local bundle input still has its recorded hash."""
    return all((PACKAGE / rel).is_file() and sha256_path(PACKAGE / rel) == digest for rel, digest in inputs.items())
