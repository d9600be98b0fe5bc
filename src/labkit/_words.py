"""What labkit says, by message key. The words are lessonkit's message catalogs' (lessonkit/locale/<lang>/LC_MESSAGES/
lessonkit.po), in the course's language, never labkit's own: labkit runs in the learner's browser, where no catalog
is, and in the build's lab host, which imports nothing of lessonkit. This file imports nothing either: the build
loads it by its path (lessonkit.labs.limits) and writes both tables into the page's generated/labkit.js.

Two ways, by where the words end up:

- SAID: what labkit reports as data — a check's message, what an error's status line says. labkit hands over the
  key and its values (`said(key, **values)`: {"key", "values"}), and whoever shows it words it: the page with its
  catalog (lab/said.js), the build with its own (lessonkit.core.messages.Messages.said). The page's protocol holds a
  said to this table (lab/protocol-fields.js `said`): a key of it, with exactly its values.
- WORDED: text labkit writes into a run's output, or raises into its code as an exception's message ("Stopped.",
  the output cap's notice, "This lab has no keyboard input…"). It is text in Python, which the learner's code may
  catch and print, and the page never rewrites what a run printed: so it is worded here, from the messages the host
  hands over with `use()` (the page: its catalog's, with the worker's init; the build: the course's, with each
  request to its lab host), numbers written with the host's decimal and group signs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Each key with the names of its values (the English catalog's placeholders: tests/test_messages.py holds them to it).
SAID: dict[str, tuple[str, ...]] = {
    "check.hidden": (),  # a secret check the code fails: the page never learns why
    "check.not_run": (),  # the learner's code stopped with an error before the checks
    "check.exited": (),  # the code called exit() in a check
    "check.too_long": ("seconds",),  # a check ran past its time
    "check.code_too_long": ("seconds",),  # the learner's code ran past its time, before the checks
    "check.raised": ("error",),  # the learner's code raised in a check ("TypeError: …": Python's own words)
    "check.expected": ("expected", "actual"),  # `assert a == b`: the values as Python writes them
    "check.expected_within": ("expected", "tol", "actual"),  # `assert close(a, b, tol)`
    "check.expected_compare": ("left", "op", "right"),  # `assert a < b` and the other comparisons
    "check.assert_failed": (),  # an assert without a message, and no comparison to tell
}

WORDED: dict[str, tuple[str, ...]] = {
    "labkit.stopped": (),
    "labkit.output_limit": ("lines", "chars", "stop"),
    "labkit.output_pieces": ("messages", "stop"),
    "labkit.exit_status": ("status",),
    "labkit.no_input": (),
    "labkit.no_module": ("name",),
    "labkit.no_full_stdlib": ("name",),
    "labkit.out_of_memory": (),
    "labkit.too_deep": (),
    "labkit.lines_left_out": ("n",),
    "labkit.chars_left_out": ("n",),
    "labkit.calls_left_out": ("n",),
    "labkit.import_failed": ("module", "error"),
    "lab.stop": (),  # the Stop button's name, which the output cap's notice tells the learner to press
}

# The host's messages, filled in place by use(): the clean state a run returns to keeps these very objects.
_texts: dict[str, str] = {}
_signs: dict[str, str] = {"decimal": ".", "group": ","}


def use(texts: Mapping[str, Any], decimal: str = ".", group: str = ",") -> None:
    """Word what labkit writes with these messages (key -> text with `{name}` placeholders; the keys of WORDED), and
    write numbers with these signs. Keys outside WORDED and texts that are not str are left out."""
    _texts.clear()
    _texts.update({key: text for key, text in texts.items() if key in WORDED and type(text) is str})
    _signs.update(decimal=str(decimal), group=str(group))


def said(key: str, **values: str | int | float) -> dict[str, Any]:
    """What labkit reports as data: a key of SAID and its values, for the page or the build to word."""
    return {"key": key, "values": values}


def number(value: int) -> str:
    """A whole number with the host's group sign (1,234 in English, 1.234 in German)."""
    swap = {",": _signs["group"], ".": _signs["decimal"]}
    return "".join(swap.get(c, c) for c in f"{value:,}")


def text(key: str, **values: str | int) -> str:
    """A WORDED message in the host's words, its placeholders filled (whole numbers in the host's way). A host that
    gave no words gets the key and its values: every host gives them (the worker at its boot, the build's lab host
    with each request), so this shows only where one does not."""
    filled = {name: number(v) if type(v) is int else str(v) for name, v in values.items()}
    template = _texts.get(key)
    if template is None:
        return " ".join([key, *(f"{name}={v}" for name, v in filled.items())])
    out, rest = [], template
    while "{" in rest:  # str.format would read "{0}" or "{a.b}" in a translation as more than a name
        head, _, tail = rest.partition("{")
        name, closed, after = tail.partition("}")
        out.append(head)
        if closed and name in filled:
            out.append(filled[name])
            rest = after
        else:
            out.append("{")
            rest = tail
    out.append(rest)
    return "".join(out)
