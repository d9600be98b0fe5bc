"""Benchmark servers: byte/request metering and link shaping for both our server and the naive baseline, and a
burst of concurrent clients against our server (`concurrent_load`, also used by tests/test_serve_load.py)."""

from __future__ import annotations

import functools
import hashlib
import http.client
import json
import os
import re
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO, ClassVar

import brotli

from lessonkit.serve.server import ServerHandle, start_server

# Writes are cut into pieces this size so concurrent responses interleave on the shared link, as on a real one.
_SLICE = 16 * 1024


@dataclass(frozen=True)
class Shaping:
    """A shared link: `rate` bytes/s for every connection together, `rtt` seconds per connection and per request."""

    rate: float = 20e6 / 8  # 20 Mbit/s
    rtt: float = 0.040


@dataclass
class Hit:
    """One request as the server saw it: what was asked and how many bytes went back (headers + body)."""

    method: str
    path: str
    status: int
    bytes: int
    end: float
    encoding: str = ""


class Link:
    """One FIFO link shared by every connection: a write waits until the bytes queued before it have left."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free_at = 0.0

    def transmit(self, size: int, rate: float) -> None:
        """Block the writer for as long as `size` bytes take behind everything already queued."""
        with self._lock:
            now = time.monotonic()
            start = max(now, self._free_at)
            self._free_at = start + size / rate
            done = self._free_at
        time.sleep(max(0.0, done - time.monotonic()))


@dataclass
class Meter:
    """Server-side counters; workers' requests are counted too (the browser-side view can miss them)."""

    hits: list[Hit] = field(default_factory=list)
    shaping: Shaping | None = None
    link: Link = field(default_factory=Link)
    last_activity: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def mark(self) -> int:
        """A position to count from (see `since`)."""
        with self.lock:
            return len(self.hits)

    def since(self, mark: int) -> list[Hit]:
        """Requests finished after `mark`."""
        with self.lock:
            return list(self.hits[mark:])

    def record(self, hit: Hit) -> None:
        """Add one finished request."""
        with self.lock:
            self.hits.append(hit)
            self.last_activity = time.monotonic()

    def touch(self) -> None:
        """Note that bytes are moving (a long download counts as activity before it finishes)."""
        self.last_activity = time.monotonic()

    def wait_idle(self, quiet: float = 0.5, limit: float = 5.0) -> None:
        """Wait until no byte has moved for `quiet` seconds (late or background requests belong to the visit)."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            idle = time.monotonic() - self.last_activity
            if idle >= quiet:
                return
            time.sleep(quiet - idle)


class MeteredWriter:
    """Stands in for a handler's `wfile`: counts every byte and, when shaping, paces it through the link."""

    def __init__(self, raw: BinaryIO, meter: Meter) -> None:
        self.raw = raw
        self.meter = meter
        self.count = 0

    @property
    def closed(self) -> bool:
        """Mirror the socket writer (StreamRequestHandler.finish checks it)."""
        return bool(self.raw.closed)

    def write(self, data: bytes | bytearray | memoryview) -> int:
        """Send `data`, slice by slice when the link is shaped."""
        view = memoryview(data)
        shaping = self.meter.shaping
        step = _SLICE if shaping else max(len(view), 1)
        for at in range(0, len(view), step):
            piece = view[at:at + step]
            if shaping:
                self.meter.link.transmit(len(piece), shaping.rate)
            self.raw.write(piece)
            self.count += len(piece)
            self.meter.touch()
        return len(view)

    def flush(self) -> None:
        """Pass through."""
        self.raw.flush()

    def close(self) -> None:
        """Pass through."""
        self.raw.close()


