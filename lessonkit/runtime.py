"""Vendored Pyodide runtime: manifest checks, the cached pyc runtime, wheels and the editor bundle."""

from __future__ import annotations

import base64
import csv
import functools
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import brotli

from lessonkit.files import atomic_write, link, sha256_path
from lessonkit.lms import vendor as lms_vendor

PYODIDE_VERSION = "314.0.7"
# micropip 0.11.1 is the version Pyodide 314.0.7 ships (pyodide-lock.json); it vendors packaging, so it needs no
# other wheel. micropip 0.7.2 fails to import in Pyodide 314 (pyodide.ffi.IN_BROWSER is gone). It requires
# Python >= 3.13, which is why pip must be told --python-version (the build's own CPython only sees 0.7.2).
MICROPIP_VERSION = "0.11.1"
LABKIT_VERSION = "0.1.0"

MANIFEST_NAME = "vendor-manifest.json"
WHEEL_CACHE = Path(".cache") / "wheels"
RUNTIME_CACHE = Path(".cache") / "runtime"
HASH_CACHE = Path(".cache") / "vendor-hashes.json"
PYC_SCRIPT = Path(__file__).with_name("pyc_stdlib.mjs")
PROJECT_ROOT = Path(__file__).resolve().parent.parent

# Bump when prepare_runtime's output changes for the same inputs, so old caches are not reused.
RUNTIME_RECIPE = "2"
# Files served from site/runtime/pyodide-<version>/, each with a brotli sibling. python_stdlib.zip is the trimmed
# pyc stdlib the page boots with; full/python_stdlib.zip (every module) is fetched only when a learner imports a
# module the trimmed one left out (labkit's import fallback), and sits in a subfolder so it is not precached.
STDLIB = "python_stdlib.zip"
FULL_STDLIB = "full/python_stdlib.zip"
RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", STDLIB, FULL_STDLIB)
# Quality 11 everywhere: the wasm takes ~39 s at q11 on the 2-vCPU reference VM (under the 40 s limit), once.
BROTLI_QUALITY = {name: 11 for name in RUNTIME_FILES}
PURE_TAGS = ("py3-none-any", "py2.py3-none-any")

_NPM = "npm"
_PYPI = "pypi"
_PYODIDE_DIR = "node_modules/pyodide"


def _wheel_name(name: str, version: str) -> str:
    """Return the file name of a pure-Python wheel."""
    return f"{name}-{version}-py3-none-any.whl"


# (package, version, path relative to the project root, source) of every vendored runtime file.
VENDOR_FILES: tuple[tuple[str, str, str, str], ...] = (
    *(
        ("pyodide", PYODIDE_VERSION, f"{_PYODIDE_DIR}/{name}", _NPM)
        for name in ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
    ),
    ("axe-core", "4.14.1", "node_modules/axe-core/axe.min.js", _NPM),
    # The SCORM tests' runtime and XML schemas (lessonkit.lms.vendor).
    *((package, version, path, _NPM) for package, version, path in lms_vendor.FILES),
    # Pagefind's indexer (lessonkit.search); the JavaScript and wasm it writes into the site are inside it.
    ("@pagefind/linux-x64", "1.6.0", "node_modules/@pagefind/linux-x64/bin/pagefind_extended", _NPM),
    ("micropip", MICROPIP_VERSION, f"{WHEEL_CACHE.as_posix()}/{_wheel_name('micropip', MICROPIP_VERSION)}", _PYPI),
)


class RuntimeSetupError(RuntimeError):
    """A vendored file, wheel or build tool is missing or wrong; the message says how to fix it."""


def _progress(message: str) -> None:
    """Print one progress line to stderr."""
    print(f"lessonkit.runtime: {message}", file=sys.stderr, flush=True)


class _HashCache:
    """sha256 of files keyed by (size, mtime, ctime, inode), like git's index, so warm checks do not reread 14 MB."""

    def __init__(self, root: Path) -> None:
        """Load the cache of the project at root."""
        self.path = root / HASH_CACHE
        self.dirty = False
        try:
            self.entries: dict[str, list[Any]] = json.loads(self.path.read_text())
        except (OSError, ValueError):
            self.entries = {}

    def sha256(self, path: Path) -> str:
        """Return the sha256 of path, from the cache when the file is unchanged."""
        st = path.stat()
        stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
        key = str(path.resolve())
        cached = self.entries.get(key)
        if cached is not None and cached[:4] == stamp:
            return str(cached[4])
        digest = sha256_path(path)
        self.entries[key] = [*stamp, digest]
        self.dirty = True
        return digest

    def save(self) -> None:
        """Write the cache back when it changed."""
        if self.dirty:
            atomic_write(self.path, json.dumps(self.entries, indent=0, sort_keys=True).encode())
            self.dirty = False


