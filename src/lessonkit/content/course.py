"""The course config, `course.yaml` in the course folder: the course's id, title, tagline, description, accent colour
and, optionally, the order of its lessons (`lessons:`) or its parts, each a titled run of lessons (`parts:`).

Parts are declared here, not by a `part:` key in each lesson's front matter: a part's title is written once (a typo
in one lesson's copy would make a part of its own), the parts' order and each part's lessons read in one place, and
moving a lesson to another part, or reordering the parts, is one edit of one file.

The accent colour must be readable where the page uses it (links, buttons, focus rings): content/accent.py.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from lessonkit.content import classes as class_settings
from lessonkit.content import lms as lms_settings
from lessonkit.content import yamlsrc
from lessonkit.content.accent import HEX, check_accent
from lessonkit.content.media import DEFAULT_MAX_IMAGE_MB
from lessonkit.content.schema import (
    INVALID,
    At,
    Choice,
    Fields,
    Inline,
    Key,
    ListOf,
    MapOf,
    Markdown,
    Number,
    Text,
    Type,
    did_you_mean,
)
from lessonkit.content.sources import read_text
from lessonkit.core import messages
from lessonkit.core.errors import Problem
from lessonkit.runtime.releases import DEFAULT_RELEASE, RELEASES

if TYPE_CHECKING:
    from lessonkit.content.lesson import Lesson

NAME = "course.yaml"
COLOUR = Text(HEX, 'a colour written "#rrggbb"', '"#2f5bd3"')
SLUG = r"[a-z0-9]+(?:-[a-z0-9]+)*"
LESSON_SLUGS = ListOf(Text(SLUG, "a lesson's slug", '"- my-lesson"'), min=1, example="[first-lesson, second]")
LANGUAGE = Text(messages.TAG, 'a BCP 47 language tag', '"language: de"')
class Words(Type):
    """A message's text, or a counted message's forms: "one: …", "other: …" (checked against the message later)."""

    what = 'a text, or plural forms ("one: …", "other: …")'
    doc = "text, or mapping of plural category to text"

    def check(self, value: Any, at: At) -> Any:
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, dict) and value and all(isinstance(v, str) and v.strip() for v in value.values()):
            return value
        return INVALID


STRINGS = MapOf(Text(r"[a-z]+\.[a-z0-9_.]+", "a message key", '"lab.run"'),
                Words(), what="message keys, each with the course's text for it", example='"lab.run: Go"')
PART = Fields({
    "title": Key(Text(), required=True, hint='naming the part, e.g. "title: Attention"',
                 doc="the part's heading on the index and in the sidebar"),
    "lessons": Key(LESSON_SLUGS, required=True, hint='with its lessons\' slugs in order, e.g. "lessons: [a, b]"',
                   doc="its lessons' slugs, in course order"),
})
SCHEMA = Fields({
    "id": Key(Text(SLUG, "lowercase letters, digits and single dashes", '"id: my-course"'),
              doc="names the course in progress files (default: made from the title)"),
    "title": Key(Text(), required=True, hint='naming the course, e.g. "title: My course"',
                 doc="the header of every page, the end of each page's title, the index's heading"),
    "tagline": Key(Inline(), doc="a short line under the title (inline markdown)"),
    "description": Key(Markdown(), doc="the course index's introduction (markdown)"),
    "accent": Key(COLOUR, doc='links, buttons and focus rings: "#rrggbb", readable at 4.5:1 on the page\'s light '
                  "theme (the dark theme lightens it)"),
    "accent_dark": Key(COLOUR, doc="the dark theme's accent, when the lightened one is not the one you want"),
    "lessons": Key(LESSON_SLUGS,
                   doc="the lessons' slugs in course order (default: each lesson's \"order:\"); lists every lesson"),
    "pyodide": Key(Choice(*RELEASES), doc=f"the Pyodide release every lab of the course runs on (default "
                   f"{DEFAULT_RELEASE}, core only, the fastest; 0.27.7 is Python 3.12 with official wheels of NumPy "
                   "and the scientific stack, which lessons load by naming them in \"requires:\")"),
    "parts": Key(ListOf(PART, noun="part", min=1,
                        label=lambda part: f' ("{part["title"]}")' if isinstance(part.get("title"), str) else ""),
                 doc='the course in parts, in order: "- title: …" and "lessons: [...]" each; together they list '
                 'every lesson once (then no "lessons:" and no "order:")'),
    "max_image_mb": Key(Number(above=0, example='"max_image_mb: 8"'),
                        doc=f"the largest image a lesson may publish, in MB of 1,000,000 bytes (default "
                        f"{DEFAULT_MAX_IMAGE_MB:g}): every visitor of its page downloads it"),
    "language": Key(LANGUAGE, doc=f'the language of the course, a BCP 47 tag ("de", "fr-CA", "ar"; default '
                    f'"{messages.DEFAULT_LANGUAGE}"): the toolkit\'s words, the numbers the build writes, search\'s stemming, '
                    "the page's direction (right to left for Arabic, Hebrew …); a lesson's front matter may set its own"),
    "strings": Key(STRINGS, doc="the toolkit's words this course says otherwise: a message's key (the manual lists "
                   "them) to its text, or, for a counted message, its forms by plural category (one, other …)"),
    "scorm": Key(lms_settings.SCHEMA, doc="how an LMS judges each lesson of the SCORM and cmi5 packages: passing "
                 "score and completion rule (the manual: Use it in an LMS)"),
    "class": Key(class_settings.SCHEMA, doc="the Learning Record Store a class's answers go to, once a learner joins "
                 "by the class's link (the manual: Teach a class)"),
})


@dataclass
class Part:
    """A titled run of lessons: its id (from its title: names it in the page and in progress files), its lessons."""

    id: str
    title: str
    line: int
    lessons: list[str]


@dataclass
class Course:
    """The checked course config."""

    id: str
    title: str
    tagline: str  # inline markdown, rendered by the caller
    description: str  # markdown, rendered by the caller
    accent: dict[str, str]  # theme ("light", "dark") → "#rrggbb"; empty for the stylesheet's own colours
    rel: str
    lines: dict[str, int]
    lessons: list[tuple[str, int]] | None = None  # the declared order: (slug, line), or None for "order:"
    max_image_mb: float = DEFAULT_MAX_IMAGE_MB
    parts: list[Part] | None = None  # the course's parts, when "parts:" declares the order
    scorm: dict[str, Any] = field(default_factory=lambda: dict(lms_settings.DEFAULTS))  # {passing, completion}
    pyodide: str = DEFAULT_RELEASE  # a key of lessonkit.runtime.releases.RELEASES
    classroom: dict[str, str] | None = None  # course.yaml's `class:` ({lrs, origin}), or None
    language: str = messages.DEFAULT_LANGUAGE  # a BCP 47 tag Babel knows
    strings: dict[str, Any] = field(default_factory=dict)  # message key → the author's text (or plural forms)

    @property
    def listing(self) -> str:
        """The key that declares the order: "parts" or "lessons"."""
        return "parts" if self.parts is not None else "lessons"

    def style(self) -> Markup:
        """The <style> that sets the accent (CSS variables only; empty when the course keeps the default)."""
        if not self.accent:
            return Markup("")
        light, dark = self.accent["light"], self.accent["dark"]
        return Markup(f":root{{--accent:{light}}}"  # noqa: S704 — checked #rrggbb colours only
                      f"@media (prefers-color-scheme: dark){{:root{{--accent:{dark}}}}}")


def load_course(folder: Path, rel: str, stylesheet: Path, problems: list[Problem]) -> Course | None:
    """Read and check `course.yaml` in the course folder (`rel` is that folder as the author sees it: "" for the
    folder the paths are shown from)."""
    path, shown = folder / NAME, f"{rel}/{NAME}" if rel else NAME
    if not path.exists():
        problems.append(Problem(shown, 1, 'course config is missing — create it with at least "title: My course"'))
        return None
    source, problem = read_text(path, shown)
    if source is None:
        problems.append(problem)  # type: ignore[arg-type]  # read_text gives one or the other
        return None
    try:
        raw = yamlsrc.load(source)
    except yamlsrc.AuthorYAMLError as exc:
        problems.append(Problem(shown, exc.line, f"the course config {exc.message}"))
        return None
    if not isinstance(raw, dict):
        problems.append(Problem(shown, 1, 'the course config must be "key: value" lines, e.g. "title: My course"'))
        return None
    data = SCHEMA.validate(raw, "the course config", lambda line, message: problems.append(
        Problem(shown, line, message)), raw.line)
    if data is None:
        return None
    accent = check_accent(data, shown, stylesheet, problems)
    if accent is None:
        return None
    if "lessons" in data and "parts" in data:
        problems.append(Problem(shown, data.lines["lessons"], '"lessons:" and "parts:" both give the order of the '
                                'lessons — keep "parts:" (its parts list the lessons in order) and remove "lessons:"'))
        return None
    parts = _parts(data["parts"], shown, problems) if "parts" in data else None
    if parts is not None:
        listed = data["parts"]
        order = [(str(slug), line) for part in listed for slug, line in zip(part["lessons"], part["lessons"].lines,
                                                                            strict=True)]
    else:
        order = [(str(slug), line) for slug, line in zip(data["lessons"], data["lessons"].lines, strict=True)] \
            if "lessons" in data else None
    key = "parts" if parts is not None else "lessons"
    seen: dict[str, int] = {}
    for slug, line in order or []:
        if slug in seen:
            problems.append(Problem(shown, line, f'lesson "{slug}" is listed twice in "{key}:" (first at line '
                                    f"{seen[slug]}) — list each lesson once"))
        seen.setdefault(slug, line)
    language = check_language(data, shown, problems)
    if language is None:
        return None
    strings = check_strings(data, language, shown, problems)
    if strings is None:
        return None
    course_id = str(data["id"]) if "id" in data else slug_of(str(data["title"]))
    return Course(course_id, str(data["title"]), str(data.get("tagline") or ""), str(data.get("description") or ""),
                  accent, shown, dict(data.lines), order, float(data.get("max_image_mb", DEFAULT_MAX_IMAGE_MB)), parts,
                  lms_settings.settings(data.get("scorm")), str(data.get("pyodide", DEFAULT_RELEASE)),
                  class_settings.settings(data.get("class")), language, strings)


def check_strings(data: Any, language: str, shown: str, problems: list[Problem]) -> dict[str, Any] | None:
    """The course's "strings:", each key a message of the toolkit (did you mean …), its text with only the English
    message's placeholders, a counted message's forms by the language's plural categories; None after problems."""
    given = data.get("strings")
    if not given:
        return {}
    english = messages.keys()
    categories = messages.Messages(language).categories()
    found: list[Problem] = []
    out: dict[str, Any] = {}
    for key, value in given.items():
        line = given.lines.get(key, data.lines["strings"])
        entry = english.get(key)
        if entry is None:
            found.append(Problem(shown, line, f'"strings:" names "{key}", which is no message of lessonkit'
                                 f"{did_you_mean(key, english)} — use a key the manual lists (Course config: "
                                 '"strings:"), e.g. "lab.run"'))
            continue
        wanted = set(messages.PLACEHOLDER.findall(" ".join(entry.forms or (entry.text,))))
        if isinstance(value, dict):
            if not entry.plural:
                found.append(Problem(shown, line, f'"{key}" has one form ("{entry.text}"): give it one text, not '
                                     "plural forms"))
                continue
            for category in value:
                if category not in categories:
                    found.append(Problem(shown, value.lines.get(category, line), f'"{category}:" is no plural '
                                         f'category of "{language}"{did_you_mean(str(category), categories)} — use '
                                         f"{', '.join(categories)}"))
            if "other" not in value:
                found.append(Problem(shown, line, f'"{key}" needs "other:", the form for any count'))
            texts = [str(v) for v in value.values()]
        else:
            texts = [str(value)]
        for text in texts:
            for name in sorted(set(messages.PLACEHOLDER.findall(text)) - wanted):
                known = ", ".join("{" + w + "}" for w in sorted(wanted)) or "none"
                found.append(Problem(shown, line, f'"{key}" uses {{{name}}}, which the message does not fill in — '
                                     f"use {known}"))
        out[key] = {str(c): str(v) for c, v in value.items()} if isinstance(value, dict) else str(value)
    problems += found
    return None if found else out


