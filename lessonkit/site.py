"""The build: load every lesson, validate and render it all, and only then write the site atomically."""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing as mp
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import brotli
from markupsafe import Markup

from lessonkit import assets, blocks, bounds, media, runtime, search
from lessonkit.course import Course, load_course, order_lessons
from lessonkit.errors import BuildError, Problem
from lessonkit.files import atomic_write
from lessonkit.headers import MARKER, csp_hash, is_compressible, marker_text, write_header_files
from lessonkit.labs import LabRunner
from lessonkit.lesson import RESERVED_SLUGS, Lesson, load_lesson
from lessonkit.links import INDEX, check_links
from lessonkit.lms import settings as lms_settings
from lessonkit.manifest import course_manifest
from lessonkit.markup import inline, keep_math_in, new_inline_markdown, new_markdown, raw_html_lines
from lessonkit.offline import write_service_worker
from lessonkit.render import Page, environment, render_index, render_lesson
from lessonkit.sources import outside


@dataclass
class Project:
    """Where a course's sources live (the defaults are the repository's own folders)."""

    root: Path
    lessons: Path
    lab: Path
    templates: Path
    static: Path

    @classmethod
    def at(cls, root: Path, lessons: Path | None = None, labs: Path | None = None) -> Project:
        """The standard layout under `root`; tests may point `lessons` and `labs` elsewhere."""
        return cls(root, lessons or root / "lesson", labs or root / "lab", root / "templates", root / "static")


@dataclass
class Built:
    """What a successful render produced, before anything is written."""

    pages: list[Page]
    index: str  # the course's index page
    static_hash: str
    labkit: Path
    scripts: assets.ScriptBundle
    style: Path  # the minified stylesheet, in the build's cache
    editor: Path  # the editor bundle, in the build's cache
    wheels: list[Path] = field(default_factory=list)
    search: dict[str, str] = field(default_factory=dict)  # the search box's bundle URL and integrity
    script_hashes: tuple[str, ...] = ()  # CSP hashes of the pages' inline scripts (their import map)
    course: Course | None = None  # the checked course config (the SCORM package's metadata and rule)
    timings: dict[str, float] = field(default_factory=dict)


def build_site(root: Path, out: Path, *, lessons: Path | None = None, labs: Path | None = None,
               base_path: str = "/", hsts: str | None = None) -> Built:
    """Build the course at `root` into `out`; on any author problem raise BuildError and leave `out` as it was.

    `base_path` is the folder the site is published at on its host: only the host files (`_headers`, `nginx.conf`)
    name it, since every URL in the pages is relative. `hsts` is the Strict-Transport-Security they send (None: none).
    """
    project = Project.at(root, lessons, labs)
    t0 = time.perf_counter()
    problems: list[Problem] = []
    course = load_course(project.lessons, _rel(project.lessons, project.root), project.static / "css" / "lesson.css",
                         problems)
    loaded = order_lessons(load_all(project, problems), course, problems)
    built = render_all(project, loaded, course, problems)
    if problems:
        raise BuildError(problems)
    built.timings["render"] = time.perf_counter() - t0
    built.course = course
    write_site(project, built, out, base_path=base_path, hsts=hsts)
    built.timings["total"] = time.perf_counter() - t0
    return built


def load_all(project: Project, problems: list[Problem]) -> list[Lesson]:
    """Step 1: read every lesson file (in file order), collecting problems rather than stopping."""
    # Hidden files are editors' (".#x.md" locks, ".x.md.swp"), never lessons.
    files = sorted(f for f in project.lessons.glob("*.md") if not f.name.startswith("."))
    if not files:
        problems.append(Problem(_rel(project.lessons, project.root), 1, "no lessons found: add a .md file here"))
    jobs = []
    for file in files:
        rel = _rel(file, project.root)
        if file.is_symlink() and outside(file, project.lessons):
            folder = _rel(project.lessons, project.root)
            problems.append(Problem(rel, 1, f"{rel} is a symbolic link to a file outside {folder}/ — the build "
                                    f"publishes only what is in {folder}/: copy the file there instead"))
        else:
            jobs.append((file, rel))
    lessons: list[Lesson] = []
    for lesson, found in _in_parallel(_load_one, jobs):
        if lesson is not None:
            lessons.append(lesson)
        problems += found
    lessons.sort(key=lambda les: les.rel)
    seen: dict[str, Lesson] = {}
    for lesson in lessons:
        if lesson.slug in RESERVED_SLUGS:
            continue  # refused already
        if lesson.slug in seen:
            problems.append(Problem(lesson.rel, 1, f'slug "{lesson.slug}" is already used by {seen[lesson.slug].rel} — '
                                    "give each lesson its own slug"))
        seen[lesson.slug] = lesson
    return lessons


