"""The build: load every lesson, validate and render it all, and only then write the site atomically.

load → validate → render → write: every step collects problems rather than stopping at the first, and the site is
written (pipeline.write) only when there are none, so a bad input never destroys the last good build.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lessonkit import blocks, runtime
from lessonkit.assets import mathfont, scripts, search, styles
from lessonkit.assets.editor import editor_bundle
from lessonkit.content import lms as lms_settings
from lessonkit.content import media
from lessonkit.content.course import Course, load_course, order_lessons
from lessonkit.content.lesson import Lesson
from lessonkit.content.schema import split_notes
from lessonkit.content.sources import shown
from lessonkit.core import messages
from lessonkit.core.errors import BuildError, Problem, RuntimeSetupError
from lessonkit.core.files import sri
from lessonkit.core.places import STATIC, course_state
from lessonkit.hosting.headers import csp_hash
from lessonkit.labs.runner import LabRunner
from lessonkit.page.course import course_data, course_parts
from lessonkit.page.head import import_map
from lessonkit.page.index import render_index
from lessonkit.page.lesson import Content, Page, render_content, render_page
from lessonkit.page.links import check_links
from lessonkit.page.manifest import course_manifest
from lessonkit.page.templates import environment
from lessonkit.pipeline.load import load_all
from lessonkit.pipeline.memo import Memo, digest, folder_digest, lab_shape, site_digest
from lessonkit.pipeline.parallel import in_parallel
from lessonkit.pipeline.requirements import first_steps, lesson_release, requirements
from lessonkit.pipeline.static import tree_hash, with_images
from lessonkit.pipeline.write import write_site
from lessonkit.text.markup import new_markdown
from lessonkit.text.mathml import keep_math_in

# What rendering a lesson costs beyond its markdown's length (its page's frame), in characters of markdown: with its
# content made already, a lesson costs this alone.
PAGE_COST = 2000


@dataclass
class Project:
    """A course: its folder (where course.yaml is) and where its sources are in it. The course's own templates/,
    static/ and blocks/ add to the toolkit's, or override its files of the same names."""

    root: Path
    lessons: Path
    lab: Path
    templates: Path | None  # the course's templates, looked up before the toolkit's (None: it has none)
    static: Path | None  # the course's static files, published beside the toolkit's (None: it has none)
    blocks: tuple[Path, ...] = ()  # folders of the course's own block types (its blocks/, and a test's)

    @classmethod
    def at(cls, root: Path, lessons: Path | None = None, labs: Path | None = None,
           blocks: tuple[Path, ...] = ()) -> Project:
        """The course folder's standard layout (lesson/, lab/, and templates/, static/, blocks/ where it has them);
        tests may point `lessons` and `labs` elsewhere, and add block types."""
        def own(name: str) -> Path | None:
            return root / name if (root / name).is_dir() else None

        course_blocks = own("blocks")
        folders = (*((course_blocks,) if course_blocks is not None else ()), *blocks)
        return cls(root, lessons or root / "lesson", labs or root / "lab", own("templates"), own("static"),
                   tuple(dict.fromkeys(Path(folder).resolve() for folder in folders)))

    @property
    def kinds(self) -> dict[str, blocks.BlockType]:
        """The block types its lessons may use."""
        return blocks.types(self.blocks, self.root)

    @property
    def state(self) -> Path:
        """The course's build state folder (.lessonkit/: its labs' answers, converted math, compressed files)."""
        return course_state(self.root)


