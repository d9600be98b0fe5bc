"""Production HTTP headers for the built site: one set of rules for `serve`, `_headers` and `nginx.conf`."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

# The site's policy: everything from its own origin, nothing inline but styles and the pages' import map (allowed by
# its hash, `script_hashes`: the one inline script, the same on every page of a build). Sent on every response, and
# in each page's <meta> tag for hosts that send no headers. The lab's Python worker starts from a blob: URL of its
# script's verified bytes (worker-src blob:, workers only), so it runs under the page's own policy on any host: a
# blob: worker inherits its creator's, the <meta> tag's included.
_SCRIPT_SRC = "'self' 'wasm-unsafe-eval'"


def csp(script_hashes: Sequence[str] = (), connect: Sequence[str] = ()) -> str:
    """The Content-Security-Policy, allowing the inline scripts whose CSP hashes (`sha256-…`) are given, and requests
    to the origins in `connect` besides the site's own (a class's record store: course.yaml's `class: lrs:`)."""
    scripts = " ".join([_SCRIPT_SRC, *(f"'{h}'" for h in script_hashes)])
    connects = " ".join(["'self'", *connect])
    return (
        f"default-src 'none'; script-src {scripts}; worker-src 'self' blob:; connect-src {connects}; "
        "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; manifest-src 'self'; "
        "base-uri 'none'; form-action 'none'; object-src 'none'; frame-ancestors 'self'"
    )


CSP = csp()  # the policy of a site without inline scripts


def csp_hash(script: str) -> str:
    """The CSP hash (`sha256-…`, without quotes) that allows an inline script of exactly this text."""
    return "sha256-" + base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()


def meta_csp(script_hashes: Sequence[str] = (), connect: Sequence[str] = ()) -> str:
    """The policy as a page's <meta> carries it: without frame-ancestors, which browsers ignore there (noisily)."""
    return "; ".join(d for d in csp(script_hashes, connect).split("; ") if not d.startswith("frame-ancestors"))


# The build's marker file in site/ (a dotfile: never served) records the build's script hashes, so `serve` sends the
# policy of the site it serves, whichever build that is.
MARKER = ".lessonkit-build"
HEADER_FILES = ("_headers", "nginx.conf")  # the host files write_header_files writes


def marker_text(script_hashes: Sequence[str], connect: Sequence[str] = ()) -> str:
    """What the build writes into its marker."""
    return json.dumps({"built_by": "lessonkit", "script_hashes": list(script_hashes), "connect_src": list(connect)},
                      indent=1) + "\n"


def site_script_hashes(site: Path) -> tuple[str, ...]:
    """The script hashes the build of `site` recorded (none for a folder without a readable marker)."""
    try:
        data = json.loads((site / MARKER).read_text(encoding="utf-8"))
        hashes = data["script_hashes"]
    except (OSError, ValueError, KeyError, TypeError):
        return ()
    if not isinstance(hashes, list) or not all(isinstance(h, str) and re.fullmatch(r"sha256-[A-Za-z0-9+/]+=*", h)
                                               for h in hashes):
        return ()
    return tuple(hashes)

def site_connect_sources(site: Path) -> tuple[str, ...]:
    """The origins besides its own the build of `site` lets its pages connect to (none without a readable marker)."""
    try:
        found = json.loads((site / MARKER).read_text(encoding="utf-8")).get("connect_src", [])
    except (OSError, ValueError, AttributeError):
        return ()
    if not isinstance(found, list) or not all(isinstance(o, str) and re.fullmatch(r"https?://[A-Za-z0-9.:\[\]-]+", o)
                                              for o in found):
        return ()
    return tuple(found)


