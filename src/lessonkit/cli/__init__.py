"""The `lessonkit` command (and `python -m lessonkit`): make a course folder, add lessons, check, build, serve and pack
it. Every command but `new` works on a course folder: `--course DIR`, else the current folder or the nearest one
above it that holds a course.yaml (as git finds its repository)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from lessonkit import __version__
from lessonkit.content.course import NAME as COURSE_CONFIG
from lessonkit.core.errors import BuildError, RuntimeSetupError
from lessonkit.hosting.headers import HSTS_DEFAULT, base_path_problem, hsts_problem

PROG = "lessonkit"
COMMANDS = ("new", "add", "check", "build", "serve", "scorm", "cmi5", "class", "key")
READ_KEY_ENV = "LESSONKIT_CLASS_READ_KEY"  # the instructor's read key, when not typed at the prompt
KEY_NAME = "answer-key.html"  # `lessonkit key`'s file, in dist/ (beside the SCORM packages, never in the site)


class CourseNotFoundError(Exception):
    """No course.yaml in the folder given, nor in the current one or above it."""


def find_course(start: Path) -> Path:
    """The course folder: `start` or the nearest folder above it with a course.yaml."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / COURSE_CONFIG).is_file():
            return folder
    raise CourseNotFoundError(f"no {COURSE_CONFIG} in {start} or above — `lessonkit new DIR` makes one")


class CommandLine(argparse.ArgumentParser):
    """The `lessonkit` parser, with each command's own (`commands`: for a usage error in its words)."""

    commands: dict[str, argparse.ArgumentParser]


