"""`build.py new "Lesson title"`: a lesson and its lab that build at once, one example of every block type, and
refusals that write nothing."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from course import LESSON, build, edit, write_course

from lessonkit.blocks import types
from lessonkit.content.lesson import RESERVED_SLUGS, load_lesson
from lessonkit.scaffold import ScaffoldError, example_template, missing_examples, new_lesson, report

ROOT = Path(__file__).resolve().parent.parent
NOTHING = "nothing was written"


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _refused(title: str, tmp_path: Path) -> list[str]:
    """The problems `new` reports for `title` in the course under tmp_path; it must write nothing."""
    before = _files(tmp_path)
    with pytest.raises(ScaffoldError) as info:
        new_lesson(title, tmp_path / "lessons", tmp_path / "lab", shown=tmp_path)
    assert _files(tmp_path) == before
    return info.value.problems


def test_every_block_type_has_an_example() -> None:
    """A new block type needs its example beside the scaffold (lessonkit/scaffold/blocks/<type>.md.j2)."""
    assert missing_examples() == []
    for block in types():
        text = example_template(block).read_text(encoding="utf-8")
        assert text.count(f"```{{{block}}}") == 1, block
        assert re.search(r"^id: [a-z0-9-]+ +# ", text, re.M), f"{block}: its id line says what the id is for"


def test_new_lesson_builds_at_once_in_a_fixture_course(tmp_path: Path) -> None:
    write_course(tmp_path, {"first.md": edit(LESSON, "title: A lesson", "title: A lesson\norder: 3")})
    made = new_lesson("  Über   lessons: a first try ", tmp_path / "lessons", tmp_path / "lab", shown=tmp_path)
    slug, module = "uber-lessons-a-first-try", "uber_lessons_a_first_try"
    assert (made.lesson, made.lab, made.widget, made.order) == (
        tmp_path / f"lessons/{slug}.md", tmp_path / f"lab/{module}.py", tmp_path / f"lab/{module}_widget.py", 4)
    assert report(made, shown=tmp_path) == [
        f"created lessons/{slug}.md (order 4; one example of each block type: {', '.join(made.blocks)})",
        f"created lab/{module}.py (the code its lab runs; checks may import it as {module})",
        f"created lab/{module}_widget.py (the functions its widget calls, from the lab's)",
        f"build and look at it: python build.py serve (or make serve), then open http://127.0.0.1:8000/{slug}.html",
    ]
    problems: list = []
    lesson = load_lesson(made.lesson, made.lesson.name, problems)
    assert problems == [] and lesson is not None
    assert lesson.title == "Über lessons: a first try"
    assert sorted(block.type for block in lesson.blocks) == sorted(types()) == sorted(made.blocks)
    assert made.blocks[:4] == ["widget", "quiz", "lab", "explain"]  # in the order a lesson meets them
    text = made.lesson.read_text(encoding="utf-8")
    assert "order: 4  # its place in the course, whole and unique: one after the largest so far (3)\n" in text
    assert f"file: {module}_widget.py " in text and f"file: {module}.py " in text
    assert f"from {module} import shares, values\n" in made.widget.read_text(encoding="utf-8")
    site = build(tmp_path)
    page = (site / f"{slug}.html").read_text(encoding="utf-8")
    assert "[[" not in re.sub(r"<script\b.*?</script>", "", page, flags=re.S)  # every figure was computed
    assert page.count("data-block=") == len(types())


def test_new_lesson_builds_beside_the_real_lessons(tmp_path: Path) -> None:
    """In a copy of the project's own lesson/ and lab/: the next order after theirs, and the course still builds."""
    shutil.copytree(ROOT / "lesson", tmp_path / "lessons")
    shutil.copytree(ROOT / "lab", tmp_path / "lab", ignore=shutil.ignore_patterns("labkit", "__pycache__"))
    write_course(tmp_path, {}, course=None)  # links the project's labkit
    orders = [load_lesson(p, p.name, []).meta.get("order") for p in (tmp_path / "lessons").glob("*.md")]
    made = new_lesson("Scaffolded lesson", tmp_path / "lessons", tmp_path / "lab", shown=tmp_path)
    assert made.order == max(o for o in orders if isinstance(o, int)) + 1
    site = build(tmp_path)
    assert (site / "scaffolded-lesson.html").is_file()