def _pip_download(requirement: str, dest: Path) -> None:
    """Download one pure-Python wheel with pip (no dependencies, wheels only)."""
    dest.mkdir(parents=True, exist_ok=True)
    # --python-version targets Pyodide's CPython, so a wheel requiring Python 3.14 is still found under 3.11.
    cmd = [
        sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
        "--only-binary=:all:", "--python-version", "3.14", "--dest", str(dest), requirement,
    ]
    _progress(f"downloading {requirement} with pip")
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        raise RuntimeSetupError(
            f"pip could not download {requirement} (no wheel on PyPI, or no network): "
            + (detail[-1] if detail else f"exit {result.returncode}")
        )


def _load_manifest(root: Path) -> list[dict[str, Any]]:
    """Return the entries of vendor-manifest.json."""
    path = root / MANIFEST_NAME
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise RuntimeSetupError(
            f"{MANIFEST_NAME} is missing — run \"python -m lessonkit.runtime update-manifest\" to create it"
        ) from None
    entries: list[dict[str, Any]] = data["files"]
    return entries


def _restore_hint(source: str) -> str:
    """Return how to restore a file of the given source."""
    if source == _NPM:
        return 'run "npm ci" to restore the pinned files'
    return "delete it and build again to re-download it from PyPI (or pin the new hash with update-manifest)"


def check_vendor(root: Path) -> list[str]:
    """Verify every vendored runtime file against vendor-manifest.json; return problems as messages."""
    try:
        entries = _load_manifest(root)
    except RuntimeSetupError as exc:
        return [str(exc)]
    problems: list[str] = []
    hashes = _HashCache(root)
    pinned = {entry["path"]: entry for entry in entries}
    for package, version, rel, _source in VENDOR_FILES:
        entry = pinned.get(rel)
        if entry is None:
            problems.append(
                f"{rel}: not in {MANIFEST_NAME} (lessonkit.runtime expects {package} {version}) — "
                'run "python -m lessonkit.runtime update-manifest"'
            )
        elif entry["version"] != version:
            problems.append(
                f"{rel}: {MANIFEST_NAME} pins {package} {entry['version']}, lessonkit.runtime expects {version} — "
                'run "python -m lessonkit.runtime update-manifest"'
            )
    for entry in entries:
        rel, source = entry["path"], entry.get("source", _NPM)
        path = root / rel
        if not path.is_file() and source == _PYPI:
            try:
                _pip_download(f"{entry['package']}=={entry['version']}", path.parent)
            except RuntimeSetupError as exc:
                problems.append(f"{rel}: missing, and {exc}")
                continue
        if not path.is_file():
            problems.append(f"{rel}: missing — {_restore_hint(source)}")
            continue
        size = path.stat().st_size
        if size != entry["size"]:
            problems.append(
                f"{rel}: size is {size} bytes, {MANIFEST_NAME} pins {entry['size']} — {_restore_hint(source)}"
            )
            continue
        digest = hashes.sha256(path)
        if digest != entry["sha256"]:
            problems.append(
                f"{rel}: sha256 is {digest}, {MANIFEST_NAME} pins {entry['sha256']} — {_restore_hint(source)}"
            )
    hashes.save()
    return problems


def update_manifest(root: Path) -> dict[str, Any]:
    """Regenerate vendor-manifest.json from the files on disk (maintainers only)."""
    files = []
    for package, version, rel, source in VENDOR_FILES:
        path = root / rel
        if source == _NPM:
            installed = json.loads((root / "node_modules" / package / "package.json").read_text())["version"]
            if installed != version:
                raise RuntimeSetupError(
                    f"node_modules/{package} is {installed}, lessonkit.runtime expects {version} — "
                    "change the pin in package.json and lessonkit/runtime.py together"
                )
        elif not path.is_file():
            _pip_download(f"{package}=={version}", path.parent)
        files.append({
            "package": package, "version": version, "source": source, "path": rel,
            "sha256": sha256_path(path), "size": path.stat().st_size,
        })
    manifest = {"comment": "Pinned runtime files; check: lessonkit.runtime.check_vendor", "files": files}
    atomic_write(root / MANIFEST_NAME, (json.dumps(manifest, indent=2) + "\n").encode())
    return manifest


