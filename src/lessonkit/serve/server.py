"""Local server for the built site: production headers (lessonkit.hosting.headers), site files and their
precompressed twins (lessonkit.serve.files), and in dev mode the live-reload script and the build's state for open
pages (lessonkit.serve.devendpoints). The watcher and rebuilds of `lessonkit serve` are lessonkit.serve.dev."""

from __future__ import annotations

import os
import re
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO, Self, TextIO

from lessonkit.hosting.headers import (
    MARKER,
    content_type,
    headers_for,
    is_compressible,
    is_published,
    site_connect_sources,
    site_script_hashes,
)
from lessonkit.serve.devendpoints import DEFAULT_DEV_SCRIPT, DEV_PREFIX, dev_reply, inject_dev_script, no_store
from lessonkit.serve.events import DevState
from lessonkit.serve.files import accepts_br, etag_matches, locate, safe_relpath
from lessonkit.serve.pagestore import PageStore

HOST = "127.0.0.1"
# The names a request's Host header may give (with any port), beside the address the server is bound to: a page on
# any other name reached this server through DNS rebinding, and may not read the site or its problem stream (which
# names the author's files by their absolute paths).
LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")
_HOST_HEADER = re.compile(r"(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::[0-9]{1,5})?")
_CHUNK = 256 * 1024

NOT_FOUND_HTML = """<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Page not found</title></head>
<body>
<main>
<h1>Page not found</h1>
<p>There is no page at this address. <a href="{base}">Go to the course</a>.</p>
</main>
</body>
</html>
"""


