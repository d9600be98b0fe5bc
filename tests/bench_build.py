"""Benchmark build side: the lesson build, 200 generated lessons, the one-lesson rebuild `serve` does, and the SCORM
package `build.py scorm` packs from the built site."""

from __future__ import annotations

import re
import resource
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from lessonkit.pipeline.site import build_site

_SLUG = re.compile(r"^slug:.*$", re.M)
_ORDER = re.compile(r"^order:.*$", re.M)


def build_once(root: Path, out: Path, lessons: Path | None = None) -> float:
    """One in-process build (what `serve` runs on every edit); seconds."""
    t0 = time.perf_counter()
    build_site(root, out, lessons=lessons)
    return time.perf_counter() - t0


def pack_scorm(root: Path, work: Path) -> tuple[float, int, int]:
    """The course built into `work`, then packed as `build.py scorm` packs it: (seconds to pack, the zip's bytes,
    its files)."""
    import zipfile

    from lessonkit.scorm.pack import package_site

    site = work / "scorm-site"
    built = build_site(root, site)
    t0 = time.perf_counter()
    (zip_path,) = package_site(site, built, root, work / "dist")
    took = time.perf_counter() - t0
    with zipfile.ZipFile(zip_path) as z:
        files = len(z.namelist())
    return took, zip_path.stat().st_size, files


def bytecode(root: Path) -> None:
    """The toolkit's bytecode, as a user's machine has it after the first run (and pip gives mkdocs at install):
    with PYTHONDONTWRITEBYTECODE set, as it is on this machine, every `build.py` would compile lessonkit from source."""
    import compileall

    compileall.compile_dir(root / "lessonkit", quiet=1)


def build_cli(root: Path, out: Path, lessons: Path) -> float:
    """`python build.py --out X --lessons Y` as a user runs it; wall seconds including interpreter start."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, str(root / "build.py"), "--out", str(out), "--lessons", str(lessons)],
                          cwd=root, capture_output=True, text=True, check=False)
    took = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"build.py failed ({proc.returncode}): {(proc.stderr or proc.stdout).strip()[-400:]}")
    return took


def copy_lessons(root: Path, folder: Path, count: int) -> Path:
    """`count` copies of every lesson with distinct slugs and orders (200 lessons: the scale the build is benchmarked at)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    sources = sorted((root / "lesson").glob("*.md"))
    n = 0
    for i in range(count):
        for source in sources:
            text = source.read_text(encoding="utf-8")
            slug = f"{source.stem}-{i:03d}" if count > 1 else source.stem
            text = _SLUG.sub(f"slug: {slug}", text, count=1)
            text = _ORDER.sub(f"order: {n + 1}", text, count=1)
            (folder / f"{slug}.md").write_text(text, encoding="utf-8")
            n += 1
    for config in (root / "lesson").glob("course.y*ml"):  # the course's title, tagline and order rules
        shutil.copyfile(config, folder / config.name)
    return folder


def make_course(root: Path, folder: Path, total: int) -> Path:
    """A course of exactly `total` lessons: the course's own, copied in turn under new slugs and orders."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    sources = sorted((root / "lesson").glob("*.md"))
    for n in range(total):
        source = sources[n % len(sources)]
        slug = f"{source.stem}-{n:03d}"
        text = _SLUG.sub(f"slug: {slug}", source.read_text(encoding="utf-8"), count=1)
        (folder / f"{slug}.md").write_text(_ORDER.sub(f"order: {n + 1}", text, count=1), encoding="utf-8")
    for config in (root / "lesson").glob("course.y*ml"):
        shutil.copyfile(config, folder / config.name)
    return folder


def _cpu() -> float:
    """CPU seconds of this process's finished children (the builds run as children)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def mkdocs_cli(lessons: Path, out: Path) -> tuple[float, float]:
    """`mkdocs build` of the same markdown files (its default theme), as a user runs it: (wall, CPU) seconds."""
    config = out.with_name(out.name + "-mkdocs.yml")
    config.write_text(f"site_name: Bench\ndocs_dir: {lessons}\nsite_dir: {out}\n", encoding="utf-8")
    cpu, t0 = _cpu(), time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "--clean", "-f", str(config)],
                          capture_output=True, text=True, check=False)
    took = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"mkdocs build failed ({proc.returncode}): {(proc.stderr or proc.stdout).strip()[-400:]}")
    return took, _cpu() - cpu


def build_and_mkdocs(root: Path, work: Path, total: int, runs: int) -> list[tuple[float, float, float, float]]:
    """Our build and mkdocs's of the same `total` lesson files, alternating, after one untimed run of each:
    (ours wall, ours CPU, mkdocs wall, mkdocs CPU) seconds per round."""
    lessons = make_course(root, work / f"lessons-{total}", total)
    bytecode(root)
    build_cli(root, work / f"c{total}", lessons)
    mkdocs_cli(lessons, work / f"m{total}")
    rounds = []
    for n in range(runs):
        first_ours = n % 2 == 0  # which goes first alternates too: neither always runs on a warmer machine
        pair: dict[str, tuple[float, float]] = {}
        for which in (("ours", "mkdocs") if first_ours else ("mkdocs", "ours")):
            if which == "ours":
                cpu = _cpu()
                pair[which] = (build_cli(root, work / f"c{total}", lessons), _cpu() - cpu)
            else:
                pair[which] = mkdocs_cli(lessons, work / f"m{total}")
        rounds.append((*pair["ours"], *pair["mkdocs"]))
    return rounds


