"""The lab worker's limits (static/js/worker/sandbox.js, meter*.js, wasm.js), run under Node: the memory cap Python
meets as MemoryError, the budget every route to JavaScript's allocators is charged to, and the lists of what learner
code can reach, each named in the security model."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from places import STATIC

from lessonkit.core.messages import Messages

ROOT = Path(__file__).resolve().parent.parent
WORKER = STATIC / "js" / "worker"
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")


def node(script: str, *args: str) -> str:
    """Run an ES module script under Node with args; its stdout."""
    return subprocess.run(["node", "--input-type=module", "-e", script, *args], capture_output=True, text=True,
                          check=True).stdout


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
    out = json.loads(node(_CAP_JS, str(WORKER / "sandbox.js"), refusal))
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
const stringify = JSON.stringify; // taken before: the test's own report is not the learner's to pay for
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
attempt("string", () => "x".repeat(2 ** 21));
attempt("array", () => new Array(2 ** 20).fill(0));
attempt("wasm memory", () => new WebAssembly.Memory({ initial: 1 }));
attempt("wasm module", () => new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])));
const a = new Uint8Array(1000);
Object.defineProperty(a, "constructor", { value: undefined }); // the species falls back to the intrinsic constructor
attempt("slice past", () => { for (let i = 0; i < 2000; i++) a.slice(); });
attempt("restore", () => { globalThis.Uint8Array = Native; });
out.same = Uint8Array === Native;
out.instance = new Uint8Array(1) instanceof Uint8Array && new Native(1) instanceof Uint8Array;
out.prototypeConstructor = Native.prototype.constructor === Uint8Array;
console.log(stringify(out));
"""


