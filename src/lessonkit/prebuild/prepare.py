"""The runtime the page boots, prepared once per Pyodide version and recipe into the toolkit repository's
.cache/runtime (maintainers only: it needs Node and the npm packages): Pyodide's files with their brotli copies, the
standard library compiled to .pyc inside Pyodide under Node (trimmed to what labs use, and whole). lessonkit.prebuild
copies the brotli files, runtime.json and the release's lock into the prebuilt files (lessonkit.runtime.prepared reads
them there)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import brotli

from lessonkit.core.errors import RuntimeSetupError
from lessonkit.core.files import atomic_write, sha256_path
from lessonkit.prebuild.vendor import check_vendor, load_manifest
from lessonkit.runtime.download import progress
from lessonkit.runtime.prepared import FULL_STDLIB, STDLIB, runtime_files
from lessonkit.runtime.releases import Release, get_release

RUNTIME_CACHE = Path(".cache") / "runtime"
PYC_SCRIPT = Path(__file__).with_name("pyc_stdlib.mjs")

# Bump when prepare_runtime's output changes for the same inputs, so old caches are not reused.
RUNTIME_RECIPE = "2"
BROTLI_QUALITY = 11  # everywhere: prepared once per Pyodide version, served many times


def _runtime_key(root: Path, release: Release) -> str:
    """Return a short hash of everything prepare_runtime's output depends on."""
    pins = {entry["path"]: entry["sha256"] for entry in load_manifest(root)}
    digest = hashlib.sha256(f"recipe {RUNTIME_RECIPE}\nbrotli {BROTLI_QUALITY}\n".encode())
    for name in release.files:
        rel = f"{release.folder}/{name}"
        digest.update(f"{rel} {pins.get(rel, 'unpinned')}\n".encode())
    digest.update(PYC_SCRIPT.read_bytes())
    return digest.hexdigest()[:12]

def runtime_dir(root: Path, release: Release | None = None) -> Path:
    """Return the cache folder prepare_runtime uses for the current inputs (of the default release for None)."""
    release = release or get_release()
    return root / RUNTIME_CACHE / f"pyodide-{release.version}-{_runtime_key(root, release)}"

BROTLI_CACHE = RUNTIME_CACHE / "br"  # brotli copies by the sha256 of what they compress: a new recipe reuses them


def _brotli_file(path: Path, quality: int, cache: Path) -> tuple[int, float]:
    """Write path.br at the given quality (from the cache when these bytes were compressed before); return its size
    and the seconds it took."""
    start = time.perf_counter()
    data = path.read_bytes()
    kept = cache / f"{hashlib.sha256(data).hexdigest()}-q{quality}.br"
    if kept.is_file():
        packed = kept.read_bytes()
    else:
        packed = brotli.compress(data, quality=quality)
        cache.mkdir(parents=True, exist_ok=True)
        atomic_write(kept, packed)
    path.with_name(path.name + ".br").write_bytes(packed)
    return len(packed), time.perf_counter() - start

def _build_pyc_stdlib(pyodide_dir: Path, out_dir: Path) -> dict[str, Any]:
    """Compile the stdlib to .pyc inside Pyodide under Node; return the script's summary."""
    node = shutil.which("node")
    if node is None:
        raise RuntimeSetupError("node is not on PATH: it is needed once per Pyodide version to build the pyc stdlib")
    result = subprocess.run(
        [node, str(PYC_SCRIPT), str(pyodide_dir), str(out_dir)], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise RuntimeSetupError(f"building the pyc stdlib under Node failed:\n{result.stderr.strip()}")
    summary: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return summary

def _prepare_into(root: Path, tmp: Path, release: Release) -> None:
    """Build every runtime file of a release into the empty folder tmp."""
    pyodide_dir = root / release.folder
    problems = [p for p in check_vendor(root) if p.startswith(release.folder + "/")]
    if problems:
        raise RuntimeSetupError("the vendored Pyodide does not match the manifest:\n" + "\n".join(problems))
    start = time.perf_counter()
    seconds: dict[str, float] = {}
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        jobs: dict[str, Future[tuple[int, float]]] = {}
        files = runtime_files(release)
        for name in files[:3]:
            shutil.copyfile(pyodide_dir / name, tmp / name)
        # The wasm is the slowest to compress: start it first so the Node compile step overlaps it.
        for name in ("pyodide.asm.wasm", release.asm, "pyodide.mjs"):
            jobs[name] = pool.submit(_brotli_file, tmp / name, BROTLI_QUALITY, root / BROTLI_CACHE)
        node_start = time.perf_counter()
        summary = _build_pyc_stdlib(pyodide_dir, tmp)
        seconds["pyc_stdlib"] = round(time.perf_counter() - node_start, 2)
        for name in (STDLIB, FULL_STDLIB):
            jobs[name] = pool.submit(_brotli_file, tmp / name, BROTLI_QUALITY, root / BROTLI_CACHE)
        br_sizes = {}
        for name, job in jobs.items():
            br_sizes[name], took = job.result()
            seconds[f"brotli {name}"] = round(took, 2)
    lock = json.loads((pyodide_dir / "pyodide-lock.json").read_text())
    files = {
        name: {
            "size": (tmp / name).stat().st_size,
            "sha256": sha256_path(tmp / name),
            "br_size": br_sizes[name],
            "br_quality": BROTLI_QUALITY,
        }
        for name in files
    }
    seconds["total"] = round(time.perf_counter() - start, 2)
    meta = {
        "pyodide": release.version,
        "asm": release.asm,
        "recipe": RUNTIME_RECIPE,
        "lock_info": lock["info"],
        "files": files,
        "stdlib": {"compiled_modules": summary["compiled"], "python": summary["python"]},
        "trim": {
            "file": STDLIB, "modules": summary["trim_modules"], "list": "python_stdlib.txt",
            "note": f"boot set + common modules; the rest is {FULL_STDLIB}, fetched on a learner's first import",
        },
        "seconds": seconds,
    }
    (tmp / "runtime.json").write_text(json.dumps(meta, indent=2) + "\n")

def prepare_runtime(root: Path, release: Release | None = None) -> Path:
    """Build (once per Pyodide version and recipe) the cached runtime folder of a release and return it."""
    release = release or get_release()
    final = runtime_dir(root, release)
    if (final / "runtime.json").is_file():
        return final
    progress(f"preparing Pyodide {release.version} runtime (pyc stdlib + brotli 11, about a minute, once)")
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".tmp-{final.name}-"))
    try:
        tmp.chmod(0o755)  # mkdtemp makes it private; the files are linked into a site that others serve
        _prepare_into(root, tmp, release)
        try:
            os.rename(tmp, final)
        except OSError:
            # Another build finished the same folder first; its content is identical.
            if not (final / "runtime.json").is_file():
                raise
            shutil.rmtree(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final
