"""The lab worker's limits (static/js/worker/sandbox.js), run under Node: the memory cap Python meets as MemoryError."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from places import STATIC

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")

# argv: module. Caps memory at 4 pages, then reports what growing to 4 and past 4 pages does, and whether the
# uncapped grow can be put back.
_CAP_JS = r"""
import { pathToFileURL } from "node:url";
const { capMemory, MEMORY_LIMIT_BYTES } = await import(pathToFileURL(process.argv[1]).href);
capMemory(4 * 65536);
const memory = new WebAssembly.Memory({ initial: 1, maximum: 100 });
const out = { limit: MEMORY_LIMIT_BYTES };
out.withinLimit = memory.grow(3);
try { memory.grow(1); out.pastLimit = "grew"; } catch (err) { out.pastLimit = `${err.name}: ${err.message}`; }
try { WebAssembly.Memory.prototype.grow = function () { return 0; }; out.replaced = "replaced"; }
catch (err) { out.replaced = err.name; }
out.pages = memory.buffer.byteLength / 65536;
console.log(JSON.stringify(out));
"""


def test_python_memory_stops_growing_at_the_cap_and_the_cap_stays() -> None:
    result = subprocess.run(["node", "--input-type=module", "-e", _CAP_JS, str(STATIC / "js/worker/sandbox.js")],
                            capture_output=True, text=True, check=True)
    out = json.loads(result.stdout)
    assert out == {"limit": 1024 ** 3, "withinLimit": 1, "pastLimit": "RangeError: memory limit of 262144 bytes",
                   "replaced": "TypeError", "pages": 4}
