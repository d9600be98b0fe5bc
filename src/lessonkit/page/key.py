"""The instructor's answer key (`lessonkit key`): one printable HTML file of every lesson's questions with their
right answers and why each option is right or wrong, and every exercise's task, hints and verified solution, from
the blocks' own data (BlockType.answers). It is written outside the site and nothing links to it: the site never
publishes it. Its words are the course's language's (lessonkit.core.messages), as the pages' are."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markupsafe import Markup

from lessonkit.core import messages
from lessonkit.page.lesson import Page
from lessonkit.page.templates import environment

TEMPLATE = "answer-key.html"


def key_lessons(pages: Sequence[Page]) -> list[dict[str, Any]]:
    """The lessons that have something in the key, in the course's order, each with its blocks' answers."""
    found = []
    for page in pages:
        if not page.answers:
            continue
        blocks = []
        for item in page.answers:
            shown = dict(item)
            if shown["kind"] == "quiz":
                shown["questions"] = [{"html": Markup(q["html"]), "options": [  # noqa: S704 — built by the quiz block
                    {**o, "html": Markup(o["html"]), "why": Markup(o["why"])} for o in q["options"]]}  # noqa: S704
                    for q in shown["questions"]]
            elif shown["kind"] == "exercise":
                shown["prompt"] = Markup(shown["prompt"])  # noqa: S704 — rendered markdown, raw HTML refused
                shown["hints"] = [Markup(h) for h in shown["hints"]]  # noqa: S704
            blocks.append(shown)
        found.append({"title": page.lesson.title or page.lesson.slug, "slug": page.lesson.slug,
                      "blocks": blocks})
    return found


def render_key(course_title: str, pages: Sequence[Page], words: messages.Messages | None = None) -> str:
    """The answer key's HTML in the words given (the course's language and `strings:`; English when None): a page of
    its own (its styles inline, no script), made for paper."""
    words = words or messages.Messages()
    lessons = key_lessons(pages)
    with messages.using(words):
        return environment(None).get_template(TEMPLATE).render(
            lang={"lang": words.language, "dir": words.dir}, course=course_title, lessons=lessons)
