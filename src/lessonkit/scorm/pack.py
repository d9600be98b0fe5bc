"""The SCORM 2004 package of a built site: `lessonkit scorm` writes dist/<course-id>-scorm2004.zip.

Gather, check, then write: the package's members are read from the built site/ (which stays a plain static site),
the author's problems (a title too long for an LMS, a lesson with more interactions than an LMS keeps) and the
package's structure (check.py) are checked in memory, and only then is the zip written, into a temporary file beside
it that is moved into place: a failed build leaves the last good zip. The zip is deterministic (the same site gives
the same bytes): members sorted, one fixed time, fixed permissions.

What the package holds: the whole site (every lesson page, the index, static/<hash>/, the runtime, wheels and the
search index: an LMS serves the package from its own origin, so nothing is fetched from elsewhere), without the
host's files (_headers, nginx.conf, the build's marker, the .br copies), and with a service worker made for the
package's own files. A page inside an LMS never registers it (static/js/page/offline.js: not in a frame, not with an LMS's API;
each upload is served under a new path, where an older upload's offline copy would linger); the package's pages
opened as a plain site, without an LMS, work offline as the site's do.

An LMS serves the package's files with the types of its own table, by extension, and Moodle's has no .mjs (nor
.wasm): a module served as "document/unknown" does not run. So Pyodide's two ES modules are renamed .js here (every
LMS knows .js), and each lesson page's runtime data names them so (lessonkit/runtime/config.py's pyodideURL, asmURL); the lab's
worker compiles the wasm whatever type it arrives with (static/js/worker/downloads.js).

`--per-lesson` writes one package per lesson instead (dist/<course-id>-<slug>-scorm2004.zip, one SCO each, the rest
of the site as assets), for an LMS that keeps one record per package (Open edX's SCORM block).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
import zipfile
from dataclasses import dataclass
from html import escape as html_escape
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from jinja2.utils import htmlsafe_json_dumps

from lessonkit.core.errors import BuildError, Problem
from lessonkit.core.places import PREBUILT
from lessonkit.core.prebuilt import manifest
from lessonkit.hosting.headers import MARKER
from lessonkit.hosting.offline import SW_NAME, render_service_worker
from lessonkit.lms import limits, vendor
from lessonkit.lms.text import clip, plain
from lessonkit.scorm import check
from lessonkit.scorm import manifest as cam
from lessonkit.text.markup import new_markdown

if TYPE_CHECKING:
    from lessonkit.pipeline.site import Built

SUFFIX = "-scorm2004.zip"
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can say: the same bytes on every build
LEFT_OUT = frozenset({"_headers", "nginx.conf", MARKER, SW_NAME})  # the host's files; the site's service worker
RENAMED = {".mjs": ".js"}  # extensions an LMS may not serve as scripts → ones every LMS does
DESCRIPTION_CHARS = 2000  # the LOM description's smallest permitted maximum
_PAGE_DATA = re.compile(r'(<script type="application/json" id="lesson-data">)(.*?)(</script>)', re.S)
_POLICY = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')


@dataclass(frozen=True)
class Package:
    """One zip to write: its file name and its members."""

    name: str
    members: dict[str, bytes]


def zip_name(course_id: str, slug: str | None = None) -> str:
    return f"{course_id}-{slug}{SUFFIX}" if slug else f"{course_id}{SUFFIX}"


def site_files(site: Path) -> dict[str, bytes]:
    """The site's files that go into a package, by path (the host's files, dotfiles and .br copies left out)."""
    out = {}
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        rel = path.relative_to(site).as_posix()
        if rel in LEFT_OUT or path.suffix == ".br" or any(part.startswith(".") for part in PurePosixPath(rel).parts):
            continue
        out[rel] = path.read_bytes()
    return out


def renamed(name: str) -> str:
    """A file's name in the package."""
    path = PurePosixPath(name)
    return str(path.with_suffix(RENAMED[path.suffix])) if path.suffix in RENAMED else name


