"""A small declarative schema for author YAML: every key with its type, required or default, nested schemas.

`Fields({...}).validate(data, where, report)` checks YAML loaded by lessonkit.content.yamlsrc (which keeps each key's
line) and returns the data with defaults filled in, or None when something is wrong. Each problem is reported at
the offending key's or item's own line, in words that name where it is: `unknown key "hnit" in the {widget}
block's "parameter:" (did you mean "hint"?) — use one of: …`. Texts come back as `Src`, a str that knows its line.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lessonkit.content.yamlsrc import YList, YMap

Report = Callable[[int, str], None]  # (file line, message)


class Note(str):
    """A message that is a note for the author, not a problem: a key's old name, which still works. It travels where
    problems do (each caller wraps the message in its Problem) and the build prints it without failing (is_note)."""

    __slots__ = ()

    def __reduce__(self) -> tuple[type[Note], tuple[str]]:
        """Pickled as a note (a lesson rendered in a forked process sends its problems back by pickle)."""
        return Note, (str(self),)


def is_note(problem: Any) -> bool:
    """Whether a reported problem is only a note (its message a Note): it is printed, and fails nothing."""
    return isinstance(getattr(problem, "message", None), Note)


def split_notes(problems: list[Any]) -> tuple[list[Any], list[Any]]:
    """The problems, and the notes among what was reported."""
    return [p for p in problems if not is_note(p)], [p for p in problems if is_note(p)]


class Src(str):
    """Author text that knows the file line it was written on (for problems found while rendering it)."""

    line: int

    def __new__(cls, text: str, line: int) -> Src:
        obj = super().__new__(cls, text)
        obj.line = line
        return obj

    def __reduce__(self) -> tuple[type[Src], tuple[str, int]]:
        """Pickled with its line (a lesson loaded in a forked process comes back to the build by pickle)."""
        return Src, (str(self), self.line)


class _Invalid:
    """A value that failed its check (its problem is reported already)."""

    def __repr__(self) -> str:
        return "INVALID"


INVALID = _Invalid()


@dataclass
class At:
    """Where a value stands: its file line, the words that name it, and how to report a problem there."""

    line: int
    where: str  # 'the {widget} block', 'the {widget} block\'s "parameter:"', 'option 2 of question 1 ("…")'
    report: Report
    owner: str = ""  # the nearest list item around this value ("question 1 (…)"): nested items say "of" it
    text: str | None = None  # the scalar as written, when it is one

    def error(self, message: str, line: int | None = None) -> _Invalid:
        """Report at this value's line (or `line`); returns INVALID for the caller to pass on."""
        self.report(line or self.line, message)
        return INVALID


class Type:
    """One kind of value. `what` names it in messages ("a number"), `example` shows one."""

    what = "a value"
    example = ""
    doc = ""  # how the README's key list names the type

    def check(self, value: Any, at: At) -> Any:
        """The checked value, or INVALID after reporting at `at`."""
        raise NotImplementedError

    def wrong(self, at: At, subject: str) -> _Invalid:
        """Report that `subject` is not one of these."""
        example = f", e.g. {self.example}" if self.example else ""
        return at.error(f"{subject} must be {self.what}{example}")


class Text(Type):
    """Plain text (numbers and yes/no are taken as written); `pattern` restricts it, `what` then says how."""

    doc = "text"

    def __init__(self, pattern: str | None = None, what: str = "text", example: str = "") -> None:
        self.pattern = re.compile(pattern) if pattern else None
        self.what, self.example = what, example

    def check(self, value: Any, at: At) -> Any:
        if isinstance(value, bool | int | float) and at.text is not None:
            value = at.text  # `text: Yes` is the word, `text: 1.10` the digits the author typed
        if not isinstance(value, str):
            return INVALID
        value = value.strip()
        if self.pattern is not None and not self.pattern.fullmatch(value):
            return INVALID
        return Src(value, at.line)


class Inline(Text):
    """One paragraph of inline markdown and math (rendered by the block's build, figures filled in)."""

    doc = "inline markdown"


class Markdown(Text):
    """Markdown paragraphs, lists and math."""

    doc = "markdown"


class Choice(Text):
    """One word of a fixed set."""

    def __init__(self, *choices: str) -> None:
        super().__init__(what="one of: " + ", ".join(choices))
        self.choices = choices
        self.doc = " / ".join(choices)

    def check(self, value: Any, at: At) -> Any:
        text = super().check(value, at)
        return text if text in self.choices else INVALID

    def wrong(self, at: At, subject: str) -> _Invalid:
        return at.error(f"{subject} must be one of: {', '.join(self.choices)}{did_you_mean(str(at.text), self.choices)}")