def test_javascript_allocations_share_the_budget_and_the_originals_stay_out_of_reach() -> None:
    out = json.loads(node(_METER_JS, str(WORKER / "meter.js")))
    refused = ["typed", "typed via constructor", "typed from", "buffer", "resizable", "string", "array", "slice past"]
    assert out == {"small": "allocated", **dict.fromkeys(refused, "RangeError"), "wasm memory": "TypeError",
                   "wasm module": "TypeError", "restore": "TypeError", "same": False, "instance": True,
                   "prototypeConstructor": True}


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
  error: () => new Error("x"),
  array: () => new Array(9999),
};
let made = 0;
try { for (; made < 10 ** 7; made++) routes[process.argv[2]](made); } catch (err) { console.log(err.name, made); }
"""


@pytest.mark.parametrize("route", ["fromCharCode", "decode", "arraySlice", "mapSet", "error", "array"])
def test_many_small_copies_add_up_to_the_budget(route: str) -> None:
    name, made = node(_COPIES_JS, str(WORKER / "meter.js"), route).split()
    assert name == "RangeError" and 0 < int(made) < 10 ** 6, (name, made)


# argv: module, route. A budget of 64 MB, then one call that would allocate far more than that, by a route that
# hides its size from a meter reading what a call is given: the call is refused before it allocates.
_ONE_CALL_JS = r"""
import { pathToFileURL } from "node:url";
const { createBudget, meterMemory } = await import(pathToFileURL(process.argv[1]).href);
const big = "x".repeat(2 ** 24);
const typed = new Uint8Array(2 ** 24);
const parts = new Array(31).fill(big);
const inner = new Array(2 ** 20).fill(0);
// A length that says 0 to whoever reads it first and 2**27 after.
let reads = 0;
const lying = Object.create(typed, { length: { get: () => (reads++ % 2 ? 2 ** 27 : 0) }, [Symbol.iterator]: {} });
// An array whose species makes a result that says it is empty.
class Sneaky extends Array {
  static get [Symbol.species]() {
    return function () { return new Proxy([], { get: (t, k) => (k === "length" ? 0 : t[k]) }); };
  }
}
const sneaky = Sneaky.from(new Array(64).fill(inner));
meterMemory(createBudget(2 ** 26));
const routes = {
  typedFromIterator: () => new Float64Array(new Array(2 ** 24).keys()),
  typedLyingLength: () => { // what the meter read, 0, is what is made
    if (new Float64Array(lying).length) throw new Error("made from the second answer");
    return new Float64Array(typed.length * 8); },
  join: () => parts.join(""),
  typedJoin: () => new Uint8Array(400).join(big),
  upper: () => big.toUpperCase().toUpperCase().toUpperCase().toUpperCase(),
  raw: () => String.raw({ raw: parts }),
  match: () => "ab".repeat(2 ** 21).match(/ab/g),
  split: () => "a,".repeat(2 ** 21).split(","),
  keys: () => Object.keys(typed),
  entries: () => Object.entries(typed),
  assign: () => Object.assign({}, typed),
  flat: () => new Array(64).fill(inner).flat(),
  fromString: () => Array.from("\u0100".repeat(2 ** 23)),
  json: () => JSON.parse("[" + "{},".repeat(2 ** 21) + "{}]"),
  bigint: () => BigInt.asUintN(2 ** 30 - 64, -1n),
  encode: () => new TextEncoder().encode(big + big + big),
  species: () => sneaky.flat(),
  arrayLikeFill: () => Array.prototype.fill.call({ length: 2 ** 24 }, 0),
  errors: () => new Array(2 ** 17).fill(0).map(Error),
  mapOfIterator: () => new Map(new Array(2 ** 22).entries()),
  promiseAll: () => Promise.all(new Array(2 ** 22).keys()),
};
try {
  routes[process.argv[2]]();
  console.log("allocated");
} catch (err) {
  console.log(err.name);
}
"""

ONE_CALL_ROUTES = ["typedFromIterator", "typedLyingLength", "join", "typedJoin", "upper", "raw", "match", "split",
                   "keys", "entries", "assign", "flat", "fromString", "json", "bigint", "encode", "species",
                   "arrayLikeFill", "errors", "mapOfIterator", "promiseAll"]


@pytest.mark.parametrize("route", ONE_CALL_ROUTES)
def test_one_call_past_the_budget_is_refused_whatever_hides_its_size(route: str) -> None:
    assert node(_ONE_CALL_JS, str(WORKER / "meter.js"), route).strip() == "RangeError"


# argv: module. A function added to a built-in (as a newer engine adds one) before the meter runs, and one it knows.
_UNLISTED_JS = r"""
import { pathToFileURL } from "node:url";
const { createBudget, meterMemory } = await import(pathToFileURL(process.argv[1]).href);
Array.prototype.brandNew = function () {};
String.brandNew = function () {};
meterMemory(createBudget(2 ** 20));
console.log(JSON.stringify(["brandNew" in Array.prototype, "brandNew" in String, typeof [].map]));
"""


def test_a_function_no_meter_table_lists_is_deleted() -> None:
    assert json.loads(node(_UNLISTED_JS, str(WORKER / "meter.js"))) == [False, False, "function"]


_LISTS_JS = r"""
import { pathToFileURL } from "node:url";
const { REACHABLE, REACHABLE_MEMBERS } = await import(pathToFileURL(process.argv[1]).href);
const { WEBASSEMBLY } = await import(pathToFileURL(process.argv[2]).href);
console.log(JSON.stringify({ ...REACHABLE, ...REACHABLE_MEMBERS, ...WEBASSEMBLY }));
"""


def reachable_lists() -> dict[str, list[str]]:
    """worker/sandbox.js's REACHABLE and REACHABLE_MEMBERS and wasm.js's WEBASSEMBLY, by list."""
    return json.loads(node(_LISTS_JS, str(WORKER / "sandbox.js"), str(WORKER / "wasm.js")))


def test_every_name_learner_code_can_reach_is_in_the_security_model() -> None:
    doc = (ROOT / "docs" / "lesson" / "security.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`([A-Za-z_$][\w$.]*)`", doc))
    lists = reachable_lists()
    missing = {f"{kind}: {name}" for kind, names in lists.items() for name in names
               if name not in named and f"{kind}.{name}" not in named and f"WebAssembly.{name}" not in named}
    assert not missing, "name each in docs/lesson/security.md, in backticks"
