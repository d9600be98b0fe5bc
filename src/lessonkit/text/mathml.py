"""LaTeX to MathML at build time (latex2mathml), refused where it is unsafe or unsupported (lessonkit.text.mathcheck),
its signs and operators made to read as written; each conversion kept in a cache folder between builds."""

from __future__ import annotations

import hashlib
import html
import importlib.util
import re
from functools import lru_cache
from pathlib import Path

from lessonkit.core.files import atomic_write
from lessonkit.text import mathcheck
from lessonkit.text.mathcheck import refused_latex, unsafe_mathml


class MathError(ValueError):
    """LaTeX that cannot become lesson MathML; `tex` is the author's LaTeX and `display` its kind (to find its line)."""

    def __init__(self, message: str, tex: str, display: bool = False) -> None:
        super().__init__(message)
        self.tex, self.display = tex, display


_math_cache: Path | None = None  # where converted math is kept between builds (see keep_math_in)


def keep_math_in(folder: Path | None) -> None:
    """Keep converted math in `folder` between builds; None keeps it in memory only."""
    global _math_cache
    _math_cache = folder


@lru_cache(maxsize=4096)  # lessons repeat the same symbols (√d_k appears a dozen times)
def to_mathml(latex: str, display: str = "inline") -> str:
    """Convert LaTeX to a MathML string, raising MathError with a readable reason."""
    tex = latex.strip()
    path = _math_cache / f"{_math_key(tex, display)}.mml" if _math_cache else None
    if path and path.is_file():
        return path.read_text(encoding="utf-8")
    # Imported on a miss only: a build whose math is all cached never imports latex2mathml (nor what it imports:
    # importlib.metadata, urllib via xml.sax).
    from latex2mathml.converter import convert as latex_to_mathml

    shown = " ".join(tex.split())  # a problem is one line, even for display math written over several
    block = display == "block"
    refused = refused_latex(tex)
    if refused:
        raise MathError(f"${shown}$ {refused}", tex, block)
    try:
        mathml = latex_to_mathml(tex, display=display)
    except Exception as exc:  # latex2mathml raises many unrelated types for bad input
        raise MathError(f"cannot turn ${shown}$ into MathML ({type(exc).__name__}): "
                        f"{mathcheck.advice(type(exc).__name__)}", tex, block) from exc
    # HTML needs neither the namespace nor the default display; entities for plain operators read worse.
    mathml = mathml.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "").replace(' display="inline"', "")
    mathml = _ENTITY.sub(lambda m: _OPERATORS.get(m.group(0), m.group(0)), mathml)
    mathml = _BARE_AMPERSAND.sub("&amp;", mathml)  # latex2mathml leaves the & of \text{a & b} or aligned bare
    mathml = prefix_signs(named_operators(fenced_matrices(mathml), block))
    refused = unsafe_mathml(mathml)
    if refused:
        raise MathError(f"${shown}$ {refused}", tex, block)
    mathml = mathml.replace("<math", f'<math alttext="{html.escape(shown)}"', 1)  # a plain reading: the LaTeX
    if path:
        atomic_write(path, mathml.encode())  # forked renderers may write the same entry at once
    return mathml


def _math_key(tex: str, display: str) -> str:
    """Cache key: the LaTeX, the display mode, and what converts it (this file and latex2mathml's installed code)."""
    return hashlib.sha256(f"{_converter_id()}\0{display}\0{tex}".encode()).hexdigest()[:32]


@lru_cache(maxsize=1)
def _converter_id() -> str:
    """Changes when this module or the installed latex2mathml changes (found without importing it)."""
    spec = importlib.util.find_spec("latex2mathml")
    parts = [hashlib.sha256(Path(__file__).read_bytes() + Path(mathcheck.__file__).read_bytes()).hexdigest()]
    if spec and spec.origin:
        for file in sorted(Path(spec.origin).parent.iterdir()):
            if file.suffix in (".py", ".txt"):
                stat = file.stat()
                parts.append(f"{file.name}:{stat.st_size}:{stat.st_mtime_ns}")
    return "|".join(parts)


_ENTITY = re.compile(r"&#x[0-9A-Fa-f]+;")
_BARE_AMPERSAND = re.compile(r"&(?!#x[0-9A-Fa-f]+;|#[0-9]+;|(?:amp|lt|gt|quot|apos);)")
_OPERATORS = {"&#x0002B;": "+", "&#x02212;": "−", "&#x0003D;": "=", "&#x00028;": "(", "&#x00029;": ")",
              "&#x022EF;": "⋯", "&#x0002C;": ","}


# A sign with nothing before it to act on: first in its row, or after an operator that is not a closing fence (`=`,
# `(`, `[`, `,`, `+`…). `$-\infty$`, `$x = -1$`, `$(-x)$` and `$[-1, 1]$` then read as one signed number.
_SIGN = re.compile(r"<mo(?P<attrs>[^<>]*)>(?P<sign>[−+±∓])</mo>")
_BEFORE = re.compile(r"(?:<mo(?: [^<>]*)?>(?P<op>[^<]*)</mo>|<(?!/)[a-z]+(?: [^<>]*)?>)\Z")
_CLOSING = frozenset(")]}|‖⟩⌉⌋!′″")
# latex2mathml writes ∞ and ⋯ as operators, which MathML spaces on both sides as one: they stand for quantities.
_INFINITY = re.compile(r"<mo>(&#x0221E;|⋯)</mo>")