def _rewrite_page(html: str, renames: dict[str, str], where: str, problems: list[str],
                  extra: dict[str, Any] | None = None, policy: str | None = None) -> str:
    """A page of the package: its data says it lives in its LMS's frame (static/js/page/frame.js: a site's page in
    another origin's frame starts nothing; the package's, only with its LMS around it: the SCORM API, or the cmi5
    launch its LMS confirmed), with `extra` (the cmi5 package's pages: {"cmi5": true}), a lesson's runtime data names
    the renamed files, and with `policy` its <meta> Content-Security-Policy is that one."""
    found = _PAGE_DATA.search(html)
    if found is None:
        problems.append(f"{where}: no lesson data in the page — it was not made by this build")
        return html
    data = json.loads(found.group(2))
    data["framed"] = "lms"
    data |= extra or {}
    runtime = data.get("runtime") or {}
    for key in ("pyodideURL", "asmURL"):
        if key in runtime:
            runtime[key] = renames.get(runtime[key], runtime[key])
    text = str(htmlsafe_json_dumps(data, sort_keys=True))
    html = html[:found.start(2)] + text + html[found.end(2):]
    if policy is not None:
        meta = _POLICY.search(html)
        if meta is None:
            problems.append(f"{where}: no Content-Security-Policy in the page — it was not made by this build")
            return html
        html = html[:meta.start(1)] + html_escape(policy, quote=True) + html[meta.end(1):]
    return html


