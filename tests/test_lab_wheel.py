"""The worker's wheel reader (static/js/lab-wheel.js), run under Node against zips Python's zipfile wrote."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from lessonkit import runtime

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")

# Prints {"files": {name: sha256}} or {"error": message}: what the worker would write, without a browser.
_READ_JS = r"""
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";
const [module, zipPath] = process.argv.slice(1);
const { readWheel } = await import(pathToFileURL(module).href);
try {
  const files = await readWheel(readFileSync(zipPath));
  const out = {};
  for (const [name, bytes] of files) out[name] = createHash("sha256").update(bytes).digest("hex");
  console.log(JSON.stringify({ files: out }));
} catch (err) {
  console.log(JSON.stringify({ error: err.message }));
}
"""


def _read(tmp_path: Path, data: bytes) -> dict:
    """Run readWheel on data under Node; return its JSON answer."""
    path = tmp_path / "in.whl"
    path.write_bytes(data)
    result = subprocess.run(
        ["node", "--input-type=module", "-e", _READ_JS, str(ROOT / "static/js/lab-wheel.js"), str(path)],
        capture_output=True, text=True, check=True,
    )
    return json.loads(result.stdout)


def _expected(data: bytes) -> dict[str, str]:
    """What zipfile reads from data: {name: sha256} of every file."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {i.filename: hashlib.sha256(zf.read(i)).hexdigest() for i in zf.infolist() if not i.is_dir()}


def _zip(entries: list[tuple[str, bytes, int]], comment: bytes = b"") -> bytes:
    """Return a zip of (name, data, compression) entries."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data, compression in entries:
            zf.writestr(zipfile.ZipInfo(name), data, compress_type=compression)
        zf.comment = comment
    return buffer.getvalue()


def test_reads_the_labkit_wheel_as_zipfile_does(tmp_path: Path) -> None:
    name = runtime.build_labkit_wheel(ROOT / "lab", tmp_path, pyc=False)
    data = (tmp_path / name).read_bytes()
    answer = _read(tmp_path, data)
    assert answer == {"files": _expected(data)}
    assert "labkit/_run.py" in answer["files"]


def test_reads_stored_entries_skips_folders_and_finds_the_end_past_a_comment(tmp_path: Path) -> None:
    big = bytes(range(256)) * 400
    data = _zip(
        [("pkg/", b"", zipfile.ZIP_STORED), ("pkg/a.py", b"x = 1\n", zipfile.ZIP_STORED),
         ("pkg/b.bin", big, zipfile.ZIP_DEFLATED), ("pkg/empty.txt", b"", zipfile.ZIP_STORED)],
        comment=b"a zip comment sits after the end record",
    )
    assert _read(tmp_path, data) == {"files": _expected(data)}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not a zip at all" * 10, "the wheel is not a zip file"),
        (_zip([("../evil.py", b"x", zipfile.ZIP_STORED)]), "unsafe path in the wheel: ../evil.py"),
        (_zip([("/abs.py", b"x", zipfile.ZIP_STORED)]), "unsafe path in the wheel: /abs.py"),
        (_zip([("pkg/a.py", b"x" * 100, zipfile.ZIP_BZIP2)]),
         "the wheel's entry pkg/a.py uses compression 12, not stored or deflate"),
    ],
)
def test_rejects_what_it_cannot_write_safely(tmp_path: Path, data: bytes, message: str) -> None:
    assert _read(tmp_path, data) == {"error": message}
