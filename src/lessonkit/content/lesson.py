"""Load a lesson file: front matter, prose and the fenced ```{type} blocks, each with its line number."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lessonkit.content import yamlsrc
from lessonkit.content.bounds import MAX_BACKTICK_RUN
from lessonkit.content.schema import Choice, Fields, Key, ListOf, Text, Whole, did_you_mean
from lessonkit.content.sources import read_text
from lessonkit.core import messages
from lessonkit.core.errors import Problem
from lessonkit.core.places import STATIC
from lessonkit.runtime.releases import RELEASES

_BLOCK_OPEN = re.compile(r"^(?P<fence>`{3,}|~{3,})\{(?P<type>[^}]*)\}\s*$")
_FENCE = re.compile(r"(`{3,}|~{3,})")
_INFO_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})\s*[^\s`~]")  # a fence with an info string: ```python, ```{quiz}
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
# The storage layout of saved progress, shared with the page's store (its one home).
STORAGE_LAYOUT = STATIC / "js" / "page" / "storage-layout.json"


def _storage_names() -> dict[str, str]:
    """The slugs the storage layout uses for what is no lesson's: a lesson of that name would share its keys."""
    layout = json.loads(STORAGE_LAYOUT.read_text(encoding="utf-8"))
    prefix = layout["prefix"]
    names: dict[str, str] = {}
    for entry in layout["keys"].values():  # several keys may share a first part: the first one names it
        names.setdefault(entry["key"].split(":")[0], f'the browser keeps {entry["holds"]} at "{prefix}:{entry["key"]}", '
                         f'among the names of the lessons\' saved progress ("{prefix}:<slug>:…")')
    return names


# Pages the site itself writes (a lesson with one of these slugs would overwrite it), and the storage layout's names.
RESERVED_SLUGS = {"index": "index.html is the course's index page (its title and every lesson)",
                  "404": "404.html is the page the site shows for a missing address", **_storage_names()}
# A slug names the lesson's page and its brotli copy (<slug>.html.br), its lab (lab/<slug>.py) and its saved progress:
# far below the 255 bytes a file name may have, and above any title's words.
MAX_SLUG_LENGTH = 100


FRONT_MATTER = Fields({
    "title": Key(Text(), required=True, hint='with the lesson\'s title, e.g. "title: My lesson"',
                 doc="the lesson's title"),
    "slug": Key(Text(r"[a-z0-9]+(?:-[a-z0-9]+)*", "lowercase letters, digits and single dashes",
                     '"slug: my-lesson"'), doc="its URL and storage name (default: the file name)"),
    "order": Key(Whole(example='"order: 2"'), doc="its place in the course, unique (unless the course config lists "
                 'the lessons in "lessons:")'),
    "summary": Key(Text(), doc="one sentence for the page description"),
    "next_section": Key(Text(r"[a-z0-9]+(?:-[a-z0-9]+)*", "a heading's id", '"next_section: what-next"'),
                        doc='the id of the "##" section that leads to the next lesson, which ends with a link to it '
                        '(default: the last "## Next Lesson")'),
    "pyodide": Key(Choice(*RELEASES), doc="the Pyodide release this lesson's lab boots (default: the course's "
                   '"pyodide:"), so that one lesson may load packages of a release the others do not need'),
    "language": Key(Text(messages.TAG, "a BCP 47 language tag", '"language: de"'),
                     doc="the lesson's language, when it is not the course's \"language:\" (its toolkit words, "
                     "numbers, search stemming and direction)"),
    "requires": Key(ListOf(Text(r"[A-Za-z0-9][A-Za-z0-9._-]*(?:==\S+)?",
                                "a package of the lesson's Pyodide release or a pinned pure-Python one",
                                '"numpy" or "tabulate==0.9.0"'), example="[numpy]"),
                    doc="extra packages for the lab: packages of the lesson's Pyodide release by name (numpy, with "
                    "what they depend on, each wheel checked against the release's lock), or pure-Python packages "
                    "pinned (tabulate==0.9.0)"),
})


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
        """The author's block id (validated elsewhere); read from the text when the YAML did not load."""
        if self.data:
            return str(self.data.get("id", ""))
        found = re.search(r"^id:\s*([\w-]+)\s*$", self.source, re.M)
        return found.group(1) if found else ""

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