def lms_files(site: Path, state: Path | None, lessons: list[str], wheels: list[str],
              problems: list[str], *, extra: dict[str, Any] | None = None,
              lesson_policy: str | None = None) -> dict[str, bytes]:
    """The site's files as the package holds them: renamed for an LMS's types, the lesson pages naming them so, and
    the service worker of those files (`state`: the course's build state folder, where big files' digests are
    remembered; `wheels`: those the pages install, which it keeps offline too). `extra` goes into every page's data,
    and `lesson_policy` is the lesson pages' Content-Security-Policy (the cmi5 package's)."""
    files = site_files(site)
    renames = {name: renamed(name) for name in files if renamed(name) != name}
    for old, new in renames.items():
        if new in files:
            problems.append(f"{new}: the package renames {old} to it, and the site has a file of that name already")
    out = {renames.get(name, name): data for name, data in files.items()}
    for page in [*lessons, *(["index.html"] if "index.html" in out and "index.html" not in lessons else [])]:
        if page not in out:
            problems.append(f"{page}: the lesson's page is not in the built site")
            continue
        policy = lesson_policy if page in lessons else None
        out[page] = _rewrite_page(out[page].decode("utf-8"), renames, page, problems, extra, policy).encode("utf-8")
    if not problems:
        with tempfile.TemporaryDirectory(prefix="lessonkit-scorm-") as tmp:
            for name, data in out.items():
                (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
                (Path(tmp) / name).write_bytes(data)
            out[SW_NAME] = render_service_worker(Path(tmp), state, wheels).encode("utf-8")
    return out


def control_files() -> dict[str, bytes]:
    """The 4th edition's schema files, for the package's root (as the prebuilt files carry them, checked with
    them)."""
    manifest(PREBUILT)
    folder = PREBUILT / vendor.PREBUILT_FOLDER
    return {name: (folder / name).read_bytes() for name in vendor.XSD_FILES}


def _version(members: dict[str, bytes]) -> str:
    """The package's version: a digest of everything in it (so a rebuilt course says it changed)."""
    h = hashlib.sha256()
    for name in sorted(members):
        h.update(name.encode() + b"\0" + hashlib.sha256(members[name]).digest())
    return h.hexdigest()[:12]


def author_problems(built: Built) -> list[Problem]:
    """What an LMS would refuse of the author's course, each at its line."""
    found: list[Problem] = []
    course = built.course
    if course is not None and len(course.title) > limits.TITLE:
        found.append(Problem(course.rel, course.lines.get("title", 1), f"the course's title has {len(course.title)} "
                             f"characters; an LMS keeps {limits.TITLE} of a package's title — shorten it"))
    for page in built.pages:
        lesson = page.lesson
        if len(lesson.title) > limits.TITLE:
            found.append(Problem(lesson.rel, lesson.meta.lines.get("title", 1), f"the title has {len(lesson.title)} "
                                 f"characters; an LMS keeps {limits.TITLE} of an activity's title — shorten it"))
        found_items = page_lms(page.html).get("items", [])
        items = len(found_items) + sum(1 for it in found_items if "first" in it)  # a question's first answer too
        if items > limits.INTERACTIONS:
            found.append(Problem(lesson.rel, 1, f"the lesson reports {items} interactions (questions twice: first and "
                                 f"last answer; exercises and explanations once); an LMS keeps at most "
                                 f"{limits.INTERACTIONS} of one lesson — split the lesson"))
    return found


def page_lms(html: str) -> dict[str, Any]:
    """A built page's `lms` data (lessonkit/lms/report.py), or {}."""
    found = _PAGE_DATA.search(html)
    return json.loads(found.group(2)).get("lms", {}) if found else {}


def packages(site: Path, built: Built, state: Path | None, *, per_lesson: bool = False) -> list[Package]:
    """The packages of a built site, checked; raises BuildError (nothing written) with every problem."""
    problems: list[Problem | str] = [*author_problems(built)]
    course = built.course
    if course is None:
        raise BuildError(["the course config did not load: nothing to package"])
    lessons = [cam.Lesson(p.lesson.slug, p.lesson.title, f"{p.lesson.slug}.html") for p in built.pages]
    found: list[str] = []
    wheels = sorted({wheel for page in built.pages for wheel in page.wheels})
    files = lms_files(site, state, [les.href for les in lessons], wheels, found)
    problems += found
    if problems:
        raise BuildError(problems)
    version = _version(files)
    control = control_files()
    description = clip(plain(new_markdown().convert(course.description)), DESCRIPTION_CHARS) if course.description \
        else course.title
    settings = course.scorm
    groups = [(les.slug, [les]) for les in lessons] if per_lesson else [(None, lessons)]
    out = []
    for slug, items in groups:
        meta = cam.Course(f"{course.id}-{slug}" if slug else course.id,
                          f"{course.title}: {items[0].title}" if slug else course.title, description, version,
                          settings["passing"], settings["completion"], course.language)
        members = dict(files) | control
        members[check.MANIFEST] = cam.manifest(meta, items, sorted(files), "index.html").encode("utf-8")
        problems += check.problems(members)
        out.append(Package(zip_name(course.id, slug), members))
    if problems:
        raise BuildError(problems)
    return out


# Files compressed already (wheels and zips of deflated members, images, fonts): stored as they are, since deflating
# them again gains nothing. The rest at zlib's default level.
PACKED = (".whl", ".br", ".gz", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".woff2", ".pagefind", ".pf_meta",
          ".pf_index", ".pf_fragment")
DEFLATE_LEVEL = 6


def write_zip(out: Path, members: dict[str, bytes]) -> None:
    """Same members → same bytes. Written beside `out`, then moved into place: `out` is the last good zip or the new one."""
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh, zipfile.ZipFile(fh, "w") as z:
            for name in sorted(members):
                info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
                packed = name.lower().endswith(PACKED)
                info.compress_type = zipfile.ZIP_STORED if packed else zipfile.ZIP_DEFLATED
                info.create_system = 3  # unix: external_attr is a mode
                info.external_attr = 0o100644 << 16
                z.writestr(info, members[name], compresslevel=None if packed else DEFLATE_LEVEL)
        os.chmod(tmp, 0o644)  # as any file the build writes (mkstemp makes it the owner's only)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def package_site(site: Path, built: Built, state: Path | None, dist: Path, *, per_lesson: bool = False) -> list[Path]:
    """Write the course's package(s) from its built site into `dist`; return their paths (BuildError: none written)."""
    written = []
    for package in packages(site, built, state, per_lesson=per_lesson):
        path = dist / package.name
        write_zip(path, package.members)
        written.append(path)
    return written
