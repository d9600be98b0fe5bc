"""A run's memory is capped whatever route learner code takes to JavaScript's allocators (worker/meter*.js, wasm.js,
sandbox.js).

Each attack runs in the lab of the production build (production headers) and would go past the cap (1 GB) by its
route: there, at the line marked `# here`, the run ends within its own time with the learner-worded refusal (or,
for an API the lab takes away, the error of its absence), the page answers, and the next run works. Without the
meter each of them finishes (printing "past the cap") or takes the tab down.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .fixtures import goto_kept
from .helpers import PageErrors
from .test_lab import FATAL_CONSOLE, Lab

REFUSED = "Your code asked for more memory than the lab allows (1024 MB for Python and JavaScript together)"

# Builds a WebAssembly module's bytes from (section id, contents) pairs.
WASM = """import js
from pyodide.ffi import to_js
def module(*sections):
    body = bytes([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0])
    for sid, content in sections:
        body += bytes([sid, len(content)]) + bytes(content)
    return to_js(body)
"""
# A module that imports a memory and grows it with the memory.grow instruction: g(pages).
GROWER = "module((1, [1, 0x60, 1, 0x7f, 1, 0x7f]), (2, [1, 1, 0x6d, 3, 0x6d, 0x65, 0x6d, 2, 0, 1]), (3, [1, 0]), " \
         "(7, [1, 1, 0x67, 0, 0]), (10, [1, 6, 0, 0x20, 0, 0x40, 0, 0x0b]))"
# A module that defines a memory of 1 GB.
GIGABYTE_MEMORY = "module((5, [1, 1, 0x80, 0x80, 0x01, 0x80, 0x80, 0x01]), (7, [1, 3, 0x6d, 0x65, 0x6d, 2, 0]))"

# name: (code, what ends the run at `# here`: REFUSED, "Python crashed: " + REFUSED, or an error's text).
ATTACKS = {
    "six 1 GB typed arrays": ("""import js
keep = []
for i in range(6):
    a = js.Uint8Array.new(1024**3)  # here
    a.fill(1)
    keep.append(a)
""", REFUSED),
    "many 100 MB buffers": ("import js\nkeep = [js.ArrayBuffer.new(100 * 1024**2) for i in range(60)]  # here\n", REFUSED),
    "long strings kept in JavaScript": ("""import js
keep = js.Array.new()
for i in range(40):
    keep.push(js.String.new("x").repeat(2**28).padEnd(2**28 + 1))  # here
""", REFUSED),
    "arrays filled": ("import js\nkeep = [js.Array.new(2**27).fill(1.5) for i in range(12)]  # here\n", REFUSED),
    "empty arrays of 99,999": ("import js\nkeep = [js.Array.new(99999) for i in range(12000)]  # here\n", REFUSED),
    "a map of copies": ("""import js
m = js.Map.new()
b = js.Uint8Array.new(2**20)
for i in range(2000):
    m.set(i, b.slice())  # here
""", REFUSED),
    "typed array copies": ("import js\nb = js.Uint8Array.new(2**28)\nkeep = [b.slice() for i in range(40)]  # here\n",
                           REFUSED),
    "wasm: a memory of its own": (WASM + """mem = js.WebAssembly.Memory.new({"initial": 16384})  # here
""", "WebAssembly.Memory is not available in the lab"),
    "wasm: an imported memory its code grows": (WASM + f"""grower = js.WebAssembly.Module.new({GROWER})  # here
g = js.WebAssembly.Instance.new(grower, {{"m": {{"mem": js.WebAssembly.Memory.new({{"initial": 1}})}}}}).exports.g
for i in range(3):
    g(16384)
""", "WebAssembly.Module is not available in the lab"),
    "wasm: a module compiled asynchronously": (WASM + f"""js.WebAssembly.compile({GIGABYTE_MEMORY})  # here
""", "WebAssembly.compile is not available in the lab"),
    "wasm: tables": ("""import js