# Powerful features a lesson never uses, turned off for the page and every frame and worker it starts (so nothing the
# page runs can ask for them). Left as the browser has them: what the page uses (clipboard-write: "Copy link"),
# cross-origin-isolated (the lab's soft interrupt), fullscreen, sync-xhr (Pyodide may use it in its worker), and
# clipboard-read (the browser asks the learner first). Only names Chromium knows: it warns about any other.
PERMISSIONS_OFF = (
    "accelerometer", "autoplay", "browsing-topics", "camera", "compute-pressure", "display-capture", "encrypted-media",
    "gamepad", "geolocation", "gyroscope", "hid", "identity-credentials-get", "idle-detection", "keyboard-map",
    "local-fonts", "magnetometer", "microphone", "midi", "otp-credentials", "payment", "picture-in-picture",
    "publickey-credentials-create", "publickey-credentials-get", "screen-wake-lock", "serial",
    "usb", "window-management", "xr-spatial-tracking",
)
PERMISSIONS_POLICY = ", ".join(f"{feature}=()" for feature in PERMISSIONS_OFF)

# Strict-Transport-Security is the host's choice, so the build sends it only when asked (`lessonkit build --hsts`): it
# makes every browser that sees it use HTTPS alone for the whole host name (not just the site's folder) for max-age
# seconds, which nothing can take back meanwhile; the build cannot know the host serves HTTPS; and many hosts
# (GitHub Pages, Netlify, Cloudflare Pages) send their own. `serve` never sends it (plain HTTP on 127.0.0.1).
HSTS_DEFAULT = "max-age=31536000"  # a year
_HSTS = re.compile(r"max-age=[0-9]{1,10}(?:; ?includeSubDomains)?(?:; ?preload)?", re.I)

IMMUTABLE = "public, max-age=31536000, immutable"
NO_CACHE = "no-cache"

# Explicit map: OS mimetypes registries have served .js/.mjs as text/plain and broken module scripts.
CONTENT_TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".json": "application/json",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".woff2": "font/woff2",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
}
DEFAULT_CONTENT_TYPE = "application/octet-stream"

# Text worth brotli: the build writes a .br beside each such static file, and servers vary these on Accept-Encoding
# (wheels and images are compressed already).
COMPRESSIBLE = frozenset({".html", ".js", ".mjs", ".wasm", ".zip", ".json", ".css", ".svg", ".txt"})

# Files the build writes into site/ for the host itself, never to be served: Netlify and Cloudflare Pages read
# `_headers` and do not publish it; nginx includes `nginx.conf` by path. `serve` and nginx answer 404 for them, for
# dotfiles (the build's marker) and for precompressed `.br` siblings asked for by name (they are sent only as the
# brotli encoding of their plain file).
HOST_FILES = ("_headers", "nginx.conf")
PRECOMPRESSED_SUFFIX = ".br"

# `static/<hash>/` is the content-hashed copy of static/ (site.tree_hash: 10 hex digits; a little slack here).
_HASHED_STATIC = re.compile(r"^static/[0-9a-f]{8,64}/")
_HASHED_STATIC_NGINX = r"static/[0-9a-f]{8,64}/"  # after the site's folder


# The folder the site is published at (`lessonkit build --base-path /course/`): "/" or "/a/b/", plain URL path characters.
_BASE_PATH = re.compile(r"^/(?:[A-Za-z0-9._~-]+/)*$")


def base_path_problem(base: str) -> str | None:
    """Why `base` cannot be the site's folder on its host, or None when it can."""
    if not _BASE_PATH.fullmatch(base) or any(part in (".", "..") for part in base.split("/")):
        return (f'--base-path "{base}" must be the folder the site is published at, from the host\'s root, starting '
                'and ending with "/" and made of letters, digits and . _ ~ - (e.g. "/course/")')
    return None


def hsts_problem(value: str) -> str | None:
    """Why `value` cannot be the Strict-Transport-Security header the host files send, or None when it can."""
    if _HSTS.fullmatch(value):
        return None
    return (f'--hsts "{value}" must be a Strict-Transport-Security value: "max-age=<seconds>", then optionally '
            '"; includeSubDomains" and "; preload" (e.g. --hsts "max-age=31536000")')