def render_all(project: Project, lessons: list[Lesson], course: Course | None, problems: list[Problem]) -> Built:
    """Steps 2 and 3: run the labs, validate and render every page, check links across pages."""
    keep_math_in(project.root / ".cache" / "mathml")
    vendor = runtime.check_vendor(project.root)
    problems += [Problem("vendor-manifest.json", 1, msg) for msg in vendor]
    search_box = search.page_config(project.root, problems,
                                    checked=not any(msg.startswith(search.PAGEFIND_BINARY) for msg in vendor))
    labkit = runtime.build_labkit_wheel(project.lab, project.root / ".cache" / "labkit")
    fragment = runtime.runtime_fragment(project.root)
    scripts = assets.bundle_scripts(project.root, project.static / "js", blocks.types())
    style = assets.bundle_styles(project.root, project.static / "css")
    editor = assets.editor_bundle(project.root)
    # What the build makes for static/<hash>/, with the Subresource Integrity value of the bytes it will write. The
    # folder's hash covers these bytes too: an esbuild update changes them, so it must change their URLs.
    made = {f"js/{name}": scripts.folder / name for name in scripts.files}
    made |= {f"css/{assets.STYLE_NAME}": style, "js/editor.js": editor}
    integrity = {rel: assets.sri(path) for rel, path in sorted(made.items())}
    static_hash = tree_hash(project.static, integrity)
    images = media.content_hash(project.lessons)
    if images:  # lesson images are published under static/<hash>/ too: their changes change the hash
        static_hash = hashlib.sha256(f"{static_hash}\0{images}".encode()).hexdigest()[:10]
    wheels = {les.slug: _requirements(project, les, problems) for les in lessons}
    site: dict[str, Any] = {
        "static": f"static/{static_hash}",
        "integrity": {f"static/{static_hash}/{rel}": value for rel, value in integrity.items()},
        "lazy": {name: integrity[f"js/{name}"] for name in assets.LAZY_MODULES},
        "preload": [f"static/{static_hash}/js/{name}" for name in ("main.js", *scripts.preload)],
        "chunks": scripts.chunks,  # a lazy module's static imports, preloaded beside it
        "runtime_for": lambda les: runtime.page_runtime_config(
            fragment, worker=f"static/{static_hash}/js/lab-worker.js", labkit=f"runtime/wheels/{labkit}",
            requirements=[f"runtime/wheels/{w.name}" for w in wheels[les.slug]],
            worker_integrity=integrity["js/lab-worker.js"]),
        "lessons": [{"slug": les.slug, "title": les.title, "summary": str(les.meta.get("summary") or ""),
                     "href": f"{les.slug}.html"} for les in lessons],
        "course": _course_data(course, problems),
        "search": search_box,
        # An unreadable course config is reported: its limit is not known, so no image is refused by size meanwhile.
        "max_image_mb": course.max_image_mb if course is not None else math.inf,
        "scorm": course.scorm if course is not None else dict(lms_settings.DEFAULTS),  # the LMS reporter's rule
    }
    site["importmap"] = import_map(site["integrity"], search_box)
    runner = LabRunner(project.lab, project.root, labkit)
    try:
        pages = _render_pages(project, lessons, site, runner, problems)
    finally:
        runner.close()
    index = render_index(environment(project.templates), site, course_manifest(site["course"], pages))
    check_links(pages, problems, index)
    all_wheels = sorted({w for ws in wheels.values() for w in ws})
    return Built(pages, index, static_hash, project.root / ".cache" / "labkit" / labkit, scripts, style, editor,
                 all_wheels, search=search_box, script_hashes=(csp_hash(site["importmap"]),))


def import_map(integrity: dict[str, str], search_box: dict[str, str]) -> str:
    """The pages' import map: the integrity of every module the site has, by URL (relative: every page is in the
    site's folder). The browser checks every fetch of these URLs against it — an import(), a static import of a
    chunk, a preload — so a module that is not the build's is refused whoever asks for it, and never runs."""
    modules = {f"./{rel}": value for rel, value in integrity.items() if rel.endswith(".js")}
    if search_box.get("integrity"):
        modules[f"./{search_box['bundle']}"] = search_box["integrity"]
    text = json.dumps({"integrity": dict(sorted(modules.items()))}, separators=(",", ":"))
    return text.replace("<", "\\u003c")  # inside <script>: never a tag, whatever a name holds



PARALLEL_FROM = 24  # lessons: below this a second process costs more than it saves
_job: tuple[Project, list[Lesson], dict[str, Any], LabRunner] | None = None  # what forked renderers read


