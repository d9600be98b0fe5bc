"""Plain text of the site's rendered inline markup, for what an LMS shows as text (an interaction's description, the
manifest's titles and description): tags dropped, entities decoded, whitespace joined, and MathML read out as
linear math (√(d_k), a/b, x^2)."""

from __future__ import annotations

from html.parser import HTMLParser

# MathML elements whose children are written with something between or around them.
_MATH = {"msqrt": ("√(", "", ")"), "mfrac": ("(", ")/(", ")"), "msub": ("", "_", ""), "msup": ("", "^", ""),
         "mroot": ("root(", ", ", ")"), "msubsup": ("", "_", "")}
_VOID = frozenset({"br", "img", "hr", "wbr", "input", "source"})  # no end tag: they open nothing


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.stack: list[list[object]] = []  # open MathML elements that join their children: [tag, children seen]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID:
            self.out.append(" " if tag == "br" else dict(attrs).get("alt") or "" if tag == "img" else "")
            return
        if self.stack and self._direct_child():
            parent = self.stack[-1]
            if parent[1]:
                self.out.append(_MATH[str(parent[0])][1])
            parent[1] = int(parent[1]) + 1  # type: ignore[call-overload]
        if tag in _MATH:
            self.out.append(_MATH[tag][0])
            self.stack.append([tag, 0, self._depth])
        self._depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        self._depth -= 1
        if self.stack and self.stack[-1][0] == tag and self.stack[-1][2] == self._depth:
            self.out.append(_MATH[tag][2])
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.out.append(data)

    def _direct_child(self) -> bool:
        return self.stack[-1][2] == self._depth - 1

    _depth = 0


def plain(html: str) -> str:
    """One line of text from inline HTML."""
    parser = _Text()
    parser.feed(str(html))
    parser.close()
    return " ".join("".join(parser.out).split())


def clip(text: str, most: int) -> str:
    """`text` in at most `most` characters, cut at a word with "…" when longer."""
    if len(text) <= most:
        return text
    cut = text[: most - 1]
    if " " in cut[most // 2:]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"
