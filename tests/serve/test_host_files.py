"""The host files the build writes beside the site (_headers for Netlify-like hosts, nginx.conf): the same header
rules the server sends, read back from each file."""

from __future__ import annotations

import re
from pathlib import Path

from fake_site import HASH, PYO, parse_headers_file

from lessonkit.hosting import headers as H  # noqa: N812 (short name for many asserts)

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


# -- generated host config ----------------------------------------------------------------------------------------

def _glob_match(pattern: str, path: str) -> bool:
    return pattern == path or (pattern.endswith("*") and path.startswith(pattern[:-1]))


def test_headers_file_matches_rules(site: Path) -> None:
    H.write_header_files(site)
    rules = parse_headers_file((site / "_headers").read_text(encoding="utf-8"))
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
    rules = parse_headers_file((site / "_headers").read_text(encoding="utf-8"))
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
