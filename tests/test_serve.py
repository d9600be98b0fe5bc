"""Server and header rules, against a small fake site (no browser)."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from email.message import Message
from pathlib import Path

import brotli
import pytest
from places import STATIC

from lessonkit.hosting import headers as H  # noqa: N812 (short name for many asserts)
from lessonkit.serve.dev import Watcher, holding_still, run_rebuild
from lessonkit.serve.devendpoints import DEV_SCRIPT_URL
from lessonkit.serve.events import DevState
from lessonkit.serve.files import safe_relpath
from lessonkit.serve.server import ServerHandle, start_server

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


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A fresh fake site."""
    return make_site(tmp_path / "site")


@pytest.fixture
def server(site: Path) -> Iterator[ServerHandle]:
    """Production-mode server over the fake site."""
    with start_server(site) as handle:
        yield handle


@pytest.fixture
def dev_server(site: Path) -> Iterator[ServerHandle]:
    """Dev-mode server (live reload injected) over the fake site."""
    with start_server(site, dev=True) as handle:
        yield handle


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


# -- header rules ----------------------------------------------------------------------------------------------

def test_content_types_are_explicit() -> None:
    expected = {
        "a.html": "text/html; charset=utf-8", "a.js": "text/javascript; charset=utf-8",
        "a.mjs": "text/javascript; charset=utf-8", "a.wasm": "application/wasm", "a.zip": "application/zip",
        "a.whl": "application/zip", "a.json": "application/json", "a.css": "text/css; charset=utf-8",
        "a.svg": "image/svg+xml", "a.png": "image/png", "a.ico": "image/x-icon",
        "a.txt": "text/plain; charset=utf-8", "a.unknown": "application/octet-stream",
        "": "text/html; charset=utf-8", "dir/": "text/html; charset=utf-8",
    }
    for path, ctype in expected.items():
        assert H.content_type(path) == ctype, path


def test_cache_rules() -> None:
    assert H.cache_control(f"{PYO}/pyodide.asm.wasm") == H.IMMUTABLE
    assert H.cache_control("/" + WHEEL) == H.IMMUTABLE
    assert H.cache_control(f"static/{HASH}/js/main.js") == H.IMMUTABLE
    for path in ("index.html", "/", "second.html", "sw.js", "_headers", "static/js/main.js", "favicon.ico"):
        assert H.cache_control(path) == "no-cache", path


def test_isolation_headers_toggle() -> None:
    on = dict(H.headers_for("index.html", isolated=True))
    off = dict(H.headers_for("index.html", isolated=False))
    assert on["Cross-Origin-Opener-Policy"] == "same-origin"
    assert on["Cross-Origin-Embedder-Policy"] == "require-corp"
    assert on["Cross-Origin-Resource-Policy"] == "same-origin"
    for name in ("Cross-Origin-Opener-Policy", "Cross-Origin-Embedder-Policy", "Cross-Origin-Resource-Policy"):
        assert name not in off
    for d in (on, off):
        assert d["Content-Security-Policy"] == H.CSP
        assert d["X-Content-Type-Options"] == "nosniff"
        assert d["Referrer-Policy"] == "no-referrer"
        assert d["Permissions-Policy"] == H.PERMISSIONS_POLICY
        assert "Strict-Transport-Security" not in d  # the host's to send: never by serve (plain HTTP)


def test_csp_allows_only_same_origin_and_wasm() -> None:
    """Scripts, workers and connections: same origin only, plus wasm compilation for Pyodide; nothing else."""
    directives = dict(d.split(" ", 1) for d in H.CSP.split("; "))
    assert directives["default-src"] == "'none'"
    assert directives["script-src"] == "'self' 'wasm-unsafe-eval'"
    assert directives["worker-src"] == "'self' blob:"  # the lab's worker, from its script's verified bytes
    assert directives["connect-src"] == "'self'"
    assert "unsafe-eval'" not in H.CSP.replace("'wasm-unsafe-eval'", "")


# -- production server -------------------------------------------------------------------------------------------

def test_binds_loopback_only(server: ServerHandle) -> None:
    assert server.address[0] == "127.0.0.1"
    assert server.url == f"http://127.0.0.1:{server.port}/"
    # Linux routes all of 127/8 to lo: a server bound to 0.0.0.0 would answer on 127.0.0.2 too.
    with pytest.raises(OSError), socket.create_connection(("127.0.0.2", server.port), timeout=2):
        pass


def test_wasm_mime_and_immutable_runtime(server: ServerHandle) -> None:
    status, headers, body = fetch(server, f"/{PYO}/pyodide.asm.wasm")
    assert status == 200
    assert headers["Content-Type"] == "application/wasm"
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert headers["Content-Security-Policy"] == H.CSP
    assert headers["Cross-Origin-Resource-Policy"] == "same-origin"
    assert "Content-Encoding" not in headers
    assert body == WASM
    status, headers, _ = fetch(server, f"/{PYO}/pyodide.mjs")
    assert headers["Content-Type"] == "text/javascript; charset=utf-8"


def test_html_no_cache_csp_and_isolation(server: ServerHandle) -> None:
    for path in ("/", "/index.html", "/second.html"):
        status, headers, _ = fetch(server, path)
        assert status == 200, path
        assert headers["Content-Type"] == "text/html; charset=utf-8"
        assert headers["Cache-Control"] == "no-cache"
        assert headers["Content-Security-Policy"] == H.CSP
        assert headers["Cross-Origin-Opener-Policy"] == "same-origin"
        assert headers["Cross-Origin-Embedder-Policy"] == "require-corp"
        assert headers["X-Content-Type-Options"] == "nosniff"


