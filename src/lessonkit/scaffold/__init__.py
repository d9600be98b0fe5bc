"""`lessonkit new DIR` (a course folder of the author's own) and `lessonkit add "Lesson title"` (a new lesson that builds
at once, with one commented example of every block type).

`add` writes `lesson/<slug>.md` (front matter with the next free order, then an example of each block type of the
course, the toolkit's and the course's own in blocks/, from `example.md.j2` in the type's folder), `lab/<module>.py`
(the code its lab block runs, drawing charts with labkit) and `lab/<module>_widget.py` (the functions its widget
calls, importing the lab's), like the course's own lessons. The slug comes from the title, or from `--slug`; the
module is the slug as a Python name (`causal-masking` → `causal_masking`), so checks and the widget file can import
it. A course whose course.yaml lists its lessons (`lessons:`) gets the new slug added at the end of that list instead
of an `order:`. It checks everything first and writes nothing when anything is wrong: a title without letters or
digits or too long for a slug, a `--slug` that is not one, a slug the site keeps for itself or another lesson has, a
module name Python keeps, a file that exists, a `lessons:` list it cannot extend. A slug made from a long title is
kept, with how to give a shorter one.

`new` refuses a folder that is a course already or holds files of its own (a fresh repository's README, LICENSE and
.gitignore are kept; the .gitignore gets the build folders it lacks), and writes nothing then.
"""

from __future__ import annotations

import json
import keyword
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from lessonkit.blocks import BlockType, types
from lessonkit.content import yamlsrc
from lessonkit.content.course import NAME as COURSE_CONFIG
from lessonkit.content.lesson import MAX_SLUG_LENGTH, RESERVED_SLUGS, SLUG, Lesson, load_lesson, shorten, slug_of
from lessonkit.core import messages
from lessonkit.core.files import atomic_write

HERE = Path(__file__).resolve().parent
_TEMPLATES = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE), undefined=jinja2.StrictUndefined,
                                keep_trailing_newline=True, autoescape=False)  # noqa: S701 (markdown and Python)
# A lab file named like the package every lab imports would hide it.
_LAB_NAMES_TAKEN = {"labkit": "labkit is lessonkit's own package, which every lab imports"}


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
    title: str = ""  # as given, its spaces tidied
    slug_given: bool = False  # the slug came from --slug, not from the title


# A slug longer than this makes long URLs and file names: `add` says how to choose a shorter one.
LONG_SLUG = 40


def example_template(block: str, kinds: Mapping[str, BlockType] | None = None, language: str = "en") -> Path:
    """A block type's example, `example.md.j2` in its folder (each of the toolkit's types has one; a course's type
    may have one), or its example in the course's language, `example.<lang>.md.j2`, when the folder has one."""
    example = (kinds if kinds is not None else types())[block].example
    own = example.with_name(f"example.{_language(language)}.md.j2")
    return own if own.is_file() else example


def _language(tag: str) -> str:
    """The scaffold's language for a tag: "de" for "de-AT" (its texts are the language's, not the region's)."""
    return tag.split("-")[0].lower()


def _template(name: str, language: str) -> jinja2.Template:
    """A scaffold template in the course's language (scaffold/<lang>/name), else the English one."""
    own = f"{_language(language)}/{name}"
    return _TEMPLATES.get_template(own if (HERE / own).is_file() else name)


def next_order(lessons: Path) -> int:
    """One more than the largest `order:` of the lessons already in `lessons` (1 for the first lesson)."""
    return max((int(order) for lesson in _lessons(lessons) if isinstance(order := lesson.meta.get("order"), int)),
               default=0) + 1


def _lessons(folder: Path, kinds: Iterable[str] | None = None) -> list[Lesson]:
    """The lessons in `folder` as the build reads them (their problems are the build's to report)."""
    found = []
    for path in sorted(folder.glob("*.md")) if folder.is_dir() else []:
        if not path.name.startswith("."):
            lesson = load_lesson(path, path.name, [], kinds if kinds is not None else types())
            if lesson is not None:
                found.append(lesson)
    return found


