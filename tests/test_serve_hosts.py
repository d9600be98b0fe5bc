"""The dev server answers only for the local names (DNS rebinding), against a small fake site (no browser)."""

from __future__ import annotations

import http.client
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_site import fetch, make_site

from lessonkit.hosting import headers as H  # noqa: N812 (as in test_serve.py)
from lessonkit.serve.devendpoints import DEV_SCRIPT_URL
from lessonkit.serve.server import ServerHandle, start_server


@pytest.fixture
def dev_server(tmp_path: Path) -> Iterator[ServerHandle]:
    """A dev server (live reload, problem stream) over fake_site.py's fake site."""
    with start_server(make_site(tmp_path / "site"), dev=True) as handle:
        yield handle


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "[::1]", "LocalHost:8000", "127.0.0.1:1"])
def test_the_local_names_are_answered(dev_server: ServerHandle, host: str) -> None:
    for path in ("/", DEV_SCRIPT_URL, "/__lessonkit/events"):
        assert fetch(dev_server, path, {"Host": host})[0] == 200


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:8000", "127.0.0.1.attacker.example",
                                  "localhost.", "[::2]", "127.0.0.2", "", "localhost:80:80", "local host"])
def test_any_other_host_is_refused_the_site_and_the_problem_stream(dev_server: ServerHandle, host: str) -> None:
    """A DNS-rebinding page reaches 127.0.0.1 under its own name: 403 for the pages, the dev script and the problem
    stream (which names the author's files by absolute path), and for any method."""
    dev_server.publish(["/home/author/course/lesson/a.md:1: a problem"])
    forbidden = (b"Forbidden: this server answers requests for 127.0.0.1, localhost and [::1] only (a page of "
                 b"another address may not read it)\n")
    for path in ("/", "/index.html", DEV_SCRIPT_URL, "/__lessonkit/events?seq=0&epoch=0", "/nope"):
        status, headers, body = fetch(dev_server, path, {"Host": host})
        assert (status, body) == (403, forbidden), path
        assert headers["Content-Security-Policy"] == H.CSP
    assert fetch(dev_server, "/", {"Host": host}, method="POST")[0] == 403


def test_a_request_without_one_host_is_refused(dev_server: ServerHandle) -> None:
    for raw in (b"GET / HTTP/1.1\r\n\r\n", b"GET / HTTP/1.1\r\nHost: localhost\r\nHost: attacker.example\r\n\r\n"):
        with socket.create_connection(("127.0.0.1", dev_server.port), timeout=5) as sock:
            sock.sendall(raw)
            assert sock.recv(200).startswith(b"HTTP/1.1 400 "), raw


def test_the_address_it_was_told_to_bind_is_answered_too(tmp_path: Path) -> None:
    with start_server(make_site(tmp_path / "site"), host="127.0.0.2") as handle:
        assert handle.url == f"http://127.0.0.2:{handle.port}/"
        conn = http.client.HTTPConnection("127.0.0.2", handle.port, timeout=10)
        try:
            conn.request("GET", "/")
            assert conn.getresponse().status == 200
        finally:
            conn.close()