def metered(handler: type, meter: Meter) -> type:
    """Subclass a request handler so it counts bytes and requests and, when shaping, adds the RTTs."""

    class Metered(handler):  # type: ignore[misc, valid-type]
        _bench_status = 0
        _bench_encoding = ""

        def setup(self) -> None:
            super().setup()
            self.wfile = MeteredWriter(self.wfile, meter)
            if meter.shaping:
                time.sleep(meter.shaping.rtt)  # TCP handshake on a new connection

        def parse_request(self) -> bool:
            ok = bool(super().parse_request())
            if meter.shaping:
                time.sleep(meter.shaping.rtt)  # request up, first byte down
            return ok

        def send_response(self, code: int, message: str | None = None) -> None:
            self._bench_status = int(code)
            self._bench_encoding = ""
            super().send_response(code, message)

        def send_header(self, keyword: str, value: str) -> None:
            if keyword.lower() == "content-encoding":
                self._bench_encoding = value
            super().send_header(keyword, value)

        def handle_one_request(self) -> None:
            before = self.wfile.count
            self._bench_status, self._bench_encoding = 0, ""
            super().handle_one_request()
            if self.raw_requestline:
                meter.record(Hit(self.command or "", self.path or "", self._bench_status,
                                 self.wfile.count - before, time.monotonic(), self._bench_encoding))

    return Metered


def start_ours(site: Path, meter: Meter) -> ServerHandle:
    """Our production server (start_server, isolated) with the meter spliced into its handler."""
    handle = start_server(site, 0, isolated=True, dev=False)
    # start_server has no hook for a handler class; socketserver builds one handler per request from
    # RequestHandlerClass, so swapping it after start is safe. (Asked the SERVE helper for a public hook.)
    server: Any = handle._server
    server.RequestHandlerClass = metered(server.RequestHandlerClass, meter)
    return handle