def test_refuses_to_overwrite_any_file(tmp_path: Path) -> None:
    write_course(tmp_path, {"first.md": LESSON}, {"my_topic_widget.py": "print('mine')\n"})
    assert _refused("My topic", tmp_path) == [
        f"lab/my_topic_widget.py already exists: {NOTHING} — choose another title, or edit that file"]
    (tmp_path / "lessons" / "my-topic.md").write_text(LESSON, encoding="utf-8")
    (tmp_path / "lab" / "my_topic.py").write_text("print('mine')\n", encoding="utf-8")
    assert _refused("My topic", tmp_path) == [
        f"lessons/my-topic.md already exists: {NOTHING} — choose another title, or edit that file",
        f"lab/my_topic.py already exists: {NOTHING} — choose another title, or edit that file",
        f"lab/my_topic_widget.py already exists: {NOTHING} — choose another title, or edit that file"]


def test_the_lab_module_is_importable_and_slug_names_it(tmp_path: Path) -> None:
    """The title the new author gave makes a module Python can import; --slug gives a shorter one; a digit first or a
    name of Python's own is never the lab's module."""
    write_course(tmp_path, {"first.md": LESSON})
    long = new_lesson("Causal masking: why a decoder adds −∞ before softmax", tmp_path / "lessons", tmp_path / "lab")
    assert (long.lesson.name, long.lab.name, long.widget.name) == (
        "causal-masking-why-a-decoder-adds-before-softmax.md", "causal_masking_why_a_decoder_adds_before_softmax.py",
        "causal_masking_why_a_decoder_adds_before_softmax_widget.py")
    short = new_lesson("Causal masking, again", tmp_path / "lessons", tmp_path / "lab", slug="causal-masking")
    assert (short.lesson.name, short.lab.name, short.widget.name) == (
        "causal-masking.md", "causal_masking.py", "causal_masking_widget.py")
    assert new_lesson("Three heads", tmp_path / "lessons", tmp_path / "lab", slug="3-heads").lab.name == (
        "lesson_3_heads.py")
    assert _refused("Random", tmp_path) == [
        f'the title "Random" makes the slug "random", which would name its lab lab/random.py, which is Python\'s own '
        f'module "random" (the lab and every check would import that file instead): {NOTHING} — give another slug, '
        "e.g. --slug random-lesson"]
    before = _files(tmp_path)
    for slug, problem in [
        ("Causal Masking", f'--slug "Causal Masking" is not a slug: {NOTHING} — use lowercase letters, digits and '
                           "single dashes, e.g. --slug causal-masking"),
        ("index", f'--slug "index", which the site keeps for itself; {RESERVED_SLUGS["index"]}: {NOTHING} — choose '
                  "another slug"),
    ]:
        with pytest.raises(ScaffoldError) as info:
            new_lesson("Anything", tmp_path / "lessons", tmp_path / "lab", shown=tmp_path, slug=slug)
        assert info.value.problems == [problem]
    assert _files(tmp_path) == before
    site = build(tmp_path)
    assert all((site / f"{name}.html").is_file() for name in ("causal-masking", "3-heads", long.lesson.stem))


def test_refuses_a_slug_another_lesson_has(tmp_path: Path) -> None:
    write_course(tmp_path, {"first.md": edit(LESSON, "title: A lesson", "title: A lesson\nslug: my-topic")})
    assert _refused("My Topic!", tmp_path) == [
        f'the slug "my-topic" is already lessons/first.md\'s: {NOTHING} — choose another title']


@pytest.mark.parametrize("title", ["!!", "   ", "«»", "—"])
def test_refuses_a_title_without_words(tmp_path: Path, title: str) -> None:
    write_course(tmp_path, {"first.md": LESSON})
    shown = " ".join(title.split())
    assert _refused(title, tmp_path) == [
        f'the title "{shown}" has no letters or digits to make the lesson\'s file name from: {NOTHING} — give a title '
        'with words, e.g. python build.py new "My lesson"']


@pytest.mark.parametrize(("title", "slug"), [("Index", "index"), ("404", "404"), ("Labkit", "labkit"),
                                           ("Course", "course")])
