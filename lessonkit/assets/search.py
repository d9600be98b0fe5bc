"""Search across the course: Pagefind (pinned npm binary, checked like every vendored file) indexes the staged site."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from lessonkit.assets.esbuild import sri
from lessonkit.build.files import atomic_write
from lessonkit.content.errors import BuildError, Problem

PAGEFIND_VERSION = "1.6.0"
PAGEFIND_PACKAGE = "@pagefind/linux-x64"
# The npm package ships its binary per platform; the linux-x64 one is the only build the project pins (CI and the
# reference machine). It is Pagefind's "extended" build, the one that package ships (it adds CJK word splitting).
PAGEFIND_BINARY = f"node_modules/{PAGEFIND_PACKAGE}/bin/pagefind_extended"
FOLDER = "pagefind"  # in the site: the index and the JavaScript that reads it
BUNDLE = f"{FOLDER}/pagefind.js"
# Pagefind also writes its own search interfaces; the page drives pagefind.js itself, so they are not published.
UNUSED = ("pagefind-ui.js", "pagefind-ui.css", "pagefind-modular-ui.js", "pagefind-modular-ui.css",
          "pagefind-component-ui.js", "pagefind-component-ui.css", "pagefind-highlight.js")
CACHE = Path(".cache") / "pagefind"
TIMEOUT = 120  # seconds: 200 lessons index in well under one; a hung binary must not hang the build
_SAMPLE_PAGE = '<!DOCTYPE html><html lang="en"><body><main data-pagefind-body><h1>t</h1><p>w</p></main></body></html>'


def binary(root: Path) -> Path:
    """The pinned Pagefind binary of the project at `root` (checked by runtime.check_vendor)."""
    return root / PAGEFIND_BINARY


class SearchError(RuntimeError):
    """Pagefind is missing or failed; the message says what to do."""


class IndexCancelledError(SearchError):
    """The run was stopped on request (`serve`: an edit came in while the last build's index was being made)."""


def page_config(root: Path, problems: list[Problem], *, checked: bool = True) -> dict[str, Any]:
    """What the search box needs on every page: the bundle's site-relative URL and its Subresource Integrity.

    checked: False when the vendored files' check already reported the binary (its problem is not repeated).
    """
    integrity = ""
    if checked:
        try:
            integrity = bundle_integrity(root)
        except SearchError as exc:
            problems.append(_problem(str(exc)))
    return {"bundle": BUNDLE, "integrity": integrity}


def bundle_integrity(root: Path) -> str:
    """sha384 of the pagefind.js the pinned binary writes (the same bytes for every site), cached per binary."""
    exe = binary(root)
    if not exe.is_file():
        raise SearchError(f"missing — run \"npm ci\" to install pagefind {PAGEFIND_VERSION}")
    stat = exe.stat()
    cached = root / CACHE / f"bundle-{stat.st_size}-{stat.st_mtime_ns}-{stat.st_ino}.json"
    try:
        value = json.loads(cached.read_text(encoding="utf-8"))["integrity"]
        if isinstance(value, str) and value.startswith("sha384-"):
            return value
    except (OSError, ValueError, KeyError, TypeError):
        pass
    with tempfile.TemporaryDirectory(prefix="lessonkit-pagefind-") as tmp:
        (Path(tmp) / "page.html").write_text(_SAMPLE_PAGE, encoding="utf-8")
        run_pagefind(root, Path(tmp), ["page.html"])
        value = sri(Path(tmp) / BUNDLE)
    atomic_write(cached, json.dumps({"integrity": value}).encode())
    return value


def index_site(root: Path, site: Path, integrity: str, pages: list[str],
               cancel: threading.Event | None = None) -> None:
    """Index the lesson pages (file names) in the staged `site` into site/pagefind/; raise BuildError on failure
    (IndexCancelledError when `cancel` is set meanwhile)."""
    try:
        run_pagefind(root, site, pages, cancel)
    except IndexCancelledError:
        raise
    except SearchError as exc:
        raise BuildError([_problem(str(exc))]) from None
    out = site / FOLDER
    for name in UNUSED:
        (out / name).unlink(missing_ok=True)
    # One wasm per language family; the ones no language of the course uses are not published.
    entry = json.loads((out / "pagefind-entry.json").read_text(encoding="utf-8"))
    used = {f"wasm.{lang.get('wasm')}.pagefind" for lang in entry.get("languages", {}).values()}
    for wasm in out.glob("wasm.*.pagefind"):
        if wasm.name not in used:
            wasm.unlink()
    if sri(out / "pagefind.js") != integrity:
        raise BuildError([_problem(f"wrote a {BUNDLE} whose hash is not the one the pages carry — the binary "
                                   "changed during the build: build again")])


def run_pagefind(root: Path, site: Path, pages: list[str], cancel: threading.Event | None = None) -> None:
    """Run the pinned binary over these pages of `site` (no config file or PAGEFIND_* variable applies); stopped,
    raising IndexCancelledError, when `cancel` is set."""
    exe = binary(root)
    # Pagefind reads pagefind.yml from its working folder and options from PAGEFIND_* variables: neither is the
    # course's, so it runs in the site itself with a clean environment and every option on its command line.
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("PAGEFIND")}
    # Only the lessons: the course index lists them, and its copy of their titles would be results of its own. Page
    # names are slugs (lowercase letters, digits, dashes) + ".html": nothing in them means anything to a glob.
    names = ",".join(pages)
    cmd = [str(exe), "--site", ".", "--output-subdir", FOLDER, "--glob", f"{{{names}}}", "--silent"]
    shutil.rmtree(site / FOLDER, ignore_errors=True)
    try:
        result = _run(cmd, site, env, cancel)
    except subprocess.TimeoutExpired:
        raise SearchError(f"Pagefind did not finish indexing in {TIMEOUT} s — the last good site is kept; "
                          "build again") from None
    except OSError as exc:
        raise SearchError(f"could not run Pagefind ({exc.strerror or exc}) — run \"npm ci\" to restore "
                          f"pagefind {PAGEFIND_VERSION}") from None
    if result.returncode != 0 or not (site / BUNDLE).is_file():
        said = " ".join((result.stderr or result.stdout).split())[-600:] or f"exit status {result.returncode}"
        raise SearchError(f"Pagefind could not index the site: {said} — the last good site is kept")


def _run(cmd: list[str], site: Path, env: dict[str, str],
         cancel: threading.Event | None) -> subprocess.CompletedProcess[str]:
    """The finished run, within TIMEOUT; killed when `cancel` is set."""
    if cancel is None:
        return subprocess.run(cmd, cwd=site, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False)
    with tempfile.TemporaryFile("w+") as said, subprocess.Popen(cmd, cwd=site, env=env, stdout=said, stderr=said,
                                                                text=True) as proc:
        deadline = time.monotonic() + TIMEOUT
        while proc.poll() is None:
            if cancel.wait(0.02) or time.monotonic() > deadline:
                proc.kill()
                proc.wait()
                if cancel.is_set():
                    raise IndexCancelledError("stopped: a newer build makes its own index")
                raise subprocess.TimeoutExpired(cmd, TIMEOUT)
        said.seek(0)
        return subprocess.CompletedProcess(cmd, proc.returncode, said.read(), "")


def _problem(message: str) -> Problem:
    """A problem with the search index, named at the binary that makes it."""
    return Problem(PAGEFIND_BINARY, 1, message)
