"""Local server for the built site: production headers, precompressed files, and a dev mode with live reload."""

from __future__ import annotations

import json
import os
import posixpath
import re
import stat
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO, Self, TextIO
from urllib.parse import parse_qs, unquote

from lessonkit import TOOLKIT
from lessonkit.hosting.headers import MARKER, content_type, headers_for, is_compressible, is_published, site_script_hashes
from lessonkit.hosting.pagestore import PageStore

HOST = "127.0.0.1"
# The names a request's Host header may give (with any port), beside the address the server is bound to: a page on
# any other name reached this server through DNS rebinding, and may not read the site or its problem stream (which
# names the author's files by their absolute paths).
LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")
_HOST_HEADER = re.compile(r"(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::[0-9]{1,5})?")
DEV_PREFIX = "/__lessonkit/"
DEV_SCRIPT_URL = DEV_PREFIX + "dev-reload.js"
EVENTS_URL = DEV_PREFIX + "events"
DEFAULT_DEV_SCRIPT = TOOLKIT / "static" / "js" / "page" / "dev-reload.js"
WATCH_DIRS = ("lesson", "lab", "templates", "static")
LONG_POLL_SECONDS = 25.0
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


class DevState:
    """Build state shared with open pages: `epoch` changes on every good build, `seq` on every report."""

    def __init__(self, on_epoch: Callable[[int], object] | None = None) -> None:
        # Start from the clock so a restarted server never reuses an epoch an open page already has.
        self.epoch = int(time.time() * 1000)
        self._on_epoch = on_epoch  # called with each new epoch, after pages waiting on it are woken
        self.seq = 0
        self.problems: list[str] = []
        self._closed = False
        self._cond = threading.Condition()

    def snapshot(self) -> dict[str, Any]:
        """Current state as the JSON body of `/__lessonkit/events`."""
        with self._cond:
            return {"epoch": self.epoch, "seq": self.seq, "problems": list(self.problems)}

    def publish(self, problems: list[str]) -> dict[str, Any]:
        """Report a rebuild: no problems = new epoch (pages reload); problems = banner, old site kept."""
        with self._cond:
            if not problems:
                self.epoch += 1
            self.problems = list(problems)
            self.seq += 1
            self._cond.notify_all()
            epoch = self.epoch
        if not problems and self._on_epoch is not None:
            self._on_epoch(epoch)
        return self.snapshot()

    def wait(self, epoch: int | None, seq: int | None, timeout: float = LONG_POLL_SECONDS) -> dict[str, Any]:
        """Block until the state differs from what the page has seen (or timeout), then return it."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._closed and epoch == self.epoch and seq == self.seq:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._cond.wait(remaining)
        return self.snapshot()

    def close(self) -> None:
        """Release every waiting long-poll (server shutting down)."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()


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
        self._hashes: tuple[tuple[int, int, int] | None, tuple[str, ...]] = (None, ())
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
            self._hashes = (stamp, site_script_hashes(self.site))
        return self._hashes[1]

    def headers_for(self, path: str) -> list[tuple[str, str]]:
        """The production headers of one site path, as this server sends them."""
        return headers_for(path, isolated=self.isolated, script_hashes=self.script_hashes())

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
        rel = _safe_relpath(path[len(base) - 1:])
        file = self._locate(rel) if rel is not None and is_published(rel) else None
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

    def _locate(self, rel: str) -> Path | None:
        site = self.server.site
        for attempt in range(2):
            if site.is_dir():
                break
            # A rebuild swaps site/ by renaming; give the swap a moment instead of answering 404.
            if attempt == 0:
                time.sleep(0.1)
        root = site.resolve()
        target = (root / rel).resolve() if rel else root
        if target != root and root not in target.parents:
            return None  # a symlink pointing out of the site
        if target.is_dir():
            if rel and not rel.endswith("/"):
                return target
            index = target / "index.html"
            return index if index.is_file() else None
        return target if target.is_file() else None

    # -- responses -------------------------------------------------------------------------------------------

    def _send_file(self, file: Path, *, head: bool, status: int = HTTPStatus.OK) -> None:
        site_path = file.relative_to(self.server.site.resolve()).as_posix()
        headers = self.server.headers_for(site_path)
        wants_br = _accepts_br(self.headers.get("Accept-Encoding", ""))
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
            if status == HTTPStatus.OK and _etag_matches(self.headers.get("If-None-Match"), etag):
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
            if status == HTTPStatus.OK and _etag_matches(self.headers.get("If-None-Match"), etag):
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
            body = _inject_dev_script(body, self.server.dev.epoch)
        self._send_bytes(HTTPStatus.NOT_FOUND, self.server.headers_for("404.html"), body,
                         head=head)

    def _dev_endpoint(self, path: str, query: str, *, head: bool) -> None:
        dev = self.server.dev
        if dev is None:
            self._not_found(head=head)
            return
        if path == DEV_SCRIPT_URL:
            headers = _no_store(self.server.headers_for("dev-reload.js"))
            self._send_bytes(HTTPStatus.OK, headers, self.server.dev_script.read_bytes(), head=head)
            return
        if path == EVENTS_URL:
            params = parse_qs(query)
            try:
                epoch = int(params["epoch"][0]) if "epoch" in params else None
                seq = int(params["seq"][0]) if "seq" in params else None
            except ValueError:
                self._send_simple(HTTPStatus.BAD_REQUEST, b"epoch and seq must be integers\n")
                return
            # A page that does not know the seq yet gets the current state at once (it may have problems).
            state = dev.snapshot() if seq is None else dev.wait(epoch, seq)
            body = json.dumps(state).encode()
            headers = _no_store(self.server.headers_for("events.json"))
            self._send_bytes(HTTPStatus.OK, headers, body, head=head)
            return
        self._not_found(head=head)