def module_of(slug: str) -> str:
    """The lab's module name for a slug: its words joined by underscores, "lesson_" first when it starts with a digit
    ("causal-masking" → "causal_masking", "3-heads" → "lesson_3_heads")."""
    name = slug.replace("-", "_")
    return f"lesson_{name}" if name[:1].isdigit() else name


def new_lesson(title: str, lessons: Path, labs: Path, shown: Path | None = None, slug: str | None = None,
               config: Path | None = None, kinds: Mapping[str, BlockType] | None = None, language: str = "en") -> Made:
    """Write the new lesson and its lab, or raise ScaffoldError having written nothing.

    `shown` is the folder messages name files from (the course folder); `slug`, the lesson's own instead of the
    title's; `config`, the course's course.yaml (default: the one in `shown`, else beside the lessons' folder);
    `kinds`, the course's block types (default: the toolkit's): one example of each that has one; `language`, the
    course's (the lesson, its lab and the examples in it, where the scaffold has them in that language).
    """
    kinds = kinds if kinds is not None else types()
    config = config or ((shown or lessons.parent) / COURSE_CONFIG)
    title = " ".join(title.split())
    if slug is not None and not SLUG.match(slug):
        raise ScaffoldError([f'--slug "{slug}" is not a slug: nothing was written — use lowercase letters, digits and '
                             f'single dashes, e.g. --slug {slug_of(slug) or "my-lesson"}'])
    slug = slug or slug_of(title)
    if not slug:
        raise ScaffoldError([f'the title "{title}" has no letters or digits to make the lesson\'s file name from: '
                             'nothing was written — give a title with words, e.g. lessonkit add "My lesson"'])
    if len(slug) > MAX_SLUG_LENGTH:  # its file names would pass what the file system allows
        raise ScaffoldError([f'the title "{shorten(title)}" makes a slug of {len(slug)} characters, more than the '
                             f"{MAX_SLUG_LENGTH} a lesson's slug may have (it names the lesson's files, its page and "
                             f"its saved progress): nothing was written — choose a shorter title, e.g. lessonkit add "
                             f'"{_shorter(title)}", or give the slug: --slug {_shorter_slug(slug)}'])
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
    for other in _lessons(lessons, kinds):
        if other.slug == slug and other.path != lesson_file:
            problems.append(f'the slug "{slug}" is already {_shown(other.path, shown)}\'s: nothing was written — choose '
                            "another title")
    listed = _listed(config, slug, _shown(config, shown), problems)
    if problems:
        raise ScaffoldError(problems)
    missing = missing_examples()
    if missing:  # the toolkit's own bug, not the author's
        raise RuntimeError(f"no example for `lessonkit add` of the block type(s) {', '.join(missing)}: write "
                           + ", ".join(str(example_template(block)) for block in missing))
    # In the order a lesson usually meets them (each type's example_order); a course's type without an example is
    # left out.
    block_types = sorted((name for name, kind in kinds.items() if kind.example.is_file()),
                         key=lambda block: (kinds[block].example_order, block))
    order = None if listed is not None else next_order(lessons)
    values = {"slug": slug, "title_yaml": json.dumps(title, ensure_ascii=False), "order": order,
              "lab_file": lab_file.name, "module": module, "widget_file": widget_file.name,
              "after": order - 1 if order else 0}
    examples = [_TEMPLATES.from_string(example_template(block, kinds, language).read_text(encoding="utf-8"))
                .render(values).rstrip("\n") for block in block_types]
    lesson_text = _template("lesson.md.j2", language).render(values, examples=examples)
    lab_text = _template("lab.py.j2", language).render(values)
    widget_text = _template("widget.py.j2", language).render(values)
    lessons.mkdir(parents=True, exist_ok=True)
    labs.mkdir(parents=True, exist_ok=True)
    atomic_write(lab_file, lab_text.encode())
    try:
        atomic_write(widget_file, widget_text.encode())
        atomic_write(lesson_file, lesson_text.encode())
        if listed is not None:
            atomic_write(config, listed.encode())
    except BaseException:
        for path in (lab_file, widget_file, lesson_file):  # all or nothing
            path.unlink(missing_ok=True)
        raise
    return Made(lesson_file, lab_file, widget_file, order, block_types, config if listed is not None else None,
                title, slug != slug_of(title))