def hsts_note(hsts: str | None) -> list[str]:
    """What the host files say about Strict-Transport-Security, as comment lines."""
    if hsts:
        return [f"# Strict-Transport-Security: {hsts} (lessonkit build --hsts): publish this site over HTTPS only."]
    return [
        "# No Strict-Transport-Security (HSTS) here: it makes every browser that sees it use HTTPS alone for the whole",
        "# host name (not just this site's folder) for max-age seconds, which nothing can take back meanwhile, and many",
        "# hosts send their own. On an HTTPS host, build with `lessonkit build --hsts` (max-age=31536000, a year) or",
        '# --hsts "max-age=63072000; includeSubDomains" to send it from here.',
    ]


def _clean(path: str) -> str:
    """Site-relative POSIX path without a leading slash; '' and directories mean their index.html."""
    path = path.split("?", 1)[0].lstrip("/")
    if path == "" or path.endswith("/"):
        path += "index.html"
    return path


def is_published(path: str) -> bool:
    """False for files in site/ that are not part of the site: host configuration, dotfiles, `.br` siblings."""
    parts = PurePosixPath(_clean(path)).parts
    if not parts:
        return True
    return not (
        (len(parts) == 1 and parts[0] in HOST_FILES)
        or any(part.startswith(".") for part in parts)
        or parts[-1].endswith(PRECOMPRESSED_SUFFIX)
    )


def content_type(path: str) -> str:
    """Content-Type for a site path, from the explicit map only."""
    return CONTENT_TYPES.get(PurePosixPath(_clean(path)).suffix.lower(), DEFAULT_CONTENT_TYPE)


def is_immutable(path: str) -> bool:
    """True for versioned URLs whose content never changes (runtime/ and static/<hash>/)."""
    path = _clean(path)
    return path.startswith("runtime/") or bool(_HASHED_STATIC.match(path))


def cache_control(path: str) -> str:
    """Cache-Control: immutable for versioned folders, revalidate everything else (HTML, sw.js, _headers)."""
    path = _clean(path)
    # HTML, sw.js, _headers and every other unversioned file must revalidate (ETag), never go stale.
    return IMMUTABLE if is_immutable(path) else NO_CACHE


def is_compressible(path: str) -> bool:
    """True when the file type benefits from (pre)compression, so responses vary on Accept-Encoding."""
    return PurePosixPath(_clean(path)).suffix.lower() in COMPRESSIBLE


