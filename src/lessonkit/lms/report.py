"""What a lesson page tells its LMS reporter (static/js/lms/scorm.js): the page's `lms` data.

    {"passing": 0.8, "completion": "all-blocks", "scoring": "final", "optional": "ignored",
     "lesson": {"id": "urn:lessonkit:<course>:<lesson>", "title": "…", "lang": "en"},
     "blocks": [...the lesson's blocks that keep progress, as in the course manifest...],
     "items": [{"id": "urn:lessonkit:<course>:<lesson>:<block>:<n>", "block": "<block id>", "kind": "question",
                "n": 1, "correct": "2", "description": "Question 1 (predict): …",
                "choices": [{"id": "1", "description": "…the first option's text"}, …],
                "first": {"id": "…:1:first", "description": "Question 1 (predict), first attempt: …"}},
               {"id": "urn:lessonkit:<course>:<lesson>:<block>", "block": "…", "kind": "exercise", "description": …,
                "optional": true (only on an exercise marked optional)},
               {"id": …, "block": "…", "kind": "explanation", "description": "Explain it back: …"}]}

Each item is one interaction the page reports to the LMS when the learner answers, checks or writes there: its id
(stable across versions of the block's content, so an LMS's report keeps one row per question) and its description
(plain text, one line, at most limits.DESCRIPTION characters, never starting with "{", which SCORM reads as a
language tag) are made here, so the page only decides what the learner did. A question's `first` is the interaction
of the first answer the learner checked (its final answer is the question's own). A quiz question's `correct` is the
value of its correct option (the page's radio values are 1, 2, …: SCORM's short identifiers); its `choices` are its
options by that value, with their text (what a class's record store is told, so the instructor reads the options).
`lesson` is the lesson as an xAPI activity: its id (the interactions' prefix, and the publisher id of its cmi5 AU),
its title and the language of both (what a statement's names are in).
"""

from __future__ import annotations

from typing import Any

from lessonkit.core import messages
from lessonkit.lms import limits
from lessonkit.lms.text import clip, plain


def interaction_id(course: str, lesson: str, block: str, n: int | None = None) -> str:
    """`urn:lessonkit:<course>:<lesson>:<block>[:<n>]`: slugs and block ids are [a-z0-9-], so no space or colon of
    their own (SCORM's long_identifier_type; Moodle refuses spaces)."""
    return ":".join([limits.INTERACTION_PREFIX, course, lesson, block, *([str(n)] if n is not None else [])])


def _description(label: str, html: Any) -> str:
    return clip(f"{label}: {plain(str(html))}" if str(html).strip() else label, limits.DESCRIPTION)


def block_items(found: list[dict[str, Any]], course: str, lesson: str, block: str) -> list[dict[str, Any]]:
    """The interactions one built block reports, from what its type says an LMS records of it (BlockType's
    `interactions`): each with its id and description."""
    items = []
    for it in found:
        n = it.get("n")
        item = {"id": interaction_id(course, lesson, block, n), "block": block, "kind": it["kind"],
                "description": _description(f"{it['label']} ({block})" if n is not None else it["label"], it["text"])}
        if it.get("optional"):
            item["optional"] = True
        if n is not None:
            item |= {"n": n, "correct": str(it["correct"]),
                     "choices": [{"id": str(k), "description": clip(plain(str(html)), limits.DESCRIPTION)}
                                 for k, html in enumerate(it.get("options") or [], 1)],
                     "first": {"id": f"{item['id']}:first", "description": _description(
                         messages.t("lms.first_attempt", label=f"{it['label']} ({block})"), it["text"])}}
        items.append(item)
    return items


def lesson_id(course: str, lesson: str) -> str:
    """The lesson as an xAPI activity, `urn:lessonkit:<course>:<lesson>`: its interactions' ids start with it."""
    return ":".join([limits.INTERACTION_PREFIX, course, lesson])


def page_data(scorm: dict[str, Any], blocks: list[dict[str, Any]], items: list[dict[str, Any]],
              lesson: dict[str, str]) -> dict[str, Any]:
    """The lesson page's `lms` data: the course's rule, the lesson ({id, title, lang}), its progress blocks, and its
    interactions."""
    return {"passing": scorm["passing"], "completion": scorm["completion"], "scoring": scorm["scoring"],
            "optional": scorm["optional"], "lesson": lesson, "blocks": blocks, "items": items}
