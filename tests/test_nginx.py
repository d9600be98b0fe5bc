"""The generated nginx.conf on real nginx (Debian's nginx + libnginx-mod-http-brotli-static) over the built site.

nginx runs unprivileged (as `nobody` when the tests run as root), in the foreground, on 127.0.0.1 and a free port,
with its prefix, temp folders, error log and pid file in a temporary folder, and the snippet included as the README
tells a host to do: in a `server {}` whose `root` is the site, and for a site published at /course/ (the host files
written as `build.py --base-path /course/` writes them) inside `location /course/ { alias <site>/; ... }`.

A host configuration is only known to work once the host has run it, so this test does not skip quietly: without
nginx it fails under CI (`CI` set; `.ci/run` sets it and installs nginx), and elsewhere it skips saying how to
install it. `LESSON_SKIP_NGINX=1` skips it on purpose anywhere.
"""

from __future__ import annotations

import http.client
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from email.message import Message
from pathlib import Path

import brotli
import pytest
from required import in_ci

from lessonkit.hosting import headers as H  # noqa: N812 (as in test_serve.py)
from lessonkit.serve.server import ServerHandle, start_server

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
BROTLI_MODULE = "ngx_http_brotli_static_module.so"
INSTALL = "apt-get install nginx libnginx-mod-http-brotli-static"
SECURITY = [name for name, _ in H.security_headers(isolated=True)]
# The host files of the site at /course/ are written with Strict-Transport-Security (`build.py --hsts`), the root
# site's without: nginx must send it on every answer of the one, and on none of the other.
HSTS = {"/": None, "/course/": "max-age=63072000; includeSubDomains"}


def _modules_path() -> Path:
    """Where this nginx keeps its dynamic modules (`nginx -V`: --modules-path)."""
    built = subprocess.run([NGINX, "-V"], capture_output=True, text=True, check=False).stderr
    found = re.search(r"--modules-path=(\S+)", built)
    return Path(found.group(1) if found else "/usr/lib/nginx/modules")


def _missing() -> str | None:
    """What is missing to run this test, or None."""
    if not Path(NGINX).is_file():
        return "nginx is not installed"
    if not (_modules_path() / BROTLI_MODULE).is_file():
        return f"nginx has no brotli_static module ({_modules_path() / BROTLI_MODULE} is missing)"
    return None