class NaiveHandler(SimpleHTTPRequestHandler):
    """`python -m http.server` as shipped: HTTP/1.0, Last-Modified only, no Cache-Control, no compression."""

    # http.server guesses types from the OS table; pin the two Pyodide cannot live without.
    extensions_map: ClassVar[dict[str, str]] = {**SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm",
                                                ".mjs": "text/javascript", ".js": "text/javascript"}

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the meter records every request."""


@dataclass
class NaiveServer:
    """A running naive static server; `.url` and `.stop()` like ServerHandle."""

    url: str
    stop: Callable[[], None]


def start_naive(folder: Path, meter: Meter) -> NaiveServer:
    """Serve `folder` like `python -m http.server` on 127.0.0.1, metered."""
    handler = functools.partial(metered(NaiveHandler, meter), directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    thread.start()

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

    return NaiveServer(f"http://127.0.0.1:{server.server_address[1]}/", stop)


# -- page variants ------------------------------------------------------------------------------------------------

_LAB_SECTION = re.compile(r'<section class="lab"[^>]*>.*?</section>\s*', re.S)
_LAB_CSS = re.compile(r'<link rel="stylesheet" href="[^"]*/css/lab\.css">\s*')
_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>\s*", re.S)
_CSP_META = re.compile(r'<meta http-equiv="Content-Security-Policy"[^>]*>\s*', re.I)
_MODULEPRELOAD = re.compile(r'<link rel="modulepreload"[^>]*>\s*')


_MANIFEST = re.compile(r'<script type="application/json" id="course-manifest">(.*?)</script>', re.S)


_LESSON_DATA = re.compile(r'<script type="application/json" id="lesson-data">(.*?)</script>', re.S)


def lesson_page(site: Path) -> str:
    """The first lesson's page, as the course index's manifest names it (index.html is the course's index)."""
    found = _MANIFEST.search((site / "index.html").read_text(encoding="utf-8"))
    if not found:
        raise RuntimeError("index.html has no course manifest")
    return str(json.loads(found.group(1))["lessons"][0]["href"])


def package_page(site: Path) -> str | None:
    """The first lesson page (in course order) whose lab loads Pyodide packages (`requires: [numpy]`), if any."""
    found = _MANIFEST.search((site / "index.html").read_text(encoding="utf-8"))
    for lesson in json.loads(found.group(1))["lessons"] if found else []:
        data = _LESSON_DATA.search((site / lesson["href"]).read_text(encoding="utf-8"))
        if data and (json.loads(data.group(1)).get("runtime") or {}).get("packages"):
            return str(lesson["href"])
    return None


def write_nolab_page(site: Path, name: str = "nolab.html") -> str:
    """Copy the first lesson without its lab: no lab section (so main.js never imports lab.js) and no lab.css."""
    html = (site / lesson_page(site)).read_text(encoding="utf-8")
    stripped = _LAB_CSS.sub("", _LAB_SECTION.sub("", html))
    if stripped == html:
        raise RuntimeError(f"{lesson_page(site)} has no lab section to remove")
    (site / name).write_text(stripped, encoding="utf-8")
    return name


NAIVE_LAB = """<section class="lab" data-lab="naive" data-lab-state="loading">
  <label for="naive-code">Lab code (scaled_softmax.py)</label>
  <textarea id="naive-code" data-lab-code spellcheck="false" rows="24">{code}</textarea>
  <p><button type="button" data-lab-run disabled>Run</button>
     <span data-lab-status role="status">Loading Python…</span></p>
  <pre data-lab-pre></pre>
</section>
"""

# The docs' pattern: loadPyodide() on the main thread as the page loads, and runPython() of the lab's code on Run. The
# code imports labkit: the page unpacks the wheel our page installs (LABKIT, its URL; null when the page has none) as
# our worker does, fetched while Pyodide loads, and each run starts with no charts drawn, as labkit's runner starts
# one (without it, labkit's limit of charts a run fails the fifth run). It emits the same lab:state / lab:result
# events as our lab so one harness measures both.
NAIVE_SCRIPT = """<script>
(function () {
  const LABKIT = __LABKIT__;
  const wheel = LABKIT ? fetch(LABKIT).then((r) => r.arrayBuffer()) : null;
  const section = document.querySelector("[data-lab]");
  const code = section.querySelector("[data-lab-code]");
  const run = section.querySelector("[data-lab-run]");
  const status = section.querySelector("[data-lab-status]");
  const pre = section.querySelector("[data-lab-pre]");
  const emit = (name, detail) => section.dispatchEvent(new CustomEvent(name, { detail, bubbles: true }));
  loadPyodide().then(async (pyodide) => {
    if (wheel) pyodide.unpackArchive(new Uint8Array(await wheel), "wheel");
    const startRun = wheel ? "import labkit._chart\\nlabkit._chart.start_run()" : "";
    let out = "";
    pyodide.setStdout({ batched: (line) => { out += line + "\\n"; } });
    run.addEventListener("click", () => {
      const t0 = performance.now();
      out = "";
      let ok = true;
      try {
        if (startRun) pyodide.runPython(startRun);
        pyodide.runPython(code.value, { filename: "scaled_softmax.py" });
      } catch (err) {
        ok = false;
        out += String(err);
      }
      pre.textContent = out;
      const ms = performance.now() - t0;
      status.textContent = "Run finished in " + Math.round(ms) + " ms";
      emit("lab:result", { ok, stdout: out, ms });
    });
    run.disabled = false;
    section.dataset.labState = "ready";
    status.textContent = "Ready";
    emit("lab:state", { state: "ready" });
  });
})();
</script>
"""


def write_naive_site(site: Path, pyodide_dir: Path, lab_code: str, folder: Path) -> None:
    """The naive baseline: our lesson's text, CSS and static files (no scripts), the pinned Pyodide from npm in a
    plain <script> in head, and the labkit wheel our page installs (the lab's code imports labkit)."""
    html = (site / lesson_page(site)).read_text(encoding="utf-8")
    data = _LESSON_DATA.search(html)
    labkit = (json.loads(data.group(1)).get("runtime") or {}).get("labkit") if data else None
    code = lab_code.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    body = _SCRIPT.sub("", _MODULEPRELOAD.sub("", _CSP_META.sub("", html)))
    lab = NAIVE_LAB.format(code=code)
    body, found = _LAB_SECTION.subn(lambda _m: lab, body, count=1)
    if not found:
        raise RuntimeError(f"{lesson_page(site)} has no lab section to replace")
    body = body.replace("</head>", '<script src="pyodide/pyodide.js"></script>\n</head>', 1)
    body = body.replace("</body>", NAIVE_SCRIPT.replace("__LABKIT__", json.dumps(labkit)) + "</body>", 1)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "index.html").write_text(body, encoding="utf-8")
    for static in (site / "static").iterdir():  # the stylesheet and the course's own files (its favicon), no scripts
        if static.is_dir():
            shutil.copytree(static, folder / static.relative_to(site), dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("js", "*.js", "*.mjs", "*.map", "*.br"))
    if labkit:
        (folder / labkit).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(site / labkit, folder / labkit)
    shutil.copytree(pyodide_dir, folder / "pyodide", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("*.map", "*.d.ts", "*.html", "*.md", "package.json"))
    # A deployed site's files are older than the visit; with Last-Modified "now" Chrome's heuristic freshness
    # would be zero and the warm revisit would revalidate everything, which is not what http.server users see.
    day_ago = time.time() - 86400
    for path in folder.rglob("*"):
        os.utime(path, (day_ago, day_ago))


