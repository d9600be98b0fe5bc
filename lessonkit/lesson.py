"""Load a lesson file: front matter, prose and the fenced ```{type} blocks, each with its line number."""

from __future__ import annotations

import difflib
import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from lessonkit.errors import Problem
from lessonkit.sources import read_text

BLOCK_TYPES = ("explain", "lab", "quiz", "widget")
FRONT_MATTER_KEYS = {"title", "slug", "order", "summary", "requires"}
_BLOCK_OPEN = re.compile(r"^(?P<fence>`{3,}|~{3,})\{(?P<type>[^}]*)\}\s*$")
_FENCE = re.compile(r"(`{3,}|~{3,})")
# libyaml's loader when the wheel has it: the pure-Python one is most of a lesson's load time.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# Pages the site itself writes: a lesson with one of these slugs would overwrite it.
RESERVED_SLUGS = {"index": "index.html is the course's front page (a copy of its first lesson)",
                  "404": "404.html is the page the site shows for a missing address"}
MAX_YAML_DEPTH = 16  # nested lists and mappings; a quiz needs 5, and deeper YAML is only ever an attack
QUICK_YAML_CHARS = 20_000  # shorter YAML nests at most a few hundred levels: safe to load before measuring


@dataclass
class Block:
    """A fenced ```{type} block: its YAML body parsed, and where it stands in the file."""

    type: str
    line: int  # line of the opening fence
    body_line: int  # line of the first body line
    source: str
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """The author's block id (validated elsewhere)."""
        return str(self.data.get("id", ""))

    @property
    def version(self) -> str:
        """Content hash: saved answers are dropped when the block's text changes."""
        return hashlib.sha256(self.source.encode()).hexdigest()[:12]


@dataclass
class Lesson:
    """One lesson file, split into prose and blocks, with the problems found while reading it."""

    path: Path
    rel: str
    meta: dict[str, Any]
    body_line: int  # file line of the first line after the front matter
    segments: list[str | Block]
    source: str

    @property
    def slug(self) -> str:
        """URL and storage name of the lesson."""
        return str(self.meta.get("slug") or self.path.stem)

    @property
    def title(self) -> str:
        """The lesson's title."""
        return str(self.meta.get("title", ""))

    @property
    def blocks(self) -> list[Block]:
        """The blocks in page order."""
        return [s for s in self.segments if isinstance(s, Block)]

    @property
    def version(self) -> str:
        """Hash of the whole source file."""
        return hashlib.sha256(self.source.encode()).hexdigest()[:12]


def load_lesson(path: Path, rel: str, problems: list[Problem]) -> Lesson | None:
    """Read one lesson, appending every problem found to `problems` instead of stopping at the first.

    None when the file cannot be read as text at all (the problem says why).
    """
    source, problem = read_text(path, rel)
    if source is None:
        problems.append(problem)  # type: ignore[arg-type]  # read_text gives one or the other
        return None
    lines = source.splitlines()
    meta, body_start = _front_matter(lines, rel, problems)
    if "slug" not in meta:
        _check_file_slug(path, rel, problems)
    segments = _split_blocks(lines, body_start, rel, problems)
    return Lesson(path, rel, meta, body_start + 1, segments, source)


def _check_file_slug(path: Path, rel: str, problems: list[Problem]) -> None:
    """A lesson without "slug:" is named by its file: that name must make a valid slug too."""
    stem, suggestion = path.stem, _suggest_slug(path.stem)
    if not _SLUG.match(stem):
        problems.append(Problem(rel, 1, f'the file name "{path.name}" makes the slug "{stem}", which must be '
                                f'lowercase letters, digits and single dashes — rename the file to "{suggestion}.md" '
                                f'or add "slug: {suggestion}" to its front matter'))
    elif stem in RESERVED_SLUGS:
        problems.append(Problem(rel, 1, f'the file name "{path.name}" makes the slug "{stem}", which the site uses: '
                                f"{RESERVED_SLUGS[stem]} — rename the file or add a \"slug: …\" line to its "
                                "front matter"))


