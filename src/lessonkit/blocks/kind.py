"""What one block type is (BlockType): its schema, how it is built, what the page receives, and where its parts are in
its folder; and the id every block has (ID_KEY). The registry (lessonkit.blocks.registry) makes one per folder."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lessonkit.content.schema import Fields, Key, Text

if TYPE_CHECKING:
    from lessonkit.blocks import Context

ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
ID_KEY = Key(Text(), doc="the block's id: lowercase letters, digits and single dashes (answers are saved under it)")


@dataclass(frozen=True)
class BlockType:
    """What one block type is: its schema, how it is built, and what the page receives."""

    name: str
    doc: str  # one line for the README's block list
    schema: Fields
    build: Callable[[Context], dict[str, Any] | None]
    island: Callable[[dict[str, Any]], dict[str, Any]] = lambda data: {}
    compute: Callable[[Context], Any] | None = None  # run for every block of a lesson before any is built
    lazy: bool = False  # imported after the first paint, as a bundle of its own (the lab), not in main.js
    # A block that keeps a learner's progress: the course manifest's fields for it beyond type, id and version
    # (a quiz's question count), from the data `build` returned; None, or a function returning None: it keeps none.
    progress: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
    # What an LMS records of a block that keeps progress, from the data `build` returned: its interactions, each
    # {"kind": "question" | "exercise" | "explanation", "label", "text" (HTML), and for a question "n", "correct"
    # (its correct option's place, 1, 2, …) and "options" (each option's HTML, in that order)}; lessonkit.lms.report
    # makes their ids and descriptions.
    interactions: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None
    # What the instructor's answer key (`lessonkit key`, lessonkit.page.key) shows of the block, from the data `build`
    # returned: {"kind": "quiz", "questions": [{"html", "options": [{"html", "why", "correct"}]}]} or {"kind":
    # "exercise", "title", "prompt" (HTML), "solution" (code), "hints" (HTML each)}; None: the key leaves it out.
    answers: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
    # Where `lessonkit add` puts its example: a lesson meets the lower first (then by name).
    example_order: int = 100
    folder: Path = Path()  # the type's folder (set by the registry)
    own: bool = False  # one of the toolkit's own types (its page module is in the prebuilt bundle), not a course's

    @property
    def page_module(self) -> Path:
        """Its page module, `<type>.js` in its folder."""
        return self.folder / f"{self.name}.js"

    @property
    def template_name(self) -> str:
        """Its template's name for the templates' loader (page.lesson.environment): `<type>/<type>.html`."""
        return f"{self.name}/{self.name}.html"

    @property
    def stylesheet(self) -> Path:
        """Its styles, `<type>.css` in its folder (optional)."""
        return self.folder / f"{self.name}.css"

    @property
    def progress_module(self) -> Path:
        """What the course index says of its progress, `progress.js` in its folder (a type that keeps some)."""
        return self.folder / "progress.js"

    @property
    def example(self) -> Path:
        """Its example for `lessonkit add`, `example.md.j2` in its folder."""
        return self.folder / "example.md.j2"


def short(value: Any, width: int = 40) -> str:
    """The opening words of a text, for messages."""
    words = " ".join(str(value or "").split())
    return words if len(words) <= width else words[:width].rsplit(" ", 1)[0].rstrip(",;:") + "…"
