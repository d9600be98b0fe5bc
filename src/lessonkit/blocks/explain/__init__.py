"""{explain}: "Explain it back" — a prompt, claims to tell apart, the learner's draft (kept in the browser) and a
guide with the verdict on each claim."""

from __future__ import annotations

from typing import Any

from lessonkit.blocks import BlockType, Context
from lessonkit.content.schema import Fields, Inline, Key, ListOf
from lessonkit.core import messages

CLAIM = Fields({
    "text": Key(Inline(), required=True, hint="with the claim", doc="a claim to tell apart from the others"),
    "verdict": Key(Inline(), required=True, hint="saying what the guide thinks of it",
                   doc="the guide's verdict, shown when the learner compares"),
})
SCHEMA = Fields({
    "prompt": Key(Inline(), required=True, hint="with the task, e.g. \"Explain the difference:\"",
                  doc="what the learner is asked to explain"),
    "claims": Key(ListOf(CLAIM, noun="claim", min=1), required=True, hint="with at least one claim and its verdict",
                  doc="the claims and their verdicts"),
})


def build(ctx: Context) -> dict[str, Any] | None:
    """The prompt and claims as safe HTML."""
    claims = [{"html": ctx.inline(c["text"]), "verdict": ctx.inline(c["verdict"])} for c in ctx.data["claims"]]
    return {"prompt": ctx.inline(ctx.data["prompt"]), "claims": claims}


BLOCK = BlockType("explain", "“Explain it back”: a prompt, claims, a draft kept in the browser, and a guide", SCHEMA,
                  build, progress=lambda data: {}, example_order=40,  # progress: the learner's draft
                  interactions=lambda data: [{"kind": "explanation", "label": messages.t("lms.explain"),
                                                              "text": data["prompt"]}])