def _suggest_slug(text: str) -> str:
    """A valid slug close to text ("Über Attention" -> "uber-attention")."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = "-".join(re.findall(r"[a-z0-9]+", ascii_text.lower()))
    return slug if slug and slug not in RESERVED_SLUGS else f"lesson-{slug}" if slug else "my-lesson"


def _front_matter(lines: list[str], rel: str, problems: list[Problem]) -> tuple[dict[str, Any], int]:
    """Parse the YAML between the first two `---` lines; return it and the index of the next line."""
    if not lines or lines[0].strip() != "---":
        problems.append(Problem(rel, 1, 'front matter is missing: start the file with a "---" line, '
                                "then \"title: …\", then another \"---\" line"))
        return {}, 0
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        problems.append(Problem(rel, 1, 'front matter is not closed: add a "---" line after the last '
                                "front matter line"))
        return {}, len(lines)
    try:
        meta, refused = _load_yaml("\n".join(lines[1:end]))
        if refused:
            problems.append(Problem(rel, 2 + refused[0], f"front matter {refused[1]}"))
            return {}, end + 1
        meta = meta or {}
    except yaml.YAMLError as exc:
        line = 2 + (exc.problem_mark.line if getattr(exc, "problem_mark", None) else 0)
        problems.append(Problem(rel, line, f"front matter is not valid YAML ({_yaml_reason(exc)}): "
                                'write one "key: value" per line and quote values that contain ":"'))
        return {}, end + 1
    if not isinstance(meta, dict):
        problems.append(Problem(rel, 2, 'front matter must be "key: value" lines, e.g. "title: My lesson"'))
        return {}, end + 1
    for key in meta:
        if key not in FRONT_MATTER_KEYS:
            line = 1 + next((i for i in range(1, end) if lines[i].startswith(f"{key}:")), 0)
            problems.append(Problem(rel, line, f'unknown front matter key "{key}"{_did_you_mean(str(key), FRONT_MATTER_KEYS)}'
                                    f" — use one of: {', '.join(sorted(FRONT_MATTER_KEYS))}"))
    if not str(meta.get("title") or "").strip():
        problems.append(Problem(rel, 1, 'front matter needs a title: add a line like "title: My lesson"'))
    slug = meta.get("slug")
    if slug is not None and not _SLUG.match(str(slug)):
        problems.append(Problem(rel, _key_line(lines, end, "slug"), f'slug "{slug}" must be lowercase letters, '
                                "digits and single dashes, e.g. \"scaled-attention\""))
    elif slug is not None and str(slug) in RESERVED_SLUGS:
        problems.append(Problem(rel, _key_line(lines, end, "slug"), f'slug "{slug}" is taken by the site: '
                                f'{RESERVED_SLUGS[str(slug)]} — give this lesson another slug, e.g. "introduction"'))
    requires = meta.get("requires", [])
    if not isinstance(requires, list) or not all(isinstance(r, str) and "==" in r for r in requires):
        problems.append(Problem(rel, _key_line(lines, end, "requires"), 'requires must be a list of pinned '
                                'packages, e.g. requires: ["tabulate==0.9.0"]'))
    return meta, end + 1


def _split_blocks(lines: list[str], start: int, rel: str, problems: list[Problem]) -> list[str | Block]:
    """Cut the body into prose chunks and ```{type} blocks; ordinary code fences stay prose."""
    segments: list[str | Block] = []
    prose: list[str] = []
    i = start
    while i < len(lines):
        line = lines[i]
        opened = _BLOCK_OPEN.match(line)
        if opened is None:
            # lstrip first: `^\s*` before a failed match backtracks over every space of a deeply indented line.
            fence = _FENCE.match(line.lstrip())
            if fence:  # an ordinary code fence: copy it whole so its contents are never read as blocks
                close = _find_close(lines, i + 1, fence.group(1).strip())
                prose.extend(lines[i:close + 1])
                i = close + 1
                continue
            prose.append(line)
            i += 1
            continue
        kind, marker = opened.group("type").strip(), opened.group("fence")
        close = _find_close(lines, i + 1, marker)
        if close >= len(lines):
            problems.append(Problem(rel, i + 1, f'block "{{{kind}}}" is never closed: add a line "{marker}" '
                                    "after its last line"))
        body = "\n".join(lines[i + 1:close])
        if kind not in BLOCK_TYPES:
            problems.append(Problem(rel, i + 1, f'unknown block type "{kind}"{_did_you_mean(kind, BLOCK_TYPES)}'
                                    f" — use one of: {', '.join(BLOCK_TYPES)}"))
        else:
            block = Block(kind, i + 1, i + 2, body)
            block.data = _block_yaml(block, rel, problems)
            if prose:
                segments.append("\n".join(prose))
                prose = []
            segments.append(block)
        i = close + 1
    if prose:
        segments.append("\n".join(prose))
    return segments


def _find_close(lines: list[str], start: int, marker: str) -> int:
    """Index of the line closing a fence opened with `marker` (len(lines) when it is never closed)."""
    for j in range(start, len(lines)):
        stripped = lines[j].strip()
        if stripped.startswith(marker[0] * len(marker)) and set(stripped) == {marker[0]}:
            return j
    return len(lines)


def _block_yaml(block: Block, rel: str, problems: list[Problem]) -> dict[str, Any]:
    """Parse a block's YAML body, reporting errors at the file line YAML points to."""
    try:
        data, refused = _load_yaml(block.source)
        if refused:
            problems.append(Problem(rel, block.body_line + refused[0], f"{{{block.type}}} block {refused[1]}"))
            return {}
        data = data or {}
    except yaml.YAMLError as exc:
        offset = exc.problem_mark.line if getattr(exc, "problem_mark", None) else 0
        problems.append(Problem(rel, block.body_line + offset, f"{{{block.type}}} block is not valid YAML "
                                f'({_yaml_reason(exc)}): quote text that contains ":" or starts with a symbol'))
        return {}
    if not isinstance(data, dict):
        problems.append(Problem(rel, block.line, f'{{{block.type}}} block must be "key: value" lines '
                                'starting with "id: …"'))
        return {}
    return data


def _load_yaml(text: str) -> tuple[Any, tuple[int, str] | None]:
    """(data, None), or (None, (line offset, reason)) for YAML lessons never need; yaml.YAMLError if it does not parse."""
    # Only text with & or * can hold an anchor or alias, and only text with many brackets, or a long one, can nest
    # deep enough to hurt while loading: the rest (most blocks) is loaded at once, its depth measured on the data.
    quick = ("&" not in text and "*" not in text and text.count("[") + text.count("{") <= MAX_YAML_DEPTH
             and len(text) <= QUICK_YAML_CHARS)
    refused = None if quick else _refuse_yaml(text)
    if refused:
        return None, refused
    data = yaml.load(text, Loader=_Loader)  # noqa: S506 — a safe loader
    if quick and _depth(data) > MAX_YAML_DEPTH:
        return None, _refuse_yaml(text)
    return data, None


def _depth(data: Any) -> int:
    """How deeply lists and mappings nest in loaded YAML (a tree: it had no aliases)."""
    if isinstance(data, dict):
        return 1 + max((_depth(v) for v in data.values()), default=0)
    if isinstance(data, list):
        return 1 + max((_depth(v) for v in data), default=0)
    return 0


def _refuse_yaml(text: str) -> tuple[int, str] | None:
    """(line offset, reason) for YAML that lessons never need: anchors, aliases, deep nesting.

    Read from the parser's event stream, before anything is built: an alias bomb (aliases nine deep) expands to
    gigabytes only when its values are built or printed, and the stream stops at the first offending event.
    """
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, yaml.AliasEvent):
                return event.start_mark.line, (f'uses the YAML alias "*{event.anchor}" — lessons use no YAML anchors '
                                               "or aliases (&name, *name): write the value out, and quote text that "
                                               "starts with * or &")
            if isinstance(event, yaml.NodeEvent) and event.anchor is not None:
                return event.start_mark.line, (f'uses the YAML anchor "&{event.anchor}" — lessons use no YAML anchors '
                                               "or aliases (&name, *name): write the value out, and quote text that "
                                               "starts with * or &")
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    return event.start_mark.line, (f"nests lists and mappings more than {MAX_YAML_DEPTH} deep — "
                                                   "blocks need a few levels: flatten it")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return None  # not valid YAML: loading it reports where
    return None


def key_line(block: Block, needle: str) -> int:
    """File line of the first body line containing `needle` (the block's own line when absent)."""
    for n, text in enumerate(block.source.splitlines()):
        if needle in text:
            return block.body_line + n
    return block.line


def _key_line(lines: list[str], end: int, key: str) -> int:
    """File line of a front matter key."""
    return 1 + next((i for i in range(1, end) if lines[i].startswith(f"{key}:")), 0)


def _yaml_reason(exc: yaml.YAMLError) -> str:
    """YAML's own one-line reason, without its multi-line context."""
    return str(getattr(exc, "problem", None) or exc).strip()


def _did_you_mean(word: str, choices: Any) -> str:
    """A ' (did you mean "x"?)' hint for typos."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f' (did you mean "{close[0]}"?)' if close else ""
