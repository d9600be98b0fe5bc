"""Check each fenced block and turn it into the data its template and script need."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from lessonkit.errors import Problem
from lessonkit.labprocess import LabError
from lessonkit.labs import LabRun
from lessonkit.lesson import Block, Lesson, key_line

_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
WIDGET_KINDS = ("head-dim",)

Inline = Callable[[str], str]  # author string → safe inline HTML


class Checker:
    """Collects problems for one block, each at the file line it concerns."""

    def __init__(self, lesson: Lesson, block: Block, problems: list[Problem]) -> None:
        self.lesson, self.block, self.problems = lesson, block, problems

    def error(self, message: str, needle: str | None = None, line: int | None = None) -> None:
        """Record a problem at `line`, or at the first body line containing `needle`."""
        at = line or (key_line(self.block, needle) if needle else self.block.line)
        self.problems.append(Problem(self.lesson.rel, at, message))

    def text(self, data: dict[str, Any], key: str, what: str, needle: str | None = None) -> str:
        """A required non-empty string field."""
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            self.error(f'{what} needs "{key}:" with some text', needle or f"{key}:")
            return ""
        return value.strip()


def check_ids(lesson: Lesson, problems: list[Problem]) -> None:
    """Every block needs a unique, URL-safe id: saved answers and element ids are keyed by it."""
    seen: dict[str, Block] = {}
    for block in lesson.blocks:
        if not block.data:
            continue
        if "id" not in block.data:
            problems.append(Problem(lesson.rel, block.line, f'{{{block.type}}} block needs an id: add a first line '
                                    'like "id: my-block"'))
            continue
        if not _ID.match(block.id):
            problems.append(Problem(lesson.rel, key_line(block, "id:"), f'block id "{block.id}" must be lowercase '
                                    'letters, digits and single dashes, e.g. "quick-check"'))
        if block.id in seen:
            first = seen[block.id]
            problems.append(Problem(lesson.rel, key_line(block, "id:"), f'duplicate block id "{block.id}" (first '
                                    f"used at {lesson.rel}:{key_line(first, 'id:')}) — give each block its own id"))
        else:
            seen[block.id] = block


def quiz(c: Checker, inline: Inline) -> dict[str, Any]:
    """A quiz: one or more single-choice questions, each option with the reason it is right or wrong."""
    questions = c.block.data.get("questions")
    if not isinstance(questions, list) or not questions:
        c.error('quiz needs "questions:" with at least one question', "questions:")
        return {}
    out = []
    for n, q in enumerate(questions, 1):
        line = _nth_line(c.block, "question:", n)
        if not isinstance(q, dict):
            c.error(f'question {n} must be "question:" and "options:" lines', line=line)
            continue
        text = c.text(q, "question", f"question {n}", needle=None) if "question" in q else ""
        if not text:
            c.error(f'question {n} needs "question:" with the question text', line=line)
        label = f'question {n} ("{_short(text)}")'
        options = q.get("options")
        if not isinstance(options, list):
            c.error(f'{label} needs "options:" with at least two options', line=line)
            continue
        if len(options) < 2:
            c.error(f"{label} has {len(options)} option{'s' if len(options) != 1 else ''} — give at least two "
                    "options", line=line)
        opts = []
        for k, o in enumerate(options, 1):
            if not isinstance(o, dict) or not str(o.get("text") or "").strip():
                c.error(f'option {k} of {label} needs "text:"', line=line)
                continue
            why = str(o.get("why") or "").strip()
            if not why:
                c.error(f'option {k} of {label} needs "why:" saying why it is right or wrong', line=line)
            opts.append({"html": inline(str(o["text"]).strip()), "why": inline(why), "correct": o.get("correct") is True})
        correct = sum(o["correct"] for o in opts)
        if options and len(options) >= 2 and correct != 1:
            has = "no correct option" if correct == 0 else f"{correct} correct options"
            c.error(f'{label} has {has} — mark exactly one option with "correct: true"', line=line)
        out.append({"html": inline(text), "options": opts, "n": n})
    return {"questions": out}


def explain(c: Checker, inline: Inline) -> dict[str, Any]:
    """Explain it back: a prompt, the claims to tell apart, and the guide's verdict on each."""
    prompt = c.text(c.block.data, "prompt", "explain block")
    claims = c.block.data.get("claims")
    if not isinstance(claims, list) or not claims:
        c.error('explain block needs "claims:" with at least one claim and its verdict', "claims:")
        claims = []
    out = []
    for n, claim in enumerate(claims, 1):
        if not isinstance(claim, dict) or not claim.get("text") or not claim.get("verdict"):
            c.error(f'claim {n} needs "text:" and "verdict:"', line=_nth_line(c.block, "text:", n))
            continue
        out.append({"html": inline(str(claim["text"]).strip()), "verdict": inline(str(claim["verdict"]).strip())})
    return {"prompt": inline(prompt), "claims": out}


def lab(c: Checker, run: LabRun | None, inline: Inline) -> dict[str, Any]:
    """The lab: its starter code and the output and charts of running it unchanged at build time."""
    if run is None:
        return {}
    return {
        "filename": run.file, "code": run.code, "code_hash": run.code_hash, "build_output": run.output,
        "charts": run.charts, "title": str(c.block.data.get("title") or "Lab"),
        "panel": _lab_panel(c.block.data.get("panel"), inline), "predict": _lab_predict(c.block.data.get("predict"), inline),
    }


def _lab_panel(panel: Any, inline: Inline) -> dict[str, Any] | None:
    """The lab's values panel, as the page reads it (unchecked: the block's schema is the registry's)."""
    if not isinstance(panel, dict):
        return None
    return {**panel, "legend": inline(str(panel.get("legend") or ""))}