def test_refuses_a_slug_the_site_keeps(tmp_path: Path, title: str, slug: str) -> None:
    write_course(tmp_path, {"first.md": LESSON})
    taken = {**RESERVED_SLUGS, "labkit": "lab/labkit/ is the toolkit's own package, which every lab imports"}[slug]
    assert _refused(title, tmp_path) == [
        f'the title "{title}" makes the slug "{slug}", which the site keeps for itself; {taken}: {NOTHING} — choose '
        "another title"]


def test_refuses_a_title_too_long_for_a_slug(tmp_path: Path) -> None:
    """A 100-word title (its file names would pass the file system's 255 bytes): the limit and a shorter title, not
    `OSError: File name too long`; a title whose slug is exactly the limit is fine."""
    write_course(tmp_path, {"first.md": LESSON})
    title = " ".join(["One more word about lessons"] * 20)
    where = ["--lessons", str(tmp_path / "lessons"), "--labs", str(tmp_path / "lab")]
    before = _files(tmp_path)
    done = _cli("new", title, *where, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.splitlines() == [
        'the title "One more word about lessons One more word about lessons One…" makes a slug of 559 characters, more '
        "than the 100 a lesson's slug may have (it names the lesson's files, its page and its saved progress): "
        f'{NOTHING} — choose a shorter title, e.g. python build.py new "One more word about lessons One more", or give '
        "the slug: --slug one-more-word-about-lessons-one-more"]
    assert _files(tmp_path) == before
    made = new_lesson("x" * 100, tmp_path / "lessons", tmp_path / "lab")
    assert made.lesson.name == "x" * 100 + ".md"
    assert _refused("y" * 101, tmp_path)[0].startswith(f'the title "{"y" * 59}…" makes a slug of 101 characters, more')


def test_a_course_that_lists_its_lessons_gets_the_new_one_last(tmp_path: Path) -> None:
    """No "order:" beside a "lessons:" list: the slug is added to the list (comments kept), and the course builds."""
    config = "title: A course\nlessons:\n  - first   # the opening lesson\n# the end\n"
    write_course(tmp_path, {"first.md": LESSON}, course=config)
    made = new_lesson("Next step", tmp_path / "lessons", tmp_path / "lab", shown=tmp_path)
    assert (made.order, made.config) == (None, tmp_path / "lessons/course.yaml")
    assert (tmp_path / "lessons/course.yaml").read_text(encoding="utf-8") == (
        "title: A course\nlessons:\n  - first   # the opening lesson\n  - next-step\n# the end\n")
    assert report(made, shown=tmp_path)[0].startswith(
        'created lessons/next-step.md (listed last in lessons/course.yaml\'s "lessons:"; one example of each')
    lesson = load_lesson(made.lesson, made.lesson.name, [])
    assert lesson is not None and "order" not in lesson.meta
    site = build(tmp_path)
    index = (site / "index.html").read_text(encoding="utf-8")
    assert index.index('href="first.html"') < index.index('href="next-step.html"')


def test_a_flow_list_of_lessons_is_extended_on_its_line(tmp_path: Path) -> None:
    write_course(tmp_path, {"first.md": LESSON}, course="title: A course\nlessons: [first]  # in order\n")
    new_lesson("Next step", tmp_path / "lessons", tmp_path / "lab")
    assert (tmp_path / "lessons/course.yaml").read_text(encoding="utf-8") == (
        "title: A course\nlessons: [first, next-step]  # in order\n")


def test_a_course_in_parts_gets_the_new_lesson_last_in_its_last_part(tmp_path: Path) -> None:
    config = "title: A course\nparts:\n  - title: One\n    lessons: [first]\n  - title: Two\n    lessons:\n      - second\n"
    write_course(tmp_path, {"first.md": LESSON, "second.md": edit(LESSON, "title: A lesson", "title: Two")},
                 course=config)
    made = new_lesson("Next step", tmp_path / "lessons", tmp_path / "lab")
    assert made.order is None
    assert (tmp_path / "lessons/course.yaml").read_text(encoding="utf-8") == config + "      - next-step\n"
    site = build(tmp_path)
    assert '<section class="course-part" data-part="two"' in (site / "index.html").read_text(encoding="utf-8")


def test_refuses_a_lessons_list_it_cannot_extend(tmp_path: Path) -> None:
    write_course(tmp_path, {"first.md": LESSON, "second.md": edit(LESSON, "title: A lesson", "title: Two")},
                 course="title: A course\nlessons: [first,\n  second\n  ]\n")
    assert _refused("Next step", tmp_path) == [
        f'lessons/course.yaml lists the lessons ("lessons:") in a form this command does not extend: {NOTHING} — '
        'write one "- slug" line per lesson there, then run it again']


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "build.py"), *args], capture_output=True, text=True,
                          timeout=120, check=False, cwd=cwd)


