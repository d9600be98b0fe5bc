"""`build.py new "Lesson title"`: a new lesson that builds at once, with one commented example of every block type.

It writes `lesson/<slug>.md` (front matter with the next free order, then an example of each type the block
registry knows, from `example.md.j2` in the type's folder), `lab/<module>.py` (the code its lab block runs, drawing
charts with labkit) and `lab/<module>_widget.py` (the functions its widget calls, importing the lab's), like the
course's own lessons. The slug comes from the title, or from `--slug`; the module is the slug as a Python name
(`causal-masking` → `causal_masking`), so checks and the widget file can import it. A course whose course.yaml lists
its lessons (`lessons:`) gets the new slug added at the end of that list instead of an `order:`. It checks everything
first and writes nothing when anything is wrong: a title without letters or digits or too long for a slug, a `--slug`
that is not one, a slug the site keeps for itself or another lesson has, a module name Python keeps, a file that
exists, a `lessons:` list it cannot extend. A title that makes a long slug is taken, and `new` suggests a shorter
`--slug` (the title's first phrase).
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import jinja2

from lessonkit.blocks import types
from lessonkit.build.files import atomic_write
from lessonkit.content import yamlsrc
from lessonkit.content.course import NAME as COURSE_CONFIG
from lessonkit.content.lesson import MAX_SLUG_LENGTH, RESERVED_SLUGS, SLUG, Lesson, load_lesson, shorten, slug_of

HERE = Path(__file__).resolve().parent
_TEMPLATES = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE), undefined=jinja2.StrictUndefined,
                                keep_trailing_newline=True, autoescape=False)  # noqa: S701 (markdown and Python)
# The lab's support package lives in lab/labkit/: a lab file of that name would hide it.
_LAB_NAMES_TAKEN = {"labkit": "lab/labkit/ is the toolkit's own package, which every lab imports"}


class ScaffoldError(Exception):
    """What stops `new`: every problem, one line each (nothing was written)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Made:
    """The files `new` wrote."""

    lesson: Path
    lab: Path
    widget: Path
    order: int | None  # None: listed last in the course config's "lessons:"
    blocks: list[str]
    config: Path | None = None  # the course config, when its "lessons:" list was extended
    title: str = ""
    shorter: str | None = None  # a shorter slug to suggest, when the title made a long one (and --slug was not given)


def example_template(block: str) -> Path:
    """A block type's example, `example.md.j2` in its folder (every registered type must have one)."""
    return types()[block].example


def next_order(lessons: Path) -> int:
    """One more than the largest `order:` of the lessons already in `lessons` (1 for the first lesson)."""
    return max((int(order) for lesson in _lessons(lessons) if isinstance(order := lesson.meta.get("order"), int)),
               default=0) + 1


def _lessons(folder: Path) -> list[Lesson]:
    """The lessons in `folder` as the build reads them (their problems are the build's to report)."""
    found = []
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        if not path.name.startswith("."):
            lesson = load_lesson(path, path.name, [])
            if lesson is not None:
                found.append(lesson)
    return found


def module_of(slug: str) -> str:
    """The lab's module name for a slug: its words joined by underscores, "lesson_" first when it starts with a digit
    ("causal-masking" → "causal_masking", "3-heads" → "lesson_3_heads")."""
    name = slug.replace("-", "_")
    return f"lesson_{name}" if name[:1].isdigit() else name