def check_language(data: Any, shown: str, problems: list[Problem]) -> str | None:
    """The checked "language:" of a course config or a lesson's front matter (its default when absent), or None
    after reporting a tag Babel knows no language of."""
    if "language" not in data:
        return messages.DEFAULT_LANGUAGE
    tag = str(data["language"])
    wrong = messages.unknown_language(tag)
    if wrong:
        problems.append(Problem(shown, data.lines["language"], wrong))
        return None
    return tag


def _parts(listed: Any, shown: str, problems: list[Problem]) -> list[Part]:
    """The checked parts; two parts of one title (or of titles that make one id) are a problem."""
    parts: list[Part] = []
    ids: dict[str, Part] = {}
    for data, line in zip(listed, listed.lines, strict=True):
        title = " ".join(str(data["title"]).split())
        part = Part(slug_of(title, "part"), title, data.lines.get("title", line), [str(s) for s in data["lessons"]])
        if part.id in ids:
            first = ids[part.id]
            same = "the title" if first.title == title else f'a title that reads as the same ("{first.title}")'
            problems.append(Problem(shown, part.line, f'part "{title}" has {same} of the part at line {first.line} '
                                    "— give each part its own title"))
        ids.setdefault(part.id, part)
        parts.append(part)
    return parts


def order_lessons(lessons: list[Lesson], course: Course | None, problems: list[Problem],
                  folder: str = "lesson") -> list[Lesson]:
    """The lessons in course order: the course config's "lessons:" list when it has one, else each lesson's "order:"
    (lessons without one last, by slug). `folder`: the lessons' folder as the author sees it."""
    if course is not None and course.lessons is not None:
        return _listed_order(lessons, course, problems, folder)
    orders: dict[int, Lesson] = {}
    for lesson in lessons:
        order = lesson.meta.get("order")
        if order is None:
            continue
        if order in orders:
            problems.append(Problem(lesson.rel, lesson.meta.lines["order"], f"order {order} is also the order of "
                                    f'{orders[order].rel} — give each lesson its own "order:"'))
        else:
            orders[order] = lesson
    return sorted(lessons, key=lambda les: (les.meta.get("order", 1_000_000), les.slug))


