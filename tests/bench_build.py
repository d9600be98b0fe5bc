"""Benchmark build side: the course's build (in-process and `lessonkit build`), a generated course of 200 lessons
beside mkdocs's build of the same files, the one-lesson rebuild `lessonkit serve` does, and the SCORM package
`lessonkit scorm` packs from the built site.

Every course here is a course folder (course.yaml at its root, lesson/, lab/, and its own templates/ and static/
where it has them); the generated ones are copies of the repository's course, built from the work folder."""

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
# What a course folder holds besides its lessons, as `make_course` copies it (the build state .lessonkit/ is not).
COURSE_CONFIG = "course.yaml"
COURSE_FOLDERS = ("lab", "templates", "static", "blocks")
_COPY_IGNORE = shutil.ignore_patterns("__pycache__", ".ruff_cache", ".pytest_cache", "*.pyc")


def build_once(course: Path, out: Path) -> float:
    """One in-process build of a course folder (what `serve` runs on every edit); seconds."""
    t0 = time.perf_counter()
    build_site(course, out)
    return time.perf_counter() - t0


def pack_scorm(course: Path, work: Path) -> tuple[float, int, int]:
    """The course built into `work`, then packed as `lessonkit scorm` packs it: (seconds to pack, the zip's bytes,
    its files)."""
    import zipfile

    from lessonkit.core.places import course_state
    from lessonkit.scorm.pack import package_site

    site = work / "scorm-site"
    built = build_site(course, site)
    t0 = time.perf_counter()
    (zip_path,) = package_site(site, built, course_state(course), work / "dist")
    took = time.perf_counter() - t0
    with zipfile.ZipFile(zip_path) as z:
        files = len(z.namelist())
    return took, zip_path.stat().st_size, files


def bytecode() -> None:
    """The toolkit's bytecode (lessonkit and labkit, where they are installed from), as a user's machine has it after
    the first run (and pip gives mkdocs at install): with PYTHONDONTWRITEBYTECODE set, as it is on this machine,
    every `lessonkit build` would compile lessonkit from source."""
    import compileall

    import labkit
    import lessonkit

    for package in (lessonkit, labkit):
        compileall.compile_dir(Path(package.__file__).parent, quiet=1)


def lessonkit_command(command: str, course: Path, *args: str) -> list[str]:
    """`lessonkit COMMAND --course DIR ...` as this interpreter runs it (`python -m lessonkit`)."""
    return [sys.executable, "-m", "lessonkit", command, "--course", str(course), *args]


def build_cli(course: Path, out: Path) -> float:
    """`lessonkit build --course DIR --out X` as a user runs it; wall seconds including interpreter start."""
    t0 = time.perf_counter()
    proc = subprocess.run(lessonkit_command("build", course, "--out", str(out)), cwd=course, capture_output=True,
                          text=True, check=False)
    took = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"lessonkit build failed ({proc.returncode}): {(proc.stderr or proc.stdout).strip()[-400:]}")
    return took


def make_course(source: Path, folder: Path, total: int) -> Path:
    """A course folder of exactly `total` lessons: the course at `source` (its course.yaml, lab/, templates/,
    static/, blocks/) with its lessons copied in turn under new slugs and orders into lesson/."""
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "lesson").mkdir(parents=True)
    shutil.copyfile(source / COURSE_CONFIG, folder / COURSE_CONFIG)
    for name in COURSE_FOLDERS:
        if (source / name).is_dir():
            shutil.copytree(source / name, folder / name, ignore=_COPY_IGNORE)
    sources = sorted((source / "lesson").glob("*.md"))
    if not sources:
        raise RuntimeError(f"{source / 'lesson'} has no lessons to copy")
    for n in range(total):
        lesson = sources[n % len(sources)]
        slug = f"{lesson.stem}-{n:03d}"
        text = _SLUG.sub(f"slug: {slug}", lesson.read_text(encoding="utf-8"), count=1)
        (folder / "lesson" / f"{slug}.md").write_text(_ORDER.sub(f"order: {n + 1}", text, count=1), encoding="utf-8")
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


def build_and_mkdocs(source: Path, work: Path, total: int, runs: int) -> list[tuple[float, float, float, float]]:
    """`lessonkit build` of a generated course of `total` lessons (copies of the course at `source`) and mkdocs's
    build of the same lesson files, alternating, after one untimed run of each: (ours wall, ours CPU, mkdocs wall,
    mkdocs CPU) seconds per round."""
    course = make_course(source, work / f"course-{total}", total)
    bytecode()
    build_cli(course, work / f"c{total}")
    mkdocs_cli(course / "lesson", work / f"m{total}")
    rounds = []
    for n in range(runs):
        first_ours = n % 2 == 0  # which goes first alternates too: neither always runs on a warmer machine
        pair: dict[str, tuple[float, float]] = {}
        for which in (("ours", "mkdocs") if first_ours else ("mkdocs", "ours")):
            if which == "ours":
                cpu = _cpu()
                pair[which] = (build_cli(course, work / f"c{total}"), _cpu() - cpu)
            else:
                pair[which] = mkdocs_cli(course / "lesson", work / f"m{total}")
        rounds.append((*pair["ours"], *pair["mkdocs"]))
    return rounds


