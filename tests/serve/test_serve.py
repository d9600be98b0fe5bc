"""Server and header rules, against a small fake site (fake_site.py; no browser)."""


from __future__ import annotations

import http.client
import socket
import struct
import threading
import time
from email.message import Message
from pathlib import Path

import brotli
import pytest
from fake_site import HASH, PYO, WASM, WHEEL, fetch, until

from lessonkit.hosting import headers as H  # noqa: N812 (short name for many asserts)
from lessonkit.serve.files import safe_relpath
from lessonkit.serve.server import ServerHandle, start_server

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

            headers, body = until(compressed, "the page's brotli copy")  # type: ignore[misc]
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

    first = until(brotli_page, "the first build's page compressed")
    assert f"epoch={dev_server.dev.epoch}".encode() in first  # type: ignore[operator]
    (site / "second.html").write_text("<html><body><p>rebuilt</p></body></html>", encoding="utf-8")
    epoch = dev_server.publish([])["epoch"]

    def rebuilt_page() -> bool:
        page = brotli_page()
        return page is not None and b"rebuilt" in page and f"epoch={epoch}".encode() in page

    until(rebuilt_page, "the new build's page compressed")
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
