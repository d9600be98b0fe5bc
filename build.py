#!/usr/bin/env python3
"""Build this repository's course, the attention course, through the installed lessonkit exactly as `lessonkit build`
does: `python build.py` writes site/; `python build.py serve`, `check`, `scorm` and `add "Title"` are lessonkit's
commands on this folder (`python build.py --help` lists them)."""

from __future__ import annotations

import sys
from pathlib import Path

from lessonkit.cli import COMMANDS, main

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] not in (*COMMANDS, "-h", "--help", "--version"):
        args = ["build", *args]
    if args[0] in COMMANDS and args[0] != "new" and "--course" not in args and "-C" not in args:
        args[1:1] = ["--course", str(HERE)]
    sys.exit(main(args))
