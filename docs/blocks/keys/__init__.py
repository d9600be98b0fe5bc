"""{keys}: every key a block type, course.yaml or a lesson's front matter takes, as a table made at build time from
the schema the build checks them with (lessonkit.content.schema's Fields: the block type's in its folder,
lessonkit.content.course.SCHEMA, lessonkit.content.lesson.FRONT_MATTER), so the manual never retypes one.

    ```{keys}
    id: quiz-keys
    of: quiz           # a block type (the toolkit's or this course's), course or front-matter
    ```
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lessonkit import blocks
from lessonkit.blocks import BlockType, Context
from lessonkit.content import course, lesson
from lessonkit.content.schema import Choice, Fields, Key, ListOf, MapOf, Number, Text, Type, did_you_mean

COURSE_BLOCKS = Path(__file__).resolve().parent.parent  # this course's blocks/, beside the toolkit's types
# What `of:` names besides block types: (the schema, how the table's caption names where its keys are written).
FILES = {
    "course": (course.SCHEMA, "course.yaml, in the course folder"),
    "front-matter": (lesson.FRONT_MATTER, "a lesson's front matter, between the two --- lines at its top"),
}

SCHEMA = Fields({
    "of": Key(Text(r"[a-z0-9]+(?:-[a-z0-9]+)*", "a block type's name, course or front-matter", '"of: quiz"'),
              required=True, hint='naming whose keys to list, e.g. "of: quiz"',
              doc="whose keys: a block type (the toolkit's or this course's), course (course.yaml) or front-matter"),
})


def kinds() -> dict[str, BlockType]:
    """The block types lessons of this course may use (the registry caches them: no folder is imported again)."""
    return blocks.types([COURSE_BLOCKS])


def schema_of(of: str) -> tuple[Fields, str] | None:
    """The schema `of:` names and its caption, or None when it names nothing."""
    if of in FILES:
        return FILES[of]
    kind = kinds().get(of)
    if kind is None:
        return None
    return kind.schema, kind.doc


def rows(schema: Fields, prefix: str = "", first: tuple[str, ...] = ("id",)) -> list[dict[str, Any]]:
    """One row per key, nested keys after their parent with its path (`questions[].options[].why`): `[]` is each
    item of a list, `.<key>` an author's own key of a mapping."""
    out = []
    names = [n for n in first if n in schema.keys] + [n for n in schema.keys if n not in first]
    for name in names:
        spec = schema.keys[name]
        path = f"{prefix}{name}"
        out.append({"path": path, "anchor": anchor(path), "type": what(spec.type), "default": default(spec),
                    "doc": spec.doc, "old": list(spec.old_names)})
        inner, step = nested(spec.type)
        if inner is not None:
            out += rows(inner, f"{path}{step}.", first=())
    return out


def nested(kind: Type) -> tuple[Fields | None, str]:
    """The mapping inside a value of this type, if any, and how a path steps into it."""
    if isinstance(kind, Fields):
        return kind, ""
    if isinstance(kind, ListOf):
        inner, step = nested(kind.item)
        return inner, "[]" + step
    if isinstance(kind, MapOf):
        inner, step = nested(kind.value)
        return inner, ".<key>" + step
    return None, ""


def what(kind: Type) -> str:
    """How a value of this type is written, in the words the schema's own messages use."""
    if isinstance(kind, Choice):
        return "one of: " + ", ".join(kind.choices)
    if isinstance(kind, Number) or (type(kind) is Text and kind.pattern is not None):
        return re.sub(r"^an? ", "", kind.what)  # "a number more than 0 and at most 60", "a Python name"
    if isinstance(kind, ListOf):
        return "list of " + (what(kind.item) if not isinstance(kind.item, Fields) or kind.item.doc != "mapping"
                             else "mappings")
    if isinstance(kind, MapOf):
        return f"mapping: {kind.what}"
    return kind.doc or re.sub(r"^an? ", "", kind.what)


def default(spec: Key) -> str:
    """'required', the default as YAML writes it, or '' (optional, no default)."""
    if spec.required:
        return "required"
    value = spec.default
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def anchor(path: str) -> str:
    """A key's id in the page: its path's words joined by dashes (`questions[].options[].why` →
    questions-options-why)."""
    return "-".join(re.findall(r"[a-z0-9]+", path.lower()))


def build(ctx: Context) -> dict[str, Any] | None:
    """The table of the keys `of:` names, each key's words rendered as inline markdown."""
    of = str(ctx.data["of"])
    found = schema_of(of)
    if found is None:
        names = [*sorted(kinds()), *FILES]
        ctx.error(f'"of: {of}" names no block type, course or front-matter{did_you_mean(of, names)} — use one of: '
                  f"{', '.join(names)}", ctx.line("of"))
        return None
    schema, caption = found
    table = rows(schema, first=("id",) if of not in FILES else ())
    for row in table:
        row["doc"] = ctx.inline(row["doc"]) if row["doc"] else ""
        row["anchor"] = f"{ctx.block.id}-{row['anchor']}"
    return {"of": of, "caption": ctx.inline(caption), "rows": table, "block_type": of not in FILES}


BLOCK = BlockType("keys", "the keys of a block type, course.yaml or the front matter, made from their schema", SCHEMA,
                  build, island=lambda data: {"of": data["of"]}, example_order=200)