def new_lesson(title: str, lessons: Path, labs: Path, shown: Path | None = None, slug: str | None = None) -> Made:
    """Write the new lesson and its lab, or raise ScaffoldError having written nothing.

    `shown` is the folder messages name files from (the project's root); `slug`, the lesson's own instead of the
    title's.
    """
    title = " ".join(title.split())
    given = slug is not None
    if slug is not None and not SLUG.match(slug):
        raise ScaffoldError([f'--slug "{slug}" is not a slug: nothing was written — use lowercase letters, digits and '
                             f'single dashes, e.g. --slug {slug_of(slug) or "my-lesson"}'])
    slug = slug or slug_of(title)
    if not slug:
        raise ScaffoldError([f'the title "{title}" has no letters or digits to make the lesson\'s file name from: '
                             'nothing was written — give a title with words, e.g. python build.py new "My lesson"'])
    if len(slug) > MAX_SLUG_LENGTH:  # its file names would pass what the file system allows
        raise ScaffoldError([f'the title "{shorten(title)}" makes a slug of {len(slug)} characters, more than the '
                             f"{MAX_SLUG_LENGTH} a lesson's slug may have (it names the lesson's files, its page and "
                             f"its saved progress): nothing was written — choose a shorter title, e.g. python build.py "
                             f'new "{_shorter(title)}", or give the slug: --slug {_shorter_slug(slug)}'])
    module = module_of(slug)
    lesson_file, lab_file, widget_file = lessons / f"{slug}.md", labs / f"{module}.py", labs / f"{module}_widget.py"
    problems = []
    made_by = f'--slug "{slug}", which' if slug != slug_of(title) else f'the title "{title}" makes the slug "{slug}", which'
    taken = RESERVED_SLUGS.get(slug) or _LAB_NAMES_TAKEN.get(module)
    if taken:
        problems.append(f"{made_by} the site keeps for itself; {taken}: nothing was written — choose another "
                        + ("slug" if made_by.startswith("--") else "title"))
    elif module in sys.stdlib_module_names or keyword.iskeyword(module):
        problems.append(f'{made_by} would name its lab lab/{module}.py, which is Python\'s own module "{module}" '
                        "(the lab and every check would import that file instead): nothing was written — give "
                        f"another slug, e.g. --slug {slug}-lesson")
    for path in (lesson_file, lab_file, widget_file):
        if path.exists() or path.is_symlink():
            problems.append(f"{_shown(path, shown)} already exists: nothing was written — choose another title, or edit "
                            "that file")
    for other in _lessons(lessons):
        if other.slug == slug and other.path != lesson_file:
            problems.append(f'the slug "{slug}" is already {_shown(other.path, shown)}\'s: nothing was written — choose '
                            "another title")
    listed = _listed(lessons / COURSE_CONFIG, slug, _shown(lessons / COURSE_CONFIG, shown), problems)
    if problems:
        raise ScaffoldError(problems)
    missing = missing_examples()
    if missing:  # the toolkit's own bug, not the author's
        raise RuntimeError(f"no example for `build.py new` of the block type(s) {', '.join(missing)}: write "
                           + ", ".join(str(example_template(block)) for block in missing))
    # In the order a lesson usually meets them (each type's example_order).
    block_types = sorted(types(), key=lambda block: (types()[block].example_order, block))
    order = None if listed is not None else next_order(lessons)
    values = {"slug": slug, "title_yaml": json.dumps(title, ensure_ascii=False), "order": order,
              "lab_file": lab_file.name, "module": module, "widget_file": widget_file.name,
              "after": order - 1 if order else 0}
    examples = [_TEMPLATES.from_string(example_template(block).read_text(encoding="utf-8")).render(values).rstrip("\n")
                for block in block_types]
    lesson_text = _TEMPLATES.get_template("lesson.md.j2").render(values, examples=examples)
    lab_text = _TEMPLATES.get_template("lab.py.j2").render(values)
    widget_text = _TEMPLATES.get_template("widget.py.j2").render(values)
    lessons.mkdir(parents=True, exist_ok=True)
    labs.mkdir(parents=True, exist_ok=True)
    atomic_write(lab_file, lab_text.encode())
    try:
        atomic_write(widget_file, widget_text.encode())
        atomic_write(lesson_file, lesson_text.encode())
        if listed is not None:
            atomic_write(lessons / COURSE_CONFIG, listed.encode())
    except BaseException:
        for path in (lab_file, widget_file, lesson_file):  # all or nothing
            path.unlink(missing_ok=True)
        raise
    shorter = _short_slug(title) if not given and len(slug) > LONG_SLUG else None
    return Made(lesson_file, lab_file, widget_file, order, block_types,
                lessons / COURSE_CONFIG if listed is not None else None, title, shorter)


LONG_SLUG = 40  # characters: a slug longer than a title's length gets a shorter one suggested
_TITLE_BREAK = re.compile(r"\s*(?::|\?|\s[-–—]\s)")  # where a title's first phrase ends ("Causal masking: why …")


def _short_slug(title: str) -> str:
    """A shorter slug for a long title's lesson: its first phrase's (before a colon, a dash or a question mark), else
    its first words'."""
    first = slug_of(_TITLE_BREAK.split(title, maxsplit=1)[0])
    return first if first and len(first) <= LONG_SLUG else _shorter_slug(slug_of(title))