def parser() -> CommandLine:
    """The command line: a subcommand each, with its own options."""
    top = CommandLine(prog=PROG, description=__doc__.split("\n\n")[0] if __doc__ else None)
    top.commands = {}
    top.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = top.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, text: str, *, course: bool = True) -> argparse.ArgumentParser:
        found = top.commands[name] = sub.add_parser(name, help=text, description=text)
        if course:
            found.add_argument("--course", "-C", type=Path, default=None, metavar="DIR",
                               help="the course folder (default: the current one, or the nearest above it with a "
                                    f"{COURSE_CONFIG})")
        return found

    new = command("new", "make a course folder: course.yaml, a first lesson showing every block, its lab, a "
                  "README, a .gitignore and a workflow that publishes it", course=False)
    new.add_argument("folder", type=Path, nargs="?", metavar="DIR",
                     help="the new course's folder: a new one, or an empty one (. for the current folder)")
    new.add_argument("--title", default=None, help="the course's title (default: made from the folder's name)")
    new.add_argument("--language", default="en", metavar="TAG",
                     help="the course's language, a BCP 47 tag (default en): its config's language:, and a starter "
                     "lesson in it where the scaffold has one (de)")
    add = command("add", "add a lesson with one commented example of every block type, and its lab")
    add.add_argument("title", nargs="?", help='the lesson\'s title, e.g. "Causal masking"')
    add.add_argument("--slug", default=None,
                     help="the lesson's slug (its file, page and lab module names) instead of the title's")
    command("check", "load, check and render every lesson (its labs run), writing nothing: every problem as "
            "path:line")
    for name, text in (("build", "build the static site into the course's site/ folder"),
                       ("serve", "build, serve at http://127.0.0.1:PORT and rebuild on every save"),
                       ("scorm", "build, then pack the site as a SCORM 2004 package for an LMS into dist/"),
                       ("cmi5", "build, then pack the site as a cmi5 package (xAPI, one AU per lesson) for an LMS into "
                        "dist/")):
        found = command(name, text)
        found.add_argument("--out", type=Path, default=None, metavar="DIR",
                           help="where the site goes (default: site/ in the course folder)")
        found.add_argument("--base-path", default="/", metavar="/FOLDER/",
                           help="the folder the site is published at, e.g. /course/: written into _headers and "
                                "nginx.conf (the pages' URLs are relative), and where serve serves it (default: /)")
        if name != "serve":
            found.add_argument("--hsts", nargs="?", const=HSTS_DEFAULT, default=None, metavar="VALUE",
                               help="HTTPS hosts: send Strict-Transport-Security from _headers and nginx.conf "
                                    f'(default value "{HSTS_DEFAULT}"); off unless given')
        if name == "serve":
            found.add_argument("--port", type=int, default=8000,
                               help="the port on 127.0.0.1 (default: 8000; 0: one the system finds free)")
            found.add_argument("--no-isolation", action="store_true",
                               help="serve without COOP/COEP, as a host that cannot set headers would")
        if name in ("scorm", "cmi5"):
            found.add_argument("--dist", type=Path, default=None, metavar="DIR",
                               help=f"where the package{'s go' if name == 'scorm' else ' goes'} (default: dist/ in the "
                                    "course folder)")
        if name == "cmi5":
            found.add_argument("--endpoint-origin", action="append", default=[], metavar="ORIGIN",
                               help="the origin of the LMS's xAPI endpoint, e.g. https://lms.example.org (again for "
                                    "another): the only origin besides the site's that the lessons may connect to "
                                    "(default: any HTTPS origin, since the LMS names its endpoint only at launch)")
        if name == "scorm":
            found.add_argument("--per-lesson", action="store_true",
                               help="one package per lesson (for an LMS that keeps one record per package, such as "
                                    "Open edX) instead of one for the course")
    klass = command("class", "a class whose learners send their answers to the course's record store (course.yaml's "
                    "class: lrs:): make one, or show its answers")
    klass.add_argument("action", choices=("new", "show"), help="new: make a class (its join link and credentials); "
                       "show: the class's tally of answers, read with the instructor's key")
    klass.add_argument("what", metavar="NAME|ID", help="new: the class's name; show: the class's id")
    klass.add_argument("--site", default=None, metavar="URL",
                       help="new: the address the course is published at (the join link opens its index)")
    klass.add_argument("--json", action="store_true", help="new: print the class as JSON (for scripts)")
    klass.add_argument("--name", default=None, help="show: the class's name, for the heading")
    klass.add_argument("--watch", type=float, default=None, metavar="SECONDS",
                       help="show: read the record store again every SECONDS until interrupted")
    key = command("key", "write the instructor's answer key: every question's right answer and why, every exercise's "
                  f"solution, as one printable page (dist/{KEY_NAME}, outside the site, linked from nowhere)")
    key.add_argument("--out", type=Path, default=None, metavar="FILE",
                     help=f"where the key goes (default: dist/{KEY_NAME} in the course folder)")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit status (1: problems were found and printed; 2: the command line was wrong)."""
    line = parser()
    args = line.parse_args(argv)
    if args.command is None:  # `lessonkit` alone: what it can do
        line.print_help()
        return 2
    command = line.commands[args.command]
    if args.command == "new" and args.folder is None:
        command.error("give the new course's folder, e.g. lessonkit new my-course (or lessonkit new . for the current, "
                      "empty folder)")
    if args.command == "add" and not args.title:
        command.error('give the lesson\'s title, e.g. lessonkit add "Causal masking"')
    try:
        if args.command == "new":
            return _new(args.folder, args.title, args.language)
        if args.course is not None and not args.course.is_dir():  # as `git -C`: never a course above a typo
            command.error(f"--course {args.course}: no such folder")
        course = find_course(args.course if args.course is not None else Path.cwd())
        if args.command == "add":
            return _add(course, args.title, args.slug)
        if args.command == "check":
            return _check(course)
        if args.command == "class":
            from lessonkit.cli.classes import class_command

            return class_command(course, args, command)
        if args.command == "key":
            return _key(course, (args.out or course / "dist" / KEY_NAME).resolve())
        if problem := base_path_problem(args.base_path) or (getattr(args, "hsts", None) is not None
                                                            and hsts_problem(args.hsts)) \
                or next(filter(None, map(_origin_problem, getattr(args, "endpoint_origin", []))), None):
            print(f"{PROG} {args.command}: {problem}", file=sys.stderr)
            return 2
        out = (args.out or course / "site").resolve()
        if args.command == "serve":
            from lessonkit.cli.serving import serve_course

            return serve_course(course, out, args.port, isolated=not args.no_isolation, base_path=args.base_path)
        dist = (args.dist or course / "dist").resolve() if args.command in ("scorm", "cmi5") else None
        problems = build(course, out, base_path=args.base_path, hsts=args.hsts,
                         scorm=dist if args.command == "scorm" else None, per_lesson=getattr(args, "per_lesson", False),
                         cmi5=dist if args.command == "cmi5" else None, origins=getattr(args, "endpoint_origin", []))
        return 1 if problems else 0
    except CourseNotFoundError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    except RuntimeSetupError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # its output piped into a command that stopped reading (| head)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more to flush at exit
        return 1


def _new(folder: Path, title: str | None, language: str = "en") -> int:
    from lessonkit.scaffold import ScaffoldError, course_report, new_course

    try:
        made = new_course(folder, title, language)
    except ScaffoldError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    for line in course_report(made):
        print(line)
    return 0


def _add(course: Path, title: str, slug: str | None) -> int:
    from lessonkit.pipeline.site import Project
    from lessonkit.scaffold import ScaffoldError, new_lesson, report

    project = Project.at(course)
    try:
        kinds = project.kinds  # the course's own block types get their examples too
        made = new_lesson(title, project.lessons, project.lab, shown=course, slug=slug, kinds=kinds)
    except (ScaffoldError, BuildError) as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    for line in report(made, shown=course):
        print(line)
    return 0


def _check(course: Path) -> int:
    from lessonkit.pipeline.site import check_site

    t0 = time.perf_counter()
    try:
        with _course_templates(course):
            built = check_site(course)
    except BuildError as exc:
        _print_problems(exc.problems, "check", notes=exc.notes)
        return 1
    _print_notes(built.notes)
    pages = len(built.pages)
    print(f"checked {pages} lesson{'s' if pages != 1 else ''}: no problems ({1000 * (time.perf_counter() - t0):.0f} ms)")
    return 0


def _key(course: Path, out: Path) -> int:
    from lessonkit.core import messages
    from lessonkit.core.files import atomic_write
    from lessonkit.page.key import render_key
    from lessonkit.pipeline.site import check_site

    try:
        with _course_templates(course):
            built = check_site(course)
    except BuildError as exc:
        _print_problems(exc.problems, "key", notes=exc.notes)
        return 1
    _print_notes(built.notes)
    site = (course / "site").resolve()
    if out == site or site in out.parents:
        print(f"{PROG} key: {out} is in the site's folder, which is published — write the key elsewhere (--out FILE)",
              file=sys.stderr)
        return 2
    title = built.course.title if built.course is not None else course.name
    words = messages.for_page(built.course.language, built.course.strings) if built.course is not None else None
    atomic_write(out, render_key(title, built.pages, words).encode("utf-8"))
    items = sum(len(page.answers) for page in built.pages)
    print(f"wrote the answer key ({items} block{'s' if items != 1 else ''}) to {out}")
    return 0


@contextlib.contextmanager
def _course_templates(course: Path) -> Iterator[None]:
    """A mistake in one of the course's own templates (templates/, a block type's in blocks/) as the author's
    problem at its path:line (BuildError), not a traceback; what the toolkit's templates raise is left as it is."""
    try:
        yield
    except BuildError:
        raise
    except Exception as exc:
        problem = template_problem(exc, course)
        if problem is None:
            raise
        raise BuildError([problem]) from None