def prefix_signs(mathml: str) -> str:
    """`form="prefix"` on a minus or plus that has nothing before it to act on (no space between it and what it
    signs), and ∞ and ⋯ as identifiers, not operators spaced on both sides."""
    mathml = _INFINITY.sub(r"<mi>\1</mi>", mathml)
    out, at = [], 0
    for m in _SIGN.finditer(mathml):
        before = _BEFORE.search(mathml, 0, m.start())
        op = before.group("op") if before else None
        prefix = before is not None and "form=" not in m.group("attrs") and (
            op is None or (op.strip() != "" and html.unescape(op) not in _CLOSING))
        if prefix:
            out += [mathml[at:m.start()], f'<mo form="prefix"{m.group("attrs")}>{m.group("sign")}</mo>']
            at = m.end()
    return "".join(out) + mathml[at:]


# latex2mathml writes a named operator (\operatorname{sgn}, \max, \lim) as an <mo> of its letters, which MathML
# spaces as an unknown operator, with a gap on each side ("sgn (x)"): it is an upright name, an <mi>, as KaTeX
# writes it. In display math the limits of \max, \min, \lim, \sup, \inf (and of \operatorname*) go under it, as TeX
# sets them: latex2mathml's <msub> becomes <munder>.
_NAMED = re.compile(r'<mo(?P<limits> movablelimits="true")?>(?P<word>[A-Za-z]{2,})</mo>')
_WITH_LIMITS = frozenset({"max", "min", "lim", "sup", "inf", "limsup", "liminf", "det", "gcd", "Pr"})
_SCRIPTED = re.compile(r"<(?P<tag>msub|msubsup)>(?=" + _NAMED.pattern + ")")
_LIMITS_UNDER = {"msub": "munder", "msubsup": "munderover"}
# A name (log, max, sgn) and what may follow it with TeX's thin space between: a term, not an operator or a
# bracket (a \left( is an mrow that opens with one).
_NAME = re.compile(r"<mi>[A-Za-z]{2,}</mi>")
_BASE_OF = re.compile(r"<(?P<tag>msub|msup|msubsup|munder|mover|munderover)>\Z")
_APPLIED_TO = re.compile(r"<(?:mi|mn|mtext|msub|msup|msubsup|munder|mover|munderover|mfrac|msqrt|mroot)\b"
                         r"|<mrow>(?!<mo)")
THIN_SPACE = '<mspace width="0.167em" />'


def named_operators(mathml: str, display: bool = False) -> str:
    """Named operators as upright names (<mi>), with their limits under them in display math, and a thin space
    between a name and what it applies to ("log x", "max_j s_j"; none before a bracket: "sgn(x)")."""
    if display:
        for m in reversed(list(_SCRIPTED.finditer(mathml))):
            if m.group("limits") or m.group("word") in _WITH_LIMITS:
                end = _closing(mathml, m.start(), m.group("tag"))
                under = _LIMITS_UNDER[m.group("tag")]
                mathml = (f"{mathml[:m.start()]}<{under}>{mathml[m.end():end]}</{under}>"
                          f"{mathml[end + len(m.group('tag')) + 3:]}")
    mathml = _NAMED.sub(r"<mi>\g<word></mi>", mathml)
    for m in reversed(list(_NAME.finditer(mathml))):
        end = m.end()
        base_of = _BASE_OF.search(mathml, 0, m.start())  # the name is a script's base: the space goes after it
        if base_of:
            end = _closing(mathml, base_of.start(), base_of.group("tag")) + len(base_of.group("tag")) + 3
        if _APPLIED_TO.match(mathml, end):
            mathml = f"{mathml[:end]}{THIN_SPACE}{mathml[end:]}"
    return mathml


def _closing(mathml: str, start: int, tag: str) -> int:
    """Where the element of `tag` that opens at `start` closes (the index of its "</tag>")."""
    depth = 0
    for m in re.finditer(rf"<(/?){tag}(?: [^<>]*)?>", mathml[start:]):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return start + m.start()
    raise ValueError(f"<{tag}> at {start} is not closed")


# latex2mathml writes a matrix's brackets (pmatrix, bmatrix, vmatrix…) beside its table in the formula's row, where
# every stretchy bracket stretches to the tallest thing in that row: M = (3 rows), W = [2 rows] gave W's brackets the
# height of M's. Each matrix and its brackets go in a row of their own, as \left…\right's do.
_MATRIX_OPENS = re.compile(r"<mo>(?:\(|&#x0005B;|&#x0007B;|&#x0007C;|&#x02016;)</mo>(?=<mtable>)")
_MATRIX_CLOSES = re.compile(r"<mo>(?:\)|&#x0005D;|&#x0007D;|&#x0007C;|&#x02016;)</mo>")


def fenced_matrices(mathml: str) -> str:
    """Each bracketed matrix (its opening bracket, its <mtable>, its closing bracket) in an <mrow> of its own."""
    for m in reversed(list(_MATRIX_OPENS.finditer(mathml))):
        end = _closing(mathml, m.end(), "mtable") + len("</mtable>")
        close = _MATRIX_CLOSES.match(mathml, end)
        if close:
            mathml = f"{mathml[:m.start()]}<mrow>{mathml[m.start():close.end()]}</mrow>{mathml[close.end():]}"
    return mathml