def _listed_order(lessons: list[Lesson], course: Course, problems: list[Problem], folder: str) -> list[Lesson]:
    """The order of the course config's "lessons:": every slug a lesson, every lesson listed, no "order:" beside."""
    assert course.lessons is not None
    by_slug = {lesson.slug: lesson for lesson in lessons}
    key = course.listing
    key_line = course.lines[key]
    for slug, line in course.lessons:
        if slug not in by_slug:
            problems.append(Problem(course.rel, line, f'"{key}:" lists "{slug}", a missing lesson'
                                    f"{did_you_mean(slug, by_slug)} — add {folder}/{slug}.md, or list one of: "
                                    f"{', '.join(sorted(by_slug)) or '(no lessons yet)'}"))
    listed = {slug for slug, _ in course.lessons}
    for lesson in lessons:
        if lesson.slug not in listed:
            where, fix = (("list", "there") if key == "lessons" else
                          ("parts", "to the lessons of one of its parts"))
            problems.append(Problem(lesson.rel, 1, f'lesson "{lesson.slug}" is not in the course\'s "{key}:" {where} '
                                    f'({course.rel}:{key_line}) — add "- {lesson.slug}" {fix}'))
        if "order" in lesson.meta:
            problems.append(Problem(lesson.rel, lesson.meta.lines["order"], f'"order:" is not used: {course.rel} '
                                    f'lists the lessons in order ("{key}:", line {key_line}) — remove this line'))
    place = {slug: n for n, (slug, _) in enumerate(course.lessons)}
    return sorted(lessons, key=lambda les: (place.get(les.slug, len(place)), les.slug))


def slug_of(text: str, empty: str = "course") -> str:
    """Lowercase letters, digits and single dashes made from a text ("Über Attention!" -> "uber-attention"); `empty`
    when it has none."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "-".join(re.findall(r"[a-z0-9]+", ascii_text.lower())) or empty
