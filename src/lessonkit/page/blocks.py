"""A lesson's blocks: each checked against its type's schema, computed (the values figures cite, before any block is
built), built, and rendered with its template and JSON island; with what the page and the course manifest need of
them (the lazily loaded modules, the blocks that keep progress)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jinja2

from lessonkit import blocks
from lessonkit.content.lesson import Block, Lesson
from lessonkit.core.errors import Problem
from lessonkit.labs.runner import LabRunner
from lessonkit.lms import report as lms_report
from lessonkit.text.figures import Figures
from lessonkit.text.prose import InlineRenderer


@dataclass
class BuiltBlocks:
    """A lesson's rendered blocks and what the page needs of them."""

    html: dict[int, str] = field(default_factory=dict)  # id(block) -> its HTML
    lazy: list[str] = field(default_factory=list)  # the page modules loaded after the first paint, by file name
    progress: list[dict[str, Any]] = field(default_factory=list)  # the blocks that keep progress (the manifest's)
    reported: list[dict[str, Any]] = field(default_factory=list)  # the interactions an LMS records (lessonkit.lms.report)
    answers: list[dict[str, Any]] = field(default_factory=list)  # what the answer key shows of them (lessonkit.page.key)


def build_blocks(lesson: Lesson, labs: LabRunner, env: jinja2.Environment, inline: InlineRenderer, figures: Figures,
                 problems: list[Problem], kinds: Mapping[str, blocks.BlockType], course: str) -> BuiltBlocks:
    """Every block of the lesson whose YAML passes its schema, computed first, then built and rendered (`course`:
    the course's id, in its interactions' ids)."""
    blocks.check_ids(lesson, problems)
    contexts = _contexts(lesson, labs, inline, figures, problems, kinds)
    for ctx in contexts:  # first the values other blocks' text may cite
        kind = kinds[ctx.block.type]
        if kind.compute is not None:
            ctx.computed = kind.compute(ctx)
            if ctx.computed is None:
                figures.failed.add(ctx.block.id)
    built = BuiltBlocks()
    for ctx in contexts:
        kind = kinds[ctx.block.type]
        if kind.compute is not None and ctx.computed is None:
            continue
        data = kind.build(ctx)
        if data is None or ctx.failed:
            continue
        version = ctx.block.version  # a hash of its text: worked out once
        built.html[id(ctx.block)] = _render_block(env, lesson, ctx.block, kind, data, version)
        keeps = kind.progress(data) if kind.progress is not None else None
        if keeps is not None:
            built.progress.append({"type": kind.name, "id": ctx.block.id, "version": version, **keeps})
            if kind.interactions is not None:
                built.reported += lms_report.block_items(kind.interactions(data), course, lesson.slug, ctx.block.id)
        shown = kind.answers(data) if kind.answers is not None else None
        if shown is not None:
            built.answers.append({"id": ctx.block.id, **shown})
        if kind.lazy and kind.page_module.name not in built.lazy:
            built.lazy.append(kind.page_module.name)
    return built


def _contexts(lesson: Lesson, labs: LabRunner, inline: InlineRenderer, figures: Figures,
              problems: list[Problem], kinds: Mapping[str, blocks.BlockType]) -> list[blocks.Context]:
    """Each block whose YAML passes its type's schema, ready to compute and build."""
    contexts = []
    for block in lesson.blocks:
        kind = kinds[block.type]
        data = None
        if block.data:
            def report(line: int, message: str) -> None:
                problems.append(Problem(lesson.rel, line, message))
            data = kind.schema.validate(block.data, f"the {{{block.type}}} block", report, block.line)
        if data is None:
            if kind.compute is not None:
                figures.failed.add(block.id)  # its figures stay quiet: the block's own problem says why
            continue
        contexts.append(blocks.Context(lesson, block, data, problems, labs, inline.for_block(block),
                                       inline.for_block(block, markdown=True), figures))
    return contexts


def _render_block(env: jinja2.Environment, lesson: Lesson, block: Block, kind: blocks.BlockType,
                  data: dict[str, Any], version: str) -> str:
    """A block's own template, given its data, ids and storage version, with its JSON island."""
    island = {"lesson": lesson.slug, "id": block.id, "version": version, **kind.island(data)}
    return env.get_template(kind.template_name).render(
        block={"id": block.id, "version": version, "type": block.type, **data}, data=island)