def _no_store(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Replace Cache-Control with no-store (dev endpoints change on every build)."""
    return [(n, "no-store" if n == "Cache-Control" else v) for n, v in headers]


def _safe_relpath(url_path: str) -> str | None:
    """Decoded, normalised site-relative path, or None if it could escape the site or names a hidden file."""
    try:
        path = unquote(url_path, errors="strict")
    except UnicodeDecodeError:
        return None
    if "\x00" in path or "\\" in path:
        return None
    trailing = path.endswith("/")
    parts = [p for p in path.split("/") if p not in ("", ".")]
    # Reject rather than normalise "..": a legitimate link never needs it.
    if any(p == ".." or p.startswith(".") for p in parts):
        return None
    rel = posixpath.join(*parts) if parts else ""
    return rel + "/" if trailing and rel else rel


def _accepts_br(accept_encoding: str) -> bool:
    """True if Accept-Encoding lists br with a non-zero q-value."""
    for item in accept_encoding.split(","):
        name, _, params = item.strip().partition(";")
        if name.strip().lower() != "br":
            continue
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    return float(value) > 0
                except ValueError:
                    return False
        return True
    return False


def _etag_matches(if_none_match: str | None, etag: str) -> bool:
    """Weak comparison of If-None-Match against our ETag (RFC 9110 13.1.2)."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    bare = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == bare for tag in if_none_match.split(","))


def _inject_dev_script(body: bytes, epoch: int) -> bytes:
    """Insert the live-reload module before </body> (dev responses only, never written to site files)."""
    tag = f'<script type="module" src="{DEV_SCRIPT_URL}?epoch={epoch}"></script>\n'.encode()
    at = body.lower().rfind(b"</body>")
    if at < 0:
        return body + tag
    return body[:at] + tag + body[at:]


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
    pages = PageStore(_inject_dev_script)
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


# -- dev mode: watcher + rebuild ---------------------------------------------------------------------------------

def _snapshot(paths: Iterable[Path]) -> dict[str, tuple[int, int]]:
    """(mtime_ns, size) of every watched file; editor droppings and caches are ignored."""
    seen: dict[str, tuple[int, int]] = {}
    for base in paths:
        if not base.exists():
            continue
        files = [base] if base.is_file() else base.rglob("*")
        for file in files:
            name = file.name
            if (name.startswith((".", "#")) or name.endswith(("~", ".swp", ".swx", ".pyc", ".tmp"))
                    or "__pycache__" in file.parts or "node_modules" in file.parts):
                continue
            try:
                st = file.stat()
            except OSError:
                continue  # deleted between listing and stat
            if stat.S_ISREG(st.st_mode):
                seen[str(file)] = (st.st_mtime_ns, st.st_size)
    return seen


class Watcher(threading.Thread):
    """Polls mtimes (stdlib only) and calls `on_change()` once edits have settled for `debounce` seconds.

    Nothing ends the loop but `stop()`: whatever a poll or `on_change` raises (SystemExit and KeyboardInterrupt
    included) goes to `on_error` and the next edit is watched for as before.
    """

    def __init__(self, paths: Iterable[Path], on_change: Callable[[], object], *, interval: float = 0.25,
                 debounce: float = 0.2, on_error: Callable[[BaseException], object] | None = None) -> None:
        super().__init__(name="lessonkit-watch", daemon=True)
        self.paths = [Path(p) for p in paths]
        self.on_change = on_change
        self.on_error = on_error
        self.interval = interval
        self.debounce = debounce
        self._stop_event = threading.Event()
        self._last: dict[str, tuple[int, int]] | None = None
        self._changed_at: float | None = None

    def start(self) -> None:
        """Note the state of the files now, then poll: an edit saved before the first poll is an edit too."""
        try:
            self._last = _snapshot(self.paths)
        except BaseException as exc:  # the first poll takes the state instead
            self._report(exc)
        super().start()

    def run(self) -> None:
        """Poll loop; a burst of saves (editor save-all) leads to one rebuild."""
        while True:
            try:
                self._poll()
            except BaseException as exc:  # a dead watcher would leave the author editing blind
                self._report(exc)
            if self._stop_event.wait(self.interval):
                return

    def _poll(self) -> None:
        current = _snapshot(self.paths)
        if self._last is None:
            self._last = current  # the state when watching started
            return
        if current != self._last:
            self._last = current
            self._changed_at = time.monotonic()
            return
        if self._changed_at is not None and time.monotonic() - self._changed_at >= self.debounce:
            self._changed_at = None  # before the call: a failing rebuild is retried on the next edit, not forever
            self.on_change()
            # Edits made during the rebuild show up as a difference on the next poll.

    def _report(self, exc: BaseException) -> None:
        """Hand `exc` to on_error, else (or if that fails too) print it; never raise (that would end the loop)."""
        for report in (self.on_error, lambda e: traceback.print_exception(e, file=sys.stderr)):
            if report is None:
                continue
            try:
                report(exc)
                return
            except BaseException:  # noqa: S112 (try the next way of reporting it)
                continue

    def stop(self) -> None:
        """Ask the loop to end (returns at once)."""
        self._stop_event.set()


def run_rebuild(rebuild: Callable[[], list[str]], dev: DevState | None, *, out: TextIO | None = None) -> list[str]:
    """Call `rebuild`, turn crashes into problems, report to the terminal and to open pages.

    Anything `rebuild` raises is a problem, BaseException included (a lab calling sys.exit() must not end the dev
    server), except KeyboardInterrupt on the main thread: that is the author's Ctrl-C.
    """
    out = out if out is not None else sys.stderr
    started = time.perf_counter()
    try:
        problems = [str(problem) for problem in rebuild()]
    except KeyboardInterrupt:
        if threading.current_thread() is threading.main_thread():
            raise
        problems = [_crash_report(sys.exc_info()[1], out)]
    except BaseException as exc:  # a build bug or a hostile lab must not kill the dev server
        problems = [_crash_report(exc, out)]
    took = time.perf_counter() - started
    try:
        if problems:
            print(f"Build failed ({len(problems)} problem{'s' if len(problems) != 1 else ''}); "
                  "still serving the last good build:", file=out)
            for problem in problems:
                print(f"  {problem}", file=out)
        else:
            print(f"Rebuilt in {took:.2f} s; reloading open pages.", file=out)
        out.flush()
    finally:
        if dev is not None:  # the page's banner hears of it even if the terminal is gone
            dev.publish(problems)
    return problems


def report_crash(exc: BaseException, dev: DevState | None, out: TextIO) -> None:
    """Something outside a rebuild failed (the watcher's own polling): terminal and open pages hear of it."""
    problem = _crash_report(exc, out, what="the file watcher failed")
    print(f"  {problem} (still watching)", file=out, flush=True)
    if dev is not None:
        dev.publish([problem])


def _crash_report(exc: BaseException | None, out: TextIO, what: str = "build crashed") -> str:
    """Print the traceback to the terminal; return the one-line problem for the page."""
    try:
        traceback.print_exception(exc, file=out)
    except BaseException:  # noqa: S110 (a hostile __str__ may raise anything; the one-line problem still gets out)
        pass
    if exc is None:
        return what
    try:
        message = str(exc)
    except BaseException:  # an exception whose str() fails is still reported
        message = "<the exception's message could not be shown>"
    return f"{what}: {type(exc).__name__}" + (f": {message}" if message else "")


def serve(root: Path, site: Path, port: int, rebuild: Callable[[], list[str]], *, isolated: bool = True,
          watch: bool = True, initial_build: bool = True, watch_paths: Iterable[Path] | None = None,
          out: TextIO | None = None, base: str = "/") -> None:
    """Run the local server until Ctrl-C; with `watch`, rebuild on edits and live-reload open pages.

    `watch_paths` defaults to lesson/, lab/, templates/ and static/ under `root`; `initial_build=False` when the
    caller has just built.
    """
    out = out if out is not None else sys.stdout
    root, site = Path(root), Path(site)
    dev_script = root / "static" / "js" / "page" / "dev-reload.js"
    if not dev_script.is_file():
        dev_script = DEFAULT_DEV_SCRIPT
    try:
        handle = start_server(site, port, isolated=isolated, dev=watch, dev_script=dev_script, echo=out, base=base)
    except OSError as exc:
        raise SystemExit(f"Cannot listen on {HOST}:{port}: {exc.strerror or exc}. "
                         f"Try another port, e.g. --port {port + 1}.") from exc
    watcher: Watcher | None = None
    # Rebuilds run here, on the main thread, where the build's time limit on markdown (lessonkit.content.bounds) has its
    # alarm; the watcher only asks for them. Edits saved during a rebuild ask for one more, after it.
    wanted = threading.Event()
    try:
        if initial_build:
            run_rebuild(rebuild, handle.dev, out=out)
        if watch:
            paths = list(watch_paths) if watch_paths is not None else [root / d for d in WATCH_DIRS]
            watcher = Watcher(paths, wanted.set, on_error=lambda exc: report_crash(exc, handle.dev, out))
            watcher.start()
        mode = ", ".join(filter(None, [
            "live reload" if watch else "no watcher",
            "cross-origin isolated" if isolated else "not isolated",
        ]))
        print(f"Serving {site} at {handle.url} ({mode}). Press Ctrl-C to stop.", file=out, flush=True)
        while True:
            if wanted.wait(0.5):  # short waits keep Ctrl-C responsive
                wanted.clear()
                run_rebuild(rebuild, handle.dev, out=out)
    except KeyboardInterrupt:
        print("\nStopped.", file=out, flush=True)
    finally:
        if watcher is not None:
            watcher.stop()
        handle.stop()
