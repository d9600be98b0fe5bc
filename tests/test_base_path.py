"""A site published in a folder (`build.py --base-path /course/`): the host files name it, `serve` serves there."""

from __future__ import annotations

import re
import subprocess
import sys
from email.message import Message
from pathlib import Path

import brotli
import pytest
from fake_site import HASH, PYO, fetch, make_site, parse_headers_file
from places import FIXTURE

from lessonkit.hosting import headers as H  # noqa: N812 (as in test_serve.py)
from lessonkit.serve.server import start_server

ROOT = Path(__file__).resolve().parent.parent
BAD_BASE = ('--base-path "{}" must be the folder the site is published at, from the host\'s root, starting and '
            'ending with "/" and made of letters, digits and . _ ~ - (e.g. "/course/")')


@pytest.mark.parametrize("base", ["/", "/course/", "/a/b-c_d.e~f/"])
def test_base_path_accepted(base: str) -> None:
    assert H.base_path_problem(base) is None


@pytest.mark.parametrize("base", ["", "course", "/course", "course/", "//", "/a//b/", "/../", "/a/./", "/a b/",
                                  "/%2e%2e/", "/ü/", "/a?b/", "/a#b/"])
def test_base_path_refused(base: str) -> None:
    assert H.base_path_problem(base) == BAD_BASE.format(base)


def test_build_refuses_a_bad_base_path_before_building(tmp_path: Path) -> None:
    """The command line names the problem (argparse's usage error, exit 2) and writes nothing."""
    out = tmp_path / "site"
    done = subprocess.run([sys.executable, "-m", "lessonkit", "build", "--course", str(FIXTURE), "--base-path", "course",
                           "--out", str(out)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == f"lessonkit build: {BAD_BASE.format('course')}"
    assert not out.exists()


def test_headers_file_for_a_folder_is_the_root_one_under_it(tmp_path: Path) -> None:
    """Netlify / Cloudflare Pages read paths from their own root: every rule names the folder, nothing else changes."""
    site = make_site(tmp_path / "site")
    at_root = parse_headers_file(H.render_headers_file(site))
    text = H.render_headers_file(site, base="/course/")
    in_folder = parse_headers_file(text)
    assert in_folder == {"/course/" + pattern[1:]: rules for pattern, rules in at_root.items()}
    assert in_folder["/course/*"] == dict(H.security_headers(isolated=True))
    assert in_folder["/course/"] == {"Cache-Control": "no-cache"}
    assert in_folder[f"/course/static/{HASH}/*"] == {"Cache-Control": H.IMMUTABLE}
    assert in_folder["/course/second"] == {"Cache-Control": "no-cache"}  # the pretty URL, in the folder
    assert "# For a site published at /course/: put this file at the root of what the host publishes." in text


def test_nginx_conf_for_a_folder_nests_every_location_in_it(tmp_path: Path) -> None:
    """nginx accepts a nested location only inside its parent's prefix: every one starts with the folder."""
    root_conf = H.render_nginx_conf()
    conf = H.render_nginx_conf(base="/course/")
    locations = re.findall(r"^location (.+?) \{$", conf, re.M)
    assert locations == ['~ "^/course/(_headers|nginx\\.conf)$|/\\.|\\.br$"', "/course/runtime/",
                         '~ "^/course/static/[0-9a-f]{8,64}/"', "= /course/sw.js", "/course/"]
    assert len(re.findall(r"^location ", root_conf, re.M)) == len(locations)
    # The same rules inside: only the paths and the opening comment differ.
    body = conf[conf.index("# Explicit types"):].replace("/course/", "/")
    assert body == root_conf[root_conf.index("# Explicit types"):]
    assert "#     location /course/ {\n#         alias /path/to/site/;" in conf
    assert "#     location = /course { return 301 /course/; }" in conf
    static = re.search(r'location ~ "(\^/course/static/[^"]+)"', conf)
    assert static and re.match(static.group(1), f"/course/static/{HASH}/js/main.js")
    assert not re.match(static.group(1), f"/static/{HASH}/js/main.js")


def _decoded(headers: Message, body: bytes) -> bytes:
    return brotli.decompress(body) if headers["Content-Encoding"] == "br" else body


def test_server_in_a_folder(tmp_path: Path) -> None:
    """`serve` at /course/: the site there, its bare address redirected, nothing outside it, 404 links inside it."""
    site = make_site(tmp_path / "site")
    with start_server(site) as at_root, start_server(site, base="/course/") as handle:
        assert handle.url == f"http://127.0.0.1:{handle.port}/course/"
        for rel in ("", "index.html", "second.html", f"static/{HASH}/js/main.js", f"{PYO}/pyodide.asm.wasm", "sw.js"):
            status, headers, body = fetch(handle, "/course/" + rel, {"Accept-Encoding": "br"})
            _, expected, expected_body = fetch(at_root, "/" + rel, {"Accept-Encoding": "br"})
            assert status == 200, rel
            # (A page goes out uncompressed until the server's background thread has its brotli copy ready.)
            page = rel in ("", "index.html", "second.html")
            for name in ("Content-Type", "Cache-Control", *(() if page else ("Content-Encoding",)),
                         "Content-Security-Policy", "Cross-Origin-Embedder-Policy"):
                assert headers[name] == expected[name], (rel, name)
            assert _decoded(headers, body) == _decoded(expected, expected_body), rel
        for path, location in (("/course", "/course/"), ("/course?x=1", "/course/?x=1"),
                               (f"/course/static/{HASH}", f"/course/static/{HASH}/")):
            status, headers, _ = fetch(handle, path)
            assert (status, headers["Location"]) == (301, location), path
        for path in ("/", "/index.html", f"/static/{HASH}/js/main.js", "/courseindex.html", "/course-2/index.html",
                     "/course/nginx.conf", "/course/.lessonkit-build", "/course/../index.html"):
            assert fetch(handle, path)[0] == 404, path
        status, _, body = fetch(handle, "/elsewhere.html")
        assert status == 404 and b'<a href="/course/">Go to the course</a>' in body
