"""The lab worker's limits (static/js/worker/sandbox.js), run under Node: the memory cap Python meets as MemoryError."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from places import STATIC

from lessonkit.core.messages import Messages

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")

# argv: module. Caps memory at 4 pages, then reports what growing to 4 and past 4 pages does, and whether the
# uncapped grow can be put back.
_CAP_JS = r"""
import { pathToFileURL } from "node:url";
const { capMemory, MEMORY_LIMIT_BYTES, useRefusal } = await import(pathToFileURL(process.argv[1]).href);
useRefusal(process.argv[2]);
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
    refusal = Messages("en").template("worker.memory_refused")  # as an English page's init hands it over
    result = subprocess.run(["node", "--input-type=module", "-e", _CAP_JS, str(STATIC / "js/worker/sandbox.js"), refusal],
                            capture_output=True, text=True, check=True)
    out = json.loads(result.stdout)
    refused = ("RangeError: Your code asked for more memory than the lab allows (0 MB for Python and JavaScript "
               "together), so that was refused.")
    assert out == {"limit": 1024 ** 3, "withinLimit": 1, "pastLimit": refused,
                   "replaced": "TypeError", "pages": 4}


# argv: module. Meters a realm's allocators with a budget of 1 MB, then tries every route past it and every way back
# to an unmetered original.
_METER_JS = r"""
import { pathToFileURL } from "node:url";
const { createBudget, meterMemory } = await import(pathToFileURL(process.argv[1]).href);
const Native = Uint8Array;
meterMemory(createBudget(2 ** 20));
const out = {};
const attempt = (name, action) => {
  try { action(); out[name] = "allocated"; } catch (err) { out[name] = err.name; }
};
attempt("small", () => new Uint8Array(1000));
attempt("typed", () => new Uint8Array(2 ** 21));
attempt("typed via constructor", () => new (new Float64Array(1).constructor)(2 ** 20));
attempt("typed from", () => Uint8Array.from({ length: 2 ** 21 }));
attempt("buffer", () => new ArrayBuffer(2 ** 21));
attempt("resizable", () => new ArrayBuffer(8, { maxByteLength: 2 ** 21 }));
attempt("wasm memory", () => new WebAssembly.Memory({ initial: 65535 }));
attempt("string", () => "x".repeat(2 ** 21));
attempt("array", () => new Array(2 ** 20).fill(0));
attempt("blob", () => new Blob([new Uint8Array(1000), "x".repeat(10)]));
const a = new Uint8Array(1000);
Object.defineProperty(a, "constructor", { value: undefined }); // the species falls back to the intrinsic constructor
attempt("slice past", () => { for (let i = 0; i < 2000; i++) a.slice(); });
attempt("restore", () => { globalThis.Uint8Array = Native; });
attempt("restore prototype", () => { Native.prototype.constructor = Native; });
out.same = Uint8Array === Native;
out.instance = new Uint8Array(1) instanceof Uint8Array && new Native(1) instanceof Uint8Array;
console.log(JSON.stringify(out));
"""


def test_javascript_allocations_share_the_budget_and_the_originals_stay_out_of_reach() -> None:
    result = subprocess.run(["node", "--input-type=module", "-e", _METER_JS, str(STATIC / "js/worker/meter.js")],
                            capture_output=True, text=True, check=True)
    out = json.loads(result.stdout)
    refused = ["typed", "typed via constructor", "typed from", "buffer", "resizable", "wasm memory", "string", "array",
               "slice past"]
    assert out == {"small": "allocated", **dict.fromkeys(refused, "RangeError"), "blob": "allocated",
                   "restore": "TypeError", "restore prototype": "TypeError", "same": False, "instance": True}


# argv: module, route. A fresh budget of 1 MB, then one route of copies, each small, until it refuses.
_COPIES_JS = r"""
import { pathToFileURL } from "node:url";
const { createBudget, meterMemory } = await import(pathToFileURL(process.argv[1]).href);
const a = new Array(1000).fill(0);
const bytes = new Uint8Array(1000);
const decoder = new TextDecoder();
meterMemory(createBudget(2 ** 20));
const routes = {
  fromCharCode: () => String.fromCharCode(120),
  decode: () => decoder.decode(bytes),
  arraySlice: () => a.slice(),
  mapSet: (i) => new Map().set(i, i),
};
let made = 0;
try { for (; made < 10 ** 7; made++) routes[process.argv[2]](made); } catch (err) { console.log(err.name, made); }
"""


@pytest.mark.parametrize("route", ["fromCharCode", "decode", "arraySlice", "mapSet"])
def test_many_small_copies_add_up_to_the_budget(route: str) -> None:
    result = subprocess.run(["node", "--input-type=module", "-e", _COPIES_JS, str(STATIC / "js/worker/meter.js"), route],
                            capture_output=True, text=True, check=True)
    name, made = result.stdout.split()
    assert name == "RangeError" and 0 < int(made) < 10 ** 6, result.stdout