def test_the_policy_allows_the_inline_scripts_the_served_build_recorded(site: Path) -> None:
    """serve sends the CSP of the build it serves: the script hashes in the build's marker, read again when a
    rebuild replaces it; a marker it cannot read gives the policy without them."""
    with start_server(site) as handle:
        assert fetch(handle, "/index.html")[1]["Content-Security-Policy"] == H.CSP
        (site / H.MARKER).write_text(H.marker_text(["sha256-AAAA"]), encoding="utf-8")
        _, headers, _ = fetch(handle, "/index.html")
        assert headers["Content-Security-Policy"] == H.csp(["sha256-AAAA"])
        assert "script-src 'self' 'wasm-unsafe-eval' 'sha256-AAAA';" in headers["Content-Security-Policy"]
        (site / H.MARKER).write_text('{"script_hashes": ["sha256-AAAA\'; script-src *"]}', encoding="utf-8")
        assert fetch(handle, "/sw.js")[1]["Content-Security-Policy"] == H.CSP


def test_not_isolated_server_omits_coop_coep(site: Path) -> None:
    with start_server(site, isolated=False) as handle:
        _, headers, _ = fetch(handle, "/index.html")
    assert "Cross-Origin-Opener-Policy" not in headers
    assert "Cross-Origin-Embedder-Policy" not in headers
    assert headers["Content-Security-Policy"] == H.CSP


def test_static_hash_immutable_and_wheel_with_plus(server: ServerHandle) -> None:
    _, headers, body = fetch(server, f"/static/{HASH}/js/main.js")
    assert headers["Cache-Control"] == H.IMMUTABLE
    assert headers["Content-Type"] == "text/javascript; charset=utf-8"
    for path in ("/" + WHEEL, "/" + WHEEL.replace("+", "%2B")):
        status, headers, body = fetch(server, path)
        assert (status, body) == (200, b"PK wheel"), path
        assert headers["Content-Type"] == "application/zip"


def test_brotli_negotiation_and_vary(server: ServerHandle, site: Path) -> None:
    path = f"/{PYO}/pyodide.asm.wasm"
    status, headers, body = fetch(server, path, {"Accept-Encoding": "gzip, deflate, br, zstd"})
    assert status == 200
    assert headers["Content-Encoding"] == "br"
    assert headers["Content-Type"] == "application/wasm"
    assert headers["Vary"] == "Accept-Encoding"
    assert int(headers["Content-Length"]) == len(body) < len(WASM)
    assert brotli.decompress(body) == WASM
    for refuse in ("gzip", "br;q=0", "identity", ""):
        _, headers, body = fetch(server, path, {"Accept-Encoding": refuse} if refuse else None)
        assert "Content-Encoding" not in headers, refuse
        assert headers["Vary"] == "Accept-Encoding"
        assert body == WASM
    # No .br sibling: plain, but still Vary for a compressible type.
    _, headers, _ = fetch(server, f"/{PYO}/python_stdlib.zip", {"Accept-Encoding": "br"})
    assert "Content-Encoding" not in headers
    assert headers["Vary"] == "Accept-Encoding"


def test_etag_304_for_html(server: ServerHandle) -> None:
    status, headers, body = fetch(server, "/index.html")
    etag = headers["ETag"]
    assert status == 200 and etag
    status, headers304, body = fetch(server, "/index.html", {"If-None-Match": etag})
    assert status == 304 and body == b""
    assert headers304["ETag"] == etag
    assert headers304["Cache-Control"] == "no-cache"
    status, _, _ = fetch(server, "/index.html", {"If-None-Match": '"something-else"'})
    assert status == 200
    status, _, _ = fetch(server, "/index.html", {"If-None-Match": f'"x", W/{etag}'})
    assert status == 304


def test_etag_changes_with_content(server: ServerHandle, site: Path) -> None:
    _, headers, _ = fetch(server, "/index.html")
    (site / "index.html").write_text("<html><body>changed</body></html>", encoding="utf-8")
    status, headers2, body = fetch(server, "/index.html", {"If-None-Match": headers["ETag"]})
    assert status == 200 and b"changed" in body
    assert headers2["ETag"] != headers["ETag"]


def _until(check: Callable[[], object], what: str, tries: int = 400) -> object:
    """Ask `check` until it returns something truthy (a background step finishing), then return it."""
    for _ in range(tries):
        found = check()
        if found:
            return found
        time.sleep(0.025)
    raise AssertionError(f"never happened: {what}")


