"""A small fake site laid out as the build lays one out, and the helpers the server tests share: one raw request, a
wait, a text sink, the _headers file read back."""

from __future__ import annotations

import http.client
import time
from collections.abc import Callable
from email.message import Message
from pathlib import Path

import brotli

from lessonkit.serve.server import ServerHandle

ROOT = Path(__file__).resolve().parent.parent
HASH = "0123456789"
PYO = "runtime/pyodide-314.0.7"
WHEEL = "runtime/wheels/labkit-0.1.0+g1a2b3c4d-py3-none-any.whl"
WASM = b"\0asm\x01\0\0\0" + b"wasm-body " * 2000


def make_site(site: Path, title: str = "First lesson") -> Path:
    """A tiny site laid out as the build lays one out."""
    files = {
        "index.html": f"<!doctype html><html lang=en><head><title>{title}</title></head>"
                      f"<body><h1>{title}</h1></body></html>\n",
        "second.html": "<!doctype html><html lang=en><head><title>Two</title></head><body><p>two</p></BODY></html>",
        f"static/{HASH}/js/main.js": "export const x = 1;\n",
        f"static/{HASH}/css/site.css": "body { margin: 0 }\n",
        f"{PYO}/pyodide.mjs": "export const loadPyodide = () => 1;\n" * 50,
        f"{PYO}/python_stdlib.zip": "PK" + "z" * 1000,
        WHEEL: "PK wheel",
        "favicon.ico": "ico",
        ".lessonkit-build": "marker",
        "sw.js": "self.addEventListener('fetch', () => {});\n",
    }
    for rel, text in files.items():
        path = site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (site / PYO / "pyodide.asm.wasm").write_bytes(WASM)
    for rel in (f"{PYO}/pyodide.asm.wasm", f"{PYO}/pyodide.mjs"):
        raw = (site / rel).read_bytes()
        (site / (rel + ".br")).write_bytes(brotli.compress(raw))
    return site


def fetch(handle: ServerHandle, path: str, headers: dict[str, str] | None = None,
          method: str = "GET") -> tuple[int, Message, bytes]:
    """One request with a raw (unnormalised) path; returns status, headers, body."""
    conn = http.client.HTTPConnection("127.0.0.1", handle.port, timeout=10)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True, skip_host="Host" in (headers or {}))
        for name, value in (headers or {}).items():
            conn.putheader(name, value)
        conn.endheaders()
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


def until(check: Callable[[], object], what: str, tries: int = 400) -> object:
    """Ask `check` until it returns something truthy (a background step finishing), then return it."""
    for _ in range(tries):
        found = check()
        if found:
            return found
        time.sleep(0.025)
    raise AssertionError(f"never happened: {what}")


class Sink:
    """A minimal text stream that keeps what was written."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, s: str) -> int:
        self.text += s
        return len(s)

    def flush(self) -> None:
        pass


def parse_headers_file(text: str) -> dict[str, dict[str, str]]:
    rules: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("  "):
            assert current is not None
            name, _, value = line.strip().partition(": ")
            assert name not in current, f"duplicate {name}"
            current[name] = value
        else:
            assert line not in rules, f"duplicate rule {line}"
            current = rules[line] = {}
    return rules
