"""{quiz}: single-choice questions with instant feedback; every option says why it is right or wrong."""

from __future__ import annotations

from typing import Any

from lessonkit.blocks import BlockType, Context, short
from lessonkit.content.schema import Bool, Fields, Inline, Key, ListOf
from lessonkit.core import messages

OPTION = Fields({
    "text": Key(Inline(), required=True, doc="the option as the learner reads it"),
    "correct": Key(Bool(), default=False, doc="true on exactly one option per question"),
    "why": Key(Inline(), required=True, hint="saying why it is right or wrong",
               doc="shown at once when the learner picks this option"),
})
QUESTION = Fields({
    "question": Key(Inline(), required=True, hint="with the question text", doc="the question"),
    "options": Key(ListOf(OPTION, noun="option", min=1), required=True, hint="with at least two options",
                   doc="two or more options"),
})
SCHEMA = Fields({
    "questions": Key(ListOf(QUESTION, noun="question", min=1,
                            label=lambda q: f' ("{short(q.get("question"))}")' if isinstance(q.get("question"), str)
                            else ""),
                     required=True, hint="with at least one question", doc="one or more questions"),
})


def build(ctx: Context) -> dict[str, Any] | None:
    """The questions as safe HTML, after the checks a schema cannot make (two options, exactly one correct)."""
    out = []
    for n, question in enumerate(ctx.data["questions"], 1):
        label = f'question {n} ("{short(question["question"])}")'
        line = ctx.line("questions", n - 1)
        options = question["options"]
        if len(options) < 2:
            ctx.error(f"{label} has {len(options)} option — give at least two options", line)
        correct = sum(o["correct"] for o in options)
        if len(options) >= 2 and correct != 1:
            has = "no correct option" if correct == 0 else f"{correct} correct options"
            ctx.error(f'{label} has {has} — mark exactly one option with "correct: true"', line)
        out.append({"n": n, "html": ctx.inline(question["question"]), "options": [
            {"html": ctx.inline(o["text"]), "why": ctx.inline(o["why"]), "correct": o["correct"]} for o in options]})
    return None if ctx.failed else {"questions": out}


def island(data: dict[str, Any]) -> dict[str, Any]:
    """The page reads the questions from the HTML; the count is all it needs besides."""
    return {"questions": len(data["questions"])}


def progress(data: dict[str, Any]) -> dict[str, Any]:
    """Answers are kept per question: the manifest counts them."""
    return {"questions": len(data["questions"])}


def interactions(data: dict[str, Any]) -> list[dict[str, Any]]:
    """An LMS records each question: the learner's option against the correct one."""
    questions = data["questions"]
    return [{"kind": "question", "n": q["n"], "correct": next(n for n, o in enumerate(q["options"], 1) if o["correct"]),
             "label": messages.t("lms.question_n", n=q["n"]) if len(questions) > 1 else messages.t("lms.question"),
             "text": q["html"], "options": [o["html"] for o in q["options"]]} for q in questions]


def answers(data: dict[str, Any]) -> dict[str, Any]:
    """The answer key shows every question, its options, the right one, and why each is right or wrong."""
    return {"kind": "quiz", "questions": [{"html": q["html"], "options": q["options"]} for q in data["questions"]]}


BLOCK = BlockType("quiz", "single-choice questions with instant feedback, saved in the browser", SCHEMA, build, island,
                  progress=progress, example_order=20, interactions=interactions, answers=answers)