def _require_nginx() -> None:
    if os.environ.get("LESSON_SKIP_NGINX") == "1":
        pytest.skip("LESSON_SKIP_NGINX=1: the generated nginx.conf is not tried on real nginx in this run")
    missing = _missing()
    if missing is None:
        return
    if in_ci():
        pytest.fail(f"{missing}: CI must try the generated nginx.conf on real nginx ({INSTALL}; .ci/run does it)",
                    pytrace=False)
    pytest.skip(f"{missing} ({INSTALL} to run it; CI fails instead of skipping; LESSON_SKIP_NGINX=1 skips quietly)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Nginx:
    """A running nginx: its port, the folder the site is at, what `nginx -t` printed, and its error log."""

    port: int
    base: str
    test_output: str
    error_log: Path


def _server(site: Path, base: str) -> str:
    """The server's site part, as the snippet's opening comment tells a host to write it."""
    if base == "/":
        return f"""        root {site};
        include {site / "nginx.conf"};"""
    return f"""        location {base} {{
            alias {site}/;
            include {site / "nginx.conf"};
        }}
        location = {base.rstrip("/")} {{ return 301 {base}; }}
        location / {{ return 404; }}"""


def _config(prefix: Path, site: Path, port: int, base: str) -> str:
    temp = "\n".join(f"    {kind}_temp_path {prefix / kind};" for kind in ("client_body", "proxy", "fastcgi",
                                                                            "uwsgi", "scgi"))
    return f"""load_module {_modules_path() / BROTLI_MODULE};
worker_processes 1;
daemon off;
pid {prefix / "nginx.pid"};
error_log {prefix / "error.log"} warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
{temp}
    server {{
        listen 127.0.0.1:{port};
        server_name localhost;
{_server(site, base)}
    }}
}}
"""


@pytest.fixture(scope="module", params=["/", "/course/"], ids=["root", "sub-path"])
def base(request: pytest.FixtureRequest) -> str:
    """The folder the site is published at."""
    return str(request.param)


@pytest.fixture(scope="module")
def site(built_site: Path, base: str) -> Iterator[Path]:
    """The built site; for a folder, a copy (hard links) whose host files say that folder, as --base-path writes them."""
    if base == "/":
        yield built_site
        return
    work = Path(tempfile.mkdtemp(prefix="lessonkit-site-"))
    work.chmod(0o755)
    try:
        copy = work / "site"
        shutil.copytree(built_site, copy, copy_function=os.link)
        for name in H.HOST_FILES:
            (copy / name).unlink()  # hard links: rewriting in place would change the built site's files too
        H.write_header_files(copy, base=base, hsts=HSTS[base], script_hashes=H.site_script_hashes(copy))
        yield copy
    finally:
        shutil.rmtree(work, ignore_errors=True)


@pytest.fixture(scope="module")
def nginx(site: Path, base: str) -> Iterator[Nginx]:
    """nginx serving the built site with its generated snippet, stopped after the module's tests."""
    _require_nginx()
    prefix = Path(tempfile.mkdtemp(prefix="lessonkit-nginx-"))
    user: dict[str, object] = {}
    if os.geteuid() == 0:  # never run a test server as root: nginx runs as nobody, in a folder nobody owns
        nobody = pwd.getpwnam("nobody")
        os.chown(prefix, nobody.pw_uid, nobody.pw_gid)
        user = {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}
    port = _free_port()
    conf = prefix / "nginx-test.conf"
    conf.write_text(_config(prefix, site, port, base), encoding="utf-8")
    command = [NGINX, "-p", f"{prefix}/", "-c", str(conf), "-e", str(prefix / "error.log")]
    checked = subprocess.run([*command, "-t"], capture_output=True, text=True, check=False, timeout=60, **user)
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, **user)
    try:
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
            pytest.fail(f"nginx did not start:\n{checked.stderr}\n{proc.stderr.read() if proc.stderr else ''}\n{log}")
        yield Nginx(port, base, checked.stderr + checked.stdout, prefix / "error.log")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        shutil.rmtree(prefix, ignore_errors=True)


@pytest.fixture(scope="module")
def ours(site: Path, base: str) -> Iterator[ServerHandle]:
    """`build.py serve`'s production mode over the same site at the same folder, to compare with."""
    with start_server(site, base=base) as handle:
        yield handle


def _get(port: int, path: str, br: bool = False) -> tuple[int, Message, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.putrequest("GET", path, skip_accept_encoding=True)
        if br:
            conn.putheader("Accept-Encoding", "gzip, deflate, br")
        conn.endheaders()
        resp = conn.getresponse()
        return resp.status, resp.headers, resp.read()
    finally:
        conn.close()


def _site_files(site: Path) -> list[str]:
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())


def test_nginx_t_reports_no_warning(nginx: Nginx) -> None:
    assert "test is successful" in nginx.test_output, nginx.test_output
    assert not re.search(r"\[(warn|error|crit|alert|emerg)\]", nginx.test_output), nginx.test_output


def test_nginx_refuses_what_is_not_part_of_the_site(nginx: Nginx, ours: ServerHandle, site: Path) -> None:
    """Host configuration, the build's marker and every .br sibling asked for by name: 404 on nginx, as in serve."""
    at = nginx.base
    private = [at + rel for rel in _site_files(site) if not H.is_published(rel)]
    assert {f"{at}nginx.conf", f"{at}_headers", f"{at}.lessonkit-build", f"{at}sw.js.br"} <= set(private)
    assert len([p for p in private if p.endswith(".br")]) > 5  # the runtime's and static/'s siblings too
    for path in [*private, f"{at}%2elessonkit-build", f"{at}static/../nginx.conf", f"{at}%5Fheaders"]:
        for br in (False, True):
            status, headers, _ = _get(nginx.port, path, br)
            assert status == 404, path
            assert headers["Content-Security-Policy"] == H.csp(H.site_script_hashes(site)), path
            assert _get(ours.port, path, br)[0] == 404, path