def template_problem(exc: BaseException, course: Path) -> str | None:
    """`path:line: message` for what a course's template raised (None: no template of the course's raised it)."""
    import jinja2

    folders = [(course / name).resolve() for name in ("templates", "blocks")]

    def ours(filename: str | None) -> Path | None:
        path = Path(filename).resolve() if filename else None
        return path if path is not None and path.suffix == ".html" and any(
            path.is_relative_to(folder) for folder in folders) else None

    where = None
    if isinstance(exc, jinja2.TemplateSyntaxError) and (path := ours(exc.filename)) is not None:
        where = (path, exc.lineno)
    for frame, line in traceback.walk_tb(exc.__traceback__):
        if where is None or not isinstance(exc, jinja2.TemplateSyntaxError):
            path = ours(frame.f_code.co_filename)
            if path is not None:
                where = (path, line)
    if where is None:
        return None
    if isinstance(exc, jinja2.TemplateSyntaxError):
        what = f"the template does not parse: {exc.message}"
    elif isinstance(exc, jinja2.UndefinedError):
        what = f"the template uses a name its page does not give it: {exc.message}"
    else:
        what = f"the template raised {type(exc).__name__}: {exc}"
    return f"{_shown(where[0], course)}:{where[1]}: {what} — fix this line"


def _print_notes(notes: Sequence[str]) -> None:
    """Notes for the author (a key's old name), at their path:line: on stderr, failing nothing."""
    for note in notes:
        print(note, file=sys.stderr)