def _in_parallel(fn: Callable[[Any], Any], jobs: list[Any], done: Callable[[], None] | None = None) -> list[Any]:
    """[fn(job) for job in jobs], over the machine's cores for a large course (in order, as serial would be).

    `done` runs in each forked child after its chunk (to release what the child started); the caller runs it for
    the serial case.
    """
    # Forked children inherit the parent's state (the loaded lessons): only jobs and results are pickled.
    workers = min(os.cpu_count() or 1, 8, len(jobs) // (PARALLEL_FROM // 2) or 1)
    if len(jobs) < PARALLEL_FROM or workers < 2 or "fork" not in mp.get_all_start_methods():
        return [fn(job) for job in jobs]
    chunks = [jobs[start::workers] for start in range(workers)]
    with mp.get_context("fork").Pool(workers) as pool:
        results = pool.map(partial(_run_chunk, fn, done), chunks)
    merged: list[Any] = [None] * len(jobs)
    for start, chunk in enumerate(results):
        merged[start::workers] = chunk
    return merged


def _run_chunk(fn: Callable[[Any], Any], done: Callable[[], None] | None, chunk: list[Any]) -> list[Any]:
    """In a forked child: fn over one chunk of jobs, then `done`."""
    try:
        return [fn(job) for job in chunk]
    finally:
        if done is not None:
            done()


def _load_one(job: tuple[Path, str]) -> tuple[Lesson | None, list[Problem]]:
    """Load one lesson file; its problems come back beside it."""
    found: list[Problem] = []
    return load_lesson(job[0], job[1], found), found


def _render_pages(project: Project, lessons: list[Lesson], site: dict[str, Any], runner: LabRunner,
                  problems: list[Problem]) -> list[Page]:
    """Render every lesson (markdown is the slow part), in parallel for a large course."""
    global _job, _tools
    _job, _tools = (project, lessons, site, runner), None  # a new build reads the templates afresh (serve edits them)
    try:
        results = _in_parallel(_render_one, list(range(len(lessons))), runner.close)
    finally:
        _job = None
    pages = []
    for page, found in results:
        pages.append(page)
        problems += found
    return pages


def _render_one(index: int) -> tuple[Page, list[Problem]]:
    """Run the labs of the lesson at this position (of the _job set before forking) and render its page."""
    global _tools
    assert _job is not None
    project, lessons, site, runner = _job
    if _tools is None:
        _tools = (environment(project.templates), new_markdown())
    env, md = _tools
    lesson = lessons[index]
    found: list[Problem] = []
    page = render_lesson(lesson, runner, env, md, site, found)
    page.failed = bool(found)
    return page, found


_tools: tuple[Any, Any] | None = None  # this build's template environment and markdown converter, per process


def _requirements(project: Project, lesson: Lesson, problems: list[Problem]) -> list[Path]:
    """Wheels of the lesson's extra pure-Python packages, downloaded once into the cache."""
    wanted = list(lesson.meta.get("requires") or [])
    if not wanted or not isinstance(wanted, list):
        return []
    try:
        return runtime.fetch_requirements(wanted, project.root)
    except (RuntimeError, ValueError, OSError) as exc:
        line = 1 + next((n for n, t in enumerate(lesson.source.splitlines()) if t.startswith("requires:")), 0)
        problems.append(Problem(lesson.rel, line, f"requires: {exc}"))
        return []


def _course_data(course: Course | None, problems: list[Problem]) -> dict[str, Any]:
    """What every page shows of the course config (a placeholder title when it could not be read: the build fails)."""
    if course is None:
        return {"id": "", "title": "", "tagline": "", "description": "", "style": ""}
    md = new_inline_markdown()
    found: list[Problem] = []
    for key in ("tagline", "description"):
        tags = raw_html_lines(getattr(course, key))
        if tags:
            found.append(Problem(course.rel, course.lines[key], f'raw HTML "{tags[0][1]}" is not allowed in the '
                                 "course config — use markdown"))
        slow = bounds.problems(getattr(course, key))
        found += [Problem(course.rel, course.lines[key], message) for _, message in slow]
    if found:  # raw HTML, or text markdown would take minutes over: never converted
        problems += found
        return {"id": course.id, "title": course.title, "tagline": "", "description": "", "style": course.style()}
    limit = bounds.TimeLimit()
    md.math_errors = []  # type: ignore[attr-defined]
    full = new_markdown()
    try:
        tagline = limit.run(inline, md, course.tagline) if course.tagline else ""
        description = limit.run(full.convert, course.description) if course.description else ""  # the index's
    except bounds.TooSlowError:
        problems.append(Problem(course.rel, course.lines.get("description", course.lines.get("tagline", 1)),
                                bounds.too_slow(limit.seconds, "the course config's markdown")))
        return {"id": course.id, "title": course.title, "tagline": "", "description": "", "style": course.style()}
    found += [Problem(course.rel, course.lines.get("tagline", 1), str(exc))
              for exc in md.math_errors]  # type: ignore[attr-defined]
    found += [Problem(course.rel, course.lines.get("description", 1), str(exc))
              for exc in full.math_errors]  # type: ignore[attr-defined]
    problems += found
    return {"id": course.id, "title": course.title,
            "tagline": Markup(tagline),  # noqa: S704 — inline markdown with raw HTML refused above
            "description": Markup(description),  # noqa: S704 — markdown output with raw HTML refused above
            "style": course.style()}


def write_site(project: Project, built: Built, out: Path, *, base_path: str = "/", hsts: str | None = None) -> None:
    """Step 4: write everything into a sibling temporary folder, then swap it in."""
    out = out.resolve()
    if out.exists() and not (out / MARKER).exists() and any(out.iterdir()):
        raise BuildError([Problem(str(out), 1, f"refusing to replace {out}: it was not made by this build "
                                  f"(no {MARKER} file) — choose another output folder")])
    tmp = out.with_name(f"{out.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir(parents=True)
        t = time.perf_counter()
        static = tmp / "static" / built.static_hash
        _copy_tree(project.static, static)
        for rel in sorted({rel for page in built.pages for rel in page.images}):
            target = static / media.MEDIA / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(project.lessons / rel, target)
        assets.write_styles(built.style, static / "css")
        assets.write_scripts(built.scripts, static / "js")
        assets.write_editor(built.editor, static / "js" / "editor.js")
        _precompress(static, project.root / ".cache" / "br")
        runtime.write_runtime(tmp, project.root)
        runtime.write_wheels(tmp, [built.labkit, *built.wheels])
        built.timings["assets"] = time.perf_counter() - t
        for page in built.pages:
            (tmp / f"{page.lesson.slug}.html").write_text(page.html, encoding="utf-8")
        (tmp / INDEX).write_text(built.index, encoding="utf-8")
        # The pages as written, before the swap: a failure leaves the last good site.
        search.index_site(project.root, tmp, built.search["integrity"], [f"{p.lesson.slug}.html" for p in built.pages])
        _precompress(tmp / search.FOLDER, project.root / ".cache" / "br")
        write_header_files(tmp, base=base_path, hsts=hsts, script_hashes=built.script_hashes)
        write_service_worker(tmp, project.root)  # last: it lists and hashes everything above
        _precompress_file(tmp / "sw.js")
        (tmp / MARKER).write_text(marker_text(built.script_hashes), encoding="utf-8")
        _swap(tmp, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _swap(tmp: Path, out: Path) -> None:
    """Replace `out` with `tmp` in two renames, so a reader sees the old site or the new one."""
    old = out.with_name(f"{out.name}.old-{os.getpid()}")
    if out.exists():
        out.rename(old)
    try:
        tmp.rename(out)
    except OSError:
        if old.exists():
            old.rename(out)  # put the last good site back
        raise
    shutil.rmtree(old, ignore_errors=True)


def _copy_tree(src: Path, dest: Path) -> None:
    """Copy static files, skipping the dev-only ones."""
    for path in sorted(src.rglob("*")):
        if path.is_file() and path.name not in assets.DEV_ONLY:
            target = dest / path.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def _precompress_file(path: Path) -> None:
    """Brotli beside one small file that changes with every build (sw.js, with its build's digests)."""
    # Quality 5, not 11: the browser fetches sw.js only to check for an update, and 11 would cost every rebuild
    # (one-lesson rebuild row of the benchmark) more than the few hundred bytes it saves.
    path.with_name(path.name + ".br").write_bytes(brotli.compress(path.read_bytes(), quality=5))


def _precompress(folder: Path, cache: Path) -> None:
    """Brotli (quality 11) beside each text asset; kept in a content-addressed cache so rebuilds cost nothing."""
    cache.mkdir(parents=True, exist_ok=True)
    for path in folder.rglob("*"):
        if not is_compressible(path.name) or path.stat().st_size < 512 or path.with_name(path.name + ".br").exists():
            continue
        data = path.read_bytes()
        cached = cache / (hashlib.sha256(data).hexdigest()[:32] + ".br")
        if not cached.is_file():
            atomic_write(cached, brotli.compress(data, quality=11))
        shutil.copyfile(cached, path.with_name(path.name + ".br"))


def tree_hash(folder: Path, made: dict[str, str] | None = None) -> str:
    """Content hash of a folder: its files' names and bytes, and the digests of files made from them (an immutable
    URL for static assets)."""
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    for name, digest in sorted((made or {}).items()):
        h.update(f"\0made {name} {digest}".encode())
    return h.hexdigest()[:10]


def _rel(path: Path, root: Path) -> str:
    """Path relative to the project, as authors see it (a link is named, not followed)."""
    try:
        return (path.parent.resolve() / path.name).relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()