def test_nginx_sends_what_serve_sends(nginx: Nginx, ours: ServerHandle, site: Path) -> None:
    """Pages, scripts, the wasm, wheels: the same type, caching, security headers and brotli as `serve`."""
    files = [rel for rel in _site_files(site) if H.is_published(rel)]
    assert any(rel.endswith(".wasm") for rel in files) and any(rel.endswith(".whl") for rel in files)
    for rel in ["", *files]:
        path = nginx.base + rel
        plain = (site / (rel or "index.html")).read_bytes()
        sibling = (site / ((rel or "index.html") + ".br")).is_file()  # the folder's page is its index.html
        for br in (False, True):
            status, theirs, body = _get(nginx.port, path, br)
            ours_status, mine, _ = _get(ours.port, path, br)
            where = f"{path} ({'br' if br else 'identity'})"
            assert status == ours_status == 200, where
            for name in ("Content-Type", "Cache-Control", *SECURITY):
                assert theirs[name] == mine[name], f"{where}: {name}: nginx {theirs[name]!r}, serve {mine[name]!r}"
            encoding = theirs.get("Content-Encoding")
            if sibling:  # a precompressed sibling: both send it exactly when asked
                assert encoding == mine.get("Content-Encoding") == ("br" if br else None), where
                if br:  # (nginx names Vary only on the compressed answer; serve on both)
                    assert theirs["Vary"] == mine["Vary"] == "Accept-Encoding", where
            else:  # nothing precompressed on disk: nginx sends the file as it is (serve may compress pages itself)
                assert encoding is None, where
            assert (brotli.decompress(body) if encoding == "br" else body) == plain, where
    _, headers, _ = _get(nginx.port, nginx.base + next(r for r in files if r.endswith(".wasm")), br=True)
    assert (headers["Content-Type"], headers["Content-Encoding"]) == ("application/wasm", "br")
    assert headers["Cross-Origin-Embedder-Policy"] == "require-corp"
    assert headers["Cache-Control"] == H.IMMUTABLE


def test_nginx_sends_the_permissions_policy_and_hsts_as_built(nginx: Nginx, site: Path) -> None:
    """Every answer (pages, the wasm, a 404, a refused host file) carries the Permissions-Policy, and
    Strict-Transport-Security exactly when the host files were written with it; `serve` never sends HSTS."""
    wasm = next(p.relative_to(site).as_posix() for p in site.rglob("*.wasm"))
    for rel in ("", "index.html", "sw.js", wasm, "missing.html", "nginx.conf"):
        for br in (False, True):
            _, headers, _ = _get(nginx.port, nginx.base + rel, br)
            assert headers["Permissions-Policy"] == H.PERMISSIONS_POLICY, rel
            assert headers.get("Strict-Transport-Security") == HSTS[nginx.base], rel


def test_nginx_outside_the_folder(nginx: Nginx, ours: ServerHandle, site: Path) -> None:
    """A site at a folder: its address without the slash redirects to it, and nothing outside it is the site's."""
    if nginx.base == "/":
        pytest.skip("the site is at the host's root")
    bare = nginx.base.rstrip("/")
    for port in (nginx.port, ours.port):
        status, headers, _ = _get(port, bare)
        assert (status, headers["Location"].removeprefix(f"http://127.0.0.1:{port}")) == (301, nginx.base)
        page = next(p.name for p in site.glob("*.html"))
        for path in ("/", f"/{page}", "/sw.js", f"{bare}-other/{page}", f"{bare}{page}"):
            assert _get(port, path)[0] == 404, (port, path)


def test_nginx_error_log_stays_empty(nginx: Nginx, site: Path) -> None:
    """Nothing the tests above asked for made nginx log a warning (a missing file, a permission, a bad header)."""
    log = nginx.error_log.read_text(errors="replace") if nginx.error_log.exists() else ""
    assert not re.search(r"\[(warn|error|crit|alert|emerg)\]", log), log
