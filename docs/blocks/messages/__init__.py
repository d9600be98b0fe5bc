"""{messages}: every word lessonkit shows, by its key, read at build time from the catalogs that are their one home
(lessonkit/locale/<lang>/LC_MESSAGES/lessonkit.po), with its English text and, for a counted message, its forms:
the keys a course's `strings:` may set.

    ```{messages}
    id: all-messages
    prefix: lab.            # optional: only the keys that start with it
    ```
"""

from __future__ import annotations

from typing import Any

from lessonkit.blocks import BlockType, Context
from lessonkit.content.schema import Fields, Key, Text
from lessonkit.core import messages

SCHEMA = Fields({
    "prefix": Key(Text(r"[a-z0-9_.]*", "the start of message keys", '"lab."'),
                  doc="only the messages whose key starts with it (default: every one)"),
})


def build(ctx: Context) -> dict[str, Any] | None:
    """Each message's key, its English text (or forms) and its placeholders."""
    prefix = str(ctx.data.get("prefix") or "")
    rows = []
    for key, entry in sorted(messages.keys().items()):
        if not key.startswith(prefix):
            continue
        texts = list(entry.forms) if entry.plural else [entry.text]
        names = sorted(set(messages.PLACEHOLDER.findall(" ".join(texts))))
        rows.append({"key": key, "texts": texts, "plural": entry.plural, "names": names})
    if not rows:
        ctx.error(f'no message key starts with "{prefix}" — use a prefix such as "lab."', ctx.line("prefix"))
        return None
    return {"rows": rows, "languages": ", ".join(messages.shipped())}


BLOCK = BlockType("messages", "every word lessonkit shows, by key, from its message catalogs", SCHEMA, build,
                  example_order=270)
