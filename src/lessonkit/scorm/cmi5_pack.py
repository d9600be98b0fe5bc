"""The cmi5 package of a built site: `lessonkit cmi5` writes dist/<course-id>-cmi5.zip.

As the SCORM package (pack.py: gather, check, then write; the whole site, renamed for an LMS's types, with the
package's service worker; the same bytes for the same site), with cmi5.xml (cmi5.py) at its root instead of the
SCORM manifest, and its pages saying they are the cmi5 package's (`cmi5: true` in their data: a lesson page reads a
cmi5 launch, and looks for no SCORM API: static/js/lms/cmi5.js).

Where a lesson page may connect. A cmi5 launch hands the page the LMS's xAPI endpoint, which the package cannot know
when it is made, and the page's Content-Security-Policy (its <meta>: an LMS serves the package without lessonkit's
headers) must let it connect there. The lesson pages' connect-src is the site's ('self', the class's record store)
and, with `--endpoint-origin` given, those origins alone; without it, any HTTPS origin (`https:`). The course
index, which reports nothing, keeps the site's policy. What the wider policy lets through, and what it does not:
the manual's security page, "The cmi5 package".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from lessonkit.core.errors import BuildError, Problem
from lessonkit.hosting.headers import meta_csp
from lessonkit.lms import limits
from lessonkit.lms.report import lesson_id
from lessonkit.lms.text import clip, plain
from lessonkit.scorm import cmi5
from lessonkit.scorm.pack import DESCRIPTION_CHARS, Package, lms_files, page_lms
from lessonkit.text.markup import new_markdown

if TYPE_CHECKING:
    from lessonkit.pipeline.site import Built

SUFFIX = "-cmi5.zip"
ANY_HTTPS = "https:"  # connect-src without --endpoint-origin: any HTTPS origin
JUDGED_KINDS = ("question", "exercise")  # what a lesson is passed or failed by (static/js/lms/record.js)
_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
_ORIGIN = re.compile(r"(https://[A-Za-z0-9.-]+|http://(?:127\.0\.0\.1|localhost|\[::1\]))(:[0-9]{1,5})?")


def zip_name(course_id: str) -> str:
    return f"{course_id}{SUFFIX}"


def origin_problem(value: str) -> str | None:
    """Why `value` cannot be an --endpoint-origin, or None when it can."""
    if _ORIGIN.fullmatch(value) and urlsplit(value).port != 0:
        return None
    return (f'--endpoint-origin "{value}" must be the origin of the LMS\'s xAPI endpoint: "https://" and its host '
            '(and ":port"), nothing after it, e.g. --endpoint-origin https://lms.example.org (plain "http://" only '
            "for 127.0.0.1 or localhost)")


def connect_sources(site_connect: Sequence[str], origins: Sequence[str]) -> list[str]:
    """The lesson pages' connect-src besides 'self': the site's, then the endpoint's origins (or any HTTPS one)."""
    return [*site_connect, *(origins or [ANY_HTTPS])]


def judged(items: list[dict[str, Any]], optional: str) -> bool:
    """Whether a lesson is passed or failed: a counted question or exercise (an optional exercise counts only with
    scorm.optional "counted")."""
    return any(it["kind"] in JUDGED_KINDS and (not it.get("optional") or optional == "counted") for it in items)


def author_problems(built: Built) -> list[Problem]:
    """What cmi5 refuses of the course's settings, each at its line."""
    course = built.course
    if course is None:
        return []
    passing = course.scorm["passing"]
    if float(cmi5.mastery(passing)) != passing:
        return [Problem(course.rel, course.lines.get("scorm", 1),
                        f'"passing: {passing:g}" has more than {cmi5.MASTERY_DECIMALS} decimals, and a cmi5 '
                        f"masteryScore holds {cmi5.MASTERY_DECIMALS} — round it, e.g. \"passing: {cmi5.mastery(passing)}\"")]
    return []


def package(site: Path, built: Built, state: Path | None, origins: Sequence[str] = ()) -> Package:
    """The cmi5 package of a built site, checked; raises BuildError (nothing written) with every problem."""
    problems: list[Problem | str] = [*author_problems(built)]
    course = built.course
    if course is None:
        raise BuildError(["the course config did not load: nothing to package"])
    pages = [(page.lesson, f"{page.lesson.slug}.html", page_lms(page.html)) for page in built.pages]
    policy = meta_csp(built.script_hashes, connect_sources(built.connect, origins))
    found: list[str] = []
    wheels = sorted({wheel for page in built.pages for wheel in page.wheels})
    files = lms_files(site, state, [url for _, url, _ in pages], wheels, found, extra={"cmi5": True},
                      lesson_policy=policy)
    problems += found
    if problems:
        raise BuildError(problems)
    markdown = new_markdown()
    description = clip(plain(markdown.convert(course.description)), DESCRIPTION_CHARS) if course.description \
        else course.title
    structure = cmi5.Course(f"{limits.INTERACTION_PREFIX}:{course.id}", course.title, description, course.language,
                            course.scorm["passing"])
    aus = [cmi5.AU(lesson_id(course.id, lesson.slug), lesson.title,
                   clip(plain(markdown.reset().convert(str(lesson.meta.get("summary") or ""))), DESCRIPTION_CHARS)
                   or lesson.title, url, judged(lms.get("items", []), course.scorm["optional"]))
           for lesson, url, lms in pages]
    members = dict(files)
    members[cmi5.STRUCTURE] = cmi5.course_structure(structure, aus).encode("utf-8")
    return Package(zip_name(course.id), members)
