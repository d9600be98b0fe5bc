"""The course config, `course.yaml` in the lessons folder: the course's id, title, tagline, description, accent colour
and, optionally, the order of its lessons.

The accent colour must be readable where the page uses it (links, buttons, focus rings): the build measures its
WCAG contrast against the page's own colours, read from the stylesheet's light and dark themes, and refuses a colour
below 4.5:1. Given one colour, the dark theme takes it lightened until it reads there too.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from lessonkit.content import yamlsrc
from lessonkit.content.errors import Problem
from lessonkit.content.media import DEFAULT_MAX_IMAGE_MB
from lessonkit.content.schema import Choice, Fields, Inline, Key, ListOf, Markdown, Number, Text, did_you_mean
from lessonkit.content.sources import read_text
from lessonkit.runtime.releases import DEFAULT_RELEASE, RELEASES

if TYPE_CHECKING:
    from lessonkit.content.lesson import Lesson

NAME = "course.yaml"
MIN_CONTRAST = 4.5  # WCAG 2.2 AA for text
HEX = r"#[0-9a-fA-F]{6}"
COLOUR = Text(HEX, 'a colour written "#rrggbb"', '"#2f5bd3"')
SLUG = r"[a-z0-9]+(?:-[a-z0-9]+)*"
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
    "lessons": Key(ListOf(Text(SLUG, "a lesson's slug", '"- my-lesson"'), min=1, example="[first-lesson, second]"),
                   doc="the lessons' slugs in course order (default: each lesson's \"order:\"); lists every lesson"),
    "pyodide": Key(Choice(*RELEASES), doc=f"the Pyodide release every lab of the course runs on (default "
                   f"{DEFAULT_RELEASE}, core only, the fastest; 0.27.7 is Python 3.12 with official wheels of NumPy "
                   "and the scientific stack, which lessons load by naming them in \"requires:\")"),
    "max_image_mb": Key(Number(above=0, example='"max_image_mb: 8"'),
                        doc=f"the largest image a lesson may publish, in MB of 1,000,000 bytes (default "
                        f"{DEFAULT_MAX_IMAGE_MB:g}): every visitor of its page downloads it"),
})
# The stylesheet's variables the accent is drawn on or under: it must reach MIN_CONTRAST against each.
AGAINST = {"--bg": "background", "--panel": "panel background", "--accent-fg": "button text"}


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
    pyodide: str = DEFAULT_RELEASE  # a key of lessonkit.runtime.releases.RELEASES

    def style(self) -> Markup:
        """The <style> that sets the accent (CSS variables only; empty when the course keeps the default)."""
        if not self.accent:
            return Markup("")
        light, dark = self.accent["light"], self.accent["dark"]
        return Markup(f":root{{--accent:{light}}}"  # noqa: S704 — checked #rrggbb colours only
                      f"@media (prefers-color-scheme: dark){{:root{{--accent:{dark}}}}}")


def load_course(folder: Path, rel: str, stylesheet: Path, problems: list[Problem]) -> Course | None:
    """Read and check `course.yaml` in the lessons folder (`rel` is that folder as the author sees it)."""
    path, shown = folder / NAME, f"{rel}/{NAME}"
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
    accent = _accent(data, shown, stylesheet, problems)
    if accent is None:
        return None
    order = [(str(slug), line) for slug, line in zip(data["lessons"], data["lessons"].lines, strict=True)] \
        if "lessons" in data else None
    seen: dict[str, int] = {}
    for slug, line in order or []:
        if slug in seen:
            problems.append(Problem(shown, line, f'lesson "{slug}" is listed twice in "lessons:" (first at line '
                                    f"{seen[slug]}) — list each lesson once"))
        seen.setdefault(slug, line)
    course_id = str(data["id"]) if "id" in data else slug_of(str(data["title"]))
    return Course(course_id, str(data["title"]), str(data.get("tagline") or ""), str(data.get("description") or ""),
                  accent, shown, dict(data.lines), order, float(data.get("max_image_mb", DEFAULT_MAX_IMAGE_MB)),
                  str(data.get("pyodide", DEFAULT_RELEASE)))


def order_lessons(lessons: list[Lesson], course: Course | None, problems: list[Problem]) -> list[Lesson]:
    """The lessons in course order: the course config's "lessons:" list when it has one, else each lesson's "order:"
    (lessons without one last, by slug)."""
    if course is not None and course.lessons is not None:
        return _listed_order(lessons, course, problems)
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


def _listed_order(lessons: list[Lesson], course: Course, problems: list[Problem]) -> list[Lesson]:
    """The order of the course config's "lessons:": every slug a lesson, every lesson listed, no "order:" beside."""
    assert course.lessons is not None
    by_slug = {lesson.slug: lesson for lesson in lessons}
    key_line = course.lines["lessons"]
    folder = course.rel.rsplit("/", 1)[0]
    for slug, line in course.lessons:
        if slug not in by_slug:
            problems.append(Problem(course.rel, line, f'"lessons:" lists "{slug}", a missing lesson'
                                    f"{did_you_mean(slug, by_slug)} — add {folder}/{slug}.md, or list one of: "
                                    f"{', '.join(sorted(by_slug)) or '(no lessons yet)'}"))
    listed = {slug for slug, _ in course.lessons}
    for lesson in lessons:
        if lesson.slug not in listed:
            problems.append(Problem(lesson.rel, 1, f'lesson "{lesson.slug}" is not in the course\'s "lessons:" list '
                                    f'({course.rel}:{key_line}) — add "- {lesson.slug}" there'))
        if "order" in lesson.meta:
            problems.append(Problem(lesson.rel, lesson.meta.lines["order"], f'"order:" is not used: {course.rel} '
                                    f'lists the lessons in order ("lessons:", line {key_line}) — remove this line'))
    place = {slug: n for n, (slug, _) in enumerate(course.lessons)}
    return sorted(lessons, key=lambda les: (place.get(les.slug, len(place)), les.slug))


