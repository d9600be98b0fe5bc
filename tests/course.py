"""A fixture course for build tests: lessons and labs written into a test's own folder, built, problems read back."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from lessonkit.errors import BuildError
from lessonkit.site import build_site

ROOT = Path(__file__).resolve().parent.parent

LESSON = """---
title: A lesson
---

## Part

Some text.
"""

LAB_LESSON = """---
title: A lesson with a lab
---

## Lab

```{lab}
id: demo
file: demo.py
timeout: 1
```
"""


def write_course(tmp_path: Path, lessons: dict[str, str | bytes], labs: dict[str, str | bytes] | None = None) -> Path:
    """lessons/ and lab/ (with the project's labkit) under tmp_path; returns tmp_path."""
    for folder, files in (("lessons", lessons), ("lab", labs or {})):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        for name, content in files.items():
            path = tmp_path / folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
    labkit = tmp_path / "lab" / "labkit"
    if not labkit.exists():
        labkit.symlink_to(ROOT / "lab" / "labkit")
    return tmp_path


def build(tmp_path: Path) -> Path:
    """Build the course written under tmp_path; returns the site folder."""
    out = tmp_path / "site"
    build_site(ROOT, out, lessons=tmp_path / "lessons", labs=tmp_path / "lab")
    return out


def problems(tmp_path: Path) -> list[str]:
    """The problems a build of the course under tmp_path reports (it must fail, and write no site)."""
    with pytest.raises(BuildError) as info:
        build(tmp_path)
    assert not (tmp_path / "site").exists()
    return [p.replace(f"{tmp_path}/", "") for p in info.value.problems]


def line_of(text: str, needle: str) -> int:
    """1-based line of `needle` in `text`."""
    return text[: text.index(needle)].count("\n") + 1


def png(width: int = 2, height: int = 1) -> bytes:
    """A small valid PNG (grey pixels)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
