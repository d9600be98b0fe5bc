"""cmi5.xml: the course structure of the course's cmi5 package (`lessonkit cmi5`), made from the course.

The cmi5 spec's section 13 and its CourseStructure.xsd: a `courseStructure` in the spec's namespace holding the
course (its id, title and description) and one AU per lesson, in course order, each with its title, description and
launch `url` (the lesson's page, relative to the package's root, where cmi5.xml is). The ids are the lessons' own
xAPI activity ids (`urn:lessonkit:<course>:<lesson>`, lessonkit/lms/report.py's lesson_id): an LMS reports them as
the AU's publisher id (the `grouping` of every statement of the AU), the id a class's statements name the lesson by.

Per AU, from course.yaml's `scorm:` rule (the same rule the SCORM package's lessons report by):
  - moveOn "CompletedAndPassed" for a lesson that is judged (a counted question or exercise: lessonkit/lms's
    record), with masteryScore = scorm.passing, which the LMS hands the lesson in LMS.LaunchData; "Completed" for a
    lesson with nothing to judge (it completes when its counted explanations are written, or when it is opened with
    completion "opened"), with no masteryScore;
  - launchMethod "AnyWindow": the page works in an LMS's frame, in a new window or in the LMS's own window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from lessonkit.scorm.manifest import href

NAMESPACE = "https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd"
STRUCTURE = "cmi5.xml"  # its name at the package's root (the spec's section 14)
LAUNCH_METHOD = "AnyWindow"
ACTIVITY_TYPE = "http://adlnet.gov/expapi/activities/lesson"
JUDGED = "CompletedAndPassed"
UNJUDGED = "Completed"
MASTERY_DECIMALS = 4  # masteryScore: "up to 4 decimal places of precision"


@dataclass(frozen=True)
class AU:
    """One lesson as an assignable unit."""

    id: str  # its publisher id (an IRI)
    title: str
    description: str  # plain text
    url: str  # its page, relative to the package root
    judged: bool  # a counted question or exercise: it is passed or failed


@dataclass(frozen=True)
class Course:
    """What the course structure says of the course."""

    id: str  # an IRI
    title: str
    description: str  # plain text
    language: str  # BCP 47: the language of every title and description
    passing: float  # course.yaml's scorm.passing: each judged AU's masteryScore


def mastery(x: float) -> str:
    """A masteryScore: a decimal of at most 4 places, never in exponent notation."""
    return f"{x:.{MASTERY_DECIMALS}f}".rstrip("0").rstrip(".") if x else "0"


def move_on(au: AU) -> str:
    return JUDGED if au.judged else UNJUDGED


def _text(tag: str, text: str, language: str, indent: str) -> str:
    return f"{indent}<{tag}><langstring lang={quoteattr(language)}>{escape(text)}</langstring></{tag}>"


def _au(au: AU, course: Course) -> str:
    score = f" masteryScore={quoteattr(mastery(course.passing))}" if au.judged else ""
    return "\n".join([
        f"  <au id={quoteattr(au.id)} moveOn={quoteattr(move_on(au))}{score} launchMethod={quoteattr(LAUNCH_METHOD)} "
        f"activityType={quoteattr(ACTIVITY_TYPE)}>",
        _text("title", au.title, course.language, "    "),
        _text("description", au.description, course.language, "    "),
        f"    <url>{escape(href(au.url))}</url>",
        "  </au>",
    ])


def course_structure(course: Course, aus: Sequence[AU]) -> str:
    """cmi5.xml's text: the course and its AUs (course order)."""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f"<courseStructure xmlns={quoteattr(NAMESPACE)}>",
        f"  <course id={quoteattr(course.id)}>",
        _text("title", course.title, course.language, "    "),
        _text("description", course.description, course.language, "    "),
        "  </course>",
        *(_au(au, course) for au in aus),
        "</courseStructure>",
    ]
    return "\n".join(lines) + "\n"