def load_lesson(path: Path, rel: str, problems: list[Problem], kinds: Iterable[str]) -> Lesson | None:
    """Read one lesson, appending every problem found to `problems` instead of stopping at the first.

    `kinds`: the block types it may use (the build's registry, lessonkit.blocks.types). None when the file cannot be
    read as text at all (the problem says why).
    """
    source, problem = read_text(path, rel)
    if source is None:
        problems.append(problem)  # type: ignore[arg-type]  # read_text gives one or the other
        return None
    lines = source.splitlines()
    meta, body_start = _front_matter(lines, rel, problems)
    if "slug" not in meta:
        _check_file_slug(path, rel, problems)
    segments = _split_blocks(lines, body_start, rel, problems, list(kinds))
    return Lesson(path, rel, meta, body_start + 1, segments, source)


def _check_file_slug(path: Path, rel: str, problems: list[Problem]) -> None:
    """A lesson without "slug:" is named by its file: that name must make a valid slug too."""
    stem, suggestion = path.stem, _suggest_slug(path.stem)
    if not SLUG.match(stem):
        problems.append(Problem(rel, 1, f'the file name "{path.name}" makes the slug "{stem}", which must be '
                                f'lowercase letters, digits and single dashes — rename the file to "{suggestion}.md" '
                                f'or add "slug: {suggestion}" to its front matter'))
    elif len(stem) > MAX_SLUG_LENGTH:
        problems.append(Problem(rel, 1, f'the file name "{shorten(path.name)}" makes a slug of {len(stem)} characters, '
                                f"more than the {MAX_SLUG_LENGTH} a slug may have (it names the lesson's page, files "
                                'and saved progress) — rename the file, or add a shorter "slug: …" to its front matter'))
    elif stem in RESERVED_SLUGS:
        problems.append(Problem(rel, 1, f'the file name "{path.name}" makes the slug "{stem}", which the site uses: '
                                f"{RESERVED_SLUGS[stem]} — rename the file or add a \"slug: …\" line to its "
                                "front matter"))


def shorten(text: str, most: int = 60) -> str:
    """`text` as a message shows it: whole when short, else its start and "…"."""
    return text if len(text) <= most else text[:most - 1].rstrip() + "…"


