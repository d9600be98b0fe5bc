"""This repository's build.py builds the attention course through the installed lessonkit exactly as
`lessonkit build` does on this folder: the same site, byte for byte, and the same words."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

COURSE = Path(__file__).resolve().parents[2]


def _files(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def test_build_py_is_lessonkit_build_on_this_folder(tmp_path: Path) -> None:
    ours = subprocess.run([sys.executable, "build.py", "--out", str(tmp_path / "a")], cwd=COURSE, capture_output=True,
                          text=True, timeout=900, check=False)
    theirs = subprocess.run([sys.executable, "-m", "lessonkit", "build", "--course", str(COURSE), "--out",
                             str(tmp_path / "b")], cwd=tmp_path, capture_output=True, text=True, timeout=900,
                            check=False)
    assert (ours.returncode, theirs.returncode) == (0, 0), ours.stderr + theirs.stderr
    said = [re.sub(r"\d+ ms", "N ms", re.sub(r"into \S+", "into X", done.stdout)) for done in (ours, theirs)]
    assert said[0] == said[1]
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
