"""Images in lessons: raster files kept beside the lessons, checked, and copied into the site's static folder.

`![A plot](img/plot.png)` in `lesson/x.md` names `lesson/img/plot.png`. It is published as
`static/<hash>/media/img/plot.png`: same origin (the page's Content-Security-Policy loads images from the site
only), immutable and precached with the other static files. Off-site, `data:` and script URLs are refused, and so
is SVG, which can carry scripts when opened on its own.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path, PurePosixPath
from urllib.parse import quote, unquote

from lessonkit.content.sources import file_kind, outside

MEDIA = "media"  # the folder under static/<hash>/
# The largest image a lesson may publish, in MB of 1,000,000 bytes (course.yaml's "max_image_mb:" sets another):
# every visitor of the page downloads it, on a phone too.
DEFAULT_MAX_IMAGE_MB = 5.0
MB = 1_000_000
# The types a page may show, by their first bytes (a renamed file is caught too).
SIGNATURES: dict[str, tuple[bytes, ...]] = {
    ".png": (b"\x89PNG\r\n\x1a\n",), ".jpg": (b"\xff\xd8\xff",), ".jpeg": (b"\xff\xd8\xff",),
    ".gif": (b"GIF87a", b"GIF89a"), ".webp": (b"RIFF",), ".avif": (b"\0\0\0",),
}
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


class ImageError(ValueError):
    """An image reference that cannot be published, with how to fix it."""


def resolve(src: str, lessons: Path, shown: str, max_mb: float = DEFAULT_MAX_IMAGE_MB) -> str:
    """The image's path under lessons/ (POSIX); ImageError when it is refused (larger than `max_mb` MB too). `shown`
    names lessons/ in messages."""
    scheme = _SCHEME.match(src)
    if scheme and scheme.group(0).lower() in ("javascript:", "vbscript:"):
        raise ImageError(f'image "{src}" uses a script URL — images are files next to the lesson, e.g. '
                         f"![A plot](img/plot.png) for {shown}/img/plot.png")
    if scheme or src.startswith(("//", "\\")):
        raise ImageError(f'image "{src}" is not on this site (the page loads images from the site only) — save it '
                         f"in {shown}/, e.g. {shown}/img/plot.png, and write ![A plot](img/plot.png)")
    if "?" in src or "#" in src:
        raise ImageError(f'image "{src}" has a query or fragment — name the file only, e.g. img/plot.png')
    path = PurePosixPath(unquote(src))
    if path.is_absolute() or ".." in path.parts:
        raise ImageError(f'image "{src}" must be a path inside {shown}/ relative to the lesson, e.g. img/plot.png')
    if any(part.startswith(".") for part in path.parts):
        raise ImageError(f'image "{src}" is a hidden file — rename it without the leading dot')
    suffix = path.suffix.lower()
    if suffix not in SIGNATURES:
        kind = "SVG images can carry scripts" if suffix == ".svg" else f'"{path.suffix}" is not an image type the site serves'
        raise ImageError(f'image "{src}": {kind} — use PNG, JPEG, GIF, WebP or AVIF')
    file = lessons.joinpath(*path.parts)
    kind = file_kind(file)
    if kind == "missing":
        raise ImageError(f'image "{src}" not found (looked for {shown}/{path}) — add the file or fix the path')
    if kind or outside(file, lessons):
        raise ImageError(f'image "{src}" is {kind or "a link to a file outside " + shown + "/"} — put the image '
                         f"file itself in {shown}/")
    size = file.stat().st_size
    if size > max_mb * MB:
        raise ImageError(f'image "{src}" is {size / MB:,.1f} MB, more than the {max_mb:g} MB a lesson\'s image may be '
                         "(every visitor of the page downloads it) — make it smaller (export it at the size it is "
                         'shown, or as WebP or AVIF), or set "max_image_mb:" in course.yaml')
    with file.open("rb") as handle:
        head = handle.read(16)
    if not _looks_like(head, suffix):
        raise ImageError(f'image "{src}" is not a {suffix[1:].upper()} file (its first bytes say otherwise) — '
                         "export it again, or fix its extension")
    return path.as_posix()


def url(static: str, rel: str) -> str:
    """The image's URL in the site (relative, like every URL in a page)."""
    return f"{static}/{MEDIA}/{quote(rel)}"


def _looks_like(head: bytes, suffix: str) -> bool:
    """The file's first bytes match its extension."""
    if suffix == ".webp":
        return head.startswith(b"RIFF") and head[8:12] == b"WEBP"
    if suffix == ".avif":
        return head[4:8] == b"ftyp" and head[8:12] in (b"avif", b"avis")
    return head.startswith(SIGNATURES[suffix])


def content_hash(lessons: Path) -> str:
    """Hash of every image file under lessons/ ('' when there is none), for the static folder's versioned URL."""
    h, found = hashlib.sha256(), False
    for folder, dirs, files in os.walk(lessons):  # never into linked folders (a loop would never end)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            if path.suffix.lower() in SIGNATURES and not name.startswith(".") and file_kind(path) is None:
                h.update(path.relative_to(lessons).as_posix().encode() + b"\0" + path.read_bytes())
                found = True
    return h.hexdigest() if found else ""