# What `serve` does with each kind of edit (lessonkit.pipeline.memo), done to a copy of the course.
EDITS = ("lesson text", "lesson title", "course config", "lab file", "template", "stylesheet")
# The stylesheet the edited copy has of its own when the course has none (static/css/*.css follows the toolkit's).
EXTRA_CSS = "bench-extra.css"


def edit_copy(source: Path, folder: Path, total: int) -> Path:
    """A generated course to edit (`make_course`) with a template and a stylesheet of its own: the course's own
    templates/ and static/css/*.css when it has them, else the toolkit's lesson.html copied into templates/ (a
    course's template overrides the toolkit's of the same name) and a small static/css/ stylesheet."""
    from lessonkit.core.places import TEMPLATES

    course = make_course(source, folder, total)
    if not _template(course):
        (course / "templates").mkdir(exist_ok=True)
        shutil.copyfile(TEMPLATES / "lesson.html", course / "templates" / "lesson.html")
    if not _stylesheet(course):
        (course / "static" / "css").mkdir(parents=True, exist_ok=True)
        (course / "static" / "css" / EXTRA_CSS).write_text(".bench-extra { color: inherit; }\n", encoding="utf-8")
    return course


def _template(course: Path) -> Path | None:
    """The course's own page template an edit changes: its lesson.html, else the first of its templates."""
    folder = course / "templates"
    found = [folder / "lesson.html"] if (folder / "lesson.html").is_file() else sorted(folder.glob("*.html"))
    return found[0] if found else None


def _stylesheet(course: Path) -> Path | None:
    """The course's own stylesheet an edit changes (static/css/*.css), if it has one."""
    return next(iter(sorted((course / "static" / "css").glob("*.css"))), None)


def watched(course: Path) -> list[Path]:
    """What `lessonkit serve` watches in a course folder (lessonkit.serve.dev.WATCH_DIRS and course.yaml)."""
    from lessonkit.serve.dev import WATCH_DIRS

    return [*(course / name for name in WATCH_DIRS), course / COURSE_CONFIG]


def edit(course: Path, kind: str, n: int) -> None:
    """The n-th edit of this kind (each one different, as an author's saves are)."""
    lessons = sorted((course / "lesson").glob("*.md"))
    lesson = lessons[len(lessons) // 2]
    if kind == "lesson text":
        _append(lesson, "## Goal", f"## Goal\n\nEdited paragraph {n}.")
    elif kind == "lesson title":
        _append(lesson, "title: ", f"title: Edit {n} ")
    elif kind == "course config":
        _append(course / COURSE_CONFIG, "title: ", f"title: Edit {n} ")
    elif kind == "lab file":
        _append(sorted((course / "lab").glob("*.py"))[0], "\n", f"\n# edit {n}\n")
    elif kind == "template":
        template = _template(course)
        assert template is not None, f"{course / 'templates'} has no template to edit"
        template.write_text(template.read_text(encoding="utf-8") + f"\n<!-- edit {n} -->\n", encoding="utf-8")
    elif kind == "stylesheet":
        sheet = _stylesheet(course)
        assert sheet is not None, f"{course / 'static' / 'css'} has no stylesheet to edit"
        sheet.write_text(sheet.read_text(encoding="utf-8") + f"\n/* edit {n} */\n", encoding="utf-8")


def _append(path: Path, anchor: str, replacement: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert anchor in text, f"{path} has no {anchor!r} to edit"
    path.write_text(text.replace(anchor, replacement, 1), encoding="utf-8")


def rebuild_after_edit(source: Path, work: Path, total: int,
                       repeats: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Seconds of the in-process rebuild `serve` runs after each kind of edit of a `total`-lesson course, told what
    changed as serve's watcher tells it, until its site is swapped in (open pages reload then); and, by kind, of what
    it leaves for after (the search index, the service worker's digests, the host files: `Memo.finish`)."""
    from lessonkit.pipeline.memo import Memo
    from lessonkit.serve.dev import _differences, _snapshot

    course = edit_copy(source, work / "course-edit", total)
    out = work / "site-rebuild"
    memo = Memo()
    build_site(course, out, memo=memo)
    memo.finish()
    paths = watched(course)
    times: dict[str, list[float]] = {}
    after: dict[str, list[float]] = {}
    for n in range(repeats):
        for kind in EDITS:
            before = _snapshot(paths)
            edit(course, kind, n)
            memo.note_changes(_differences(before, _snapshot(paths)))
            t0 = time.perf_counter()
            build_site(course, out, memo=memo)
            times.setdefault(kind, []).append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            memo.finish()
            after.setdefault(kind, []).append(time.perf_counter() - t0)
    return times, after


def serve_edit_to_page(source: Path, work: Path, total: int, repeats: int) -> list[float]:
    """Seconds from saving a lesson of a `total`-lesson course to `lessonkit serve` serving the edited page (the
    watcher, the rebuild and the swap): what an author waits for before the page reloads."""
    course = make_course(source, work / "course-serve", total)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(lessonkit_command("serve", course, "--port", str(port), "--out", str(work / "site-serve")),
                            cwd=course, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        said = []
        for line in proc.stdout:
            said.append(line)
            if line.startswith("Serving"):
                break
        else:
            raise RuntimeError(f"lessonkit serve ended before serving: {''.join(said).strip()[-400:]}")
        threading.Thread(target=proc.stdout.read, daemon=True).start()  # keep its pipe drained
        lesson = sorted((course / "lesson").glob("*.md"))[total // 2]
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
