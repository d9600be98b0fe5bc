"""A run's memory is capped whatever route learner code takes to JavaScript's allocators (worker/meter.js).

Each attack runs in the lab of the production build (production headers); the run ends within its own time with the
learner-worded refusal, the page answers, and the next run works.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from lessonkit.serve.server import ServerHandle

from .test_lab import Lab

REFUSED = "Your code asked for more memory than the lab allows (1024 MB for Python and JavaScript together)"

ATTACKS = {
    "six 1 GB typed arrays": """
import js
keep = []
for i in range(6):
    a = js.Uint8Array.new(1024**3)
    a.fill(1)
    keep.append(a)
    print("allocated", i + 1, "GB")
""",
    "many 100 MB buffers": """
import js
keep = [js.ArrayBuffer.new(100 * 1024**2) for i in range(60)]
""",
    "a 4 GB wasm memory": "import js\nm = js.WebAssembly.Memory.new({'initial': 65535})\nprint(m.buffer.byteLength)\n",
    "wasm memory grown": "import js\nm = js.WebAssembly.Memory.new({'initial': 1})\nfor i in range(64):\n    m.grow(1024)\n",
    "long strings kept in JavaScript": """
import js
keep = js.Array.new()
for i in range(40):
    keep.push(js.String.new("x").repeat(2**28).padEnd(2**28 + 1))
""",
    "arrays filled": "import js\nkeep = [js.Array.new(2**27).fill(1.5) for i in range(12)]\n",
    "blobs": ("import js\nfrom pyodide.ffi import to_js\nb = js.Uint8Array.new(2**26)\n"
              "keep = [js.Blob.new(to_js([b] * 64)) for i in range(8)]\n"),
    "one Python string handed over again and again": """
import js
s = "x" * 50_000_000
keep = js.Array.new()
for i in range(60):
    keep.push(s)
""",
    "a map of copies": ("import js\nm = js.Map.new()\nb = js.Uint8Array.new(2**20)\nfor i in range(2000):\n"
                        "    m.set(i, b.slice())\n"),
    "typed array copies": "import js\nb = js.Uint8Array.new(2**28)\nkeep = [b.slice() for i in range(40)]\n",
}


CONVERSIONS = {"one Python string handed over again and again"}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_a_run_past_the_memory_cap_is_refused_and_the_next_run_works(
    attack: str, new_page: Callable[..., Page], server: ServerHandle
) -> None:
    page = new_page(server.url)
    page.goto("scaled-dot-product-attention.html")
    lab = Lab(page)
    lab.wait_ready()
    lab.run(ATTACKS[attack], timeout=60)
    if attack in CONVERSIONS:
        # Pyodide reports a conversion that failed (here: refused by the budget) as its own error.
        expect(lab.status).to_contain_text("ConversionError: Conversion from python to javascript failed")
    else:
        expect(lab.status).to_contain_text(REFUSED)
        assert REFUSED in lab.output_text()
    assert page.evaluate("1 + 1") == 2  # the page answers
    lab.run("print(6 * 7)")
    assert lab.output_text() == "42\n"
