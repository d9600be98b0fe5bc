"""What the host files (`_headers`, `nginx.conf`) send beyond `serve`'s rules: the Permissions-Policy every response
carries, and Strict-Transport-Security only when the build is asked for it (`build.py --hsts`), saying why otherwise."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from fake_site import fetch, make_site
from places import FIXTURE

from lessonkit.hosting import headers as H  # noqa: N812 (as in test_serve.py)
from lessonkit.serve.server import start_server

ROOT = Path(__file__).resolve().parent.parent
NEVER_USED = ("camera", "microphone", "geolocation", "payment", "usb", "serial", "hid", "midi", "display-capture",
              "screen-wake-lock", "publickey-credentials-get", "xr-spatial-tracking", "browsing-topics")
NEEDED = ("clipboard-write", "cross-origin-isolated", "fullscreen", "sync-xhr")


def test_the_permissions_policy_turns_off_what_a_lesson_never_uses_only() -> None:
    directives = dict(d.split("=", 1) for d in H.PERMISSIONS_POLICY.split(", "))
    assert set(NEVER_USED) <= set(directives) and set(directives.values()) == {"()"}
    assert not set(NEEDED) & set(directives)  # "Copy link" writes the clipboard; the lab needs isolation


def test_serve_sends_the_policy_on_every_answer(tmp_path: Path) -> None:
    site = make_site(tmp_path / "site")
    with start_server(site) as server:
        for path in ("/", "/index.html", "/runtime/pyodide-314.0.7/pyodide.asm.wasm", "/missing", "/_headers"):
            status, headers, _ = fetch(server, path)
            assert headers["Permissions-Policy"] == H.PERMISSIONS_POLICY, (path, status)
            assert "Strict-Transport-Security" not in headers, path
        assert fetch(server, "/", {"Host": "attacker.example"})[1]["Permissions-Policy"] == H.PERMISSIONS_POLICY


NOTE = ["# No Strict-Transport-Security (HSTS) here: it makes every browser that sees it use HTTPS alone for the whole",
        "# host name (not just this site's folder) for max-age seconds, which nothing can take back meanwhile, and many",
        "# hosts send their own. On an HTTPS host, build with `lessonkit build --hsts` (max-age=31536000, a year) or",
        '# --hsts "max-age=63072000; includeSubDomains" to send it from here.']


def test_without_hsts_the_host_files_say_why_and_how(tmp_path: Path) -> None:
    site = make_site(tmp_path / "site")
    H.write_header_files(site)
    headers, nginx = (site / "_headers").read_text(), (site / "nginx.conf").read_text()
    assert headers.splitlines()[1:6] == [*NOTE, "/*"]
    assert "Strict-Transport-Security" not in headers.replace(NOTE[0], "")
    assert nginx.splitlines()[2:7] == [*NOTE, "# (In nginx a server's own add_header does not reach these locations, "
                                               "which set theirs.)"]
    assert "add_header Strict-Transport-Security" not in nginx
    assert f'add_header Permissions-Policy "{H.PERMISSIONS_POLICY}" always;' in nginx


def test_with_hsts_every_response_of_the_host_files_carries_it(tmp_path: Path) -> None:
    site = make_site(tmp_path / "site")
    value = "max-age=63072000; includeSubDomains"
    H.write_header_files(site, hsts=value, base="/course/")
    headers, nginx = (site / "_headers").read_text(), (site / "nginx.conf").read_text()
    said = f"# Strict-Transport-Security: {value} (lessonkit build --hsts): publish this site over HTTPS only."
    assert headers.splitlines()[1:4] == ["# For a site published at /course/: put this file at the root of what the "
                                         "host publishes.", said, "/course/*"]
    assert headers.count(f"  Strict-Transport-Security: {value}") == 1  # in the catch-all rule, which every file gets
    locations = re.findall(r"^location .+? \{\n(.*?)\n\}", nginx, re.S | re.M)
    assert len(locations) == 5 and said in nginx
    assert all(f'add_header Strict-Transport-Security "{value}" always;' in body for body in locations)


@pytest.mark.parametrize("value", ["max-age=31536000", "max-age=0", "max-age=63072000; includeSubDomains; preload",
                                   "MAX-AGE=1;includesubdomains"])
def test_hsts_values_the_build_takes(value: str) -> None:
    assert H.hsts_problem(value) is None


@pytest.mark.parametrize("value", ["", "1 year", "max-age=-1", "max-age=1; preload; includeSubDomains",
                                   'max-age=1"; add_header X "y', "max-age=1\nX: y"])
def test_hsts_values_it_refuses(value: str) -> None:
    assert H.hsts_problem(value) == (
        f'--hsts "{value}" must be a Strict-Transport-Security value: "max-age=<seconds>", then optionally '
        '"; includeSubDomains" and "; preload" (e.g. --hsts "max-age=31536000")')


def test_build_py_takes_hsts_and_refuses_a_bad_value(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, "-m", "lessonkit", "build", "--course", str(FIXTURE), "--hsts", "a year", "--out",
                             str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2 and not (tmp_path / "out").exists()
    assert result.stderr.splitlines()[-1] == ('lessonkit build: --hsts "a year" must be a Strict-Transport-Security '
                                              'value: "max-age=<seconds>", then optionally "; includeSubDomains" and '
                                              '"; preload" (e.g. --hsts "max-age=31536000")')


def test_a_build_with_hsts_writes_it_into_the_host_files(tmp_path: Path) -> None:
    from course import LESSON, write_course

    from lessonkit.pipeline.site import build_site

    write_course(tmp_path, {"a.md": LESSON})
    build_site(tmp_path, tmp_path / "site", hsts=H.HSTS_DEFAULT)
    assert "  Strict-Transport-Security: max-age=31536000\n" in (tmp_path / "site" / "_headers").read_text()
    assert 'add_header Strict-Transport-Security "max-age=31536000" always;' in (tmp_path / "site/nginx.conf").read_text()
