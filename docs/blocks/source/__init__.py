"""{source}: text shown exactly as its one home has it, so the manual never copies it: the markdown of another
block of the same lesson, fences and all (`of:` its id: the live block and what its author wrote, side by side), a
file of the course's lab/ (`file:`, read as the build reads lab files), or another text file of the course folder
(`path:`, e.g. templates/footer.html or a block type's own Python). `lessonkit serve` renders a lesson again when a
lab file, a template or a block folder it shows changes; after an edit of another file it shows, restart it.

    ```{source}
    id: quiz-source
    of: quiz-demo      # a block of this lesson, by its id; or file: name.py (in lab/)
    ```
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lessonkit.blocks import BlockType, Context
from lessonkit.content.schema import Fields, Inline, Key, Text, did_you_mean
from lessonkit.core.errors import Problem

SCHEMA = Fields({
    "of": Key(Text(r"[a-z0-9]+(?:-[a-z0-9]+)*", "a block's id", '"of: quiz-demo"'),
              doc="the id of the block of this lesson whose markdown to show (or `file:`)"),
    "file": Key(Text(), doc="instead of `of:`: a Python file in the course's lab/, shown whole"),
    "path": Key(Text(r"[\w.-]+(?:/[\w.-]+)*", "a path inside the course folder", '"path: templates/footer.html"'),
                doc="instead of `of:`: a text file of the course folder, by its path from there, shown whole"),
    "caption": Key(Inline(), doc="what the text is, above it (default: where it comes from)"),
})


def block_lines(source: str, line: int) -> tuple[int, list[str]]:
    """The lines of the block that opens at file line `line` of a lesson's `source`, its fences included: from its
    opening fence to the first line made of that fence's character alone, at least as long (as the loader closes
    a block, lessonkit.content.lesson)."""
    lines = source.splitlines()
    opening = lines[line - 1].lstrip()
    marker = opening[: len(opening) - len(opening.lstrip(opening[0]))]
    for end in range(line, len(lines)):
        closing = lines[end].strip()
        if closing and set(closing) == {marker[0]} and len(closing) >= len(marker):
            return line, lines[line - 1: end + 1]
    return line, lines[line - 1:]


def build(ctx: Context) -> dict[str, Any] | None:
    """The lines to show and where they are from."""
    of, file, path = ctx.data.get("of"), ctx.data.get("file"), ctx.data.get("path")
    if [of, file, path].count(None) != 2:
        ctx.error('{source} shows one thing: give "of:" (a block of this lesson, by its id), "file:" (in lab/) or '
                  '"path:" (in the course folder)')
        return None
    if path is not None:
        found = course_file(ctx, str(path))
        if found is None:
            return None
        text, origin, start, home = found.read_text(encoding="utf-8").rstrip("\n"), str(path), 1, str(path)
    elif file is not None:
        where = Problem(ctx.lesson.rel, ctx.line("file"), "")
        code = ctx.labs.read(str(file), ctx.problems, where)
        if code is None:
            ctx.failed = True
            return None
        text, origin, start, home = code.rstrip("\n"), f"lab/{file}", 1, f"lab/{file}"
    else:
        others = [b for b in ctx.lesson.blocks if b is not ctx.block]
        target = next((b for b in others if b.id == of), None)
        if target is None:
            ids = [b.id for b in others if b.id]
            ctx.error(f'"of: {of}" is no block of this lesson{did_you_mean(str(of), ids)} — use one of: '
                      f"{', '.join(ids) or 'none'}", ctx.line("of"))
            return None
        start, lines = block_lines(ctx.lesson.source, target.line)
        text, origin = "\n".join(lines), f"{ctx.lesson.rel}, lines {start}–{start + len(lines) - 1}"
        home = ctx.lesson.rel
    caption = ctx.inline(ctx.data["caption"]) if "caption" in ctx.data else ""
    language = {".py": "python", ".html": "html", ".css": "css", ".js": "javascript", ".yaml": "yaml", ".j2": "text"}
    return {"text": text, "origin": origin, "caption": caption, "start": start, "home": home,
            "language": "markdown" if of is not None else language.get(Path(str(file or path)).suffix, "text")}


def course_file(ctx: Context, path: str) -> Path | None:
    """The course folder's file at `path` (no `..`, no link out of the folder), or None after saying why not."""
    root = Path(ctx.labs.root).resolve()
    found = (root / path).resolve()
    if ".." in Path(path).parts or not found.is_relative_to(root):
        ctx.error(f'"path: {path}" is outside the course folder — name a file inside it', ctx.line("path"))
        return None
    if not found.is_file():
        ctx.error(f'"path: {path}" is no file of the course folder — name one by its path from there', ctx.line("path"))
        return None
    return found


BLOCK = BlockType("source", "a block's markdown, or a file of the course, shown exactly as its one home has it", SCHEMA, build,
                  example_order=210)
