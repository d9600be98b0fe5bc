"""What lesson math may contain: LaTeX commands latex2mathml converts, and MathML with no links, styles or ids.

Two allow-lists, so neither has to be complete on its own: every `\\command` must be one latex2mathml converts
(read from its own tables) and not one that adds links, classes, ids or styles to the page; and the MathML it
produces may hold only presentation elements and attributes whose values are plain words, numbers or colours.
"""

from __future__ import annotations

import difflib
import re
from functools import lru_cache

# Commands latex2mathml turns into href, style, class or id attributes, or raw character references (and the
# MathJax extensions that would, which latex2mathml prints as text): never on a lesson page.
REFUSED = {r"\href", r"\url", r"\style", r"\class", r"\cssId", r"\unicode"}
REFUSED_PREFIX = r"\html"  # \htmlClass, \htmlStyle, \htmlId, \htmlData

ELEMENTS = frozenset("""
    math mrow mi mn mo ms mtext mspace msub msup msubsup munder mover munderover mmultiscripts mprescripts none
    mfrac msqrt mroot mstyle merror mpadded mphantom menclose mtable mtr mtd semantics annotation
""".split())

_WORDS = r"[a-z]+(?:[ -][a-z]+)*"
_LENGTH = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)?\s*[a-z%]*"
_BOOL = r"true|false"
ATTRIBUTES = {
    "display": r"block|inline",
    "mathvariant": _WORDS, "form": r"prefix|infix|postfix", "notation": _WORDS,
    "columnalign": _WORDS, "rowalign": _WORDS, "columnlines": _WORDS, "rowlines": _WORDS, "frame": _WORDS,
    "align": _WORDS, "linebreak": _WORDS,
    **dict.fromkeys(["stretchy", "fence", "separator", "accent", "accentunder", "largeop", "movablelimits",
                     "symmetric", "displaystyle", "equalrows", "equalcolumns"], _BOOL),
    **dict.fromkeys(["lspace", "rspace", "width", "height", "depth", "voffset", "minsize", "maxsize",
                     "linethickness", "mathsize"], _LENGTH),
    "columnspacing": rf"{_LENGTH}(?: {_LENGTH})*", "rowspacing": rf"{_LENGTH}(?: {_LENGTH})*",
    "scriptlevel": r"[-+]?\d+", "columnspan": r"\d+", "rowspan": r"\d+",
    # Colours: a name or a hex value, never anything CSS could read as more.
    **dict.fromkeys(["mathcolor", "mathbackground", "border-color"], r"[a-zA-Z]+|#[0-9a-fA-F]{3,8}"),
}
_ATTRIBUTE_VALUES = {name: re.compile(rf"(?:{pattern})\Z") for name, pattern in ATTRIBUTES.items()}
_COMMAND = re.compile(r"\\[A-Za-z]+\*?\Z")


def refused_latex(tex: str) -> str | None:
    """Why this LaTeX may not be converted: unbalanced braces (latex2mathml would drop or print them), a command that
    styles or links, or one latex2mathml does not know."""
    from latex2mathml.tokenizer import tokenize

    unbalanced = unbalanced_braces(tex)
    if unbalanced:
        return unbalanced

    try:
        tokens = list(tokenize(tex))
    except Exception:  # latex2mathml's tokenizer raises many types; converting reports the error in full
        return None
    for at, token in enumerate(tokens):
        if not _COMMAND.match(token):
            continue
        if token in REFUSED or token.startswith(REFUSED_PREFIX):
            return f"uses {token}, which adds links, styles or raw markup to the page — lessons allow none: remove it"
        if token not in _known_commands():
            advice = _advice(token, _groups_after(tokens, at + 1))
            return f"uses {token}, a command latex2mathml does not convert (it would show as text) — {advice}"
    return None


def _groups_after(tokens: list[str], at: int) -> int:
    """How many brace groups (up to 2) follow the token before `at`: the arguments it was given."""
    groups = 0
    while groups < 2 and at < len(tokens) and tokens[at] == "{":
        depth = 0
        while at < len(tokens):
            depth += {"{": 1, "}": -1}.get(tokens[at], 0)
            at += 1
            if depth == 0:
                break
        groups += 1
    return groups


