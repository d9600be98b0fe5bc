"""Author YAML (front matter, block bodies, the course config) with the file line of every key and list item.

The text is composed into nodes (libyaml when the wheel has it) and turned into `YMap` / `YList` / plain scalars,
each mapping and list remembering the line of each key and item, so a problem is reported where the author wrote
it. Lessons need none of YAML's references: anchors, aliases and tags are refused before anything is built (an
alias bomb expands to gigabytes only once its values are built), and so is nesting deeper than MAX_DEPTH.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

# libyaml's loader when the wheel has it: the pure-Python one is most of a lesson's load time.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_DEPTH = 16  # nested lists and mappings; a quiz needs 5, and deeper YAML is only ever an attack
QUICK_CHARS = 20_000  # shorter YAML nests at most a few hundred levels: safe to compose before measuring
_CONSTRUCT = yaml.constructor.SafeConstructor()  # scalars only: plain values from their resolved tags
_STR = "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"


class AuthorYAMLError(Exception):
    """YAML an author must fix: the 0-based line in the text, and what is wrong and how to fix it."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line, self.message = line, message


class YMap(dict):
    """A mapping that knows the file line of each key (`lines`) and of its own start (`line`)."""

    line: int
    lines: dict[Any, int]
    text: dict[Any, str]  # each scalar value as written (so `text: Yes` stays "Yes", not True)


class YList(list):
    """A list that knows the file line of each item (`lines`) and of its own start (`line`)."""

    line: int
    lines: list[int]
    text: list[str | None]


def load(source: str, first_line: int = 1) -> Any:
    """Parse author YAML; lines are file lines, `first_line` being the text's first. Raises AuthorYAMLError (its line
    a file line too)."""
    quick = (len(source) <= QUICK_CHARS and not any(c in source for c in "&*!")
             and source.count("[") + source.count("{") <= MAX_DEPTH)
    try:
        if not quick:
            _refuse(source)  # read from the event stream, before anything is built
        try:
            node = yaml.compose(source, Loader=_Loader)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
            line, column = (mark.line, mark.column) if mark is not None else (0, 0)
            raise AuthorYAMLError(line, f"is not valid YAML ({_reason(exc)}): {advice(exc, source, line, column)}") \
                from None
        return None if node is None else _value(node, first_line, 1)
    except AuthorYAMLError as problem:  # raised with the line in the text: give the file's
        raise AuthorYAMLError(first_line + problem.line, problem.message) from None