def _runtime_key(root: Path) -> str:
    """Return a short hash of everything prepare_runtime's output depends on."""
    pins = {entry["path"]: entry["sha256"] for entry in _load_manifest(root)}
    digest = hashlib.sha256(f"recipe {RUNTIME_RECIPE}\n{sorted(BROTLI_QUALITY.items())}\n".encode())
    for _package, _version, rel, _source in VENDOR_FILES[:5]:
        digest.update(f"{rel} {pins.get(rel, 'unpinned')}\n".encode())
    digest.update(PYC_SCRIPT.read_bytes())
    return digest.hexdigest()[:12]


def runtime_dir(root: Path) -> Path:
    """Return the cache folder prepare_runtime uses for the current inputs."""
    return root / RUNTIME_CACHE / f"pyodide-{PYODIDE_VERSION}-{_runtime_key(root)}"


def site_dirname(root: Path) -> str:
    """The runtime's folder in the site, named by its content so immutable caching can never serve stale files."""
    return f"pyodide-{PYODIDE_VERSION}-{_runtime_key(root)[:8]}"


def _brotli_file(path: Path, quality: int) -> tuple[int, float]:
    """Write path.br at the given quality; return its size and the seconds it took."""
    start = time.perf_counter()
    packed = brotli.compress(path.read_bytes(), quality=quality)
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


def _prepare_into(root: Path, tmp: Path) -> None:
    """Build every runtime file into the empty folder tmp."""
    pyodide_dir = root / _PYODIDE_DIR
    problems = [p for p in check_vendor(root) if p.startswith(_PYODIDE_DIR)]
    if problems:
        raise RuntimeSetupError("the vendored Pyodide does not match the manifest:\n" + "\n".join(problems))
    start = time.perf_counter()
    seconds: dict[str, float] = {}
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        jobs: dict[str, Future[tuple[int, float]]] = {}
        for name in RUNTIME_FILES[:3]:
            shutil.copyfile(pyodide_dir / name, tmp / name)
        # The wasm is the slowest to compress: start it first so the Node compile step overlaps it.
        for name in ("pyodide.asm.wasm", "pyodide.asm.mjs", "pyodide.mjs"):
            jobs[name] = pool.submit(_brotli_file, tmp / name, BROTLI_QUALITY[name])
        node_start = time.perf_counter()
        summary = _build_pyc_stdlib(pyodide_dir, tmp)
        seconds["pyc_stdlib"] = round(time.perf_counter() - node_start, 2)
        for name in (STDLIB, FULL_STDLIB):
            jobs[name] = pool.submit(_brotli_file, tmp / name, BROTLI_QUALITY[name])
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
            "br_quality": BROTLI_QUALITY[name],
        }
        for name in RUNTIME_FILES
    }
    seconds["total"] = round(time.perf_counter() - start, 2)
    meta = {
        "pyodide": PYODIDE_VERSION,
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


def prepare_runtime(root: Path) -> Path:
    """Build (once per Pyodide version and recipe) the cached runtime folder and return it."""
    final = runtime_dir(root)
    if (final / "runtime.json").is_file():
        return final
    _progress(f"preparing Pyodide {PYODIDE_VERSION} runtime (pyc stdlib + brotli 11, about a minute, once)")
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=final.parent, prefix=f".tmp-{final.name}-"))
    try:
        tmp.chmod(0o755)  # mkdtemp makes it private; the files are linked into a site that others serve
        _prepare_into(root, tmp)
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


def _ensure_wheel(root: Path, name: str, version: str) -> Path:
    """Return the cached wheel of a pinned pure package, downloading it once."""
    path = root / WHEEL_CACHE / _wheel_name(name, version)
    if not path.is_file():
        _pip_download(f"{name}=={version}", path.parent)
    return path