def _lab_predict(predict: Any, inline: Inline) -> dict[str, Any] | None:
    """The lab's predict-then-run declaration, its texts as safe inline HTML (unchecked, as _lab_panel)."""
    if not isinstance(predict, dict):
        return None
    scaled = predict.get("when_gaps_scaled") or {}
    return {**predict, "question": inline(str(predict.get("question") or "")), "hint": inline(str(predict.get("hint") or "")),
            "when_gaps_scaled": {str(k): inline(str(v)) for k, v in scaled.items()},
            "answers": [{"text": str(k), "move": v} for k, v in (predict.get("answers") or {}).items()]}


def head_dim(c: Checker, run: LabRun | None, inline: Inline) -> dict[str, Any]:
    """The head-dimension widget: the lab's raw logits and softmax, pre-computed for every option."""
    data = c.block.data
    options = data.get("options")
    if not isinstance(options, list) or not options or not all(isinstance(o, int) and o > 0 for o in options):
        c.error('widget needs "options:" with positive whole numbers, e.g. [1, 4, 16]', "options:")
        return {}
    default = data.get("default", options[0])
    if default not in options:
        c.error(f"default {default} is not one of the options {options}", "default:")
        return {}
    if run is None or not run.ok:
        return {}
    needs = f'lab "{data.get("lab")}" must define "raw" (a list of numbers) and "softmax(logits)"'
    try:
        raw = run.get("raw")
        computed = {d: run.call("softmax", [x / math.sqrt(d) for x in raw]) for d in options} if _numbers(raw) else {}
    except LabError as exc:
        if exc.line is None:
            c.error(needs if exc.message.startswith("the lab defines no") else f"{needs}: {exc.message}", "lab:")
        else:  # the lab's own error, at its own line
            c.problems.append(Problem(run.rel, exc.line, exc.message))
        return {}
    if not computed:
        c.error(needs, "lab:")
        return {}
    states = {}
    for d in options:
        divisor = math.sqrt(d)
        scaled = [x / divisor for x in raw]
        probs = computed[d]
        if not _numbers(probs) or len(probs) != len(raw):
            c.error(f'softmax(logits) in lab "{data.get("lab")}" must return one number per logit', "lab:")
            return {}
        states[str(d)] = {
            "caption": f"Divide by √{d} = {divisor:.2f}",
            "rows": [{"position": i + 1, "raw": f"{r:.3f}", "scaled": f"{s:.3f}", "prob": f"{100 * p:.1f}%",
                      "width": round(100 * p, 2)} for i, (r, s, p) in enumerate(zip(raw, scaled, probs, strict=True))],
        }
    _check_figures(c, data.get("check"), states)
    return {"options": options, "default": str(default), "states": states,
            "label": c.text(data, "label", "widget"), "hint": inline(str(data.get("hint") or "")),
            "note": inline(str(data.get("note") or ""))}


def _numbers(value: Any) -> bool:
    """A list of plain numbers (as JSON gives them back)."""
    return isinstance(value, list) and all(isinstance(x, int | float) and not isinstance(x, bool) for x in value)


def _check_figures(c: Checker, check: Any, states: dict[str, Any]) -> None:
    """Figures the author typed must equal the ones the lab computes."""
    if check is None:
        return
    if not isinstance(check, dict):
        c.error('"check:" must map an option to its expected probabilities, e.g. 4: ["9.0%", "66.5%"]', "check:")
        return
    for option, expected in check.items():
        state = states.get(str(option))
        if state is None or not isinstance(expected, list):
            c.error(f'"check:" names option {option}, which is not one of the options', f"{option}:")
            continue
        computed = [row["prob"] for row in state["rows"]]
        for pos, (want, got) in enumerate(zip(expected, computed, strict=False), 1):
            if str(want).strip() != got:
                c.error(f"figure for head_dim {option}, position {pos} says {want} but the lab computes {got} — "
                        "correct the text", f"{option}:")
        if len(expected) != len(computed):
            c.error(f"figures for head_dim {option} list {len(expected)} positions but the lab has {len(computed)}",
                    f"{option}:")


def figure(ref: str, expect: str | None, widgets: dict[str, dict[str, Any]]) -> str:
    """`widget:option:position` → the computed probability; raise ValueError with the fix when wrong."""
    parts = ref.split(":")
    if len(parts) != 3 or parts[0] not in widgets:
        raise ValueError(f'figure "[[{ref}]]" must be [[widget-id:option:position]] with a widget of this lesson '
                         f"({', '.join(sorted(widgets)) or 'none'})")
    states = widgets[parts[0]].get("states", {})
    rows = states.get(parts[1], {}).get("rows", [])
    if not parts[2].isdigit() or not 1 <= int(parts[2]) <= len(rows):
        raise ValueError(f'figure "[[{ref}]]" names no computed value: options are {", ".join(states)}, '
                         f"positions 1 to {len(rows)}")
    got = rows[int(parts[2]) - 1]["prob"]
    if expect is not None and expect.strip() != got:
        raise ValueError(f'figure "[[{ref}]]" says {expect.strip()} but the lab computes {got} — correct the text')
    return got


def _nth_line(block: Block, needle: str, n: int) -> int:
    """File line of the n-th body line containing `needle`."""
    hits = [i for i, t in enumerate(block.source.splitlines()) if needle in t]
    return block.body_line + hits[n - 1] if len(hits) >= n else block.line


def _short(text: str, width: int = 40) -> str:
    """A question's opening words, for messages."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width].rsplit(" ", 1)[0].rstrip(",;:") + "…"
