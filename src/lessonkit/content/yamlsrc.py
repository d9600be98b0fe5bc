"""Author YAML (front matter, block bodies, the course config) with the file line of every key and list item.

The text is composed into nodes (libyaml when the wheel has it) and turned into `YMap` / `YList` / plain scalars,
each mapping and list remembering the line of each key and item, so a problem is reported where the author wrote
it. Lessons need none of YAML's references: anchors, aliases and tags are refused before anything is built (an
alias bomb expands to gigabytes only once its values are built), and so is nesting deeper than MAX_DEPTH. The
event stream is read for them first only where one may stand (a "&", "*" or "!" where a node may start) or the text
may nest deeper than the composer safely recurses; other text is parsed once, its depth measured as it is built.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

# libyaml's loader when the wheel has it: the pure-Python one is most of a lesson's load time.
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
MAX_DEPTH = 16  # nested lists and mappings; a quiz needs 5, and deeper YAML is only ever an attack
QUICK_CHARS = 20_000  # shorter YAML nests at most a few hundred levels: safe to compose before measuring
# YAML with no more "[" and "{" than this nests its flow lists and mappings no deeper: few enough levels for the
# composer's recursion to be safe before anything measures them.
FLOW_BRACKETS = 200
_CONSTRUCT = yaml.constructor.SafeConstructor()  # scalars only: plain values from their resolved tags
_CONSTRUCTORS = yaml.constructor.SafeConstructor.yaml_constructors
_STR = "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_SCALAR = yaml.ScalarNode
# YAML starts an anchor (&), an alias (*) or a tag (!) only where a node starts: at the text's start or a line's (after
# its indentation), or after an indicator — ":", "-", "?", "[", "{", ",", a document's "---" or "..." — and the spaces
# and tabs between. Elsewhere ("a *bold* word", "x & y") the character is part of a scalar's text. Text where none
# stands at such a place holds none of them: the event stream that looks for them (_refuse) need not be read.
_AFTER_INDICATOR = re.compile(r"[\r\n\x85\u2028\u2029\ufeff:?\-\[\]{},.][ \t]*[&*!]")


class _Resolver(yaml.resolver.Resolver):
    """YAML's own tag resolution for the safe schema, without the work it does for what that schema never has.

    It has no path resolvers (descending and ascending through a node is nothing to track), and a plain scalar whose
    first character starts none of its implicit types (bool, int, float, null, timestamp, ...) is text: only those
    that may be one go through its patterns.
    """

    _by_first = yaml.resolver.Resolver.yaml_implicit_resolvers  # the implicit types a first character may start

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        pass

    def ascend_resolver(self) -> None:
        pass

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is _SCALAR:
            if implicit[0]:
                for tag, pattern in self._by_first.get(value[:1], ()):  # "" (an empty value) has its own
                    if pattern.match(value):
                        return tag
            return _STR
        return _SEQ if kind is yaml.SequenceNode else _MAP


assert not _Resolver.yaml_path_resolvers and None not in _Resolver._by_first, "the safe schema resolves as above"


if yaml.__with_libyaml__:
    from yaml.cyaml import CParser

    class _Composer(CParser, _Resolver):
        """Composes author YAML into nodes with libyaml's parser; builds no values."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            _Resolver.__init__(self)
else:  # the pure-Python reader, scanner, parser and composer
    class _Composer(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser,  # type: ignore[no-redef]
                    yaml.composer.Composer, _Resolver):
        """Composes author YAML into nodes; builds no values."""

        def __init__(self, stream: str) -> None:
            yaml.reader.Reader.__init__(self, stream)
            yaml.scanner.Scanner.__init__(self)
            yaml.parser.Parser.__init__(self)
            yaml.composer.Composer.__init__(self)
            _Resolver.__init__(self)


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
    try:
        if len(source) > QUICK_CHARS or may_have_properties(source):
            return _checked(source, first_line)
        brackets = source.count("[") + source.count("{")
        if brackets <= MAX_DEPTH and not any(c in source for c in "&*!"):
            return _built(source, first_line)  # nothing in it for the event stream to refuse
        if brackets <= FLOW_BRACKETS:
            # No anchor, alias or tag can stand in it; its depth is _value's to measure. Built without reading the
            # event stream first, it is what _checked builds; a problem is reported as _checked finds it.
            try:
                return _built(source, first_line)
            except AuthorYAMLError:
                pass
        return _checked(source, first_line)
    except AuthorYAMLError as problem:  # raised with the line in the text: give the file's
        raise AuthorYAMLError(first_line + problem.line, problem.message) from None