def test_page_brotli_is_made_off_the_request_path(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While a page's brotli copy is being made, requests get the page as it is, at once; then the copy."""
    real = brotli.compress
    release = threading.Event()

    def slow(data: bytes, *args: object, **kwargs: object) -> bytes:
        release.wait(30)  # a large page at quality 11
        return real(data, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(brotli, "compress", slow)
    page = (site / "index.html").read_bytes()
    try:
        with start_server(site) as server:
            status, headers, body = fetch(server, "/index.html", {"Accept-Encoding": "br"})
            assert (status, body) == (200, page)
            assert "Content-Encoding" not in headers and headers["Vary"] == "Accept-Encoding"
            plain_etag = headers["ETag"]
            release.set()

            def compressed() -> tuple[Message, bytes] | None:
                _, headers, body = fetch(server, "/index.html", {"Accept-Encoding": "br"})
                return (headers, body) if headers.get("Content-Encoding") == "br" else None

            headers, body = _until(compressed, "the page's brotli copy")  # type: ignore[misc]
            assert brotli.decompress(body) == page
            assert headers["ETag"] != plain_etag  # two representations, two validators
            status, _, _ = fetch(server, "/index.html", {"Accept-Encoding": "br", "If-None-Match": headers["ETag"]})
            assert status == 304
            _, headers, body = fetch(server, "/index.html")
            assert body == page and headers["ETag"] == plain_etag
    finally:
        release.set()


def test_dev_pages_are_compressed_again_for_each_build(dev_server: ServerHandle, site: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A published build's pages (new content, new live-reload epoch) are compressed, never by a request."""
    assert dev_server.dev is not None
    real, compressed_on = brotli.compress, []

    def recording(data: bytes, *args: object, **kwargs: object) -> bytes:
        compressed_on.append(threading.current_thread().name)
        return real(data, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(brotli, "compress", recording)

    def brotli_page() -> bytes | None:
        _, headers, body = fetch(dev_server, "/second.html", {"Accept-Encoding": "br"})
        return brotli.decompress(body) if headers.get("Content-Encoding") == "br" else None

    first = _until(brotli_page, "the first build's page compressed")
    assert f"epoch={dev_server.dev.epoch}".encode() in first  # type: ignore[operator]
    (site / "second.html").write_text("<html><body><p>rebuilt</p></body></html>", encoding="utf-8")
    epoch = dev_server.publish([])["epoch"]

    def rebuilt_page() -> bool:
        page = brotli_page()
        return page is not None and b"rebuilt" in page and f"epoch={epoch}".encode() in page

    _until(rebuilt_page, "the new build's page compressed")
    # Never the old page under a new name: plain answers are the new page too.
    _, _, body = fetch(dev_server, "/second.html")
    assert b"rebuilt" in body and f"epoch={epoch}".encode() in body
    # Request threads are socketserver's "Thread-N (process_request_thread)"; compression has its own thread.
    assert compressed_on and set(compressed_on) == {"lessonkit-pages"}, compressed_on


@pytest.mark.parametrize("path", [
    "/../../../../etc/passwd",
    "/%2e%2e/%2e%2e/etc/passwd",
    "/static/..%2f..%2f..%2fetc/passwd",
    "/..%5c..%5cetc%5cpasswd",
    "/static/%00/x",
    "//etc/passwd",
    "//index.html/../../etc/passwd",
    "/.lessonkit-build",
    "/static/./../../x",
    "/%ff%fe",
])
def test_traversal_and_hidden_files_blocked(server: ServerHandle, path: str) -> None:
    status, _, body = fetch(server, path)
    assert status == 404, path
    assert b"root:" not in body and b"marker" not in body


def test_symlink_out_of_site_blocked(server: ServerHandle, site: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("secret", encoding="utf-8")
    (site / "leak.txt").symlink_to(secret)
    status, _, body = fetch(server, "/leak.txt")
    assert status == 404 and b"secret" not in body


def test_404_page(server: ServerHandle, site: Path) -> None:
    status, headers, body = fetch(server, "/missing.html")
    assert status == 404
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Content-Security-Policy"] == H.CSP
    assert b"Page not found" in body
    assert b"missing.html" not in body  # never echo the request
    (site / "404.html").write_text("<html><body>custom</body></html>", encoding="utf-8")
    status, _, body = fetch(server, "/missing.html")
    assert status == 404 and b"custom" in body


def test_dir_redirect_head_and_methods(server: ServerHandle) -> None:
    status, headers, _ = fetch(server, f"/static/{HASH}")
    assert status == 301 and headers["Location"] == f"/static/{HASH}/"
    status, _, body = fetch(server, "//second.html?x=1#frag")
    assert status == 200 and b"two" in body
    status, headers, body = fetch(server, "/index.html", method="HEAD")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 0
    status, headers, _ = fetch(server, "/index.html", method="POST")
    assert status == 405 and headers["Allow"] == "GET, HEAD"


def test_keep_alive_and_log(server: ServerHandle) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        for path in ("/index.html", "/second.html", "/nope"):
            conn.request("GET", path)
            resp = conn.getresponse()
            resp.read()
            assert resp.version == 11
            assert resp.getheader("Connection", "").lower() != "close"
        # Same socket for all three requests.
        assert conn.sock is not None
    finally:
        conn.close()
    assert server.log[-3:] == [("GET", "/index.html", 200), ("GET", "/second.html", 200), ("GET", "/nope", 404)]


def test_malformed_requests_do_not_break_the_server(server: ServerHandle) -> None:
    for raw in (b"GET / HTTP/1.1 EXTRA\r\n\r\n", b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n",
                b"GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n"):
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.sendall(raw)
            reply = sock.recv(200)
        # Unparseable request lines get the stdlib's HTTP/0.9-style error (no status line): either is fine.
        assert b"400" in reply or b"414" in reply, reply[:60]
    status, _, _ = fetch(server, "/index.html")
    assert status == 200


def test_client_hanging_up_between_requests_is_not_an_error(server: ServerHandle,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Browsers reset idle keep-alive connections: no traceback in the terminal for that."""

    def handlers() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if "process_request_thread" in t.name]

    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(b"GET /index.html HTTP/1.1\r\nHost: localhost\r\n\r\n")
        assert b"200 OK" in sock.recv(65536)
        # Close with a reset (linger 0) while the server waits for the next request on this connection.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    for _ in range(400):
        if not handlers():
            break
        time.sleep(0.025)
    assert not handlers()
    assert "Traceback" not in capsys.readouterr().err
    assert fetch(server, "/index.html")[0] == 200


def test_safe_relpath() -> None:
    assert safe_relpath("/") == ""
    assert safe_relpath("/a/./b/") == "a/b/"
    assert safe_relpath("/a//b.html") == "a/b.html"
    assert safe_relpath("/a/../b") is None
    assert safe_relpath("/.git/config") is None


# -- dev mode ---------------------------------------------------------------------------------------------------

def test_dev_script_injected_only_in_dev(server: ServerHandle, dev_server: ServerHandle, site: Path) -> None:
    on_disk = (site / "index.html").read_bytes()
    _, _, prod = fetch(server, "/index.html")
    assert prod == on_disk
    assert b"__lessonkit" not in prod
    status, _, _ = fetch(server, DEV_SCRIPT_URL)
    assert status == 404
    status, _, _ = fetch(server, "/__lessonkit/events")
    assert status == 404

    _, _, dev = fetch(dev_server, "/index.html")
    assert dev_server.dev is not None
    tag = f'<script type="module" src="{DEV_SCRIPT_URL}?epoch={dev_server.dev.epoch}"></script>'.encode()
    assert dev.count(tag) == 1
    assert dev.index(tag) < dev.index(b"</body>")
    assert (site / "index.html").read_bytes() == on_disk  # never written into site files
    _, _, dev2 = fetch(dev_server, "/second.html")  # upper-case </BODY>
    assert dev2.index(b"dev-reload.js") < dev2.index(b"</BODY>")
    status, headers, script = fetch(dev_server, DEV_SCRIPT_URL)
    assert status == 200
    assert headers["Content-Type"] == "text/javascript; charset=utf-8"
    assert headers["Cache-Control"] == "no-store"
    assert script == (STATIC / "js/page/dev-reload.js").read_bytes()


def test_dev_script_has_no_inner_html() -> None:
    source = (STATIC / "js/page/dev-reload.js").read_text(encoding="utf-8")
    assert "innerHTML" not in source and "insertAdjacentHTML" not in source
    assert 'role", "alert"' in source and "textContent" in source


def test_failed_rebuild_keeps_old_site_and_reports(dev_server: ServerHandle, site: Path) -> None:
    dev = dev_server.dev
    assert dev is not None
    _, _, before = fetch(dev_server, "/index.html")
    status, _, body = fetch(dev_server, "/__lessonkit/events")
    first = json.loads(body)
    assert status == 200 and first["problems"] == [] and first["epoch"] == dev.epoch

    problems = ["lesson/attention.md:3:8: front matter: expected \"key: value\""]
    out = _Sink()
    assert run_rebuild(lambda: problems, dev, out=out) == problems
    assert "still serving the last good build" in out.text and problems[0] in out.text
    _, _, after = fetch(dev_server, "/index.html")
    assert after == before
    _, _, body = fetch(dev_server, f"/__lessonkit/events?epoch={first['epoch']}&seq={first['seq']}")
    state = json.loads(body)
    assert state == {"epoch": first["epoch"], "seq": first["seq"] + 1, "problems": problems}

    # A crashing build is a problem too, not a dead server.
    def crash() -> list[str]:
        raise RuntimeError("boom")

    assert run_rebuild(crash, dev, out=out) == ["build crashed: RuntimeError: boom"]

    # Fix → new epoch, problems cleared, new content served with the new epoch in the script URL.
    make_site(site, title="Fixed lesson")
    assert run_rebuild(lambda: [], dev, out=out) == []
    _, _, body = fetch(dev_server, "/__lessonkit/events")
    fixed = json.loads(body)
    assert fixed["epoch"] == first["epoch"] + 1 and fixed["problems"] == []
    _, _, page = fetch(dev_server, "/index.html")
    assert b"Fixed lesson" in page and f"epoch={fixed['epoch']}".encode() in page


def test_a_rebuild_whose_sources_changed_as_it_read_them_publishes_nothing(dev_server: ServerHandle) -> None:
    """A save landed while the build read the sources (lessonkit.serve.dev.holding_still): the site and open pages are
    left as they were, the terminal says so, and the caller builds again (None)."""
    from lessonkit.core.errors import SourcesChangedError

    dev = dev_server.dev
    assert dev is not None
    before = dev.snapshot()
    _, _, page = fetch(dev_server, "/index.html")

    def torn() -> list[str]:
        raise SourcesChangedError

    out = _Sink()
    assert run_rebuild(torn, dev, out=out) is None
    assert out.text == "Files changed during the rebuild; building again.\n"
    assert dev.snapshot() == before and fetch(dev_server, "/index.html")[2] == page


def test_holding_still_sees_a_file_written_or_added_since(tmp_path: Path) -> None:
    (tmp_path / "lesson").mkdir()
    (tmp_path / "lesson" / "a.md").write_text("one")
    still = holding_still([tmp_path / "lesson"])
    assert still()
    (tmp_path / "lesson" / "a.md").write_text("two, longer")
    assert not still()
    again = holding_still([tmp_path / "lesson"])
    (tmp_path / "lesson" / "b.md").write_text("new")
    assert not again()
    settled = holding_still([tmp_path / "lesson"])
    (tmp_path / "lesson" / ".a.md.swp").write_text("an editor's")  # not a source
    assert settled()


def test_events_long_poll_wakes_on_publish(dev_server: ServerHandle) -> None:
    assert dev_server.dev is not None
    state = dev_server.dev.snapshot()
    result: dict[str, object] = {}

    def poll() -> None:
        t0 = time.monotonic()
        _, _, body = fetch(dev_server, f"/__lessonkit/events?epoch={state['epoch']}&seq={state['seq']}")
        result.update(json.loads(body), took=time.monotonic() - t0)

    thread = threading.Thread(target=poll)
    thread.start()
    time.sleep(0.3)
    assert thread.is_alive()  # still waiting: nothing changed
    dev_server.publish([])
    thread.join(5)
    assert result["epoch"] == state["epoch"] + 1
    assert 0.25 < float(result["took"]) < 3  # type: ignore[arg-type]
    status, _, _ = fetch(dev_server, "/__lessonkit/events?epoch=abc")
    assert status == 400


def test_dev_state_wait_times_out_and_close_releases() -> None:
    dev = DevState()
    snap = dev.snapshot()
    t0 = time.monotonic()
    assert dev.wait(snap["epoch"], snap["seq"], timeout=0.2) == snap
    assert 0.15 < time.monotonic() - t0 < 2
    dev.close()
    t0 = time.monotonic()
    dev.wait(snap["epoch"], snap["seq"], timeout=10)
    assert time.monotonic() - t0 < 1


def test_stop_releases_long_polls(site: Path) -> None:
    handle = start_server(site, dev=True)
    assert handle.dev is not None
    snap = handle.dev.snapshot()
    thread = threading.Thread(
        target=lambda: fetch(handle, f"/__lessonkit/events?epoch={snap['epoch']}&seq={snap['seq']}"))
    thread.start()
    time.sleep(0.2)
    t0 = time.monotonic()
    handle.stop()
    thread.join(5)
    assert not thread.is_alive() and time.monotonic() - t0 < 3


@pytest.mark.parametrize("events", [True, False], ids=["kernel events", "poll"])
def test_watcher_debounces_a_burst(tmp_path: Path, events: bool) -> None:
    (tmp_path / "lesson").mkdir()
    target = tmp_path / "lesson" / "a.md"
    target.write_text("0", encoding="utf-8")
    calls: list[float] = []
    watcher = Watcher([tmp_path / "lesson", tmp_path / "missing"], lambda: calls.append(time.monotonic()),
                      interval=0.05, debounce=0.2, events=events)
    assert watcher.backend == ("events" if events else "poll")
    watcher.start()
    try:
        time.sleep(0.2)
        for i in range(5):  # an editor's save-all: several writes in quick succession
            target.write_text(f"{i} " * (i + 2), encoding="utf-8")
            (tmp_path / "lesson" / f"new{i}.md").write_text("x", encoding="utf-8")
            time.sleep(0.03)
        (tmp_path / "lesson" / ".a.md.swp").write_text("ignored", encoding="utf-8")
        deadline = time.monotonic() + 3
        while not calls and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.6)
        assert len(calls) == 1
        (tmp_path / "lesson" / ".hidden.swp").write_text("still ignored", encoding="utf-8")
        time.sleep(0.5)
        assert len(calls) == 1
        target.unlink()  # deletions count as changes
        deadline = time.monotonic() + 3
        while len(calls) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(calls) == 2
    finally:
        watcher.stop()
        watcher.join(2)


@pytest.mark.parametrize("events", [True, False], ids=["kernel events", "poll"])
def test_watcher_says_which_files_changed(tmp_path: Path, events: bool) -> None:
    """What the rebuild reads again (lessonkit.pipeline.memo): the files added, edited and removed, not editors' files;
    a watched folder made after the watch began is watched too."""
    lesson = tmp_path / "lesson"
    lesson.mkdir()
    (lesson / "a.md").write_text("a", encoding="utf-8")
    (lesson / "c.md").write_text("c", encoding="utf-8")
    calls: list[int] = []
    watcher = Watcher([lesson, tmp_path / "lab"], lambda: calls.append(1), interval=0.05, debounce=0.05,
                      events=events)
    watcher.start()
    seen: set[Path] = set()

    def saw(*paths: Path) -> bool:
        seen.update(watcher.take_changes())
        return set(paths) <= seen

    try:
        (lesson / "a.md").write_text("a, edited", encoding="utf-8")
        (lesson / "b.md").write_text("b", encoding="utf-8")
        (lesson / "c.md").unlink()
        (lesson / ".a.md.swp").write_text("an editor's", encoding="utf-8")
        _until(lambda: saw(lesson / "a.md", lesson / "b.md", lesson / "c.md"), "the three changes")
        _until(lambda: calls, "a rebuild asked for")
        assert not any(p.name.startswith(".") for p in seen), seen
        lab = tmp_path / "lab"
        lab.mkdir()
        (lab / "x.py").write_text("x = 1\n", encoding="utf-8")
        _until(lambda: saw() and any(p == lab or lab in p.parents for p in seen), "the new folder")
        seen.clear()

        def edited() -> bool:
            (lab / "x.py").write_text(f"x = {time.monotonic_ns()}\n", encoding="utf-8")
            return saw(lab / "x.py")

        _until(edited, "an edit in the new folder")
    finally:
        watcher.stop()
        watcher.join(2)
    assert not watcher.is_alive()


def test_watcher_polls_when_the_kernel_events_fail(tmp_path: Path) -> None:
    """The kernel's events can fail (a limit on watches reached): that is reported, and the files are polled."""

    class Failing:
        @staticmethod
        def watch(*_: object, **__: object) -> Iterator[set[tuple[object, str]]]:
            raise OSError(28, "inotify watch limit reached")

    (tmp_path / "a.md").write_text("0", encoding="utf-8")
    calls: list[int] = []
    errors: list[BaseException] = []
    watcher = Watcher([tmp_path], lambda: calls.append(1), interval=0.05, debounce=0.05, on_error=errors.append)
    watcher.events = Failing()
    watcher.start()
    try:
        _until(lambda: watcher.backend == "poll", "the poll taking over")
        (tmp_path / "a.md").write_text("1", encoding="utf-8")
        _until(lambda: calls, "a rebuild asked for by the poll")
        assert watcher.take_changes() == {tmp_path / "a.md"}
    finally:
        watcher.stop()
        watcher.join(2)
    assert [str(e) for e in errors] == ["[Errno 28] inotify watch limit reached"]


class _UnprintableError(Exception):
    """An exception whose message itself raises (a hostile lab can define one)."""

    def __str__(self) -> str:
        raise SystemExit("from __str__")


def _in_thread(fn: Callable[[], object]) -> object:
    """fn() on a worker thread, as the watcher calls rebuilds; its result, or what escaped it."""
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["result"] = fn()
        except BaseException as exc:  # what would have killed the watcher thread
            box["escaped"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(10)
    assert "escaped" not in box, f"escaped run_rebuild: {box.get('escaped')!r}"
    return box["result"]


@pytest.mark.parametrize(("raised", "problem"), [
    (SystemExit(3), "build crashed: SystemExit: 3"),
    (SystemExit(), "build crashed: SystemExit"),
    (KeyboardInterrupt(), "build crashed: KeyboardInterrupt"),
    (GeneratorExit("closed"), "build crashed: GeneratorExit: closed"),
    (_UnprintableError(), "build crashed: _UnprintableError: <the exception's message could not be shown>"),
])
def test_rebuild_that_raises_anything_is_a_problem(raised: BaseException, problem: str) -> None:
    """A lab calling sys.exit() (or worse) during a rebuild: reported in the terminal and the page, never fatal."""
    dev = DevState()
    before = dev.snapshot()
    out = _Sink()

    def rebuild() -> list[str]:
        raise raised

    assert _in_thread(lambda: run_rebuild(rebuild, dev, out=out)) == [problem]
    assert problem in out.text and "Traceback" in out.text and "still serving the last good build" in out.text
    after = dev.snapshot()  # what /__lessonkit/events gives the page's banner
    assert after["problems"] == [problem] and after["seq"] == before["seq"] + 1 and after["epoch"] == before["epoch"]


def test_ctrl_c_during_a_rebuild_on_the_main_thread_still_stops_serve() -> None:
    """On the main thread KeyboardInterrupt is the author's Ctrl-C (serve's first build runs there)."""

    def rebuild() -> list[str]:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_rebuild(rebuild, None, out=_Sink())


def test_watcher_keeps_watching_after_on_change_raises(tmp_path: Path) -> None:
    """Whatever on_change raises goes to on_error, and the next edit is still seen."""
    (tmp_path / "lesson").mkdir()
    lesson = tmp_path / "lesson" / "a.md"
    lesson.write_text("0", encoding="utf-8")
    raises = [SystemExit("lab exited"), KeyboardInterrupt(), None]
    calls: list[int] = []
    errors: list[BaseException] = []

    def on_change() -> None:
        calls.append(len(calls))
        exc = raises[len(calls) - 1]
        if exc is not None:
            raise exc

    watcher = Watcher([tmp_path / "lesson"], on_change, interval=0.05, debounce=0.1, on_error=errors.append)
    watcher.start()
    try:
        time.sleep(0.2)  # the watcher's first look at the folder
        for n in range(3):
            lesson.write_text(f"edit {n}", encoding="utf-8")
            _until(lambda n=n: len(calls) > n, f"rebuild {n + 1}")
        _until(lambda: len(errors) == 2, "both failures reported")
        assert [type(e) for e in errors] == [SystemExit, KeyboardInterrupt]
        assert watcher.is_alive()
    finally:
        watcher.stop()
        watcher.join(2)
    assert not watcher.is_alive()


def test_watcher_survives_a_failing_poll(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A poll that fails (a folder that cannot be listed) is reported; polling goes on."""
    import lessonkit.serve.dev as serve_module

    real = serve_module._snapshot
    failures = [PermissionError("lesson/: permission denied")]

    def flaky(paths: object) -> object:
        if failures:
            raise failures.pop()
        return real(paths)  # type: ignore[arg-type]

    monkeypatch.setattr(serve_module, "_snapshot", flaky)
    (tmp_path / "a.md").write_text("0", encoding="utf-8")
    calls: list[float] = []
    errors: list[BaseException] = []
    watcher = Watcher([tmp_path], lambda: calls.append(1), interval=0.05, debounce=0.1, on_error=errors.append,
                      events=False)
    watcher.start()
    try:
        _until(lambda: errors, "the failing poll reported")
        time.sleep(0.2)
        (tmp_path / "a.md").write_text("1", encoding="utf-8")
        _until(lambda: calls, "a rebuild after the failed poll")
    finally:
        watcher.stop()
        watcher.join(2)
    assert isinstance(errors[0], PermissionError)


class _Sink:
    """A minimal text stream that keeps what was written."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, s: str) -> int:
        self.text += s
        return len(s)

    def flush(self) -> None:
        pass


# -- generated host config ----------------------------------------------------------------------------------------

def _parse_headers_file(text: str) -> dict[str, dict[str, str]]:
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


def _glob_match(pattern: str, path: str) -> bool:
    return pattern == path or (pattern.endswith("*") and path.startswith(pattern[:-1]))


def test_headers_file_matches_rules(site: Path) -> None:
    H.write_header_files(site)
    rules = _parse_headers_file((site / "_headers").read_text(encoding="utf-8"))
    assert rules["/*"] == dict(H.security_headers(isolated=True))
    # Cache-Control may be set by at most one rule per URL (hosts comma-join repeats).
    files = [p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()]
    published = [rel for rel in files if H.is_published(rel)]
    assert {"_headers", "nginx.conf", ".lessonkit-build", "sw.js"} <= set(files)
    # What is not part of the site gets no rule: the hosts never serve _headers, and a rule would not hide the rest.
    assert not set(files) - set(published) & {pat.lstrip("/") for pat in rules}
    assert sorted(set(files) - set(published)) == [
        ".lessonkit-build", "_headers", "nginx.conf", f"{PYO}/pyodide.asm.wasm.br", f"{PYO}/pyodide.mjs.br"]
    for rel in published:
        url = "/" + rel
        expected = dict(H.headers_for(rel, isolated=True))
        cache = [r["Cache-Control"] for pat, r in rules.items() if "Cache-Control" in r and _glob_match(pat, url)]
        assert cache == [expected["Cache-Control"]], rel
        ctypes = [r["Content-Type"] for pat, r in rules.items() if "Content-Type" in r and _glob_match(pat, url)]
        assert ctypes in ([], [expected["Content-Type"]]), rel
    assert rules["/"] == {"Cache-Control": "no-cache"}
    assert rules["/second"] == {"Cache-Control": "no-cache"}  # pretty URL
    assert rules[f"/{PYO}/pyodide.asm.wasm"] == {"Content-Type": "application/wasm"}
    assert len(rules) <= 100  # Cloudflare Pages' rule limit
    H.write_header_files(site, isolated=False)
    rules = _parse_headers_file((site / "_headers").read_text(encoding="utf-8"))
    assert "Cross-Origin-Embedder-Policy" not in rules["/*"]


def test_nginx_conf_matches_rules(site: Path) -> None:
    H.write_header_files(site)
    conf = (site / "nginx.conf").read_text(encoding="utf-8")
    assert conf.count("{") == conf.count("}")
    types = re.search(r"types \{(.*?)\}", conf, re.S)
    assert types is not None
    mapping = {}
    for line in types.group(1).strip().splitlines():
        ctype, *exts = line.strip().rstrip(";").split()
        mapping.update({f".{e}": ctype for e in exts})
    assert mapping == {ext: t.split(";")[0] for ext, t in H.CONTENT_TYPES.items()}
    charset_types = set(re.search(r"charset_types ([^;]+);", conf).group(1).split())  # type: ignore[union-attr]
    # text/html always has a charset in nginx; listing it again is `nginx -t`'s duplicate MIME type warning.
    assert charset_types == {t.split(";")[0] for t in H.CONTENT_TYPES.values() if "charset" in t} - {"text/html"}
    assert "brotli_static on;" in conf
    locations = re.findall(r"^location (.+?) \{\n(.*?)\n\}", conf, re.S | re.M)
    assert len(locations) == 5
    assert "^~" not in conf  # a ^~ prefix would skip the regex that refuses what is not part of the site
    for match, body in locations:
        added = dict(re.findall(r'add_header (\S+) "([^"]*)" always;', body))
        assert {k: v for k, v in added.items() if k != "Cache-Control"} == dict(H.security_headers())
        sample = {"/runtime/": f"{PYO}/pyodide.asm.wasm", "= /sw.js": "sw.js", "/": "index.html"}.get(
            match.strip(), "nginx.conf" if "return 404;" in body else f"static/{HASH}/js/main.js")
        assert added["Cache-Control"] == H.cache_control(sample), match
    refuse, static = [m.split(None, 1)[1].strip('"') for m, _ in locations if m.startswith("~")]
    assert re.match(static, f"/static/{HASH}/js/main.js") and not re.match(static, "/static/js/main.js")
    assert "return 404;" in locations[0][1] and locations[0][0].startswith("~")  # tried before the static regex
    for path in ("/_headers", "/nginx.conf", "/.lessonkit-build", "/sw.js.br", f"/{PYO}/pyodide.asm.wasm.br",
                 f"/static/{HASH}/.hidden"):
        assert re.search(refuse, path), path
    for path in ("/", "/index.html", "/sw.js", f"/{PYO}/pyodide.asm.wasm", "/x/nginx.conf", "/brochure.html"):
        assert not re.search(refuse, path), path


def test_server_refuses_what_is_not_part_of_the_site(server: ServerHandle, site: Path) -> None:
    """Host configuration, dotfiles and .br siblings by name: 404, as nginx answers (tests/test_nginx.py)."""
    H.write_header_files(site)
    (site / "sw.js.br").write_bytes(brotli.compress((site / "sw.js").read_bytes()))
    for path in ("/_headers", "/nginx.conf", "/.lessonkit-build", "/sw.js.br", f"/{PYO}/pyodide.asm.wasm.br",
                 "/%5fheaders", "/sw.js%2ebr", "/nginx.conf?x=1"):
        status, headers, _ = fetch(server, path, {"Accept-Encoding": "br"})
        assert status == 404, path
        assert headers["Content-Security-Policy"] == H.CSP
    status, headers, body = fetch(server, "/sw.js", {"Accept-Encoding": "br"})
    assert (status, headers["Content-Encoding"], headers["Cache-Control"]) == (200, "br", "no-cache")
    assert brotli.decompress(body) == (site / "sw.js").read_bytes()


# -- the CLI entry point -------------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


SERVE_SCRIPT = """
import sys
import threading
from pathlib import Path
from lessonkit.serve.dev import serve

root, site, port = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])

def rebuild():
    text = (root / "lesson" / "a.md").read_text()
    if "THREAD" in text:  # where the build's time limit on markdown has its alarm, or not
        text = "main thread" if threading.current_thread() is threading.main_thread() else "another thread"
    if "BAD" in text:
        return [f"lesson/a.md:1:1: {text.strip()}"]
    if "EXIT" in text:  # what a lab run in this process by the build could do
        raise SystemExit("a lab called sys.exit()")
    site.mkdir(exist_ok=True)
    (site / "index.html").write_text(f"<html><body><h1>{text.strip()}</h1></body></html>")
    return []

serve(root, site, port, rebuild)
"""


def _ctrl_c_as_a_terminal_has_it() -> None:
    """In the serve process, before it starts: SIGINT delivered and at its default, as in an author's terminal. A child
    inherits an ignored or blocked SIGINT from whatever ran before it in this process; Python then never raises
    KeyboardInterrupt, and the test's Ctrl-C would go unheard."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class _ServeProcess:
    """`serve()` (SERVE_SCRIPT) in a child process over a one-lesson project; `lesson` is the file it rebuilds from."""

    def __init__(self, tmp_path: Path) -> None:
        root = tmp_path / "proj"
        (root / "lesson").mkdir(parents=True)
        self.lesson = root / "lesson" / "a.md"
        self.lesson.write_text("first", encoding="utf-8")
        self.port = _free_port()
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen([sys.executable, "-c", SERVE_SCRIPT, str(root), str(root / "site"),
                                      str(self.port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env=env, cwd=tmp_path, preexec_fn=_ctrl_c_as_a_terminal_has_it)
        assert self.proc.stdout is not None
        self.banner: list[str] = []
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            self.banner.append(line)
            if "Ctrl-C" in line or not line:
                break

    def get(self, path: str) -> bytes:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("GET", path)
            return conn.getresponse().read()
        finally:
            conn.close()

    def events(self) -> dict[str, object]:
        return json.loads(self.get("/__lessonkit/events"))  # type: ignore[no-any-return]

    def events_until(self, predicate: Callable[[dict[str, object]], object], timeout: float = 10) -> dict[str, object]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.events()
            if predicate(state):
                return state
            time.sleep(0.1)
        raise AssertionError("no matching event")

    def save_good_lesson(self, text: str, since: dict[str, object]) -> None:
        """Save a lesson that builds: a new epoch (open pages reload), no problems, the page shows `text`."""
        self.lesson.write_text(text, encoding="utf-8")
        state = self.events_until(lambda s: s["epoch"] != since["epoch"])
        assert state["problems"] == []
        assert f"<h1>{text}</h1>".encode() in self.get("/")

    def stop(self) -> str:
        """Ctrl-C; the rest of the output."""
        self.proc.send_signal(signal.SIGINT)
        rest, _ = self.proc.communicate(timeout=10)
        return rest

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate(timeout=10)


def test_serve_end_to_end(tmp_path: Path) -> None:
    """The CLI entry: initial build, URL printed, watcher → rebuild → events, Ctrl-C exits 0."""
    serving = _ServeProcess(tmp_path)
    try:
        assert f"http://127.0.0.1:{serving.port}/" in "".join(serving.banner), serving.banner
        page = serving.get("/")
        assert b"<h1>first</h1>" in page and b"dev-reload.js?epoch=" in page
        start = serving.events()
        assert start["problems"] == []

        serving.lesson.write_text("BAD front matter", encoding="utf-8")
        state = serving.events_until(lambda s: s["problems"])
        assert state["problems"] == ["lesson/a.md:1:1: BAD front matter"] and state["epoch"] == start["epoch"]
        assert b"<h1>first</h1>" in serving.get("/")  # last good build still served

        serving.save_good_lesson("second", since=start)
        rest = serving.stop()
    finally:
        serving.kill()
    assert serving.proc.returncode == 0, rest
    assert "Traceback" not in rest and "Stopped." in rest
    assert "still serving the last good build" in rest and "Rebuilt in" in rest


def test_serve_keeps_watching_after_a_rebuild_exits(tmp_path: Path) -> None:
    """A rebuild raising SystemExit: the terminal and the page's banner say so, the next edit is built."""
    serving = _ServeProcess(tmp_path)
    try:
        start = serving.events()
        serving.lesson.write_text("EXIT", encoding="utf-8")
        state = serving.events_until(lambda s: s["problems"])
        assert state["problems"] == ["build crashed: SystemExit: a lab called sys.exit()"]
        assert serving.proc.poll() is None

        serving.save_good_lesson("fixed", since=start)
        rest = serving.stop()
    finally:
        serving.kill()
    assert serving.proc.returncode == 0, rest
    assert "SystemExit: a lab called sys.exit()" in rest and "still serving the last good build" in rest
    assert "Rebuilt in" in rest and "Stopped." in rest


def test_serve_rebuilds_on_the_main_thread(tmp_path: Path) -> None:
    """An edit's rebuild runs on serve's main thread (the watcher only asks for it), where the time limit on a
    lesson's markdown can stop a conversion (lessonkit.content.bounds)."""
    serving = _ServeProcess(tmp_path)
    try:
        start = serving.events()
        serving.lesson.write_text("THREAD", encoding="utf-8")
        serving.events_until(lambda s: s["epoch"] != start["epoch"])
        assert b"<h1>main thread</h1>" in serving.get("/")
        serving.stop()
    finally:
        serving.kill()
    assert serving.proc.returncode == 0


def test_serve_reports_busy_port(tmp_path: Path, server: ServerHandle) -> None:
    from lessonkit.serve.dev import serve

    with pytest.raises(SystemExit, match="Cannot listen"):
        serve(ROOT, tmp_path, server.port, lambda: [], watch=False, initial_build=False)