keep = [js.WebAssembly.Table.new({"initial": 10**7, "element": "anyfunc"}) for i in range(30)]  # here
""", "WebAssembly.Table is not available in the lab"),
    "wasm: Python's table grown": ("""import js, pyodide_js
pyodide_js._module.wasmTable.grow(9 * 10**6)
keep = js.Uint8Array.new(850 * 2**20)  # here
""", REFUSED),
    "copies: structuredClone": ("""import js
b = js.Uint8Array.new(2**28)
keep = [js.structuredClone(b) for i in range(10)]  # here
""", "AttributeError: structuredClone"),
    "copies: MessageChannel": ("""import js
b = js.Uint8Array.new(2**28)
channel = js.MessageChannel.new()  # here
for i in range(10):
    channel.port1.postMessage(b)
""", "AttributeError: MessageChannel"),
    "copies: Response": ("""import js
b = js.Uint8Array.new(2**28)
keep = [js.Response.new(b) for i in range(10)]  # here
""", "AttributeError: Response"),
    "copies: Blob": ("""import js
b = js.Uint8Array.new(2**28)
keep = [js.Blob.new([b]) for i in range(10)]  # here
""", "AttributeError: Blob"),
    "copies: TextEncoder": ("""import js
s = js.String.new("x").repeat(2**26)
encode = js.Function.prototype.call.bind(js.TextEncoder.prototype.encode, js.TextEncoder.new())
keep = js.Array.from_(js.Array.new(40).fill(s), encode)  # here
""", REFUSED),
    "copies: WebCodecs": ("""import js
b = js.Float32Array.new(2**26)
keep = [js.AudioData.new({"format": "f32", "sampleRate": 48000, "numberOfFrames": 2**26,  # here
                          "numberOfChannels": 1, "timestamp": 0, "data": b}) for i in range(10)]
""", "AttributeError: AudioData"),
    "never charged: ImageData": ("""import js
keep = [js.ImageData.new(16384, 16384) for i in range(3)]  # here
""", "AttributeError: ImageData"),
    "never charged: a gzip bomb": ("""import js
stream = js.DecompressionStream.new("gzip")  # here
""", "AttributeError: DecompressionStream"),
    "never charged: BigInt": ("""import js
big = js.Function.prototype.call.bind(js.BigInt.asUintN, None, 2**30 - 64, js.BigInt(-1))
keep = js.Array.from_(js.Array.new(20), big)  # here
""", REFUSED),
    "typed arrays: from an iterator": ("""import js
keys = js.Reflect.get(js.Uint8Array.prototype, "keys")
source = js.Uint8Array.new(2**27)
keep = [js.Float64Array.new(js.Reflect.apply(keys, source, [])) for i in range(3)]  # here
""", REFUSED),
    "typed arrays: a length that changes": ("""import js
from pyodide.ffi import create_proxy, to_js
calls = [0]
def length(*_):
    calls[0] += 1
    return 0 if calls[0] % 2 else 2**27
lying = js.Object.create(js.Uint8Array.new(2**27))
descriptor = lambda **fields: to_js(fields, dict_converter=js.Object.fromEntries)
js.Object.defineProperty(lying, "length", descriptor(get=create_proxy(length)))
js.Object.defineProperty(lying, js.Symbol.iterator, descriptor(value=None))
keep = [js.Float64Array.new(lying) for i in range(3)]  # here
""", REFUSED),
    "strings: join over one long string": ("""import js
parts = js.Array.new(31).fill(js.String.new("x").repeat(2**24))
join = js.Function.prototype.call.bind(js.Array.prototype.join)
keep = js.Array.from_(js.Array.new(4).fill(parts), join)  # here
""", REFUSED),
    "strings: a typed array joined with a long separator": ("""import js
separator = js.String.new("x").repeat(2**20)
join = js.Function.prototype.call.bind(js.Uint8Array.prototype.join, js.Uint8Array.new(400), separator)
keep = js.Array.from_(js.Array.new(5), join)  # here
""", REFUSED),
    "strings: toUpperCase": ("""import js