def runtime_fragment(root: Path) -> dict[str, Any]:
    """Return the page-independent part of the `runtime` page config (prepares the runtime on first use)."""
    meta = _runtime_meta(root.resolve())
    base = f"runtime/{site_dirname(root)}/"
    return {
        "indexURL": base,
        # Pyodide's two ES modules, named here (the worker imports both itself) so that a copy of the site may serve
        # them under other names: the SCORM package's are .js (lessonkit.lms.pack), since an LMS such as Moodle
        # serves .mjs with a type no browser runs as a module.
        "pyodideURL": base + "pyodide.mjs",
        "asmURL": base + "pyodide.asm.mjs",
        "stdLibURL": base + STDLIB,
        # The worker defaults to this same URL (full/ next to stdLibURL's folder) when the page does not pass it.
        "stdLibFullURL": base + FULL_STDLIB,
        # Inline lock with no packages: saves a 119 KB request and documents that the lab loads no Pyodide packages.
        "lock": {"info": meta["lock_info"], "packages": {}},
        "micropip": [],
        "requirements": [],
        # Decompressed sizes: with brotli the Content-Length is the compressed one, so progress needs these.
        "sizes": {name: meta["files"][name]["size"] for name in ("pyodide.asm.wasm", STDLIB)},
        "fullStdLibSize": meta["files"][FULL_STDLIB]["size"],
    }


def write_runtime(site: Path, root: Path) -> dict[str, Any]:
    """Link the prepared runtime and the micropip wheel into site/runtime/; return the page config fragment."""
    prepared = prepare_runtime(root)
    dest = site / "runtime" / site_dirname(root)
    dest.mkdir(parents=True, exist_ok=True)
    for name in RUNTIME_FILES:
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        link(prepared / name, dest / name)
        link(prepared / f"{name}.br", dest / f"{name}.br")
    wheels = site / "runtime" / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    wheel = _ensure_wheel(root, "micropip", MICROPIP_VERSION)
    link(wheel, wheels / wheel.name)
    return runtime_fragment(root)


def micropip_urls() -> list[str]:
    """Return the page-relative URLs of the wheels micropip needs (just its own: it vendors packaging)."""
    return [f"runtime/wheels/{_wheel_name('micropip', MICROPIP_VERSION)}"]


def write_wheels(site: Path, wheels: Iterable[Path]) -> list[str]:
    """Link wheels (e.g. from fetch_requirements) into site/runtime/wheels/; return their page-relative URLs."""
    dest = site / "runtime" / "wheels"
    dest.mkdir(parents=True, exist_ok=True)
    urls = []
    for wheel in wheels:
        link(wheel, dest / wheel.name)
        urls.append(f"runtime/wheels/{wheel.name}")
    return urls


def write_requirements(site: Path, root: Path, reqs: Sequence[str]) -> list[str]:
    """Fetch (cached) and link the wheels of pinned lesson requirements into the site; return their URLs."""
    return write_wheels(site, fetch_requirements(list(reqs), root))


@functools.cache
def _runtime_meta(root: Path) -> dict[str, Any]:
    """Return runtime.json of the prepared runtime (prepared on first use), read once per process."""
    meta: dict[str, Any] = json.loads((prepare_runtime(root) / "runtime.json").read_text())
    return meta


def page_runtime_config(
    fragment: dict[str, Any], *, worker: str, labkit: str, requirements: Sequence[str] = (),
    worker_integrity: str | None = None,
) -> dict[str, Any]:
    """Return a page's `runtime` object (what lab.js boots Python with) from the fragment and the page's URLs.

    worker_integrity: the Subresource Integrity value of the worker script's bytes (the page fetches them with it and
    starts the worker from them; without one it starts no worker).
    """
    sizes = dict(fragment["sizes"])
    stdlib = fragment["stdLibURL"]
    if requirements:
        # micropip's install imports much the trimmed stdlib leaves out (email, importlib.metadata, tarfile...):
        # such pages boot with the full one rather than download both. sizes is keyed by file name.
        stdlib = fragment["stdLibFullURL"]
        sizes[STDLIB] = fragment["fullStdLibSize"]
    return {
        "worker": worker,
        "workerIntegrity": worker_integrity,
        "indexURL": fragment["indexURL"],
        "pyodideURL": fragment["pyodideURL"],
        "asmURL": fragment["asmURL"],
        "stdLibURL": stdlib,
        "stdLibFullURL": fragment["stdLibFullURL"],
        "lock": fragment["lock"],
        "labkit": labkit,
        # micropip is only shipped to pages that install extra wheels.
        "micropip": micropip_urls() if requirements else [],
        "requirements": list(requirements),
        "sizes": sizes,
    }


