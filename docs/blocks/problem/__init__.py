"""{problem}: a lesson with a mistake, and what `lessonkit check` says of it, found at build time by the same loader
and schemas the build checks every lesson with (lessonkit.content.lesson, each block type's schema), so a message
the manual shows is the one an author gets. A `markdown:` that lessonkit finds nothing wrong with is itself a
problem: the example has to go on showing a mistake.

    ````{problem}
    id: typo
    file: lesson/softmax-temperature.md   # the file the messages name
    markdown: |                           # the lesson's text, its front matter included (lines count from it)
      ---
      title: Softmax temperature
      ---
      ...
    ````

Its fence is four backticks, so the three of a block inside `markdown:` do not close it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from lessonkit import blocks
from lessonkit.blocks import BlockType, Context
from lessonkit.content.lesson import load_lesson
from lessonkit.content.schema import Fields, Key, Text, split_notes
from lessonkit.core.errors import Problem

COURSE_BLOCKS = Path(__file__).resolve().parent.parent  # this course's blocks/

SCHEMA = Fields({
    "file": Key(Text(r"[\w./-]+\.md", "a lesson file's path", '"file: lesson/my-lesson.md"'),
                default="lesson/my-lesson.md", doc="the lesson file the messages name"),
    "markdown": Key(Text(), required=True, hint="with a lesson's text that has a mistake",
                    doc="the lesson's text, front matter included, with the mistake to show"),
})


def problems_in(markdown: str, rel: str) -> list[str]:
    """What the build reports of this lesson text: its front matter's, its blocks' YAML and their schemas'
    problems, each as `path:line: message`, in line order."""
    kinds = blocks.types([COURSE_BLOCKS])
    found: list[Problem] = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / Path(rel).name
        path.write_text(markdown, encoding="utf-8")
        lesson = load_lesson(path, rel, found, kinds)
    for block in lesson.blocks if lesson is not None else ():
        if block.data:
            kinds[block.type].schema.validate(block.data, f"the {{{block.type}}} block",
                                              lambda line, message: found.append(Problem(rel, line, message)),
                                              block.line)
    shown, notes = split_notes(found)
    return [str(p) for p in sorted([*shown, *notes], key=lambda p: p.line)]


def build(ctx: Context) -> dict[str, Any] | None:
    """The lesson's text and the messages it gets."""
    markdown = str(ctx.data["markdown"]).strip("\n") + "\n"
    messages = problems_in(markdown, str(ctx.data["file"]))
    if not messages:
        ctx.error("lessonkit finds nothing wrong with this markdown — give it the mistake it is meant to show",
                  ctx.line("markdown"))
        return None
    return {"markdown": markdown.rstrip("\n"), "messages": messages, "file": str(ctx.data["file"])}


BLOCK = BlockType("problem", "a lesson with a mistake, and what lessonkit check says of it, found by the build's "
                  "own checks", SCHEMA, build, example_order=240)