def _parameters(command: str) -> int:
    from latex2mathml import commands

    return (2 if command in commands.COMMANDS_WITH_TWO_PARAMETERS
            else 1 if command in commands.COMMANDS_WITH_ONE_PARAMETER else 0)


def _advice(command: str, arguments: int = 0) -> str:
    r"""How to fix an unknown command: the known one it is closest to (the fewest edits away, then one taking as many
    arguments as it was given: \fraq{1}{2} is \frac, not \frak or \mfrakq), or how to write a name of one's own."""
    known = [c for c in _known_commands() if c not in REFUSED and not c.startswith(REFUSED_PREFIX)]
    close = difflib.get_close_matches(command, known, n=8, cutoff=0.75)
    if close:
        return f"did you mean {min(close, key=lambda c: (_edits(command, c), _parameters(c) != arguments))}?"
    return (f"check its spelling, or write a name of your own as \\operatorname{{{command[1:].rstrip('*')}}}"
            if len(command) > 3 else "check its spelling")


def _edits(a: str, b: str) -> int:
    """Levenshtein distance: the fewest insertions, deletions and substitutions from a to b."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[-1]


def unbalanced_braces(tex: str) -> str | None:
    """Why the braces of some LaTeX do not pair up (an escaped brace, \\{, is a character, not a group)."""
    depth, i = 0, 0
    while i < len(tex):
        char = tex[i]
        if char == "\\":
            i += 2  # the escaped character, whatever it is
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                return 'has a "}" that closes nothing — remove it, or add the "{" it should close'
            depth -= 1
        i += 1
    if depth:
        return f'opens {"a" if depth == 1 else depth} "{{" that {"is" if depth == 1 else "are"} never closed — add the "}}"'
    return None


# What latex2mathml's errors mean, in the author's terms (by exception name).
ADVICE = {
    "MissingSuperScriptOrSubscriptError": "^ and _ need something after them, e.g. x^2 or x_{i}",
    "NoAvailableTokensError": "a command is missing its argument, e.g. \\frac{1}{2} or \\sqrt{x}",
    "DoubleSuperscriptsError": "one ^ per term: write x^{a^b} or {x^a}^b",
    "DoubleSubscriptsError": "one _ per term: write x_{a_b} or {x_a}_b",
    "ExtraLeftOrMissingRightError": "every \\left needs a \\right (\\right. when it shows nothing)",
    "MissingEndError": "every \\begin{…} needs its \\end{…}",
    "DenominatorNotFoundError": "\\frac needs a numerator and a denominator: \\frac{1}{2}",
    "NumeratorNotFoundError": "\\frac needs a numerator and a denominator: \\frac{1}{2}",
}


def advice(error: str) -> str:
    """How to fix the LaTeX latex2mathml raised `error` for."""
    return ADVICE.get(error, "check the braces and each command's arguments")


def unsafe_mathml(mathml: str) -> str | None:
    """Why this MathML may not be on the page: anything beyond presentation elements and plain attribute values."""
    from xml.etree import ElementTree  # on a conversion only: a rebuild takes its math from the cache

    try:
        # latex2mathml's output starts with <math>: no DTD, so no entity expansion, can come before it.
        root = ElementTree.fromstring(mathml)  # noqa: S314
    except ElementTree.ParseError as exc:
        return f"gives broken MathML ({exc}) — write < and > as \\lt and \\gt, or leave out the command that breaks it"
    for element in root.iter():
        if element.tag not in ELEMENTS:
            return f"gives a <{element.tag}> element, which lessons do not allow — remove what makes it"
        for name, value in element.attrib.items():
            pattern = _ATTRIBUTE_VALUES.get(name)
            if pattern is None or not pattern.match(value):
                return (f'gives <{element.tag} {name}="{value}">, which lessons do not allow — remove the command '
                        "that adds it")
    return None


@lru_cache(maxsize=1)
def _known_commands() -> frozenset[str]:
    """Every `\\name` latex2mathml converts: the constants and table keys of its commands module, and its symbols."""
    from latex2mathml import commands
    from latex2mathml.symbols_parser import SYMBOLS

    known: set[str] = set(SYMBOLS)
    for value in vars(commands).values():
        if isinstance(value, str):
            known.add(value)
        elif isinstance(value, dict | tuple | list | set | frozenset):
            known.update(item for item in value if isinstance(item, str))
    return frozenset(name for name in known if _COMMAND.match(name))