def _print_problems(problems: list[str], command: str, kept: str = "", notes: Sequence[str] = ()) -> None:
    _print_notes(notes)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{command} failed: {len(problems)} problem{'s' if len(problems) != 1 else ''}{kept}", file=sys.stderr)


def _origin_problem(origin: str) -> str | None:
    from lessonkit.scorm.cmi5_pack import origin_problem

    return origin_problem(origin)


def build(course: Path, out: Path, *, report: bool = True, base_path: str = "/", hsts: str | None = None,
          memo: object = None, scorm: Path | None = None, per_lesson: bool = False, cmi5: Path | None = None,
          origins: Sequence[str] = (), held_still: Callable[[], bool] | None = None) -> list[str]:
    """Load, validate, render, write; return the problems (empty when the site was written). `memo`: the last
    build's (serve), so only what changed is made again; `held_still`: serve's check that the sources did not change
    while they were read (SourcesChangedError when they did). With `scorm` (a folder), then pack the site into SCORM
    2004 package(s) there; with `cmi5`, into a cmi5 package there (its lessons may connect to `origins`)."""
    from lessonkit.pipeline.site import build_site

    t0 = time.perf_counter()
    try:
        with _course_templates(course):
            built = build_site(course, out, base_path=base_path, hsts=hsts, memo=memo,  # type: ignore[arg-type]
                               held_still=held_still)
    except BuildError as exc:
        if report:  # the dev server prints problems itself and shows them in the page
            dist = scorm or cmi5
            kept = (f"; {_shown(out, course)}/ and {_shown(dist, course)}/ were left as they were" if dist is not None
                    else f"; {_shown(out, course)}/ was left as it was")
            _print_problems(exc.problems, "build", kept, exc.notes)
        return exc.problems
    _print_notes(built.notes)
    pages = len(built.pages)
    print(f"built {pages} lesson page{'s' if pages != 1 else ''} into {_shown(out, course)}/ in "
          f"{1000 * (time.perf_counter() - t0):.0f} ms")
    if cmi5 is not None:
        return _pack_cmi5(course, out, built, cmi5, origins)
    if scorm is None:
        return []
    from lessonkit.core.places import course_state
    from lessonkit.scorm.pack import package_site

    t0 = time.perf_counter()
    try:
        written = package_site(out, built, course_state(course), scorm, per_lesson=per_lesson)
    except BuildError as exc:
        _print_problems(exc.problems, "scorm", f"; {_shown(scorm, course)}/ was left as it was")
        return exc.problems
    for path in written:
        print(f"packed {_shown(path, course)} ({path.stat().st_size / 1e6:.1f} MB)")
    print(f"scorm: {len(written)} SCORM 2004 package{'s' if len(written) != 1 else ''} in "
          f"{1000 * (time.perf_counter() - t0):.0f} ms")
    return []


def _pack_cmi5(course: Path, site: Path, built: object, dist: Path, origins: Sequence[str]) -> list[str]:
    """Pack the built site as the course's cmi5 package into `dist`; the problems (none: it was written)."""
    from lessonkit.core.places import course_state
    from lessonkit.scorm.cmi5_pack import package
    from lessonkit.scorm.pack import write_zip

    t0 = time.perf_counter()
    try:
        made = package(site, built, course_state(course), origins)  # type: ignore[arg-type]
    except BuildError as exc:
        _print_problems(exc.problems, "cmi5", f"; {_shown(dist, course)}/ was left as it was")
        return exc.problems
    path = dist / made.name
    write_zip(path, made.members)
    print(f"packed {_shown(path, course)} ({path.stat().st_size / 1e6:.1f} MB)")
    print(f"cmi5: a cmi5 package of {len(built.pages)} AU{'s' if len(built.pages) != 1 else ''} in "  # type: ignore[attr-defined]
          f"{1000 * (time.perf_counter() - t0):.0f} ms")
    return []


def _shown(path: Path, course: Path) -> str:
    """A path as the author reads it: from the course folder when it is inside it."""
    try:
        return path.resolve().relative_to(course.resolve()).as_posix()
    except ValueError:
        return str(path)