def _shorter(title: str) -> str:
    """The title's first words, as many as make a slug of 40 characters or fewer (a title's length)."""
    words = title.split()
    kept = next((words[:n] for n in range(len(words), 0, -1) if len(slug_of(" ".join(words[:n]))) <= 40), [])
    return " ".join(kept) or "My lesson"


def _shorter_slug(slug: str, width: int = LONG_SLUG) -> str:
    """The slug's first words, as many as make `width` characters or fewer."""
    words = slug.split("-")
    kept = next((words[:n] for n in range(len(words), 0, -1) if len("-".join(words[:n])) <= width), [])
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
    lines = [
        f"created {_shown(made.lesson, shown)} ({where}; one example of each block type: {', '.join(made.blocks)})",
        f"created {_shown(made.lab, shown)} (the code its lab runs; checks may import it as {made.lab.stem})",
        f"created {_shown(made.widget, shown)} (the functions its widget calls, from the lab's)",
    ]
    slug = made.lesson.stem
    if len(slug) > LONG_SLUG and not made.slug_given:
        undo = "delete these files" + (f" and its line in {_shown(made.config, shown)}" if made.config else "")
        lines.append(f'its slug, "{slug}", is {len(slug)} characters long (it names the page, these files and the '
                     f"learners' saved progress): for a shorter one, {undo}, then run lessonkit add "
                     f"{json.dumps(made.title, ensure_ascii=False)} --slug {_shorter_slug(slug, LONG_SLUG - 10)}")
    lines.append(f"build and look at it: lessonkit serve, then open http://127.0.0.1:8000/{slug}.html")
    return lines


def missing_examples() -> list[str]:
    """Block types of the registry without an example in their folder."""
    return [block for block in types() if not example_template(block).is_file()]


# ---- a new course ---------------------------------------------------------------------------------------------

# What `new` writes besides the first lesson: (template in course/, file in the course folder).
COURSE_FILES = (("course.yaml.j2", COURSE_CONFIG), ("README.md.j2", "README.md"), ("gitignore.j2", ".gitignore"),
                ("requirements.txt.j2", "requirements.txt"), ("publish.yml.j2", ".github/workflows/publish.yml"))
FIRST_LESSON = "Your first lesson"
FIRST_LESSONS = {"de": "Deine erste Lektion"}  # the first lesson's title in the languages the scaffold speaks
# What may be in a folder `new` fills: a fresh repository's own files (those `new` would write are kept as they are,
# a .gitignore gets the lines it lacks).
_KEPT = {".git", ".gitignore", ".gitattributes", ".github", "README.md", "LICENSE", "LICENSE.md", "LICENSE.txt"}
GITIGNORE = ".gitignore"


@dataclass(frozen=True)
class NewCourse:
    """What `new` wrote: the course's files and its first lesson."""

    folder: Path
    files: list[Path]
    lesson: Made
    kept: list[Path] = field(default_factory=list)  # the repository's own files of those names, left as they were
    extended: list[Path] = field(default_factory=list)  # its .gitignore, given the lines it lacked