def page_config(
    labkit_wheel: str, requirements: Sequence[str] = (), *, root: Path | None = None, worker: str = "lab-worker.js"
) -> dict[str, Any]:
    """Return a page's `runtime` object from the labkit wheel name and pinned requirements (convenience)."""
    root = root or PROJECT_ROOT
    wheels = [f"runtime/wheels/{w.name}" for w in fetch_requirements(list(requirements), root)]
    return page_runtime_config(
        runtime_fragment(root), worker=worker, labkit=f"runtime/wheels/{labkit_wheel}", requirements=wheels
    )


# ---- labkit wheel -------------------------------------------------------------------------------------------

_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


def _record_hash(data: bytes) -> str:
    """Return a RECORD hash field (PEP 376/427: urlsafe base64 sha256 without padding)."""
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _package_files(package: Path) -> list[tuple[str, bytes]]:
    """Return (archive name, bytes) of a package's files, sorted, without caches or hidden files."""
    files = []
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package.parent)
        if not path.is_file() or path.suffix in {".pyc", ".pyo"}:
            continue
        if any(part.startswith(".") or part == "__pycache__" for part in rel.parts):
            continue
        files.append((rel.as_posix(), path.read_bytes()))
    return files


def _zip_entry(name: str) -> zipfile.ZipInfo:
    """Return a ZipInfo with a fixed timestamp and mode so wheels are byte-for-byte reproducible."""
    info = zipfile.ZipInfo(name, date_time=_ZIP_EPOCH)
    info.external_attr = 0o644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


# Bump when the compiled files in the wheel change for the same sources (the wheel name hashes this too).
LABKIT_PYC_RECIPE = f"pyc-1 pyodide-{PYODIDE_VERSION}"

# Runs inside Pyodide: compile each source to an unchecked hash-based pyc at the path its import looks for
# (__pycache__/<mod>.<cache_tag>.pyc), so the worker imports labkit without compiling it (~50-200 ms in wasm).
_LABKIT_PYC_CODE = r"""
import base64, json, sys, importlib.util, importlib._bootstrap_external as be
out = {}
for name, text in json.loads(SOURCES).items():
    data = text.encode()
    code = compile(data, name, "exec", dont_inherit=True)
    folder, _, file = name.rpartition("/")
    pyc = f"{folder}/__pycache__/{file[:-3]}.{sys.implementation.cache_tag}.pyc"
    out[pyc] = base64.b64encode(be._code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False)).decode()
print(json.dumps(out, sort_keys=True))
"""


def _labkit_files(lab_dir: Path, pyc: bool = True) -> tuple[str, list[tuple[str, bytes]]]:
    """Return the labkit wheel version (content hash in the local part) and the package's files."""
    package = lab_dir if (lab_dir / "__init__.py").is_file() and lab_dir.name == "labkit" else lab_dir / "labkit"
    if not (package / "__init__.py").is_file():
        raise RuntimeSetupError(f"{package}/__init__.py not found: cannot build the labkit wheel")
    files = _package_files(package)
    content = hashlib.sha256()
    for name, data in files:
        content.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    if pyc:
        content.update(LABKIT_PYC_RECIPE.encode())
    return f"{LABKIT_VERSION}+g{content.hexdigest()[:8]}", files