# -- a burst of concurrent clients --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Expected:
    """A path the clients fetch and what a correct answer is: the sha256 of its body, and of its .br file if any."""

    path: str
    identity: str
    br: str | None = None  # None: brotli answers are decompressed and compared with `identity` (pages)


@dataclass
class LoadResult:
    """What the clients saw: errors (one line each), seconds per request by path, encodings by path."""

    clients: int
    errors: list[str] = field(default_factory=list)
    seconds: dict[str, list[float]] = field(default_factory=dict)
    encodings: dict[str, dict[str, int]] = field(default_factory=dict)

    def quantile(self, path: str, q: float) -> float | None:
        """The q-quantile (0.5, 0.99) of one path's request times; None when none finished."""
        values = self.seconds.get(path, [])
        if len(values) < 2:
            return values[0] if values else None
        return statistics.quantiles(values, n=100, method="inclusive")[round(q * 100) - 1]


def expected_file(site: Path, path: str) -> Expected:
    """The expected answer for a file sent as it is on disk (and its .br sibling when there is one)."""
    file = site / path.lstrip("/")
    packed = file.with_name(file.name + ".br")
    return Expected(path, _sha(file.read_bytes()), _sha(packed.read_bytes()) if packed.is_file() else None)


def expected_page(port: int, path: str = "/") -> Expected:
    """The expected answer for a page, as the server sends it (dev mode adds its script), once it is compressed.

    A page's brotli copy is made in the background; this asks until it is there (or gives up after a while, and
    the load then sees plain answers to brotli requests, which the caller can count)."""
    body = _get(port, path)[1]
    for _ in range(200):
        if _get(port, path, {"Accept-Encoding": "br"})[0] == "br":
            break
        time.sleep(0.05)
    return Expected(path, _sha(body))