def test_command_line(tmp_path: Path) -> None:
    """`build.py new` prints what it made (exit 0), or the problems on stderr (exit 1); a missing title is a usage
    error (exit 2)."""
    write_course(tmp_path, {"first.md": LESSON})
    where = ["--lessons", str(tmp_path / "lessons"), "--labs", str(tmp_path / "lab")]
    done = _cli("new", "Second lesson", *where, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[1:] == [
        f"created {tmp_path}/lab/second_lesson.py (the code its lab runs; checks may import it as second_lesson)",
        f"created {tmp_path}/lab/second_lesson_widget.py (the functions its widget calls, from the lab's)",
        "build and look at it: python build.py serve (or make serve), then open "
        "http://127.0.0.1:8000/second-lesson.html"]
    again = _cli("new", "Second lesson", *where, cwd=tmp_path)
    assert (again.returncode, again.stdout) == (1, "")
    assert again.stderr.splitlines() == [
        f"{tmp_path}/lessons/second-lesson.md already exists: {NOTHING} — choose another title, or edit that file",
        f"{tmp_path}/lab/second_lesson.py already exists: {NOTHING} — choose another title, or edit that file",
        f"{tmp_path}/lab/second_lesson_widget.py already exists: {NOTHING} — choose another title, or edit that file"]
    slugged = _cli("new", "Third lesson", "--slug", "third", *where, cwd=tmp_path)
    assert (slugged.returncode, slugged.stderr) == (0, "")
    assert (tmp_path / "lessons/third.md").is_file() and (tmp_path / "lab/third_widget.py").is_file()
    misplaced = _cli("build", "--slug", "third", "--out", str(tmp_path / "out"), *where, cwd=tmp_path)
    assert misplaced.returncode == 2
    assert misplaced.stderr.splitlines()[-1] == ('build.py: error: --slug is for new (python build.py new "My lesson" '
                                                 "--slug third)")
    bare = _cli("new", *where, cwd=tmp_path)
    assert bare.returncode == 2
    assert bare.stderr.splitlines()[-1] == 'build.py: error: new takes the lesson\'s title: python build.py new "My lesson"'
    stray = _cli("build", "Third lesson", "--out", str(tmp_path / "out"), *where, cwd=tmp_path)
    assert stray.returncode == 2
    assert stray.stderr.splitlines()[-1] == ('build.py: error: build takes no title (did you mean: python build.py new '
                                             '"Third lesson"?)')
    assert not (tmp_path / "out").exists()


def test_a_long_slug_from_the_title_gets_a_shorter_one_suggested(tmp_path: Path) -> None:
    """A title of 48 slug characters builds as it is, and `new` says what carries the slug and the command with a
    shorter --slug (the title's first phrase); a --slug given, however long, is taken as it is."""
    write_course(tmp_path, {"first.md": LESSON})
    where = ["--lessons", str(tmp_path / "lessons"), "--labs", str(tmp_path / "lab")]
    title = "Causal masking: why a decoder adds −∞ before softmax"
    done = _cli("new", title, *where, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[-1] == (
        'note: the title makes the slug "causal-masking-why-a-decoder-adds-before-softmax" (48 characters), which the '
        "lesson's address, its files and its learners' saved progress carry — for a shorter one, delete the three "
        f'files and run: python build.py new "{title}" --slug causal-masking')
    given = _cli("new", "Another long title about masks before softmax", "--slug",
                 "another-long-title-about-masks-before-softmax", *where, cwd=tmp_path)
    assert (given.returncode, given.stderr) == (0, "")
    assert not given.stdout.splitlines()[-1].startswith("note:")