def security_headers(*, isolated: bool = True, script_hashes: Sequence[str] = (),
                     connect: Sequence[str] = ()) -> list[tuple[str, str]]:
    """Headers sent on every response regardless of path."""
    headers = [("Content-Security-Policy", csp(script_hashes, connect))]
    if isolated:
        headers += [
            ("Cross-Origin-Opener-Policy", "same-origin"),
            ("Cross-Origin-Embedder-Policy", "require-corp"),
            ("Cross-Origin-Resource-Policy", "same-origin"),
        ]
    headers += [("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
                ("Permissions-Policy", PERMISSIONS_POLICY)]
    return headers


def host_headers(*, isolated: bool = True, hsts: str | None = None, script_hashes: Sequence[str] = (),
                     connect: Sequence[str] = ()) -> list[tuple[str, str]]:
    """What the host files send on every response: the security headers, and HSTS when the build was asked to."""
    return (security_headers(isolated=isolated, script_hashes=script_hashes, connect=connect)
            + ([("Strict-Transport-Security", hsts)] if hsts else []))


def headers_for(path: str, *, isolated: bool = True, script_hashes: Sequence[str] = (),
                     connect: Sequence[str] = ()) -> list[tuple[str, str]]:
    """All production headers for one site-relative path."""
    headers = [("Content-Type", content_type(path)), ("Cache-Control", cache_control(path))]
    headers += security_headers(isolated=isolated, script_hashes=script_hashes, connect=connect)
    if is_compressible(path):
        headers.append(("Vary", "Accept-Encoding"))
    return headers


def render_headers_file(site: Path, *, isolated: bool = True, base: str = "/", hsts: str | None = None,
                        script_hashes: Sequence[str] = (), connect: Sequence[str] = ()) -> str:
    """`_headers` (Netlify / Cloudflare Pages) text for the files present in `site`, published at `base`."""
    # Hosts merge every matching rule and comma-join repeated names, so Cache-Control rules must not overlap:
    # a catch-all for security headers, then exact paths or folders for caching. The host reads paths from its own
    # root, so a site published in a folder names that folder in every rule (and its _headers moves to that root).
    out = ["# Generated by lessonkit.hosting.headers (same rules as `lessonkit serve`); do not edit."]
    if base != "/":
        out.append(f"# For a site published at {base}: put this file at the root of what the host publishes.")
    out += hsts_note(hsts)
    out.append(f"{base}*")
    out += [f"  {name}: {value}" for name, value in host_headers(isolated=isolated, hsts=hsts,
                                                                 script_hashes=script_hashes, connect=connect)]

    def rule(pattern: str, headers: list[tuple[str, str]]) -> None:
        out.append(pattern)
        out.extend(f"  {name}: {value}" for name, value in headers)

    if (site / "runtime").is_dir():
        rule(f"{base}runtime/*", [("Cache-Control", IMMUTABLE)])
    static = site / "static"
    if static.is_dir():
        for child in sorted(static.iterdir()):
            if child.is_dir() and is_immutable(f"static/{child.name}/x"):
                rule(f"{base}static/{child.name}/*", [("Cache-Control", IMMUTABLE)])
    # Explicit Content-Type for the runtime files hosts are most likely to guess wrong (.mjs, .wasm, .whl).
    for file in sorted(p for p in (site / "runtime").rglob("*") if p.is_file() and p.suffix != ".br"):
        rel = file.relative_to(site).as_posix()
        if rel.endswith((".mjs", ".wasm", ".whl", ".zip")):
            rule(base + rel, [("Content-Type", content_type(rel))])
    # Only what the host publishes: these hosts never serve `_headers` itself, and the rest of what is not part of
    # the site cannot be refused here (see the README's Hosting section), so it gets no rules of its own.
    top = {p.name for p in site.iterdir() if p.is_file() and is_published(p.name)}
    if (site / "index.html").is_file():
        rule(base, [("Cache-Control", cache_control("index.html"))])
    for name in sorted(top):
        rule(f"{base}{name}", [("Cache-Control", cache_control(name))])
        if name.endswith(".html"):
            # Cloudflare Pages and Netlify also serve pages at their extensionless ("pretty") URL.
            rule(f"{base}{name[:-5]}", [("Cache-Control", cache_control(name))])
    return "\n".join(out) + "\n"


def _where_to_include(base: str) -> list[str]:
    """The snippet's opening comment: where a host includes it."""
    if base == "/":
        return ["# Include inside a server { } block whose `root` is this site folder."]
    return [
        f"# For the site published at {base}: include inside that location, which maps it to this folder:",
        f"#     location {base} {{",
        "#         alias /path/to/site/;                 # this folder (or `root` a folder holding it as "
        f"{base.strip('/')}/)",
        "#         include /path/to/site/nginx.conf;",
        "#     }",
        f"#     location = {base.rstrip('/')} {{ return 301 {base}; }}   # the folder's address without its slash",
        f"# Every location below starts with {base}: nginx accepts a nested location only inside its parent's.",
    ]


def render_nginx_conf(*, isolated: bool = True, base: str = "/", hsts: str | None = None,
                      script_hashes: Sequence[str] = (), connect: Sequence[str] = ()) -> str:
    """nginx snippet for the site published at `base` (for "/": include inside a `server {}` whose `root` is it)."""
    # nginx always applies `charset` to text/html and warns about a duplicate if it is listed again.
    charset_types = sorted({t.split(";")[0] for t in CONTENT_TYPES.values() if "charset=" in t} - {"text/html"})
    by_type: dict[str, list[str]] = {}
    for ext, ctype in CONTENT_TYPES.items():
        by_type.setdefault(ctype.split(";")[0], []).append(ext[1:])
    lines = [
        "# Generated by lessonkit.hosting.headers (same rules as `lessonkit serve`); do not edit.",
        *_where_to_include(base),
        *hsts_note(hsts),
        *([] if hsts else ["# (In nginx a server's own add_header does not reach these locations, which set theirs.)"]),
        "",
        "# Explicit types: the OS default map may lack .mjs/.wasm; this block replaces it for this server.",
        "types {",
        *(f"    {ctype} {' '.join(exts)};" for ctype, exts in by_type.items()),
        "}",
        f"default_type {DEFAULT_CONTENT_TYPE};",
        "charset utf-8;",
        f"charset_types {' '.join(charset_types)};",
        "",
        "# runtime/, static/<hash>/ and sw.js ship with precompressed .br siblings. brotli_static needs the ngx_brotli",
        "# module (Debian: libnginx-mod-http-brotli-static); without it, delete that line.",
        "brotli_static on;",
        "gzip_vary on;  # adds Vary: Accept-Encoding to precompressed responses",
        "index index.html;",
        "",
    ]

    def location(match: str, cache: str, comment: str, action: str = "try_files $uri $uri/ =404;") -> None:
        # add_header is not inherited once a block sets its own, so every location repeats the full set.
        lines.append(f"# {comment}")
        lines.append(f"location {match} {{")
        lines.append(f'    add_header Cache-Control "{cache}" always;')
        for name, value in host_headers(isolated=isolated, hsts=hsts, script_hashes=script_hashes, connect=connect):
            lines.append(f'    add_header {name} "{value}" always;')
        lines.append(f"    {action}")
        lines.append("}")
        lines.append("")

    # Regex locations are tried in order, after prefix ones unless those say ^~: this one comes first and no prefix
    # location uses ^~, so nothing under runtime/ or static/ escapes it. brotli_static opens a .br sibling from disk
    # itself, without a location lookup, so refusing them by name does not stop it sending them as an encoding.
    hidden = "|".join(re.escape(name) for name in HOST_FILES)
    location(f'~ "^{re.escape(base)}({hidden})$|/\\.|{re.escape(PRECOMPRESSED_SUFFIX)}$"', NO_CACHE,
             "Not part of the site: host configuration, dotfiles (the build's marker), .br siblings by name.",
             "return 404;")
    location(f"{base}runtime/", IMMUTABLE, "Versioned runtime (Pyodide, wheels): cache forever.")
    # nginx requires quotes around a regex containing braces.
    location(f'~ "^{re.escape(base)}{_HASHED_STATIC_NGINX}"', IMMUTABLE, "Content-hashed copy of static/: cache forever.")
    location(f"= {base}sw.js", NO_CACHE, "Service worker script: always revalidate.")
    location(base, NO_CACHE, "HTML pages and everything unversioned: always revalidate (ETag).")
    return "\n".join(lines)


def write_header_files(site: Path, *, isolated: bool = True, base: str = "/", hsts: str | None = None,
                       script_hashes: Sequence[str] = (), connect: Sequence[str] = ()) -> None:
    """Write `site/_headers` and `site/nginx.conf` from the same rules `serve` uses, for the site at `base` (with
    Strict-Transport-Security `hsts`, when given, and the CSP allowing the inline scripts of `script_hashes`)."""
    (site / "_headers").write_text(render_headers_file(site, isolated=isolated, base=base, hsts=hsts,
                                                       script_hashes=script_hashes, connect=connect), encoding="utf-8")
    (site / "nginx.conf").write_text(render_nginx_conf(isolated=isolated, base=base, hsts=hsts,
                                                       script_hashes=script_hashes, connect=connect), encoding="utf-8")