class Number(Type):
    """A finite number, optionally bounded (`above` is exclusive, `min` and `max` inclusive)."""

    doc = "number"

    def __init__(self, *, above: float | None = None, min: float | None = None, max: float | None = None,
                 example: str = "") -> None:
        self.above, self.min, self.max, self.example = above, min, max, example
        bounds = [f"more than {above:g}" if above is not None else "", f"at least {min:g}" if min is not None else "",
                  f"at most {max:g}" if max is not None else ""]
        self.what = " and ".join(["a number", *filter(None, bounds)]).replace("number and", "number", 1)

    def check(self, value: Any, at: At) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return INVALID
        if ((self.above is not None and value <= self.above) or (self.min is not None and value < self.min)
                or (self.max is not None and value > self.max)):
            return INVALID
        return value


class Whole(Number):
    """A whole number (1, not 1.0), optionally bounded."""

    doc = "whole number"

    def __init__(self, *, min: int | None = None, max: int | None = None, example: str = "") -> None:
        super().__init__(min=min, max=max, example=example)
        self.what = self.what.replace("a number", "a whole number", 1)

    def check(self, value: Any, at: At) -> Any:
        return value if isinstance(value, int) and super().check(value, at) is not INVALID else INVALID


class Bool(Type):
    """true or false."""

    what = "true or false"
    doc = "true / false"

    def check(self, value: Any, at: At) -> Any:
        return value if isinstance(value, bool) else INVALID


@dataclass
class Key:
    """One key of a mapping: its type, whether it is required (or its default), and words for its messages."""

    type: Type
    required: bool = False
    default: Any = None
    hint: str = ""  # completes 'needs "key:"', e.g. "naming a Python file in lab/"
    invalid: str = ""  # the whole message for a wrong value, when the generic one says too little
    doc: str = ""  # one line for the README
    # The key's former names: one still works as the key, with a note at its line naming the new one.
    renamed_from: str | tuple[str, ...] = ()

    @property
    def old_names(self) -> tuple[str, ...]:
        """The key's former names."""
        return (self.renamed_from,) if isinstance(self.renamed_from, str) else tuple(self.renamed_from)


class ListOf(Type):
    """A list of items of one type. `noun` names an item in messages ("question 2"); `label(item)` adds its words."""

    def __init__(self, item: Type, *, noun: str = "", label: Callable[[Any], str] | None = None,
                 min: int = 0, example: str = "") -> None:
        self.item, self.noun, self.label, self.min, self.example = item, noun, label, min, example
        self.what = f"a list of {_plural(item.what)}"
        self.doc = f"list of {item.doc}"

    def check(self, value: Any, at: At) -> Any:
        if not isinstance(value, list):
            return INVALID
        lines = getattr(value, "lines", [at.line] * len(value))
        texts = getattr(value, "text", [None] * len(value))
        out = YList()
        out.line, out.lines = at.line, list(lines)
        ok = True
        for n, (item, line, text) in enumerate(zip(value, lines, texts, strict=True), 1):
            where = f"{self.noun} {n}" if self.noun else f"item {n} of {at.where}"
            if self.noun and self.label and isinstance(item, dict):
                where += self.label(item)
            if self.noun and at.owner:
                where += f" of {at.owner}"
            inner = At(line, where, at.report, owner=where if self.noun else at.owner, text=text)
            checked = self.item.check(item, inner)
            if checked is INVALID:
                ok = False
                if not _reported(self.item, item):
                    self.item.wrong(inner, where)
            out.append(checked)
        if ok and len(out) < self.min:
            return at.error(f"{at.where} needs at least {self.min} item{'s' if self.min != 1 else ''}")
        return out if ok else INVALID


