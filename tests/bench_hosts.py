"""Benchmark hosts beside lessonkit's own server: real nginx with the build's generated nginx.conf, and a host that
sends none of the build's headers (a plain static server, as `python -m http.server`: no Cache-Control, no
compression, no cross-origin isolation). Both are metered like the others (bench_server.Meter).

nginx runs as tests/test_nginx.py runs it: unprivileged (as `nobody` when the bench runs as root), in the foreground,
on 127.0.0.1 and a free port, with its prefix, temp folders and logs in a temporary folder, the snippet included in a
`server {}` whose `root` is the site. Its access log, in a format of our own, is read as it grows into the Meter.
"""

from __future__ import annotations

import functools
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import ThreadingHTTPServer
from pathlib import Path

from bench_server import Hit, Meter, NaiveHandler, metered

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
BROTLI_MODULE = "ngx_http_brotli_static_module.so"
# One line per request: method, URI, status, bytes sent (headers + body), Content-Encoding ("-" for none).
_LOG_FORMAT = "bench '$request_method $request_uri $status $bytes_sent $sent_http_content_encoding'"
_LOG_LINE = re.compile(r"^(\S+) (\S+) (\d+) (\d+) (\S+)$")


@dataclass
class Host:
    """A running host: its URL (the site's folder) and how to stop it."""

    url: str
    stop: Callable[[], None]


def nginx_missing() -> str | None:
    """Why nginx cannot serve the bench's pages here, or None."""
    if not Path(NGINX).is_file():
        return "nginx is not installed (apt-get install nginx libnginx-mod-http-brotli-static)"
    if not (_modules_path() / BROTLI_MODULE).is_file():
        return f"nginx has no brotli_static module ({_modules_path() / BROTLI_MODULE} is missing)"
    return None


def _modules_path() -> Path:
    built = subprocess.run([NGINX, "-V"], capture_output=True, text=True, check=False).stderr
    found = re.search(r"--modules-path=(\S+)", built)
    return Path(found.group(1) if found else "/usr/lib/nginx/modules")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _config(prefix: Path, site: Path, port: int) -> str:
    temp = "\n".join(f"    {kind}_temp_path {prefix / kind};" for kind in ("client_body", "proxy", "fastcgi",
                                                                            "uwsgi", "scgi"))
    return f"""load_module {_modules_path() / BROTLI_MODULE};
worker_processes 1;
daemon off;
pid {prefix / "nginx.pid"};
error_log {prefix / "error.log"} warn;
events {{ worker_connections 256; }}
http {{
    log_format {_LOG_FORMAT};
    access_log {prefix / "access.log"} bench buffer=4k flush=100ms;
    sendfile on;
    keepalive_timeout 65;
{temp}
    server {{
        listen 127.0.0.1:{port};
        server_name localhost;
        root {site};
        include {site / "nginx.conf"};
    }}
}}
"""


def _readable(site: Path) -> None:
    """nobody must reach the site: open the folders above it that the bench made private (mkdtemp is 0700)."""
    for folder in [site, *site.parents]:
        if folder == Path(tempfile.gettempdir()) or folder == folder.parent:
            break
        folder.chmod(folder.stat().st_mode | 0o755)


def start_nginx(site: Path, meter: Meter) -> Host:
    """nginx over `site` with its generated nginx.conf, its access log read into `meter`."""
    missing = nginx_missing()
    if missing:
        raise RuntimeError(missing)
    _readable(site)
    prefix = Path(tempfile.mkdtemp(prefix="lessonkit-bench-nginx-"))
    user: dict[str, object] = {}
    if os.geteuid() == 0:  # never a server as root: nginx runs as nobody, in a folder nobody owns
        nobody = pwd.getpwnam("nobody")
        os.chown(prefix, nobody.pw_uid, nobody.pw_gid)
        user = {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}
    port = _free_port()
    conf = prefix / "nginx-bench.conf"
    conf.write_text(_config(prefix, site, port), encoding="utf-8")
    proc = subprocess.Popen([NGINX, "-p", f"{prefix}/", "-c", str(conf), "-e", str(prefix / "error.log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **user)
    for _ in range(400):
        if proc.poll() is not None:
            break
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            time.sleep(0.025)
    if proc.poll() is not None:
        log = (prefix / "error.log").read_text(errors="replace") if (prefix / "error.log").exists() else ""
        shutil.rmtree(prefix, ignore_errors=True)
        raise RuntimeError(f"nginx did not start: {proc.stderr.read() if proc.stderr else ''} {log}".strip())
    done = threading.Event()
    reader = threading.Thread(target=_follow, args=(prefix / "access.log", meter, done), daemon=True)
    reader.start()

    def stop() -> None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        done.set()
        reader.join(5)
        shutil.rmtree(prefix, ignore_errors=True)

    return Host(f"http://127.0.0.1:{port}/", stop)


def _follow(log: Path, meter: Meter, done: threading.Event) -> None:
    """Read the access log as nginx writes it (flushed every 100 ms): each line one Hit."""
    at = 0
    partial = ""
    while not done.is_set():
        time.sleep(0.02)
        try:
            with log.open("r", encoding="utf-8", errors="replace") as f:
                f.seek(at)
                chunk = f.read()
                at = f.tell()
        except FileNotFoundError:
            continue
        if not chunk:
            continue
        lines = (partial + chunk).split("\n")
        partial = lines.pop()
        for line in lines:
            found = _LOG_LINE.match(line.strip())
            if found:
                method, path, status, sent, encoding = found.groups()
                meter.record(Hit(method, path, int(status), int(sent), time.monotonic(),
                                 "" if encoding == "-" else encoding))


def start_plain(site: Path, meter: Meter) -> Host:
    """A host that sends none of the build's headers: the site's files as `python -m http.server` sends them (no
    Cache-Control, Last-Modified only, no compression, no cross-origin isolation), dated a day before the visit as a
    deployed site's are, so the browser's heuristic freshness keeps them as it keeps the naive page's."""
    day_ago = time.time() - 86400
    for path in site.rglob("*"):
        os.utime(path, (day_ago, day_ago))
    handler = functools.partial(metered(NaiveHandler, meter), directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
    thread.start()

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

    return Host(f"http://127.0.0.1:{server.server_address[1]}/", stop)
