"""The worker's snapshot packing (static/js/worker/snapshot.js), run under Node: zero pages out, the same heap back."""

from __future__ import annotations

import json
import random
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from places import STATIC

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
PAGE = 4096

# argv: module, mode ("pack" | "unpack" | "roundtrip"), input file, output file. Prints {"ok": ...} or {"error": ...}.
_RUN_JS = r"""
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [module, mode, input, output] = process.argv.slice(1);
const { packHeap, unpackHeap } = await import(pathToFileURL(module).href);
const data = new Uint8Array(readFileSync(input));
try {
  if (mode === "pack") writeFileSync(output, packHeap(data));
  if (mode === "unpack") writeFileSync(output, unpackHeap(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)));
  if (mode === "roundtrip") {
    const odd = new Uint8Array(data.byteLength + 1);  // a view at byte offset 1: the packer must cope with it
    odd.set(data, 1);
    writeFileSync(output, unpackHeap(packHeap(odd.subarray(1))));
  }
  console.log(JSON.stringify({ ok: true }));
} catch (err) {
  console.log(JSON.stringify({ error: err.message }));
}
"""


def _node(tmp_path: Path, mode: str, data: bytes) -> tuple[dict, bytes]:
    """Run the module on data under Node; return its JSON answer and the bytes it wrote."""
    src, dest = tmp_path / "in.bin", tmp_path / "out.bin"
    src.write_bytes(data)
    dest.unlink(missing_ok=True)
    result = subprocess.run(
        ["node", "--input-type=module", "-e", _RUN_JS, str(STATIC / "js/worker/snapshot.js"), mode, str(src),
         str(dest)],
        capture_output=True, text=True, check=True,
    )
    return json.loads(result.stdout), dest.read_bytes() if dest.exists() else b""


def _heap(pages: int, filled: set[int], tail: int = 0) -> bytes:
    """A heap of `pages` pages (plus `tail` bytes) where only the `filled` pages hold data."""
    rng = random.Random(7)
    heap = bytearray(pages * PAGE + tail)
    for page in filled:
        at = page * PAGE + rng.randrange(PAGE)  # a single non-zero byte anywhere marks the whole page as data
        heap[min(at, len(heap) - 1)] = rng.randrange(1, 256)
    return bytes(heap)


def test_packing_keeps_only_pages_with_data_and_unpacks_to_the_same_heap(tmp_path: Path) -> None:
    heap = _heap(64, {0, 1, 2, 10, 40, 63}, tail=12)
    heap = heap[:-1] + b"\x05"  # the last, partial word holds data too
    answer, packed = _node(tmp_path, "pack", heap)
    assert answer == {"ok": True}
    magic, length, count = struct.unpack_from("<8sII", packed)
    runs = [struct.unpack_from("<II", packed, 16 + 8 * i) for i in range(count)]
    assert (magic, length) == (b"LKHEAP01", len(heap))
    # Neighbouring pages with data are one run; the tail page is short.
    assert runs == [(0, 3 * PAGE), (10 * PAGE, PAGE), (40 * PAGE, PAGE), (63 * PAGE, PAGE + 12)]
    assert len(packed) == 16 + 8 * len(runs) + 6 * PAGE + 12
    answer, back = _node(tmp_path, "unpack", packed)
    assert answer == {"ok": True} and back == heap


def test_a_heap_at_an_odd_byte_offset_and_an_empty_heap_round_trip(tmp_path: Path) -> None:
    heap = _heap(20, {3, 4, 19}, tail=7)
    assert _node(tmp_path, "roundtrip", heap) == ({"ok": True}, heap)
    zeros = bytes(5 * PAGE)
    answer, packed = _node(tmp_path, "pack", zeros)
    assert answer == {"ok": True} and len(packed) == 16
    assert _node(tmp_path, "unpack", packed) == ({"ok": True}, zeros)


def _packed(length: int, runs: list[tuple[int, int]], data: bytes) -> bytes:
    """A hand-made packed heap (which may lie)."""
    return struct.pack("<8sII", b"LKHEAP01", length, len(runs)) + b"".join(struct.pack("<II", *r) for r in runs) + data


@pytest.mark.parametrize(("data", "message"), [
    (bytes(4096), "the saved snapshot is not a packed heap"),
    (b"LKHEAP01", "the saved snapshot is not a packed heap"),
    (_packed(PAGE, [(0, PAGE)], b"\x01" * 100), "the saved snapshot is cut short"),
    (struct.pack("<8sII", b"LKHEAP01", PAGE, 3), "the saved snapshot is cut short"),
    (_packed(PAGE, [(0, 2 * PAGE)], b"\x01" * 2 * PAGE), "the saved snapshot's page list is invalid"),
    (_packed(3 * PAGE, [(PAGE, PAGE), (0, PAGE)], b"\x01" * 2 * PAGE), "the saved snapshot's page list is invalid"),
    (_packed(PAGE, [(0, PAGE)], b"\x01" * (PAGE + 1)), "the saved snapshot has bytes after its last page"),
])
def test_anything_but_a_packed_heap_is_refused_with_a_reason(tmp_path: Path, data: bytes, message: str) -> None:
    assert _node(tmp_path, "unpack", data) == ({"error": message}, b"")