def new_course(folder: Path, title: str | None = None, language: str = "en") -> NewCourse:
    """Make a course folder: course.yaml, a README, a .gitignore, a pinned requirements.txt, a workflow that
    publishes it, and a first lesson with one example of every block type; or raise ScaffoldError having written
    nothing (a folder that holds a course or other files already)."""
    from lessonkit import __version__

    folder = folder.expanduser()
    shown = folder.as_posix()
    title = " ".join((title or folder.resolve().name.replace("-", " ").replace("_", " ").capitalize()).split())
    course_id = slug_of(title)
    if not course_id:
        raise ScaffoldError([f'the title "{title}" has no letters or digits to make the course\'s id from: nothing '
                             'was written — give one with words: lessonkit new DIR --title "My course"'])
    wrong = messages.unknown_language(language)
    if wrong:
        raise ScaffoldError([f"--language: {wrong}: nothing was written"])
    if folder.exists() and not folder.is_dir():
        raise ScaffoldError([f"{shown} is a file: nothing was written — give a folder for the course"])
    if (folder / COURSE_CONFIG).exists():
        raise ScaffoldError([f"{shown} is a course already (it has a {COURSE_CONFIG}): nothing was written — add a "
                             'lesson to it with lessonkit add "Title", or choose another folder'])
    present = sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
    if [name for name in present if name not in _KEPT]:
        others = ", ".join(name for name in present if name not in _KEPT)
        raise ScaffoldError([f"{shown} holds other files ({shorten(others)}): nothing was written — give a new or "
                             "empty folder for the course"])
    values = {"title": title, "title_yaml": json.dumps(title, ensure_ascii=False), "course_id": course_id,
              "version": __version__, "language": language}
    written: list[Path] = []
    kept: list[Path] = []
    extended: dict[Path, bytes] = {}  # a file given lines, with its bytes before
    try:
        for template, name in COURSE_FILES:
            path = folder / name
            text = _template(f"course/{template}", language).render(values)
            if path.exists():  # a fresh repository's README or .gitignore: kept as the author wrote it
                before = path.read_bytes()
                added = _ignore_lines(before.decode("utf-8", "replace"), text) if name == GITIGNORE else ""
                if added:
                    atomic_write(path, before + added.encode())
                    extended[path] = before
                else:
                    kept.append(path)
                continue
            atomic_write(path, text.encode())
            written.append(path)
        lesson = new_lesson(FIRST_LESSONS.get(_language(language), FIRST_LESSON), folder / "lesson", folder / "lab",
                            shown=folder, slug="first-lesson", language=language)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        for path, before in extended.items():
            atomic_write(path, before)
        raise
    return NewCourse(folder, written, lesson, kept, list(extended))


def _ignore_lines(present: str, ours: str) -> str:
    """What to append to a repository's .gitignore: our lines it lacks, under our comment ("" when it has them)."""
    have = {line.strip() for line in present.splitlines()}
    comment = [line for line in ours.splitlines() if line.startswith("#")][:1]
    missing = [line for line in ours.splitlines() if line.strip() and not line.startswith("#") and line not in have]
    if not missing:
        return ""
    return ("" if present.endswith("\n") or not present else "\n") + "\n".join(["", *comment, *missing]) + "\n"


def course_report(made: NewCourse) -> list[str]:
    """What `new` says once it made the course: what it wrote and the next commands."""
    folder = made.folder.as_posix()
    lesson = made.lesson

    def named(path: Path) -> str:
        rel = path.relative_to(made.folder).as_posix()
        return rel if folder == "." else f"{folder}/{rel}"

    lines = [f"created {named(path)}" for path in made.files]
    lines += [f"added lessonkit's build folders to {named(path)}" for path in made.extended]
    lines += [f"kept {named(path)} as it was" for path in made.kept]
    lines += [f"created {named(lesson.lesson)} (one example of each block type: {', '.join(lesson.blocks)})",
              f"created {named(lesson.lab)} and {named(lesson.widget)} (the Python its lab and widget run)",
              "next:"]
    if made.folder.resolve() != Path.cwd().resolve():
        lines.append(f"  cd {folder}")
    lines += ["  lessonkit serve         # build, serve at http://127.0.0.1:8000 and rebuild on every save",
              '  lessonkit add "Title"   # another lesson']
    return lines
