"""Page assets: the ES modules and the editor bundled and minified by esbuild, one minified stylesheet; cached by content."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import brotli

from lessonkit.files import atomic_write, link, sha256_path
from lessonkit.runtime import RuntimeSetupError

# The modules the page loads by URL. Everything they import statically is bundled into them; code two of them share
# would go into one chunk (one copy of its state for the page), so the page keeps --splitting.
SCRIPT_ENTRIES = ("main.js", "lab.js", "lab-instructor.js")
# The lab's worker is bundled on its own, without splitting: it is a separate JavaScript realm, so a chunk shared
# with the page (lab-protocol.js) would be one more request on both sides and never one copy.
WORKER_ENTRIES = ("lab-worker.js",)
SCRIPT_ARGS = ("--bundle", "--splitting", "--format=esm", "--minify", "--target=es2020",
               "--entry-names=[name]", "--chunk-names=chunk-[hash]", "--log-level=warning")
WORKER_ARGS = tuple(arg for arg in SCRIPT_ARGS if arg != "--splitting")
# Modules the lab imports later by file name (lab.js's importVerified): the page's data carries their integrity.
LAZY_MODULES = ("lab-instructor.js", "editor.js")
SCREEN_CSS = ("lesson.css", "lab.css", "instructor.css")
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


def bundle_scripts(root: Path, js: Path) -> ScriptBundle:
    """Bundle the entry modules in `js` (esbuild runs only when a module, the arguments or esbuild changed)."""
    sources = sorted(p for p in js.glob("*.js") if p.is_file())
    key = _key(root, SCRIPT_ARGS + WORKER_ARGS, [(p.name, p.read_bytes()) for p in sources])
    folder = root / CACHE / f"js-{key}"
    manifest = folder / "bundle.json"
    if not manifest.is_file():
        _build_scripts(root, js, folder)
    data = json.loads(manifest.read_text(encoding="utf-8"))
    return ScriptBundle(folder, tuple(data["files"]), tuple(data["preload"]), tuple(data["replaced"]))


def _build_scripts(root: Path, js: Path, folder: Path) -> None:
    """Run esbuild into a temporary folder, then move the finished bundle into the cache in one rename."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
        out = Path(tmp) / "out"
        outputs: dict[str, dict] = {}
        inputs: set[Path] = set()
        for group, entries, args in (("page", SCRIPT_ENTRIES, SCRIPT_ARGS), ("worker", WORKER_ENTRIES, WORKER_ARGS)):
            meta_file = Path(tmp) / f"meta-{group}.json"
            _esbuild(root, [str(js / name) for name in entries], [*args, f"--outdir={out}", f"--metafile={meta_file}"])
            meta = json.loads(meta_file.read_text(encoding="utf-8"))
            outputs.update({Path(path).name: info for path, info in meta["outputs"].items()})
            inputs.update((root / rel).resolve() for rel in meta["inputs"])
        main = outputs["main.js"]
        preload = [Path(i["path"]).name for i in main.get("imports", []) if i.get("kind") == "import-statement"]
        entries = SCRIPT_ENTRIES + WORKER_ENTRIES
        replaced = sorted(p.name for p in inputs if p.parent == js.resolve() and p.name not in entries)
        manifest = {"files": sorted(outputs), "preload": preload, "replaced": replaced}
        (out / "bundle.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(out, folder)


def write_scripts(bundle: ScriptBundle, js: Path) -> None:
    """Put the bundle into the site's js/ folder in place of the modules it contains."""
    for name in bundle.replaced:
        (js / name).unlink(missing_ok=True)
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