class Fields(Type):
    """A mapping with a fixed set of keys, each with its own type."""

    what = '"key: value" lines'
    doc = "mapping"

    def __init__(self, keys: dict[str, Key], *, example: str = "") -> None:
        self.keys, self.example = keys, example

    def validate(self, data: Any, where: str, report: Report, line: int) -> YMap | None:
        """The checked mapping (defaults filled in), or None when anything was wrong (every problem reported)."""
        checked = self.check(data, At(line, where, report))
        if checked is INVALID:
            if not isinstance(data, dict):
                self.wrong(At(line, where, report), where)
            return None
        return checked

    @property
    def renamed(self) -> dict[str, str]:
        """Each former name of a key (Key.renamed_from), to the key's name now."""
        return {old: name for name, spec in self.keys.items() for old in spec.old_names if old not in self.keys}

    def check(self, value: Any, at: At) -> Any:
        if not isinstance(value, dict):
            return INVALID
        lines, texts, out = _map_parts(value, at)
        ok = True
        renamed = self.renamed
        for written, item in value.items():
            line = lines.get(written, at.line)
            key = renamed.get(written, written) if isinstance(written, str) else written
            spec = self.keys.get(key) if isinstance(key, str) else None
            if spec is None:
                at.error(f'unknown key "{written}" in {at.where}{did_you_mean(str(written), self.keys)} — use one of: '
                         f"{', '.join(sorted(self.keys))}", line)
                ok = False
                continue
            if key != written:  # a former name: it still works, and the note says what it is called now
                if key in value:
                    at.error(f'"{written}:" is the old name of "{key}:", which {at.where} has too (line '
                             f'{lines.get(key, at.line)}) — remove this line', line)
                    ok = False
                    continue
                at.report(line, Note(f'note: "{written}:" in {at.where} is now called "{key}:" — rename it "{key}:" '
                                     "(the old name still works, but a later lessonkit may drop it)"))
            if item is None or (isinstance(item, str) and not item.strip()):
                continue  # `key:` with nothing after it: as if absent
            item_level = at.owner == at.where  # this mapping is a list item: its keys are "of" it
            inner = At(line, f'"{written}:" of {at.where}' if item_level else f"{at.where}'s \"{written}:\"",
                       at.report, owner=at.owner, text=texts.get(written))
            checked = spec.type.check(item, inner)
            if checked is INVALID:
                ok = False
                if spec.invalid:
                    at.error(spec.invalid, line)
                elif not _reported(spec.type, item):
                    spec.type.wrong(inner, f'"{written}:" in {at.where}')
                continue
            out[key], out.lines[key] = checked, line
        for key, spec in self.keys.items():
            given = [name for name in (key, *spec.old_names) if name in value]
            if key in out or any(value[name] is not None and str(value[name]).strip() for name in given):
                continue  # given (and checked above)
            if spec.required:
                at.error(f'{at.where} needs "{key}:"' + (f" {spec.hint}" if spec.hint else ""))
                ok = False
            elif spec.default is not None:
                out[key], out.lines[key] = spec.default, out.line
        return out if ok else INVALID


def _map_parts(value: Any, at: At) -> tuple[dict[Any, int], dict[Any, str], YMap]:
    """A YAML mapping's key lines and texts, and the empty checked mapping at its line."""
    out = YMap()
    out.line, out.lines, out.text = getattr(value, "line", at.line), {}, {}
    return getattr(value, "lines", {}), getattr(value, "text", {}), out


class MapOf(Type):
    """A mapping whose keys the author chooses (each checked by `key`), every value of one type."""

    def __init__(self, key: Type, value: Type, *, what: str, example: str = "") -> None:
        self.key, self.value, self.what, self.example = key, value, what, example
        self.doc = f"mapping of {key.doc} to {value.doc}"

    def check(self, value: Any, at: At) -> Any:
        if not isinstance(value, dict):
            return INVALID
        lines, texts, out = _map_parts(value, at)
        ok = True
        for key, item in value.items():
            line = lines.get(key, at.line)
            key_at = At(line, at.where, at.report, owner=at.owner, text=str(key))
            if self.key.check(key, key_at) is INVALID:
                self.key.wrong(key_at, f'the key "{key}" in {at.where}')
                ok = False
                continue
            inner = At(line, f'"{key}:" of {at.where}', at.report, owner=at.owner, text=texts.get(key))
            checked = self.value.check(item, inner)
            if checked is INVALID:
                ok = False
                if not _reported(self.value, item):
                    self.value.wrong(inner, f'"{key}:" in {at.where}')
                continue
            out[key], out.lines[key] = checked, line
        return out if ok else INVALID


def _reported(kind: Type, value: Any) -> bool:
    """Whether a failed check reported its own problems: a mapping or list checks its insides itself."""
    return (isinstance(kind, Fields | MapOf) and isinstance(value, dict)) or (isinstance(kind, ListOf) and isinstance(
        value, list))


def did_you_mean(word: str, choices: Any) -> str:
    """A ' (did you mean "x"?)' hint for typos."""
    close = difflib.get_close_matches(word, [str(c) for c in choices], n=1)
    return f' (did you mean "{close[0]}"?)' if close else ""


def _plural(what: str) -> str:
    """'a number' → 'numbers', for "a list of numbers"."""
    words = re.sub(r"^an? ", "", what)
    head, _, rest = words.partition(" ")
    return (head + "s " + rest).strip() if head not in ("text", "true") else words