def slug_of(text: str) -> str:
    """The slug a title or file name makes ("Über Lessons" -> "uber-lessons"), "" when it has no letters or digits."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return "-".join(re.findall(r"[a-z0-9]+", ascii_text.lower()))


def _suggest_slug(text: str) -> str:
    """A valid slug close to text ("Über Lessons" -> "uber-lessons")."""
    slug = slug_of(text)
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
        raw = yamlsrc.load("\n".join(lines[1:end]), first_line=2)
    except yamlsrc.AuthorYAMLError as exc:
        problems.append(Problem(rel, exc.line, f"front matter {exc.message}"))
        return {}, end + 1
    if raw is None:
        raw = yamlsrc.YMap()
        raw.line, raw.lines, raw.text = 1, {}, {}
    if not isinstance(raw, dict):
        problems.append(Problem(rel, 2, 'front matter must be "key: value" lines, e.g. "title: My lesson"'))
        return {}, end + 1
    meta = FRONT_MATTER.validate(raw, "the front matter", lambda line, message: problems.append(
        Problem(rel, line, message)), raw.line)
    if meta is None:  # reported; go on with what can be read, to find the lesson's other problems
        meta = yamlsrc.YMap((k, v) for k, v in raw.items() if k in ("title", "slug", "summary") and isinstance(v, str))
        meta.line, meta.lines, meta.text = raw.line, raw.lines, {}
    if "language" in meta and messages.unknown_language(str(meta["language"])):
        problems.append(Problem(rel, meta.lines["language"], messages.unknown_language(str(meta["language"]))))
        del meta["language"]
    slug = meta.get("slug")
    if slug is not None and len(str(slug)) > MAX_SLUG_LENGTH:
        problems.append(Problem(rel, raw.lines["slug"], f'slug "{shorten(str(slug))}" has {len(str(slug))} characters, '
                                f"more than the {MAX_SLUG_LENGTH} a slug may have (it names the lesson's page, files "
                                "and saved progress) — give this lesson a shorter slug"))
    elif slug is not None and str(slug) in RESERVED_SLUGS:
        problems.append(Problem(rel, raw.lines["slug"], f'slug "{slug}" is taken by the site: '
                                f'{RESERVED_SLUGS[str(slug)]} — give this lesson another slug, e.g. "introduction"'))
    return meta, end + 1


def _split_blocks(lines: list[str], start: int, rel: str, problems: list[Problem], known: list[str]) -> list[str | Block]:
    """Cut the body into prose chunks and ```{type} blocks; ordinary code fences stay prose."""
    segments: list[str | Block] = []
    prose: list[str] = []
    i = start
    while i < len(lines):
        line = lines[i]
        if "`" not in line and "~" not in line:  # no fence of either kind: prose
            prose.append(line)
            i += 1
            continue
        opened = _BLOCK_OPEN.match(line)
        if opened is None:
            # lstrip first: `^\s*` before a failed match backtracks over every space of a deeply indented line.
            fence = _FENCE.match(line.lstrip())
            if fence and len(fence.group(1)) > MAX_BACKTICK_RUN:  # refused by the bounds, at this line already
                prose.append(line)
                i += 1
                continue
            if fence:  # an ordinary code fence: copy it whole so its contents are never read as blocks
                marker = fence.group(1).strip()
                close, opens = _find_close(lines, i + 1, marker)
                if opens is not None:
                    problems.append(Problem(rel, i + 1, f'a code fence "{line.strip()}" opens here and is not closed '
                                            f'before the block on line {opens + 1} ("{lines[opens].strip()}") — add a '
                                            f'line "{marker}" after its last line of code'))
                    close = opens - 1
                elif close >= len(lines):
                    problems.append(Problem(rel, i + 1, f'a code fence "{line.strip()}" opens here and is never closed '
                                            f'— add a line "{marker}" after its last line of code'))
                prose.extend(lines[i:close + 1])
                i = close + 1
                continue
            prose.append(line)
            i += 1
            continue
        kind, marker = opened.group("type").strip(), opened.group("fence")
        close, opens = _find_close(lines, i + 1, marker, block=True)
        if opens is not None:  # the next fence opens something: this block ends before it, and that one is read
            problems.append(Problem(rel, i + 1, f'block "{{{kind}}}" is not closed before line {opens + 1} '
                                    f'("{lines[opens].strip()}" opens another) — add a line "{marker}" after this '
                                    "block's last line"))
            i = opens  # its body is not read: where it was meant to end is the author's to say
            continue
        if close >= len(lines):
            problems.append(Problem(rel, i + 1, f'block "{{{kind}}}" is never closed: add a line "{marker}" '
                                    "after its last line"))
        body = "\n".join(lines[i + 1:close])
        if kind not in known:
            problems.append(Problem(rel, i + 1, f'unknown block type "{kind}"{did_you_mean(kind, known)}'
                                    f" — use one of: {', '.join(known)}"))
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


def _find_close(lines: list[str], start: int, marker: str, block: bool = False) -> tuple[int, int | None]:
    """(index of the line closing a fence opened with `marker`, len(lines) when it is never closed; index of a fence
    met first that opens a ```{type} block — or, inside a block's YAML, any fence with an info string, which YAML
    cannot hold at the start of a line — with as long a fence of the same character: the fence was left open; else
    None)."""
    opening = _BLOCK_OPEN if not block else _INFO_FENCE
    char = marker[0]
    for j in range(start, len(lines)):
        if char not in lines[j]:  # neither a closing fence nor one that opens with this character
            continue
        stripped = lines[j].strip()
        if stripped.startswith(marker[0] * len(marker)) and set(stripped) == {marker[0]}:
            return j, None
        other = opening.match(lines[j])
        if other and other.group("fence")[0] == marker[0] and len(other.group("fence")) >= len(marker):
            return j, j
    return len(lines), None


def _block_yaml(block: Block, rel: str, problems: list[Problem]) -> dict[str, Any]:
    """Parse a block's YAML body, reporting errors at the file line YAML points to."""
    try:
        data = yamlsrc.load(block.source, first_line=block.body_line)
    except yamlsrc.AuthorYAMLError as exc:
        problems.append(Problem(rel, exc.line, f"{{{block.type}}} block {exc.message}"))
        return {}
    if not isinstance(data, dict):
        problems.append(Problem(rel, block.line, f'{{{block.type}}} block must be "key: value" lines '
                                'starting with "id: …"'))
        return {}
    return data