def _labkit_pyc(files: Sequence[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
    """Compile the wheel's sources with Pyodide's own CPython under Node; return the __pycache__ entries."""
    sources = {name: data.decode() for name, data in files if name.endswith(".py")}
    code = f"SOURCES = {json.dumps(json.dumps(sources))}\n{_LABKIT_PYC_CODE}"
    prepared = prepare_runtime(PROJECT_ROOT)
    _progress("compiling labkit for Pyodide (once per labkit change)")
    report = node_boot_check(prepared, prepared / STDLIB, code)
    compiled: dict[str, str] = json.loads(report["stdout"].strip().splitlines()[-1])
    return [(name, base64.b64decode(data)) for name, data in sorted(compiled.items())]


def labkit_wheel_name(lab_dir: Path, *, pyc: bool = True) -> str:
    """Return the file name build_labkit_wheel will give the wheel of lab_dir/labkit, without building it."""
    return f"labkit-{_labkit_files(lab_dir, pyc)[0]}-py3-none-any.whl"


def build_labkit_wheel(lab_dir: Path, out_dir: Path, *, pyc: bool = True) -> str:
    """Build the deterministic labkit wheel from lab_dir/labkit (or lab_dir itself) into out_dir; return its name."""
    # With pyc (the default) the wheel also carries bytecode compiled by Pyodide's CPython, so the browser imports
    # labkit without compiling it; that needs Node once per labkit change (the wheel name carries the content hash).
    version, files = _labkit_files(lab_dir, pyc)
    filename = f"labkit-{version}-py3-none-any.whl"
    target = out_dir / filename
    if target.is_file():
        return filename  # the name carries the content hash, so an existing file is this exact wheel
    if pyc:
        files += _labkit_pyc(files)
    dist_info = f"labkit-{version}.dist-info"
    metadata = (
        "Metadata-Version: 2.1\nName: labkit\n"
        f"Version: {version}\nSummary: Runs lesson lab code and parses its chart data\nRequires-Python: >=3.11\n"
    )
    wheel_meta = "Wheel-Version: 1.0\nGenerator: lessonkit.runtime\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files += [(f"{dist_info}/METADATA", metadata.encode()), (f"{dist_info}/WHEEL", wheel_meta.encode())]
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for name, data in files:
        writer.writerow([name, _record_hash(data), len(data)])
    writer.writerow([f"{dist_info}/RECORD", "", ""])
    files.append((f"{dist_info}/RECORD", record.getvalue().encode()))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files:
            zf.writestr(_zip_entry(name), data)
    atomic_write(target, buffer.getvalue())
    return filename


# ---- lesson requirements ------------------------------------------------------------------------------------

_PIN = re.compile(r"^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*==\s*([A-Za-z0-9][A-Za-z0-9.+!_-]*)\s*$")


def _normalize(name: str) -> str:
    """Return a project name normalized as in wheel file names (PEP 503 + underscores)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def _wheel_parts(filename: str) -> tuple[str, str, str]:
    """Return (normalized name, version, tag) of a wheel file name."""
    parts = filename[: -len(".whl")].split("-")
    if len(parts) not in (5, 6):
        raise RuntimeSetupError(f"{filename}: not a valid wheel file name")
    return _normalize(parts[0]), parts[1], "-".join(parts[-3:])


def check_pure_wheel(filename: str, requirement: str = "") -> None:
    """Raise RuntimeSetupError unless the wheel file name has a pure-Python tag."""
    tag = _wheel_parts(filename)[2]
    if tag not in PURE_TAGS:
        what = f"{requirement}: " if requirement else ""
        raise RuntimeSetupError(
            f"{what}{filename} is not a pure-Python wheel (tag {tag}); a lesson can only require packages with a "
            f"{' or '.join(PURE_TAGS)} wheel, because the browser lab installs wheels without Pyodide's package index"
        )


def _find_cached_wheel(cache: Path, name: str, version: str) -> Path | None:
    """Return the cached wheel of name==version, if any."""
    wanted = _normalize(name)
    if not cache.is_dir():
        return None
    for path in sorted(cache.glob("*.whl")):
        try:
            wheel_name, wheel_version, _tag = _wheel_parts(path.name)
        except RuntimeSetupError:
            continue
        if wheel_name == wanted and wheel_version == version:
            return path
    return None


def fetch_requirements(reqs: list[str], root: Path) -> list[Path]:
    """Return the wheels of a lesson's pinned pure-Python requirements, downloading each once into .cache/wheels."""
    cache = root / WHEEL_CACHE
    wheels = []
    for req in reqs:
        match = _PIN.match(req)
        if match is None:
            raise RuntimeSetupError(f"requirement {req!r} must be pinned exactly, like tabulate==0.9.0")
        name, version = match.groups()
        wheel = _find_cached_wheel(cache, name, version)
        if wheel is None:
            with tempfile.TemporaryDirectory(dir=cache.parent if cache.parent.is_dir() else None) as tmp:
                _pip_download(f"{name}=={version}", Path(tmp))
                found = sorted(Path(tmp).glob("*.whl"))
                if not found:
                    raise RuntimeSetupError(f"{req}: pip downloaded no wheel")
                check_pure_wheel(found[0].name, req)  # reject before it enters the cache
                cache.mkdir(parents=True, exist_ok=True)
                wheel = cache / found[0].name
                os.replace(found[0], wheel)
        check_pure_wheel(wheel.name, req)
        wheels.append(wheel)
    return wheels


# ---- Node checks and CLI ------------------------------------------------------------------------------------

_BOOT_JS = r"""
import { readFileSync } from "node:fs";
import { resolve, join } from "node:path";
import { pathToFileURL } from "node:url";
const [dir, stdlib, lock, code, ...wheels] = process.argv.slice(1);
const indexURL = resolve(dir) + "/";
const t0 = performance.now();
const { loadPyodide } = await import(pathToFileURL(join(indexURL, "pyodide.mjs")).href);
const out = [];
const opts = { indexURL, stdout: (s) => out.push(s) };
if (stdlib) opts.stdLibURL = resolve(stdlib);
if (lock) opts.lockFileContents = JSON.parse(lock);
const py = await loadPyodide(opts);
const t1 = performance.now();
try {
  // unpackArchive wants a plain Uint8Array, not a Node Buffer.
  for (const wheel of wheels) py.unpackArchive(new Uint8Array(readFileSync(wheel)), "wheel");
  py.runPython(code);
} catch (err) {
  // Print only the message: Node's own report of an uncaught error starts with the 1 MB minified source line.
  process.stderr.write(String(err && err.message ? err.message : err) + "\n", () => process.exit(1));
  await new Promise(() => {});
}
const t2 = performance.now();
console.log(JSON.stringify({ boot_ms: t1 - t0, run_ms: t2 - t1, stdout: out.join("\n") }));
"""


def node_boot_check(
    index_dir: Path,
    stdlib: Path | None = None,
    code: str = "import json, math, random, traceback; print(1+1)",
    wheels: Sequence[Path] = (),
) -> dict[str, Any]:
    """Boot Pyodide under Node (optionally another stdlib zip, wheels unpacked), run code; return timings, stdout."""
    lock = ""
    if (index_dir / "runtime.json").is_file():
        # A prepared folder has no pyodide-lock.json: boot it like the page does, with the inline lock.
        info = json.loads((index_dir / "runtime.json").read_text())["lock_info"]
        lock = json.dumps({"info": info, "packages": {}})
    args = [str(index_dir), str(stdlib or ""), lock, code, *map(str, wheels)]
    result = subprocess.run(
        ["node", "--input-type=module", "-e", _BOOT_JS, *args],
        capture_output=True, text=True, check=False,
    )
    if result.returncode != 0:
        raise RuntimeSetupError(f"Pyodide did not boot under Node:\n{result.stderr.strip()[-2000:]}")
    report: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """Run the maintainer CLI: update-manifest, check, prepare or boot-check."""
    args = list(sys.argv[1:] if argv is None else argv)
    root = Path.cwd()
    command = args[0] if args else ""
    if command == "update-manifest":
        manifest = update_manifest(root)
        print(f"wrote {MANIFEST_NAME} ({len(manifest['files'])} files)")
        return 0
    if command == "check":
        problems = check_vendor(root)
        for problem in problems:
            print(problem, file=sys.stderr)
        print("vendored runtime files match the manifest" if not problems else f"{len(problems)} problem(s)")
        return 1 if problems else 0
    if command == "prepare":
        print(prepare_runtime(root))
        return 0
    if command == "boot-check":
        prepared = prepare_runtime(root)
        for label, index, stdlib in (
            ("stock", root / _PYODIDE_DIR, None),
            ("pyc-full", prepared, prepared / FULL_STDLIB),
            ("pyc-trim", prepared, prepared / STDLIB),
        ):
            report = node_boot_check(index, stdlib)
            boot, run = report["boot_ms"], report["run_ms"]
            print(f"{label}: boot {boot:.0f} ms, run {run:.1f} ms, stdout {report['stdout']!r}")
        return 0
    print("usage: python -m lessonkit.runtime {update-manifest|check|prepare|boot-check}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