s = js.String.new("x").repeat(2**26)
upper = js.Function.prototype.call.bind(js.String.prototype.toUpperCase)
keep = js.Array.from_(js.Array.new(40).fill(s), upper)  # here
""", REFUSED),
    "strings: String.raw": ("""import js
raw = js.Object.new()
raw.raw = js.Array.new(31).fill(js.String.new("x").repeat(2**24))
template = js.Function.prototype.call.bind(js.String.raw, None, raw)
keep = js.Array.from_(js.Array.new(4), template)  # here
""", REFUSED),
    "strings: a global match": ("""import js
s = js.String.new("ab").repeat(2**24)
keep = [js.String.prototype.match.call(s, js.RegExp.new("ab", "g")) for i in range(3)]  # here
""", REFUSED),
    "arrays: keys of a typed array": ("""import js
keys = js.Function.prototype.call.bind(js.Object.keys, None)
keep = js.Array.from_(js.Array.new(1).fill(js.Uint8Array.new(10**8)), keys)  # here
""", REFUSED),
    "arrays: flat over repeated references": ("""import js
inner = js.Array.new(2**20).fill(0)
flat = js.Function.prototype.call.bind(js.Array.prototype.flat)
keep = js.Array.from_(js.Array.new(8).fill(js.Array.new(64).fill(inner)), flat)  # here
""", REFUSED),
    "arrays: from a string": ("""import js
keep = js.Array.from_(js.String.new("\\u0100").repeat(2**26))  # here
""", REFUSED),
    "arrays: errors made by map, deep in a recursion": ("""import js, sys
sys.setrecursionlimit(2000)
js.Error.stackTraceLimit = 10**4
def deep(n):
    return deep(n - 1) if n else js.Array.new(2**14).fill(0).map(js.Error)  # here
keep = [deep(900) for i in range(4)]
""", REFUSED),
    "originals: the parent of Pyodide's error class, called for each element": ("""import js, pyodide_js
Error = js.Object.getPrototypeOf(pyodide_js.ffi.PythonError)
Error.stackTraceLimit = 10**4
keep = [js.Array.new(2**21).fill(0).map(Error) for i in range(3)]  # here
""", REFUSED),
    "originals: Pyodide's table of error classes": ("""import js, pyodide_js
RangeError = pyodide_js._api.errorConstructors.get("RangeError")
js.Error.stackTraceLimit = 10**4
keep = [js.Array.new(2**21).fill(0).map(RangeError) for i in range(3)]  # here
""", REFUSED),
    "python: one string handed over again and again": ("""import js
s = "x" * 50_000_000
keep = js.Array.new()
for i in range(60):
    keep.push(s)  # here
""", REFUSED),
    "python: files": ("""data = bytes(2**28)
for i in range(8):
    with open(f"/tmp/f{i}", "wb") as f:
        f.write(data)
""", "Python crashed: " + REFUSED),
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_run_past_the_memory_cap_is_refused_and_the_next_run_works(
    attack: str, kept_page: Page, page_errors: PageErrors
) -> None:
    code, ending = ATTACKS[attack]
    if ending.startswith("Python crashed"):
        for text in (*FATAL_CONSOLE, REFUSED):  # Pyodide reports the crash on the console
            page_errors.expect(text)
    page = kept_page
    lab = Lab(page)
    if goto_kept(page, "scaled-dot-product-attention.html"):
        lab.wait_ready()
    lab.run(code + 'print("past the cap")\n', timeout=60)
    lines = [n for n, text in enumerate(code.splitlines(), 1) if text.endswith("# here")]
    expect(lab.status).to_contain_text(f"Error on line {lines[0]}: " if lines else ending)
    expect(lab.status).to_contain_text(ending)
    assert ending.removeprefix("AttributeError: ") in lab.output_text()
    assert "past the cap" not in lab.output_text()
    assert page.evaluate("1 + 1") == 2  # the page answers
    lab.run("print(6 * 7)")
    assert lab.output_text() == "42\n"