def slug_of(text: str) -> str:
    """Lowercase letters, digits and single dashes made from a text ("Über Attention!" -> "uber-attention")."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "-".join(re.findall(r"[a-z0-9]+", ascii_text.lower())) or "course"


def _accent(data: Any, shown: str, stylesheet: Path, problems: list[Problem]) -> dict[str, str] | None:
    """The accent per theme, each checked against the theme's colours; {} when the course sets none."""
    if "accent" not in data:
        if "accent_dark" in data:
            problems.append(Problem(shown, data.lines["accent_dark"], '"accent_dark:" needs "accent:" (the light '
                                    "theme's) beside it"))
            return None
        return {}
    themes = page_colours(stylesheet)
    light = str(data["accent"]).lower()
    dark = str(data["accent_dark"]).lower() if "accent_dark" in data else lighten(light, themes["dark"])
    ok = True
    for theme, colour, key in (("light", light, "accent"), ("dark", dark, "accent_dark" if "accent_dark" in data
                                                             else "accent")):
        for name, role in AGAINST.items():
            ratio = contrast(colour, themes[theme][name])
            if ratio < MIN_CONTRAST:
                derived = " (the accent lightened for it)" if theme == "dark" and key == "accent" else ""
                fix = ("choose a darker colour" if theme == "light" else
                       'choose another colour, or set "accent_dark:"')
                problems.append(Problem(shown, data.lines[key], f'accent "{colour}"{derived} has a contrast of '
                                        f"{ratio:.1f}:1 against the {theme} theme's {role} ({themes[theme][name]}) — "
                                        f"{fix}, with at least {MIN_CONTRAST}:1"))
                ok = False
                break
    return {"light": light, "dark": dark} if ok else None


def lighten(colour: str, theme: dict[str, str]) -> str:
    """`colour` mixed with white, in steps of 5 %, until it reads on the theme's colours (white at worst)."""
    rgb = _rgb(colour)
    for step in range(21):
        t = step / 20
        mixed = "#" + "".join(f"{round(c + (255 - c) * t):02x}" for c in rgb)
        if all(contrast(mixed, theme[name]) >= MIN_CONTRAST for name in AGAINST):
            return mixed
    return "#ffffff"


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two "#rrggbb" colours."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _luminance(colour: str) -> float:
    """WCAG relative luminance."""
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in _rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


_ROOT = re.compile(r":root\s*\{(?P<body>[^}]*)\}")
_DARK = re.compile(r"@media\s*\(prefers-color-scheme:\s*dark\)\s*\{\s*:root\s*\{(?P<body>[^}]*)\}")
_VAR = re.compile(rf"(--[\w-]+)\s*:\s*({HEX})\s*;")


def page_colours(stylesheet: Path) -> dict[str, dict[str, str]]:
    """The stylesheet's colours the accent meets, per theme: the light :root, and the dark theme's over it."""
    css = stylesheet.read_text(encoding="utf-8")
    light_block, dark_block = _ROOT.search(css), _DARK.search(css)
    if light_block is None or dark_block is None:
        raise RuntimeError(f"{stylesheet}: no :root colours for the light and dark themes")
    light = dict(_VAR.findall(light_block.group("body")))
    dark = {**light, **dict(_VAR.findall(dark_block.group("body")))}
    missing = [name for name in AGAINST if name not in light]
    if missing:
        raise RuntimeError(f"{stylesheet}: :root sets no {', '.join(missing)}")
    return {"light": {n: light[n].lower() for n in AGAINST}, "dark": {n: dark[n].lower() for n in AGAINST}}
