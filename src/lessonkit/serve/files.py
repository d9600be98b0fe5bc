"""What a request for a site file comes to on this server: its URL path made safe, the file it names (a folder's
index.html, through a rebuild's swap of site/), whether the client takes the precompressed .br twin, and whether
its cached copy (If-None-Match) is still good. lessonkit.serve.server sends the answer."""

from __future__ import annotations

import posixpath
import time
from pathlib import Path
from urllib.parse import unquote


def safe_relpath(url_path: str) -> str | None:
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


def locate(site: Path, rel: str) -> Path | None:
    """The file (or, for a folder named without its slash, the folder) `rel` names in `site`, or None."""
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


def accepts_br(accept_encoding: str) -> bool:
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


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """Weak comparison of If-None-Match against our ETag (RFC 9110 13.1.2)."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    bare = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == bare for tag in if_none_match.split(","))