def _shorter(title: str) -> str:
    """The title's first words, as many as make a slug of 40 characters or fewer (a title's length)."""
    words = title.split()
    kept = next((words[:n] for n in range(len(words), 0, -1) if len(slug_of(" ".join(words[:n]))) <= 40), [])
    return " ".join(kept) or "My lesson"


def _shorter_slug(slug: str) -> str:
    """The slug's first words, as many as make 40 characters or fewer."""
    words = slug.split("-")
    kept = next((words[:n] for n in range(len(words), 0, -1) if len("-".join(words[:n])) <= 40), [])
    return "-".join(kept) or "my-lesson"


def _listed(config: Path, slug: str, shown: str, problems: list[str]) -> str | None:
    """The course config's text with `slug` added last to its "lessons:" list (in a course of parts, to the last part's
    lessons); None when it has no such list."""
    try:
        text = config.read_text(encoding="utf-8-sig")
        data = yamlsrc.load(text)
    except (OSError, UnicodeDecodeError, yamlsrc.AuthorYAMLError):
        return None  # no course config, or one the build will report: the lesson gets an "order:"
    listed = data.get("lessons") if isinstance(data, dict) else None
    key = '"lessons:"'
    parts = data.get("parts") if isinstance(data, dict) and listed is None else None
    if isinstance(parts, list) and parts and isinstance(parts[-1], dict):
        listed, key = parts[-1].get("lessons"), "the last part's \"lessons:\""
    if not isinstance(listed, list) or not listed or not hasattr(listed, "lines"):
        return None
    lines = text.splitlines(keepends=True)
    at = listed.lines[-1] - 1  # the last item's line
    item = re.match(r"^(\s*-\s+)\S", lines[at])
    if item and listed.lines.count(listed.lines[-1]) == 1:  # one item per line: "  - slug"
        ending = "\n" if lines[at].endswith("\n") or at + 1 < len(lines) else ""
        lines[at] = lines[at] if lines[at].endswith("\n") else lines[at] + "\n"
        lines.insert(at + 1, f"{item.group(1)}{slug}{ending}")
        return "".join(lines)
    last = str(listed[-1])
    flow = re.match(rf"^(.*\b{re.escape(last)}\b\s*)\]", lines[at])
    if flow:  # [first, second] on the last item's line
        lines[at] = f"{flow.group(1).rstrip()}, {slug}]" + lines[at][flow.end():]
        return "".join(lines)
    problems.append(f'{shown} lists the lessons ({key}) in a form this command does not extend: nothing was '
                    'written — write one "- slug" line per lesson there, then run it again')
    return None


def _shown(path: Path, shown: Path | None) -> str:
    """`path` as messages name it: from the project's root when it is inside it."""
    try:
        return path.relative_to(shown).as_posix() if shown else str(path)
    except ValueError:
        return str(path)


def report(made: Made, shown: Path | None = None) -> list[str]:
    """What `new` says once it wrote the files: what it made and how to build it."""
    where = (f"order {made.order}" if made.config is None
             else f'listed last in {_shown(made.config, shown)}\'s "lessons:"')
    return [
        f"created {_shown(made.lesson, shown)} ({where}; one example of each block type: {', '.join(made.blocks)})",
        f"created {_shown(made.lab, shown)} (the code its lab runs; checks may import it as {made.lab.stem})",
        f"created {_shown(made.widget, shown)} (the functions its widget calls, from the lab's)",
        "build and look at it: python build.py serve (or make serve), then open "
        f"http://127.0.0.1:8000/{made.lesson.stem}.html",
        *([_long_slug_note(made, shown)] if made.shorter else []),
    ]


def _long_slug_note(made: Made, shown: Path | None) -> str:
    """What `new` says of a long slug the title made: what carries it, and how to have a shorter one instead."""
    undo = "the three files" + (f' and its line in {_shown(made.config, shown)}\'s "lessons:"' if made.config else "")
    return (f'note: the title makes the slug "{made.lesson.stem}" ({len(made.lesson.stem)} characters), which the '
            "lesson's address, its files and its learners' saved progress carry — for a shorter one, delete "
            f'{undo} and run: python build.py new "{made.title}" --slug {made.shorter}')


def missing_examples() -> list[str]:
    """Block types of the registry without an example in their folder."""
    return [block for block in types() if not example_template(block).is_file()]
