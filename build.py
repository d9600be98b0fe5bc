#!/usr/bin/env python3
"""Build the lesson site: `python build.py` writes site/; `python build.py serve` also serves and rebuilds it;
`python build.py new "Lesson title"` starts a new lesson; `python build.py scorm` also packs the site for an LMS."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from lessonkit.build.memo import Memo  # noqa: E402
from lessonkit.build.pipeline import Built, build_site  # noqa: E402
from lessonkit.content.errors import BuildError  # noqa: E402 (the path above makes lessonkit importable)
from lessonkit.hosting.headers import HSTS_DEFAULT, base_path_problem, hsts_problem  # noqa: E402


def build(out: Path, lessons: Path | None = None, *, labs: Path | None = None, report: bool = True,
          base_path: str = "/", hsts: str | None = None, memo: Memo | None = None, scorm: Path | None = None,
          per_lesson: bool = False) -> list[str]:
    """Load, validate, render, write; return the problems (empty when the site was written). `memo`: the last build's
    (serve), so only what changed is made again. With `scorm` (a folder), then pack the site into SCORM 2004
    package(s) there (lessonkit.lms.pack)."""
    t0 = time.perf_counter()
    try:
        built = build_site(ROOT, out, lessons=lessons, labs=labs, base_path=base_path, hsts=hsts, memo=memo)
    except BuildError as exc:
        if report:  # the dev server prints problems itself and shows them in the page
            for problem in exc.problems:
                print(problem, file=sys.stderr)
            kept = f" and {scorm.name}/" if scorm is not None else ""
            print(f"build failed: {len(exc.problems)} problem(s); {out.name}/{kept} was left as it was", file=sys.stderr)
        return exc.problems
    pages = len(built.pages)
    print(f"built {pages} lesson page{'s' if pages != 1 else ''} into {out} in {1000 * (time.perf_counter() - t0):.0f} ms")
    return package(out, built, scorm, per_lesson=per_lesson) if scorm is not None else []


def package(site: Path, built: Built, dist: Path, *, per_lesson: bool = False) -> list[str]:
    """Pack the built site for an LMS into `dist`; return the problems (empty when the zips were written)."""
    from lessonkit.lms.pack import package_site

    t0 = time.perf_counter()
    try:
        written = package_site(site, built, ROOT, dist, per_lesson=per_lesson)
    except BuildError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print(f"scorm: {len(exc.problems)} problem(s); {dist.name}/ was left as it was", file=sys.stderr)
        return exc.problems
    ms = 1000 * (time.perf_counter() - t0)
    for path in written:
        print(f"packed {path} ({path.stat().st_size / 1e6:.1f} MB)")
    print(f"scorm: {len(written)} SCORM 2004 package{'s' if len(written) != 1 else ''} in {ms:.0f} ms")
    return []


def new(title: str, lessons: Path, labs: Path, slug: str | None = None) -> int:
    """Write a new lesson and its lab, and say so; or say why not, having written nothing."""
    from lessonkit.scaffold import ScaffoldError, new_lesson, report

    try:
        made = new_lesson(title, lessons, labs, shown=ROOT, slug=slug)
    except ScaffoldError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    for line in report(made, shown=ROOT):
        print(line)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line: build (default) or serve."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("command", nargs="?", choices=["build", "serve", "new", "scorm"], default="build")
    parser.add_argument("title", nargs="?", help='for new: the lesson\'s title, e.g. "My lesson"')
    parser.add_argument("--slug", default=None,
                        help="for new: the lesson's slug (its file, page and lab module names), instead of the title's")
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="output folder (default: site/)")
    parser.add_argument("--lessons", type=Path, default=None, help="lesson folder (default: lesson/)")
    parser.add_argument("--labs", type=Path, default=None, help="lab folder, with labkit/ (default: lab/)")
    parser.add_argument("--port", type=int, default=8000, help="port for serve (default: 8000)")
    parser.add_argument("--no-isolation", action="store_true",
                        help="serve without COOP/COEP, as a host that cannot set headers would")
    parser.add_argument("--base-path", default="/", metavar="/FOLDER/",
                        help="the folder the site is published at, e.g. /course/: written into _headers and "
                             "nginx.conf (the pages' URLs are relative), and where serve serves it (default: /)")
    parser.add_argument("--hsts", nargs="?", const=HSTS_DEFAULT, default=None, metavar="VALUE",
                        help="HTTPS hosts: send Strict-Transport-Security from _headers and nginx.conf (default "
                             f'value "{HSTS_DEFAULT}"; serve never sends it). Off unless given: see README, Hosting')
    parser.add_argument("--dist", type=Path, default=ROOT / "dist",
                        help="for scorm: where the packages go (default: dist/)")
    parser.add_argument("--per-lesson", action="store_true",
                        help="for scorm: one package per lesson (for an LMS that keeps one record per package, such "
                             "as Open edX) instead of one for the course")
    args = parser.parse_args(argv)
    if args.per_lesson and args.command != "scorm":
        parser.error("--per-lesson is for scorm: python build.py scorm --per-lesson")
    if (args.command == "new") != (args.title is not None):
        parser.error('new takes the lesson\'s title: python build.py new "My lesson"' if args.command == "new"
                     else f"{args.command} takes no title (did you mean: python build.py new \"{args.title}\"?)")
    if args.slug is not None and args.command != "new":
        parser.error(f"--slug is for new (python build.py new \"My lesson\" --slug {args.slug})")
    if problem := base_path_problem(args.base_path) or (args.hsts is not None and hsts_problem(args.hsts)):
        parser.error(problem)
    if args.command == "new":
        return new(args.title, args.lessons or ROOT / "lesson", args.labs or ROOT / "lab", args.slug)
    memo = Memo() if args.command == "serve" else None  # serve's rebuilds make again only what an edit changed
    problems = build(args.out, args.lessons, labs=args.labs, base_path=args.base_path, hsts=args.hsts, memo=memo,
                     scorm=args.dist if args.command == "scorm" else None, per_lesson=args.per_lesson)
    if args.command in ("build", "scorm"):
        return 1 if problems else 0
    from lessonkit.hosting.dev import serve

    lessons, labs = args.lessons or ROOT / "lesson", args.labs or ROOT / "lab"
    serve(ROOT, args.out, args.port,
          lambda: build(args.out, args.lessons, labs=args.labs, report=False, base_path=args.base_path,
                        hsts=args.hsts, memo=memo),
          isolated=not args.no_isolation, initial_build=False, base=args.base_path, idle=memo.finish,
          changed=memo.note_changes,
          watch_paths=[lessons, labs] + [ROOT / d for d in ("templates", "static")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
