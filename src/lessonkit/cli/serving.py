"""`lessonkit serve`: the course built, served at 127.0.0.1, and built again on every save (lessonkit.serve.dev)."""

from __future__ import annotations

from pathlib import Path

from lessonkit.cli import build
from lessonkit.content.course import NAME as COURSE_CONFIG


def serve_course(course: Path, out: Path, port: int, *, isolated: bool, base_path: str) -> int:
    """Build the course, serve it, and rebuild it on every save until interrupted."""
    from lessonkit.pipeline.memo import Memo
    from lessonkit.pipeline.site import Project
    from lessonkit.serve.dev import WATCH_DIRS, holding_still, serve

    memo = Memo()  # serve's rebuilds make again only what an edit changed
    # A first build that fails is made again by the server, which prints its problems and shows them in the page
    # (what the memo kept of this one makes that quick): the author sees why, and the next save rebuilds.
    failed = bool(build(course, out, report=False, base_path=base_path, memo=memo))
    project = Project.at(course)
    watched = [project.lessons, project.lab, *(course / d for d in WATCH_DIRS[2:]), course / COURSE_CONFIG]

    def rebuild() -> list[str]:
        # Published only when no watched file changed while the build read them: never a mix of two saves, nor a
        # file read half-saved (an editor's truncate-then-write); the next build reads them again.
        return build(course, out, report=False, base_path=base_path, memo=memo, held_still=holding_still(watched))

    serve(course, out, port, rebuild, isolated=isolated, initial_build=failed, base=base_path, idle=memo.finish,
          changed=memo.note_changes, watch_paths=watched)
    return 0