# What `serve` does with each kind of edit (lessonkit.pipeline.memo), done to a copy of the project's files.
EDITS = ("lesson text", "lesson title", "course config", "lab file", "template", "stylesheet")


def project_copy(root: Path, folder: Path) -> Path:
    """A project to edit: its own templates/, static/ and lab/; the toolkit's caches and node_modules shared."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name in ("templates", "static", "lab"):
        shutil.copytree(root / name, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("node_modules", ".cache", "vendor-manifest.json", "package.json", "package-lock.json",
                 "pyproject.toml"):  # its carriers of Pyodide packages too
        (folder / name).symlink_to(root / name)
    return folder


def edit(project: Path, lessons: Path, kind: str, n: int) -> None:
    """The n-th edit of this kind (each one different, as an author's saves are)."""
    lesson = sorted(lessons.glob("*.md"))[len(list(lessons.glob("*.md"))) // 2]
    if kind == "lesson text":
        _append(lesson, "## Goal", f"## Goal\n\nEdited paragraph {n}.")
    elif kind == "lesson title":
        _append(lesson, "title: ", f"title: Edit {n} ")
    elif kind == "course config":
        config = lessons / "course.yaml"
        config.write_text(config.read_text(encoding="utf-8").replace("title: ", f"title: Edit {n} ", 1), encoding="utf-8")
    elif kind == "lab file":
        _append(sorted((project / "lab").glob("*.py"))[0], "\n", f"\n# edit {n}\n")
    elif kind == "template":
        _append(project / "templates" / "lesson.html", "</main>", f"</main>\n<!-- edit {n} -->")
    elif kind == "stylesheet":
        sheet = project / "static" / "css" / "lesson.css"
        sheet.write_text(sheet.read_text(encoding="utf-8") + f"\n/* edit {n} */\n", encoding="utf-8")


def _append(path: Path, anchor: str, replacement: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert anchor in text, f"{path} has no {anchor!r} to edit"
    path.write_text(text.replace(anchor, replacement, 1), encoding="utf-8")


def rebuild_after_edit(root: Path, work: Path, total: int,
                       repeats: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Seconds of the in-process rebuild `serve` runs after each kind of edit of a `total`-lesson course, told what
    changed as serve's watcher tells it, until its site is swapped in (open pages reload then); and, by kind, of what
    it leaves for after (the search index, the service worker's digests, the host files: `Memo.finish`)."""
    from lessonkit.pipeline.memo import Memo
    from lessonkit.serve.dev import _differences, _snapshot

    project = project_copy(root, work / "project-edit")
    lessons = make_course(root, work / "lessons-edit", total)
    out = work / "site-rebuild"
    memo = Memo()
    build_site(project, out, lessons=lessons, labs=project / "lab", memo=memo)
    memo.finish()
    watched = [lessons, *(project / name for name in ("lab", "templates", "static"))]
    times: dict[str, list[float]] = {}
    after: dict[str, list[float]] = {}
    for n in range(repeats):
        for kind in EDITS:
            before = _snapshot(watched)
            edit(project, lessons, kind, n)
            memo.note_changes(_differences(before, _snapshot(watched)))
            t0 = time.perf_counter()
            build_site(project, out, lessons=lessons, labs=project / "lab", memo=memo)
            times.setdefault(kind, []).append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            memo.finish()
            after.setdefault(kind, []).append(time.perf_counter() - t0)
    return times, after


def serve_edit_to_page(root: Path, work: Path, total: int, repeats: int) -> list[float]:
    """Seconds from saving a lesson of a `total`-lesson course to `build.py serve` serving the edited page (the
    watcher's polling, the rebuild and the swap): what an author waits for before the page reloads."""
    lessons = make_course(root, work / "lessons-serve", total)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([sys.executable, str(root / "build.py"), "serve", "--port", str(port), "--lessons",
                             str(lessons), "--out", str(work / "site-serve")], cwd=root, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("Serving"):
                break
        else:
            raise RuntimeError("build.py serve ended before serving")
        threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep its pipe drained
        lesson = sorted(lessons.glob("*.md"))[total // 2]
        url = f"http://127.0.0.1:{port}/{lesson.stem}.html"
        times = []
        for n in range(repeats):
            marker = f"Edited for the benchmark {n}."
            _append(lesson, "## Goal", f"## Goal\n\n{marker}")
            t0 = time.perf_counter()
            while marker not in _get(url):
                if time.perf_counter() - t0 > 60:
                    raise RuntimeError("the edit did not reach the served page in 60 s")
                time.sleep(0.005)
            times.append(time.perf_counter() - t0)
            time.sleep(3.0)  # the search index follows; the next edit comes after it, as an author's would
        return times
    finally:
        proc.terminate()
        proc.wait(10)


def _get(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.read().decode("utf-8", "replace")
    except OSError:
        return ""