def _value(node: yaml.Node, first: int, depth: int) -> Any:
    """A node as YMap, YList or a plain scalar."""
    if isinstance(node, yaml.ScalarNode):
        return _scalar(node)
    if depth > MAX_DEPTH:
        raise AuthorYAMLError(node.start_mark.line, _too_deep())
    if isinstance(node, yaml.SequenceNode):
        items = YList(_value(item, first, depth + 1) for item in node.value)
        items.line = first + node.start_mark.line
        items.lines = [first + item.start_mark.line for item in node.value]
        items.text = [item.value if isinstance(item, yaml.ScalarNode) else None for item in node.value]
        return items
    mapping = YMap()
    mapping.line, mapping.lines, mapping.text = first + node.start_mark.line, {}, {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == _NULL:
            raise AuthorYAMLError(key_node.start_mark.line, 'has a key that is not a word — write "key: value", '
                              "with a plain word before the colon")
        key = _scalar(key_node)
        if key in mapping:
            raise AuthorYAMLError(key_node.start_mark.line, f'has the key "{key}" twice (first at line '
                              f'{mapping.lines[key]}) — keep one "{key}:" line')
        mapping[key] = _value(value_node, first, depth + 1)
        mapping.lines[key] = first + key_node.start_mark.line
        if isinstance(value_node, yaml.ScalarNode) and value_node.tag != _NULL:
            mapping.text[key] = value_node.value
    return mapping


def _scalar(node: yaml.ScalarNode) -> Any:
    """A scalar's plain value (a string, number, bool or None)."""
    if node.tag == _STR:
        return node.value
    try:
        return _CONSTRUCT.construct_object(node)
    except yaml.YAMLError:  # a timestamp YAML cannot read: the text it is
        return node.value


def _refuse(source: str) -> None:
    """Raise YAMLError for anchors, aliases, tags or nesting past MAX_DEPTH, read from the event stream.

    The stream stops at the first offending event, before any value is built.
    """
    depth = 0
    try:
        for event in yaml.parse(source, Loader=_Loader):
            if isinstance(event, yaml.AliasEvent):
                raise AuthorYAMLError(event.start_mark.line, _no_references(f'the YAML alias "*{event.anchor}"'))
            if isinstance(event, yaml.NodeEvent) and event.anchor is not None:
                raise AuthorYAMLError(event.start_mark.line, _no_references(f'the YAML anchor "&{event.anchor}"'))
            if isinstance(event, yaml.ScalarEvent | yaml.CollectionStartEvent) and event.tag not in (None, "!"):
                tag = event.tag.replace("tag:yaml.org,2002:", "!!", 1)
                raise AuthorYAMLError(event.start_mark.line, f'uses the YAML tag "{tag}" — lessons use no YAML tags: '
                                  'write the value plainly, and quote text that starts with "!"')
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise AuthorYAMLError(event.start_mark.line, _too_deep())
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        return  # not valid YAML: composing it reports where


def _no_references(what: str) -> str:
    return (f"uses {what} — lessons use no YAML anchors or aliases (&name, *name): write the value out, and quote "
            "text that starts with * or &")


def _too_deep() -> str:
    return f"nests lists and mappings more than {MAX_DEPTH} deep — blocks need a few levels: flatten it"


def _reason(exc: yaml.YAMLError) -> str:
    """YAML's own one-line reason, without its multi-line context."""
    return str(getattr(exc, "problem", None) or exc).strip()


_KEY_LINE = re.compile(r"^(?P<indent> *)(?:- +)?[^\s:#'\"][^:#]*:(?:\s|$)")


def advice(exc: yaml.YAMLError, source: str, line: int, column: int = 0) -> str:
    """How to fix a YAML error, chosen by what YAML says and by the line (and column) it points at."""
    problem = _reason(exc)
    context = str(getattr(exc, "context", None) or "")
    lines = source.splitlines()
    text = lines[line] if 0 <= line < len(lines) else ""
    value = text.split(":", 1)[1].strip() if ":" in text else text.strip()
    indent = "put each nested key two spaces deeper than its parent, keys of one mapping at the same depth"
    if "tab" in problem or "\t" in text[: len(text) - len(text.lstrip())]:
        return "indent with spaces, not tabs"
    if "quoted scalar" in context:
        return "close the quote this text opens (a quote inside quoted text is written twice: 'it''s')"
    if "alias" in context or "anchor" in context:
        return 'quote text that starts with * or &, e.g. note: "*bold* text"'
    if "cannot start any token" in problem:
        return 'quote text that starts with a symbol (` @ % | >), e.g. note: "`code` in a note"'
    if "flow sequence" in context:
        return 'close the list with "]" and separate its items with ",", e.g. [1, 4, 16]'
    in_value = ":" in text and column > text.index(":")
    if "flow mapping" in context or (in_value and value.startswith(("{", "[")) and problem == "did not find expected key"):
        return 'quote text that starts with "{" or "[", e.g. caption: "{value} items"'
    if "mapping values are not allowed" in problem:
        if ":" in text and column > text.index(":"):  # a second ": " in the line: the value holds one
            return f'quote text that contains ": ", e.g. note: "{value[:40] or "a: b"}"'
        previous = next((lines[i] for i in range(line - 1, -1, -1) if lines[i].strip()), "")
        if _KEY_LINE.match(text) and _depth(text) > _depth(previous) and not previous.rstrip().endswith(":"):
            return f"this line is indented deeper than the key above it, which already has a value: {indent}"
        return (f"YAML reads this line as more of the text above it: {indent}, and a list item's keys lined up "
                'with the first key after its "- "')
    if "expected '-' indicator" in problem:
        return 'line up the items of a list: each "- " at the same depth as the first'
    if problem == "did not find expected key" or "block end" in problem:
        return f"this line's indentation does not fit the lines above it: {indent}"
    if "could not find expected ':'" in problem:
        return 'write "key: value" on each line; text that goes on over several lines needs ">-" after its key'
    return f'write one "key: value" per line, {indent}, and quote text that contains ": " or starts with a symbol'


def _depth(text: str) -> int:
    """Indentation of a line (a list item's dash counts as indentation, as YAML counts it)."""
    m = re.match(r"^( *(?:- +)*)", text)
    return len(m.group(1)) if m else 0
