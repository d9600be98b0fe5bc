"""labkit's wheel for each Pyodide release (deterministic, with bytecode compiled by that release's own CPython under
Node, so the page imports labkit without compiling it), made into the prebuilt files when the wheel is made."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import zipfile
from collections.abc import Sequence
from pathlib import Path

from lessonkit.core.files import atomic_write
from lessonkit.prebuild.node import node_boot_check
from lessonkit.prebuild.prepare import prepare_runtime
from lessonkit.runtime.download import progress
from lessonkit.runtime.prepared import STDLIB
from lessonkit.runtime.releases import Release
from lessonkit.runtime.wheels import LABKIT_VERSION, labkit_sources

_ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


def _record_hash(data: bytes) -> str:
    """Return a RECORD hash field (PEP 376/427: urlsafe base64 sha256 without padding)."""
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _zip_entry(name: str) -> zipfile.ZipInfo:
    """Return a ZipInfo with a fixed timestamp and mode so wheels are byte-for-byte reproducible."""
    info = zipfile.ZipInfo(name, date_time=_ZIP_EPOCH)
    info.external_attr = 0o644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def labkit_pyc_recipe(release: Release) -> str:
    """What the compiled files depend on besides the sources (the wheel name hashes this too): bump `pyc-1` when
    they change for the same sources; the release, since each compiles for its own CPython."""
    return f"pyc-1 pyodide-{release.version}"

# Runs inside Pyodide: compile each source to an unchecked hash-based pyc at the path its import looks for
# (__pycache__/<mod>.<cache_tag>.pyc), so the worker imports labkit without compiling it.
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

def _labkit_files(pyc: bool, release: Release) -> tuple[str, list[tuple[str, bytes]]]:
    """Return the labkit wheel version (content hash in the local part) and the package's files."""
    files = labkit_sources()
    content = hashlib.sha256()
    for name, data in files:
        content.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    if pyc:
        content.update(labkit_pyc_recipe(release).encode())
    return f"{LABKIT_VERSION}+g{content.hexdigest()[:8]}", files


def _labkit_pyc(root: Path, files: Sequence[tuple[str, bytes]], release: Release) -> list[tuple[str, bytes]]:
    """Compile the wheel's sources with Pyodide's own CPython under Node; return the __pycache__ entries."""
    sources = {name: data.decode() for name, data in files if name.endswith(".py")}
    code = f"SOURCES = {json.dumps(json.dumps(sources))}\n{_LABKIT_PYC_CODE}"
    prepared = prepare_runtime(root, release)
    progress(f"compiling labkit for Pyodide {release.version}")
    report = node_boot_check(prepared, prepared / STDLIB, code)
    compiled: dict[str, str] = json.loads(report["stdout"].strip().splitlines()[-1])
    return [(name, base64.b64decode(data)) for name, data in sorted(compiled.items())]

def build_labkit_wheel(root: Path, out_dir: Path, release: Release, *, pyc: bool = True) -> str:
    """Build the deterministic labkit wheel of the installed labkit package into out_dir; return its name. With pyc
    (the default) it also carries bytecode compiled by the release's CPython under Node (`root`: the toolkit's
    repository, whose node_modules has the release), so the page imports labkit without compiling it."""
    version, files = _labkit_files(pyc, release)
    filename = f"labkit-{version}-py3-none-any.whl"
    target = out_dir / filename
    if target.is_file():
        return filename  # the name carries the content hash, so an existing file is this exact wheel
    if pyc:
        files += _labkit_pyc(root, files, release)
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