class _Server(ThreadingHTTPServer):
    """ThreadingHTTPServer (a thread per connection) carrying the site configuration for its handlers."""

    # Long-polls and idle keep-alive connections must not block shutdown (server_close would join them).
    daemon_threads = True
    block_on_close = False
    # listen() backlog: connections the kernel completes while the accept loop catches up. socketserver's default
    # of 5 drops or resets a burst of clients (a page and its workers, a class opening a link at once); Linux caps
    # this at net.core.somaxconn.
    request_queue_size = 1024

    def __init__(self, port: int, site: Path, *, isolated: bool, dev: DevState | None, pages: PageStore,
                 dev_script: Path, log: list[tuple[str, str, int]], echo: TextIO | None, base: str = "/",
                 host: str = HOST) -> None:
        self.site = site
        self.hosts = {*LOCAL_NAMES, f"[{host.lower()}]" if ":" in host else host.lower()}  # what Host may name
        self.base = base  # the folder the site is served at ("/course/"), as a host publishing it there would
        self.isolated = isolated
        self.dev = dev
        self.pages = pages
        self.dev_script = dev_script
        self.log = log
        self.echo = echo
        self._hashes: tuple[tuple[int, int, int] | None, tuple[str, ...], tuple[str, ...]] = (None, (), ())
        super().__init__((host, port), _Handler)

    def script_hashes(self) -> tuple[str, ...]:
        """The inline-script hashes of the build being served (its marker's), for the CSP: read again when a
        rebuild replaces the site."""
        try:
            st = (self.site / MARKER).stat()
            stamp: tuple[int, int, int] | None = (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            stamp = None
        if stamp != self._hashes[0]:
            self._hashes = (stamp, site_script_hashes(self.site), site_connect_sources(self.site))
        return self._hashes[1]

    def connect_sources(self) -> tuple[str, ...]:
        """The origins besides its own the served build's pages may connect to (its marker's)."""
        self.script_hashes()
        return self._hashes[2]

    def headers_for(self, path: str) -> list[tuple[str, str]]:
        """The production headers of one site path, as this server sends them."""
        return headers_for(path, isolated=self.isolated, script_hashes=self.script_hashes(),
                           connect=self.connect_sources())

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up (a browser resetting an idle keep-alive connection) is not an error to print."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    """GET/HEAD for static files with production headers; dev endpoints under /__lessonkit/."""

    server: _Server
    protocol_version = "HTTP/1.1"  # keep-alive: every response carries Content-Length

    def version_string(self) -> str:
        """Server header without the Python version."""
        return "lessonkit"
    timeout = 60  # idle keep-alive connections are dropped eventually (long-polls last 25 s)

    def setup(self) -> None:
        """Remember the socket's own writer (see `_send_body`)."""
        super().setup()
        self._socket_writer = self.wfile

    def log_message(self, fmt: str, *args: Any) -> None:
        """Silence the default stderr access log; `serve` prints only errors."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """Record (method, path, status) for tests and echo failures to the terminal."""
        status = int(code) if isinstance(code, int) else 0
        # Malformed requests are answered before command/path are parsed.
        method, path = getattr(self, "command", None) or "", getattr(self, "path", None) or ""
        self.server.log.append((method, path, status))
        quiet = path.startswith(DEV_PREFIX) or path == "/favicon.ico"  # browser noise, not author errors
        if self.server.echo is not None and status >= 400 and not quiet:
            print(f"  {status} {method} {path}", file=self.server.echo, flush=True)

    def parse_request(self) -> bool:
        """The stdlib's parsing, then the Host check: a request for another name is answered 403, whatever it asks."""
        if not super().parse_request():
            return False
        if not self.path.startswith("/"):
            return True  # a proxy's request (absolute form): refused as such
        hosts = self.headers.get_all("Host") or []
        if len(hosts) != 1:
            self._send_simple(HTTPStatus.BAD_REQUEST, b"Bad request: a request names its Host once\n")
            return False
        name = _HOST_HEADER.fullmatch(hosts[0].strip().lower())
        if name is None or name.group(1) not in self.server.hosts:
            self._send_simple(HTTPStatus.FORBIDDEN, b"Forbidden: this server answers requests for 127.0.0.1, "
                              b"localhost and [::1] only (a page of another address may not read it)\n")
            return False
        return True

    def do_GET(self) -> None:
        """Serve a file or a dev endpoint."""
        try:
            self._dispatch(head=False)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the browser navigated away mid-response

    def do_HEAD(self) -> None:
        """Same as GET without the body."""
        try:
            self._dispatch(head=True)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _method_not_allowed(self) -> None:
        self._send_simple(HTTPStatus.METHOD_NOT_ALLOWED, b"Method not allowed\n", extra=[("Allow", "GET, HEAD")])

    # Other methods: 405 instead of the stdlib's 501, and keep the connection usable.
    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _method_not_allowed  # noqa: N815 (stdlib naming)

    # -- routing ---------------------------------------------------------------------------------------------

    def _dispatch(self, *, head: bool) -> None:
        if not self.path.startswith("/"):
            # Absolute-form targets are proxy requests; this is not a proxy.
            self._send_simple(HTTPStatus.BAD_REQUEST, b"Bad request\n")
            return
        # Not urlsplit: it would read "//x/y" as host "x".
        path, _, query = self.path.split("#", 1)[0].partition("?")
        if path.startswith(DEV_PREFIX):
            self._dev_endpoint(path, query, head=head)
            return
        base = self.server.base
        if not path.startswith(base):
            if path + "/" == base:  # the folder's address without its slash, as a host redirects it
                self._send_simple(HTTPStatus.MOVED_PERMANENTLY, b"Moved\n",
                                  extra=[("Location", base + (f"?{query}" if query else ""))])
            else:
                self._not_found(head=head)
            return
        rel = safe_relpath(path[len(base) - 1:])
        file = locate(self.server.site, rel) if rel is not None and is_published(rel) else None
        if file is None:
            self._not_found(head=head)
            return
        if file.is_dir():
            # Relative asset URLs only work from "dir/", as nginx does it.
            location = path + "/" + (f"?{query}" if query else "")
            self._send_simple(HTTPStatus.MOVED_PERMANENTLY, b"Moved\n", extra=[("Location", location)])
            return
        try:
            self._send_file(file, head=head)
        except FileNotFoundError:
            self._not_found(head=head)  # removed by a rebuild between lookup and open

    # -- responses -------------------------------------------------------------------------------------------

    def _send_file(self, file: Path, *, head: bool, status: int = HTTPStatus.OK) -> None:
        site_path = file.relative_to(self.server.site.resolve()).as_posix()
        headers = self.server.headers_for(site_path)
        wants_br = accepts_br(self.headers.get("Accept-Encoding", ""))
        if content_type(site_path).startswith("text/html"):
            dev = self.server.dev
            page = self.server.pages.get(file, None if dev is None else dev.epoch)
            body, etag = page.body, page.etag
            packed = page.brotli  # None until the compressor has done this page: send it as it is meanwhile
            if wants_br and packed is not None:
                body, etag = packed, page.etag_br
                headers.append(("Content-Encoding", "br"))
            self._send_bytes(status, headers, body, head=head, etag=etag)
            return
        compressed = file.with_name(file.name + ".br")
        has_br = compressed.is_file()
        if has_br and not is_compressible(site_path):
            headers.append(("Vary", "Accept-Encoding"))
        source = compressed if has_br and wants_br else file
        # Open first and describe what was opened: a rebuild may swap the site between lookup and send.
        with source.open("rb") as fh:
            info = os.fstat(fh.fileno())
            etag = f'"{info.st_size:x}-{info.st_mtime_ns:x}{"-br" if source is compressed else ""}"'
            if source is compressed:
                headers.append(("Content-Encoding", "br"))
            headers.append(("ETag", etag))
            if status == HTTPStatus.OK and etag_matches(self.headers.get("If-None-Match"), etag):
                self._send_headers(HTTPStatus.NOT_MODIFIED, headers, length=None)
                return
            self._send_headers(status, headers, length=info.st_size)
            if not head:
                self._send_body(fh, info.st_size)

    def _send_body(self, fh: BinaryIO, size: int) -> None:
        """Copy `size` bytes of an open file to the client; zero-copy `sendfile` on a plain socket."""
        if self.wfile is self._socket_writer:
            sent = self.connection.sendfile(fh, 0, size)
        else:  # wfile was wrapped (e.g. to meter bytes): keep going through it
            sent = 0
            while chunk := fh.read(min(_CHUNK, size - sent)):
                self.wfile.write(chunk)
                sent += len(chunk)
        if sent != size:
            self.close_connection = True  # the file shrank under us; the client sees a short body, not a hang

    def _send_bytes(self, status: int, headers: list[tuple[str, str]], body: bytes, *, head: bool,
                    etag: str | None = None) -> None:
        if etag is not None:
            headers = [*headers, ("ETag", etag)]
            if status == HTTPStatus.OK and etag_matches(self.headers.get("If-None-Match"), etag):
                self._send_headers(HTTPStatus.NOT_MODIFIED, headers, length=None)
                return
        self._send_headers(status, headers, length=len(body))
        if not head:
            self.wfile.write(body)

    def _send_headers(self, status: int, headers: Iterable[tuple[str, str]], *, length: int | None) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.end_headers()

    def _send_simple(self, status: int, body: bytes, *, extra: Iterable[tuple[str, str]] = ()) -> None:
        headers = self.server.headers_for("error.txt")
        self._send_headers(status, [*headers, *extra], length=len(body))
        if self.command != "HEAD":
            self.wfile.write(body)

    def _not_found(self, *, head: bool) -> None:
        site = self.server.site
        page = site / "404.html"
        if page.is_file():
            body = page.read_bytes()
        else:
            body = NOT_FOUND_HTML.replace("{base}", self.server.base).encode()
        if self.server.dev is not None:
            # Dev pages that 404 (e.g. a lesson being written) still get the reload channel.
            body = inject_dev_script(body, self.server.dev.epoch)
        self._send_bytes(HTTPStatus.NOT_FOUND, self.server.headers_for("404.html"), body,
                         head=head)

    def _dev_endpoint(self, path: str, query: str, *, head: bool) -> None:
        dev = self.server.dev
        if dev is None:
            self._not_found(head=head)
            return
        reply = dev_reply(dev, path, query, self.server.dev_script)
        if reply is None:
            self._not_found(head=head)
        elif reply.simple:
            self._send_simple(reply.status, reply.body)
        else:
            headers = no_store(self.server.headers_for(reply.headers_of))
            self._send_bytes(reply.status, headers, reply.body, head=head)


@dataclass
class ServerHandle:
    """A running server thread: `.url`, `.port`, `.log` of (method, path, status); `.stop()` when done."""

    site: Path
    port: int
    url: str
    isolated: bool
    dev: DevState | None
    log: list[tuple[str, str, int]]
    _server: _Server = field(repr=False)
    _thread: threading.Thread = field(repr=False)

    @property
    def address(self) -> tuple[str, int]:
        """The bound (host, port)."""
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    def publish(self, problems: list[str]) -> dict[str, Any]:
        """Dev mode: report a rebuild result to open pages (see DevState.publish)."""
        if self.dev is None:
            raise RuntimeError("publish() needs a server started with dev=True")
        return self.dev.publish(problems)

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self.dev is not None:
            self.dev.close()
        self._server.pages.close()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_server(site: Path, port: int = 0, *, isolated: bool = True, dev: bool = False,
                 dev_script: Path = DEFAULT_DEV_SCRIPT, echo: TextIO | None = None, base: str = "/",
                 host: str = HOST) -> ServerHandle:
    """Serve `site` at `base` ("/" or a folder like "/course/") on `host`:`port` (0 = any free port) in a thread.

    Under a folder, everything outside it answers 404 (its address without the slash redirects to it), as on a host
    that publishes the site there; `.url` is the folder's. A request whose Host header names anything but
    LOCAL_NAMES or `host` is answered 403, dev endpoints included.
    """
    log: list[tuple[str, str, int]] = []
    site = Path(site)
    pages = PageStore(inject_dev_script)
    state = DevState(on_epoch=lambda epoch: pages.warm(site, epoch)) if dev else None
    server = _Server(port, site, isolated=isolated, dev=state, pages=pages, dev_script=Path(dev_script), log=log,
                     echo=echo, base=base, host=host)
    pages.warm(site, None if state is None else state.epoch)
    bound = int(server.server_address[1])
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                              name=f"lessonkit-serve-{bound}", daemon=True)
    thread.start()
    return ServerHandle(site=Path(site), port=bound, url=f"http://{host}:{bound}{base}", isolated=isolated, dev=state,
                        log=log, _server=server, _thread=thread)