def _get(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[str, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path, headers=headers or {})
        resp = conn.getresponse()
        body = resp.read()
        if resp.status != 200:
            raise RuntimeError(f"GET {path}: status {resp.status}")
        return resp.getheader("Content-Encoding", "identity"), body
    finally:
        conn.close()


def server_load(site: Path, clients: int = 200) -> dict[str, float]:
    """The dev server (`lessonkit serve`) under `clients` concurrent clients fetching the page and the wasm: p50/p99
    per path in ms, and the number of errors."""
    wasm = "/" + next(site.glob("runtime/*/pyodide.asm.wasm")).relative_to(site).as_posix()
    with start_server(site, dev=True) as handle:
        result = concurrent_load(handle.port, [expected_page(handle.port), expected_file(site, wasm)], clients)
    figures = {"load_errors": float(len(result.errors))}
    for name, path in (("page", "/"), ("wasm", wasm)):
        for q in (50, 99):
            value = result.quantile(path, q / 100)
            if value is not None:
                figures[f"load_{name}_p{q}"] = 1000 * value
    return figures


def concurrent_load(port: int, expected: list[Expected], clients: int = 200, *, timeout: float = 120.0) -> LoadResult:
    """`clients` connections opened at the same instant, each GETting every path in turn (keep-alive); even-numbered
    clients send `Accept-Encoding: br`. The clients run in their own process so they never compete with an
    in-process server for the interpreter lock. `timeout` only catches a hang: the result counts errors."""
    spec = {"port": port, "clients": clients, "timeout": timeout, "expected": [e.__dict__ for e in expected]}
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "load"], input=json.dumps(spec),
                          capture_output=True, text=True, check=False, timeout=timeout * 4)
    if proc.returncode != 0:
        raise RuntimeError(f"load clients failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return LoadResult(**json.loads(proc.stdout))


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _run_clients(spec: dict[str, Any]) -> LoadResult:
    """The clients' side of `concurrent_load` (in the child process)."""
    expected = [Expected(**e) for e in spec["expected"]]
    result = LoadResult(spec["clients"])
    lock = threading.Lock()
    start = threading.Barrier(spec["clients"])

    def client(index: int) -> None:
        wants_br = index % 2 == 0
        try:
            start.wait()
        except threading.BrokenBarrierError:
            pass
        conn = http.client.HTTPConnection("127.0.0.1", spec["port"], timeout=spec["timeout"])
        began = time.monotonic()  # the first request's time includes connecting (where a short backlog shows)
        try:
            try:
                conn.connect()
            except OSError as exc:
                with lock:
                    result.errors.append(f"connect: {type(exc).__name__}: {exc}")
                return
            if _syn_resent(conn):
                with lock:
                    result.errors.append("connect: the server's listen queue was full (the SYN had to be sent again)")
            for item in expected:
                problem, encoding = _fetch_one(conn, item, wants_br)
                took = time.monotonic() - began
                with lock:
                    if problem:
                        result.errors.append(f"{item.path} ({'br' if wants_br else 'identity'}): {problem}")
                    else:
                        result.seconds.setdefault(item.path, []).append(took)
                        counts = result.encodings.setdefault(item.path, {})
                        counts[encoding] = counts.get(encoding, 0) + 1
                if problem:
                    return
                began = time.monotonic()
        finally:
            conn.close()

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(spec["clients"])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return result


def _syn_resent(conn: http.client.HTTPConnection) -> bool:
    """True when connecting took a retransmitted SYN: the server's accept queue was full and the kernel dropped it.

    That costs the client a second or more but is not an error of its own, so it is counted from the socket's
    retransmission counter (Linux TCP_INFO `tcpi_total_retrans`, read before any data is sent), not from a clock.
    """
    if conn.sock is None or not hasattr(socket, "TCP_INFO"):
        return False  # not Linux: not counted
    info = conn.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_SIZE)
    return len(info) >= _TCP_INFO_SIZE and struct.unpack_from("=I", info, _TOTAL_RETRANS_AT)[0] > 0


# struct tcp_info (linux/tcp.h): 8 single-byte fields, then u32s; tcpi_total_retrans is the 24th u32.
_TOTAL_RETRANS_AT = 8 + 23 * 4
_TCP_INFO_SIZE = _TOTAL_RETRANS_AT + 4


def _fetch_one(conn: http.client.HTTPConnection, item: Expected, wants_br: bool) -> tuple[str, str]:
    """GET one path; returns (problem or "", Content-Encoding). Bodies are hashed as they arrive, never kept."""
    try:
        conn.putrequest("GET", item.path, skip_accept_encoding=True)
        if wants_br:
            conn.putheader("Accept-Encoding", "br")
        conn.endheaders()
        resp = conn.getresponse()
        encoding = resp.getheader("Content-Encoding", "identity")
        digest, packed = hashlib.sha256(), bytearray()
        while chunk := resp.read(1 << 20):
            digest.update(chunk)
            if encoding == "br" and item.br is None:
                packed += chunk
    except (OSError, http.client.HTTPException) as exc:
        return f"{type(exc).__name__}: {exc}", ""
    if resp.status != 200:
        return f"status {resp.status}", encoding
    if encoding not in ("identity", "br") or (encoding == "br" and not wants_br):
        return f"Content-Encoding {encoding} not asked for", encoding
    if encoding == "br" and item.br is None:
        try:
            ok = _sha(brotli.decompress(bytes(packed))) == item.identity
        except brotli.error as exc:
            return f"brotli body does not decode: {exc}", encoding
    else:
        ok = digest.hexdigest() == (item.br if encoding == "br" else item.identity)
    return ("" if ok else "body differs from the file"), encoding


if __name__ == "__main__" and sys.argv[1:] == ["load"]:
    print(json.dumps(_run_clients(json.load(sys.stdin)).__dict__))