def may_have_properties(source: str) -> bool:
    """Whether an anchor, alias or tag may stand in this YAML: a "&", "*" or "!" where a node may start."""
    if "*" not in source and "&" not in source and "!" not in source:
        return False
    return _AFTER_INDICATOR.search(source) is not None or source.lstrip(" \t")[:1] in ("&", "*", "!")


def _checked(source: str, first_line: int) -> Any:
    """The YAML's value, once its event stream holds no anchor, alias or tag nor nests past MAX_DEPTH."""
    _refuse(source)  # read from the event stream, before anything is built
    return _built(source, first_line)


def _built(source: str, first_line: int) -> Any:
    """The YAML's value (None for an empty text), composed into nodes first; raises AuthorYAMLError at a line of
    the text."""
    try:
        node = yaml.compose(source, Loader=_Composer)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line, column = (mark.line, mark.column) if mark is not None else (0, 0)
        raise AuthorYAMLError(line, f"is not valid YAML ({_reason(exc)}): {advice(exc, source, line, column)}") \
            from None
    return None if node is None else _value(node, first_line, 1)


def _value(node: yaml.Node, first: int, depth: int) -> Any:
    """A node as YMap, YList or a plain scalar."""
    kind = node.__class__
    if kind is _SCALAR:
        return node.value if node.tag == _STR else _scalar(node)
    if depth > MAX_DEPTH:
        raise AuthorYAMLError(node.start_mark.line, _too_deep())
    if kind is yaml.SequenceNode:
        items, lines, text = YList(), [], []
        for item in node.value:
            if item.__class__ is _SCALAR:
                items.append(item.value if item.tag == _STR else _scalar(item))
                text.append(item.value)
            else:
                items.append(_value(item, first, depth + 1))
                text.append(None)
            lines.append(first + item.start_mark.line)
        items.line, items.lines, items.text = first + node.start_mark.line, lines, text
        return items
    mapping = YMap()
    mapping.line, mapping.lines, mapping.text = first + node.start_mark.line, {}, {}
    key_lines, texts = mapping.lines, mapping.text
    for key_node, value_node in node.value:
        if key_node.__class__ is not _SCALAR or key_node.tag == _NULL:
            raise AuthorYAMLError(key_node.start_mark.line, 'has a key that is not a word — write "key: value", '
                                  "with a plain word before the colon")
        key = key_node.value if key_node.tag == _STR else _scalar(key_node)
        if key in mapping:
            raise AuthorYAMLError(key_node.start_mark.line, f'has the key "{key}" twice (first at line '
                                  f'{key_lines[key]}) — keep one "{key}:" line')
        if value_node.__class__ is _SCALAR:
            tag = value_node.tag
            mapping[key] = value_node.value if tag == _STR else _scalar(value_node)
            if tag != _NULL:
                texts[key] = value_node.value
        else:
            mapping[key] = _value(value_node, first, depth + 1)
        key_lines[key] = first + key_node.start_mark.line
    return mapping


def _scalar(node: yaml.ScalarNode) -> Any:
    """A scalar's plain value (a string, number, bool or None)."""
    if node.tag == _STR:
        return node.value
    # The safe schema's constructor for its tag, called as construct_object calls it (which would also keep every
    # node it made, for references YAML here never has).
    construct = _CONSTRUCTORS.get(node.tag)
    if construct is None:  # a tag with no value of its own ("<<"): the text it is
        return node.value
    try:
        return construct(_CONSTRUCT, node)
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
