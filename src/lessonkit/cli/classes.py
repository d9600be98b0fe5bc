"""`lessonkit class`: make a class (its join link and code, and the two keys to register with the record store), or
show its tally of answers, read from the course's record store (course.yaml's `class: lrs:`) with the instructor's
key."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
import time
from pathlib import Path

from lessonkit.cli import PROG, READ_KEY_ENV
from lessonkit.content.course import NAME as COURSE_CONFIG


def class_command(course: Path, args: argparse.Namespace, command: argparse.ArgumentParser) -> int:
    """`lessonkit class new NAME` and `lessonkit class show ID`."""
    from lessonkit.content.course import load_course
    from lessonkit.core.errors import Problem
    from lessonkit.core.places import STATIC
    from lessonkit.lms import classroom

    problems: list[Problem] = []
    config = load_course(course, "", STATIC / "css" / "lesson.css", problems)
    if config is None:
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1
    if config.classroom is None:
        print(f"{COURSE_CONFIG}: no class record store — add \"class:\" with \"lrs: <the LRS's xAPI endpoint>\"",
              file=sys.stderr)
        return 1
    lrs = config.classroom["lrs"]
    if args.action == "new":
        if not args.site:
            command.error("give the address the course is published at: --site https://…/")
        made = classroom.new_class(args.what)
        if args.json:
            print(json.dumps({"id": made.id, "name": made.name, "code": made.code, "link": made.link(args.site),
                              "learner_key": made.learner_key, "instructor_key": made.instructor_key,
                              "ralph": made.ralph_commands(lrs)}, ensure_ascii=False, indent=1))
            return 0
        print(f"Class “{made.name}”: id {made.id}, answers to {lrs}")
        print("1. Register its two keys with the record store (Ralph; another LRS: the same scopes):")
        for cmd in made.ralph_commands(lrs):
            print("   " + " ".join(f'"{part}"' if " " in part else part for part in cmd))
        print("2. Share the join link (its write-only key is after #: browsers never send that part to the site):")
        print(f"   {made.link(args.site)}")
        print("   or its code, which a learner pastes into “Join with a code” on any page of the course:")
        print(f"   {made.code}")
        print("3. Your read key, for `lessonkit class show " + made.id + "` (keep it to yourself; it is written nowhere):")
        print(f"   {made.instructor_key}")
        return 0
    key = os.environ.get(READ_KEY_ENV) or getpass.getpass("The class's read key: ")
    name = args.name or args.what
    try:
        while True:
            try:
                lines = classroom.tally_lines(classroom.tally(classroom.read_statements(lrs, args.what, key)), name)
            except classroom.LRSError as exc:
                print(f"{PROG} class show: {exc}", file=sys.stderr)
                return 1
            print("\n".join(lines), flush=True)
            if args.watch is None:
                return 0
            time.sleep(max(args.watch, 1.0))
            print(flush=True)
    except KeyboardInterrupt:  # Ctrl+C is how --watch ends, whether it was reading or waiting
        return 0 if args.watch is not None else 130