@dataclass
class Built:
    """What a successful render produced, before anything is written."""

    pages: list[Page]
    index: str  # the course's index page
    static_hash: str
    labkits: list[Path]  # the labkit wheel of each release the pages boot (each compiled by its own CPython)
    scripts: scripts.ScriptBundle
    style: Path  # the minified stylesheet, in the build's cache
    editor: Path  # the editor bundle, in the build's cache
    wheels: list[Path] = field(default_factory=list)
    search: dict[str, str] = field(default_factory=dict)  # the search box's bundle URL and integrity
    script_hashes: tuple[str, ...] = ()  # CSP hashes of the pages' inline scripts (their import map)
    connect: tuple[str, ...] = ()  # origins besides its own the pages may connect to (a class's record store)
    course: Course | None = None  # the checked course config (the SCORM package's metadata and rule)
    timings: dict[str, float] = field(default_factory=dict)
    # The Pyodide releases the lessons boot (each lesson's "pyodide:", else the course's), each with the verified
    # Pyodide packages its lessons load: the build prepares and writes exactly these.
    runtimes: dict[str, list[Path]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # for the author, failing nothing: a key's old name (path:line)
    fonts: dict[str, Path] = field(default_factory=dict)  # the math font's faces (static/<hash>/fonts/), by file name


@dataclass
class _Assets:
    """What the pages refer to, made before any page: the bundles and their integrity, the labkit wheel, search."""

    scripts: scripts.ScriptBundle
    style: Path
    editor: Path
    integrity: dict[str, str]  # Subresource Integrity by path under static/<hash>/
    static_hash: str
    labkits: dict[str, str]  # the labkit wheel's file name, by release
    search: dict[str, str]
    images: str = ""  # the hash of the lessons' image files (what the contents' checks of them read)
    fonts: dict[str, Path] = field(default_factory=dict)  # the math font's faces, by file name


@dataclass
class _Rendering:
    """What every forked renderer reads (pipeline.parallel); its templates and markdown are made once per process."""

    project: Project
    lessons: list[Lesson]
    site: dict[str, Any]
    runner: LabRunner
    tools: tuple[Any, Any] | None = None  # (template environment, markdown converter), this process's
    env: Any = None  # the template environment this build's parent made (its templates compiled once per process)
    images: str = ""  # the hash of the lessons' image files
    keep: bool = True  # the contents are sent back (a memo keeps them for the next build)
    md: Any = None  # the markdown converter `serve` keeps from build to build (reset between documents), else made


def build_site(root: Path, out: Path, *, lessons: Path | None = None, labs: Path | None = None,
               base_path: str = "/", hsts: str | None = None, block_folders: tuple[Path, ...] = (),
               memo: Memo | None = None, held_still: Callable[[], bool] | None = None) -> Built:
    """Build the course at `root` into `out`; on any author problem raise BuildError and leave `out` as it was.

    `base_path` is the folder the site is published at on its host: only the host files (`_headers`, `nginx.conf`)
    name it, since every URL in the pages is relative. `hsts` is the Strict-Transport-Security they send (None: none).
    `block_folders`: folders of block types beside the toolkit's own and the course's. `memo`: what the last build in
    this process made (`serve` keeps one): only what an edit changed is made again (lessonkit.pipeline.memo).
    `held_still`: whether the sources are as they were when the build began, asked before anything is written (serve:
    a build that read a save in the middle, or two saves, raises SourcesChangedError and leaves `out` as it was).
    """
    project = Project.at(root, lessons, labs, block_folders)
    t0 = time.perf_counter()
    built = check_site(root, lessons=lessons, labs=labs, block_folders=block_folders, memo=memo, writing=True)
    write_site(project, built, out, base_path=base_path, hsts=hsts, memo=memo, held_still=held_still)
    built.timings["total"] = time.perf_counter() - t0
    return built


def check_site(root: Path, *, lessons: Path | None = None, labs: Path | None = None,
               block_folders: tuple[Path, ...] = (), memo: Memo | None = None, writing: bool = False) -> Built:
    """Load, validate and render the course at `root` (its labs run), writing no site; raise BuildError with every
    problem found. `writing`: a site is written after (build_site), so its first steps include the runtimes'."""
    project = Project.at(root, lessons, labs, block_folders)
    t0 = time.perf_counter()
    problems: list[Problem] = []
    course = load_course(project.root, "", STATIC / "css" / "lesson.css", problems)
    try:
        project.kinds  # noqa: B018 — a course's block folder that makes no block type stops the build here
    except BuildError as exc:
        found, notes = split_notes(problems)
        raise BuildError([*found, *exc.problems], notes) from None
    if memo is not None:
        memo.pending = None  # the last build's search index, not made yet: this build makes its own (or defers it)
        memo.begin(project.lessons, project.root)  # what the watcher saw change: only that is read again
    loaded = order_lessons(load_all(project, problems, memo), course, problems, shown(project.lessons, project.root))
    built = render_all(project, loaded, course, problems, memo, writing=writing)
    problems, notes = split_notes(problems)
    if problems:
        raise BuildError(problems, notes)
    built.notes = [str(note) for note in sorted(notes)]
    built.timings["render"] = time.perf_counter() - t0
    built.course = course
    return built


def render_all(project: Project, lessons: list[Lesson], course: Course | None, problems: list[Problem],
               memo: Memo | None = None, *, writing: bool = False) -> Built:
    """Steps 2 and 3: run the labs, validate and render every page, check links across pages (`writing`: see
    check_site)."""
    keep_math_in(project.state / "mathml")
    releases = {les.slug: lesson_release(les, course) for les in lessons}
    used = [release for release in runtime.RELEASES.values() if release in releases.values()]
    used = used or [lesson_release(None, course)]
    versions = tuple(release.version for release in used)
    if (memo is not None and memo.same_sources and memo.assets is not None
            and tuple(memo.assets.labkits) == versions):  # no source of them changed (Memo.begin), the same releases
        made = memo.assets
    else:
        before = len(problems)
        made = _make_assets(project, used, problems)
        if memo is not None and len(problems) == before:
            memo.assets = made
    first_steps(lessons, releases, used if writing else [])
    wheels: dict[str, list[Path]] = {}
    packages: dict[str, runtime.Packages | None] = {}
    same: dict[str, Any] = {}  # lessons that require the same of the same release share one verification
    for les in lessons:
        wheels[les.slug], packages[les.slug] = requirements(les, releases[les.slug], problems, same)
    site = _site(project, lessons, made, wheels, packages, releases, course, problems)
    runner = LabRunner(project.lab, project.root, project.state, next(iter(made.labkits.values())))
    env = _environment(project, memo)
    try:
        if memo is not None and memo.markdown is None:  # made in this process: its first rebuild finds it made
            memo.markdown = new_markdown()
        pages = _render_pages(_Rendering(project, lessons, site, runner, env=env, images=made.images,
                                         md=memo.markdown if memo is not None else None), problems, memo)
    finally:
        runner.close()
    index = render_index(env, site, course_manifest(site["course"], pages, site["parts"]))
    check_links(pages, problems, index)
    all_wheels = sorted({w for ws in wheels.values() for w in ws})
    runtimes = {release.version: sorted({f for slug, p in packages.items() if p is not None and releases[slug] == release
                                         for f in p.files}) for release in used}
    labkits = [runtime.labkit_wheel(runtime.get_release(version)) for version in made.labkits]
    return Built(pages, index, made.static_hash, labkits, made.scripts, made.style, made.editor, all_wheels,
                 search=made.search, script_hashes=(csp_hash(site["importmap"]),), connect=site["connect"], runtimes=runtimes,
                 fonts=made.fonts)


def _make_assets(project: Project, releases: list[runtime.Release], problems: list[Problem]) -> _Assets:
    """The prebuilt bundles, stylesheet, editor and labkit wheel of each release (checked against the installed
    sources), the course's own block modules and styles beside them, search, and the static folder's hash."""
    search_box = search.page_config(problems)
    try:
        labkits = {release.version: runtime.labkit_wheel(release).name for release in releases}
        bundle = scripts.page_bundle(project.kinds)
        style = styles.bundle_styles(project.kinds, project.static, project.state)
        editor = editor_bundle()
        fonts = mathfont.faces()
    except RuntimeSetupError as exc:
        raise BuildError([f"lessonkit: {exc}"]) from None
    # What the build publishes in static/<hash>/, with the Subresource Integrity value of the bytes it will write.
    # The folder's hash covers these bytes too: a new lessonkit changes them, so it must change their URLs.
    made = {f"js/{name}": bundle.folder / name for name in bundle.files}
    made |= {f"css/{styles.STYLE_NAME}": style, "js/editor.js": editor, **bundle.course}
    made |= {f"{mathfont.FOLDER}/{name}": path for name, path in fonts.items()}
    integrity = {rel: sri(path) for rel, path in sorted(made.items())}
    images = media.content_hash(project.lessons)
    static_hash = with_images(tree_hash(project.static, integrity), images)
    return _Assets(bundle, style, editor, integrity, static_hash, labkits, search_box, images, fonts)


def _site(project: Project, lessons: list[Lesson], made: _Assets, wheels: dict[str, list[Path]],
          packages: dict[str, runtime.Packages | None], releases: dict[str, runtime.Release], course: Course | None,
          problems: list[Problem]) -> dict[str, Any]:
    """What every page's template and the renderer read of the site."""
    static = f"static/{made.static_hash}"
    fragments = {release.version: runtime.runtime_fragment(release) for release in set(releases.values())}
    site: dict[str, Any] = {
        "static": static,
        "integrity": {f"{static}/{rel}": value for rel, value in made.integrity.items()},
        "lazy": {name: made.integrity[f"js/{name}"] for name in scripts.LAZY_MODULES},
        "preload": [f"{static}/js/{name}" for name in ("main.js", *made.scripts.preload)],
        "chunks": made.scripts.chunks,  # a lazy module's static imports, preloaded beside it
        "math_font": f"{static}/{mathfont.FOLDER}/{mathfont.FACES[0]}.woff2",  # the core face, preloaded where math is
        "runtime_for": lambda les: runtime.page_runtime_config(
            fragments[releases[les.slug].version], worker=f"{static}/js/lab-worker.js",
            labkit=f"runtime/wheels/{made.labkits[releases[les.slug].version]}",
            releases=sorted(fragments),
            requirements=[f"runtime/wheels/{w.name}" for w in wheels[les.slug]],
            worker_integrity=made.integrity["js/lab-worker.js"], packages=packages[les.slug]),
        "lessons": [{"slug": les.slug, "title": les.title, "summary": str(les.meta.get("summary") or ""),
                     "href": f"{les.slug}.html", "number": n} for n, les in enumerate(lessons, 1)],
        "parts": course_parts(course, lessons),
        "course": course_data(course, problems),
        "search": made.search,
        "blocks": project.kinds,
        # A course's own block types: their page and progress modules' URLs (main.js imports them by these).
        "block_modules": {name: {k: f"{static}/{v}" for k, v in entry.items()}
                          for name, entry in made.scripts.course_types.items()},
        # An unreadable course config is reported: its limit is not known, so no image is refused by size meanwhile.
        "max_image_mb": course.max_image_mb if course is not None else math.inf,
        "scorm": course.scorm if course is not None else dict(lms_settings.DEFAULTS),  # the LMS reporter's rule
        "classroom": course.classroom if course is not None else None,  # course.yaml's class: (its record store)
        "connect": (course.classroom["origin"],) if course is not None and course.classroom else (),
        "language": course.language if course is not None else messages.DEFAULT_LANGUAGE,
        "strings": dict(course.strings) if course is not None else {},  # the author's words for toolkit messages
    }
    site["importmap"] = import_map(site["integrity"], made.search)
    return site


def _environment(project: Project, memo: Memo | None) -> Any:
    """The templates' environment: the memo's while no template, lab or block folder changed (its templates are
    compiled already), else a new one."""
    if memo is None:
        return environment(project.templates, project.kinds)
    if memo.env is not None and memo.same_sources:  # no template, lab or block folder changed (Memo.begin)
        return memo.env[1]
    memo.lab = lab_shape(project.lab)  # a lab file's text is looked at only where a content read it (Memo.content)
    sources = folder_digest([d for d in (project.templates,) if d is not None] + [k.folder for k in project.kinds.values()])
    if memo.env is None or memo.env[0] != sources:
        memo.env = (sources, environment(project.templates, project.kinds))
    return memo.env[1]


def _render_pages(rendering: _Rendering, problems: list[Problem], memo: Memo | None = None) -> list[Page]:
    """Render every lesson (markdown is the slow part), in parallel for a large course; with a memo, only the
    contents and pages whose inputs changed (lessonkit.pipeline.memo)."""
    lessons, site = rendering.lessons, rendering.site
    contents: list[Content | None] = [None] * len(lessons)
    made: list[tuple[Page, list[Problem]] | None] = [None] * len(lessons)
    content_keys = page_keys = [""] * len(lessons)
    if memo is not None:
        assert memo.env is not None, "made by _environment"
        sources = memo.env[0]
        content_keys = [digest(sources, memo.lab, rendering.images, repr(site["max_image_mb"]), site["course"]["id"], les.rel,
                               str(les.path), les.source, json.dumps([site["language"], site["strings"]], sort_keys=True))
                        for les in lessons]  # the course's id is in the interactions an LMS records of a block
        frame = site_digest(site)
        page_keys = [digest(key, frame, json.dumps(site["runtime_for"](les), sort_keys=True))
                     for key, les in zip(content_keys, lessons, strict=True)]
        contents = [memo.content(key, les, site["static"], rendering.project.lab)
                    for key, les in zip(content_keys, lessons, strict=True)]
        made = [memo.pages.get(key) if contents[n] is not None else None for n, key in enumerate(page_keys)]
    reads = [memo.contents[key][2] if memo is not None and contents[n] is not None else {}
             for n, key in enumerate(content_keys)]
    jobs = [(n, contents[n]) for n in range(len(lessons)) if made[n] is None]
    rendering.keep = memo is not None  # without a memo, nothing reads the content again: it is not sent back
    results = in_parallel(_render_one, rendering, jobs, lambda shared: shared.runner.close(),
                          cost=lambda job: PAGE_COST + (len(lessons[job[0]].source) if job[1] is None else 0))
    for (n, _), (content, page, found, read) in zip(jobs, results, strict=True):
        page.lesson = lessons[n]  # the caller's own, not a copy sent back with the page
        contents[n], made[n] = content, (page, found)
        if read is not None:
            reads[n] = read
    pages = []
    for pair in made:
        assert pair is not None, "every page is made or reused"
        pages.append(pair[0])
        problems += pair[1]
    if memo is not None:
        memo.rendered = [lessons[n].slug for n, content in jobs if content is None]
        memo.contents = {key: (site["static"], c, read) for key, c, read in zip(content_keys, contents, reads,
                                                                                  strict=True) if c is not None}
        memo.pages = {key: pair for key, pair in zip(page_keys, made, strict=True) if pair is not None}
    return pages


def _render_one(rendering: _Rendering,
                job: tuple[int, Content | None]) -> tuple[Content | None, Page, list[Problem], dict[str, str] | None]:
    """Run the labs of the lesson at this position and render its content (unless given), then its page; with the
    lab files the content read (None: it was given). The page comes back without its lesson (the caller has it), and
    the content only when the caller keeps it."""
    if rendering.tools is None:  # once per process, per build: `serve` edits the templates between builds
        rendering.tools = (rendering.env or environment(rendering.project.templates, rendering.project.kinds),
                           rendering.md or new_markdown())
    env, md = rendering.tools
    index, content = job
    lesson = rendering.lessons[index]
    read = None
    if content is None:
        rendering.runner.reads = read = {}
        content = render_content(lesson, rendering.runner, env, md, rendering.site)
    found = list(content.problems)
    page = render_page(lesson, content, env, rendering.site, found)
    page.failed = bool(split_notes(found)[0])
    page.lesson = None  # type: ignore[assignment]  # the caller puts its own back: a forked child's is a copy
    return (content if rendering.keep else None), page, found, read
