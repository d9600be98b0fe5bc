"""The CodeMirror editor: one esbuild bundle (and its brotli) the lab imports when its code comes near the viewport,
rebuilt only when its entry, a local module it imports, the lock file or the arguments change."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

import brotli

from lessonkit.assets.esbuild import run_esbuild
from lessonkit.build.files import atomic_write, link, sha256_path
from lessonkit.runtime import RuntimeSetupError

EDITOR_ENTRY = "lab/editor-entry.js"

EDITOR_CACHE = Path(".cache") / "editor"

EDITOR_ARGS = ("--bundle", "--format=esm", "--minify", "--target=es2020")

EDITOR_BROTLI_QUALITY = 11


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
    print(f"lessonkit.assets.editor: bundling the editor with esbuild ({entry.name})", file=sys.stderr, flush=True)
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
