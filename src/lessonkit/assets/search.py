"""Search across the course: Pagefind indexes the staged site. Its binary comes from PyPI's pagefind-bin (a
dependency of lessonkit, one wheel per platform), checked against the sha256 pinned here for its platform."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from lessonkit.core.errors import BuildError, Problem
from lessonkit.core.files import atomic_write, sha256_path, sri, stat_stamp
from lessonkit.core.places import user_cache

PAGEFIND_VERSION = "1.5.2"  # pyproject.toml's pagefind-bin pin
PAGEFIND_PACKAGE = "pagefind_bin"
# The binary of each platform's pagefind-bin wheel, by its file name in the package: its sha256. A platform missing
# here is refused with its name (add it after checking the wheel PyPI serves for it).
PAGEFIND_SHA256 = {
    "pagefind": (
        "c4b86009ce5420dc2a1748ab2705bef6ba730ed883f684fd52ef6008bd600532",  # manylinux x86_64
        "91b45c26c08ab9c974de9e2b3f2a37cefc627d0f0b9f5b0baefbf1f4738cca9b",  # manylinux aarch64
        "868ed02b2cbba891f924e48ed8438d3ec8c4140cb1725f5b56c92bc3caad1c7e",  # macOS arm64
        "2637f6445c013d08092abbaf532ccf51ceb49c380181afb16aa0f3f462021f68",  # macOS x86_64
    ),
    "pagefind.exe": ("e1cceb1301f4018390bed013856b8d7da6d522fcf3913ea6a67c3e86cb2601a1",),  # Windows x86_64
}
PAGEFIND_BINARY = "pagefind-bin"  # how problems with it are shown
FOLDER = "pagefind"  # in the site: the index and the JavaScript that reads it
BUNDLE = f"{FOLDER}/pagefind.js"
# Pagefind also writes its own search interfaces; the page drives pagefind.js itself, so they are not published.
UNUSED = ("pagefind-ui.js", "pagefind-ui.css", "pagefind-modular-ui.js", "pagefind-modular-ui.css",
          "pagefind-component-ui.js", "pagefind-component-ui.css", "pagefind-highlight.js")
CACHE = "pagefind"  # in the user cache
TIMEOUT = 120  # seconds: 200 lessons index in well under one; a hung binary must not hang the build
_SAMPLE_PAGE = '<!DOCTYPE html><html lang="en"><body><main data-pagefind-body><h1>t</h1><p>w</p></main></body></html>'


def binary() -> Path:
    """The Pagefind binary pagefind-bin installed, checked against its pinned sha256 (once per process while its
    stat is unchanged); SearchError when it is missing or not the pinned build."""
    spec = importlib.util.find_spec(PAGEFIND_PACKAGE)
    if spec is None or spec.origin is None:
        raise SearchError(f"not installed — reinstall lessonkit (pip install lessonkit), which installs "
                          f"pagefind-bin=={PAGEFIND_VERSION}")
    folder = Path(spec.origin).parent
    for name, pinned in PAGEFIND_SHA256.items():
        exe = folder / name
        if exe.is_file():
            digest = _sha256(exe, stat_stamp(exe))
            if digest not in pinned:
                raise SearchError(f"{exe} has sha256 {digest}, not a build lessonkit pins for pagefind-bin "
                                  f"{PAGEFIND_VERSION} — reinstall it (pip install --force-reinstall "
                                  f"pagefind-bin=={PAGEFIND_VERSION})")
            return exe
    raise SearchError(f"{folder} holds no Pagefind binary — reinstall pagefind-bin=={PAGEFIND_VERSION}")


@functools.cache
def _sha256(path: Path, stamp: tuple[int, ...] | None) -> str:
    return sha256_path(path)


class SearchError(RuntimeError):
    """Pagefind is missing or failed; the message says what to do."""


class IndexCancelledError(SearchError):
    """The run was stopped on request (`serve`: an edit came in while the last build's index was being made)."""


def page_config(problems: list[Problem]) -> dict[str, Any]:
    """What the search box needs on every page: the bundle's site-relative URL and its Subresource Integrity."""
    integrity = ""
    try:
        integrity = bundle_integrity()
    except SearchError as exc:
        problems.append(_problem(str(exc)))
    return {"bundle": BUNDLE, "integrity": integrity}


def bundle_integrity() -> str:
    """sha384 of the pagefind.js the pinned binary writes (the same bytes for every site), cached per binary."""
    exe = binary()
    digest = _sha256(exe, stat_stamp(exe))
    cached = user_cache() / CACHE / f"bundle-{digest[:16]}.json"
    try:
        value = json.loads(cached.read_text(encoding="utf-8"))["integrity"]
        if isinstance(value, str) and value.startswith("sha384-"):
            return value
    except (OSError, ValueError, KeyError, TypeError):
        pass
    with tempfile.TemporaryDirectory(prefix="lessonkit-pagefind-") as tmp:
        (Path(tmp) / "page.html").write_text(_SAMPLE_PAGE, encoding="utf-8")
        run_pagefind(Path(tmp), ["page.html"])
        value = sri(Path(tmp) / BUNDLE)
    atomic_write(cached, json.dumps({"integrity": value}).encode())
    return value


def index_site(site: Path, integrity: str, pages: list[str],
               cancel: threading.Event | None = None) -> None:
    """Index the lesson pages (file names) in the staged `site` into site/pagefind/; raise BuildError on failure
    (IndexCancelledError when `cancel` is set meanwhile)."""
    try:
        run_pagefind(site, pages, cancel)
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


def run_pagefind(site: Path, pages: list[str], cancel: threading.Event | None = None) -> None:
    """Run the pinned binary over these pages of `site` (no config file or PAGEFIND_* variable applies); stopped,
    raising IndexCancelledError, when `cancel` is set."""
    exe = binary()
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
        raise SearchError(f"could not run Pagefind ({exc.strerror or exc}) — reinstall pagefind-bin=="
                          f"{PAGEFIND_VERSION}") from None
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
