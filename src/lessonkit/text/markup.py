"""Author markdown to HTML: math becomes MathML at build time (lessonkit.text.mathml), raw HTML is refused, figures are
filled in."""

from __future__ import annotations

import re
from collections.abc import Callable
from xml.etree.ElementTree import Element

import markdown
from markdown.extensions import Extension
from markdown.extensions.toc import slugify, unique
from markdown.inlinepatterns import InlineProcessor
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor
from markdown.util import HTML_PLACEHOLDER_RE
from markupsafe import escape

from lessonkit.content.bounds import outside_fences
from lessonkit.core import messages
from lessonkit.text.figures import FIGURE
from lessonkit.text.inlinepass import NEEDS, InlinePass, RawHtml, guard_block_tests
from lessonkit.text.mathml import MathError, to_mathml

# `$…$` inline math; a `$` preceded by a backslash or followed by a space is left alone. A code span that starts
# first is matched too, and skipped: whichever opens first wins, so `$…$` in code stays code and a backtick in
# math stays math.
_INLINE_MATH = r"(?P<code>(?<!\\)(?P<ticks>`+).+?(?<!`)(?P=ticks)(?!`))|(?<![\\$])\$(?=\S)(?P<tex>.+?)(?<=\S)\$(?!\$)"
_RAW_HTML = re.compile(r"<\s*(/?[A-Za-z][\w:-]*|!--)")
_CODE_SPAN = re.compile(r"(`+).+?\1")


def _mathml(md: markdown.Markdown, tex: str, display: str = "inline") -> str:
    """MathML for tex, or "" with the conversion error kept on md (every one is reported, not just the first)."""
    try:
        return to_mathml(tex, display)
    except MathError as exc:
        md.math_errors.append(exc)  # type: ignore[attr-defined]
        return ""


def _stash_math(md: markdown.Markdown, tex: str, display: str = "inline") -> str:
    """Stashed MathML for tex (an error kept on md)."""
    html = _mathml(md, tex, display)
    # Display math wider than the screen scrolls in its box (lesson.css shows the edge with more beyond it): a
    # keyboard stop, as the widget's table, so it scrolls without a pointer.
    if display != "block":
        return md.htmlStash.store(html)
    # Named after its own TeX (as written), so that the page's equations each have a name of their own.
    name = escape(messages.t("text.equation", tex=" ".join(tex.split())))
    return md.htmlStash.store(f'<div class="math-display" tabindex="0" role="group" aria-label="{name}">{html}</div>')


# Inline math and what is written right against it ("$x$.", "$n$-th", "($a$),") stay on one line: a browser may break
# a line before or after a <math> as around an image, which would leave an opening bracket alone at the end of a line or
# start the next line with the full stop alone. Before it, only opening brackets and quotes are kept with it.
_MATH_AND_AROUND = re.compile(r"([(\[{“‘«\"']*)(<math\b[^<]*(?:<(?!/math>)[^<]*)*</math>)([^\s<]*)")


def _glued(found: re.Match[str]) -> str:
    before, math, after = found.groups()
    return f'<span class="math-glue">{before}{math}{after}</span>' if before or after else math


def glue_math(html: str) -> str:
    """html with each <math>, the opening brackets and quotes right before it and the characters right after it (up to
    a space or a tag) in a span that does not break (lesson.css: .math-glue)."""
    if "</math>" not in html:
        return html
    return _MATH_AND_AROUND.sub(_glued, html)


class _GlueMath(Postprocessor):
    """glue_math over the converted text (after the raw HTML pass has put the stashed MathML back)."""

    def run(self, text: str) -> str:
        return glue_math(text)


_Inline = InlinePass  # the inline pass each converter registers (a test registers Python-Markdown's own)
_RawHtml = RawHtml  # and its raw HTML pass


class _InlineMath(InlineProcessor):
    """`$x$` → stashed MathML, so markdown never touches the LaTeX inside; a code span opened first is left alone."""

    def handleMatch(self, m: re.Match[str], data: str) -> tuple[str | None, int | None, int | None]:  # noqa: N802
        if m.group("code"):
            return None, None, None  # the backtick pattern, next in line, makes it a code span
        return _stash_math(self.md, m.group("tex")), m.start(0), m.end(0)


class _DisplayMath(Preprocessor):
    """`$$` … `$$` on lines of their own → a stashed display-MathML block."""

    def run(self, lines: list[str]) -> list[str]:
        out: list[str] = []
        i = 0
        while i < len(lines):
            if lines[i].strip() == "$$":
                end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "$$"), None)
                if end is not None:
                    out += ["", _stash_math(self.md, "\n".join(lines[i + 1:end]), "block"), ""]
                    i = end + 1
                    continue
            out.append(lines[i])
            i += 1
        return out


class _HeadingIds(Treeprocessor):
    """Give top-level headings ids and list the h2s for the page's contents.

    A lean stand-in for the toc extension, which walks the whole tree and builds nested tokens we never use.
    """

    def run(self, root: Element) -> None:
        ids: set[str] = set()
        self.md.toc_tokens = []  # type: ignore[attr-defined]
        for el in root:
            if el.tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
                # Text only: stashed math or code in a heading is left out of its id and contents entry.
                name = " ".join(HTML_PLACEHOLDER_RE.sub("", "".join(el.itertext())).split())
                el.set("id", unique(slugify(name, "-"), ids))
                if el.tag == "h2":
                    self.md.toc_tokens.append({"id": el.get("id"), "name": name})  # type: ignore[attr-defined]


class _Parts(Treeprocessor):
    """Wrap each h2 and what follows it, up to the next h2, in <section class="part">.

    The stylesheet gives parts `content-visibility: auto`: a part away from the viewport skips style, layout and
    font matching until the reader nears it, so the first screen paints sooner on a long lesson.
    """

    def run(self, root: Element) -> None:
        children = list(root)
        if not any(el.tag == "h2" for el in children):
            return
        for el in children:
            root.remove(el)
        part: Element | None = None
        for el in children:
            if el.tag == "h2":
                part = Element("section", {"class": "part"})
                part.text = part.tail = "\n"  # prettify (10) has run: keep one element a line
                root.append(part)
            (part if part is not None else root).append(el)  # the intro before the first h2 stays unwrapped




class _TableWraps(Treeprocessor):
    """Put each table in a box of its own that scrolls sideways (lesson.css shows the edge with more beyond it), a
    keyboard stop as the widget's table is: a table wider than a phone scrolls there, never the page."""

    def run(self, root: Element) -> None:
        for parent in [el for el in root.iter() if any(child.tag == "table" for child in el)]:
            for at, child in enumerate(list(parent)):
                if child.tag == "table":
                    wrap = Element("div", {"class": "table-wrap", "tabindex": "0", "role": "group",
                                           "aria-label": messages.t("text.table")})
                    wrap.tail, child.tail = child.tail, None
                    parent.remove(child)
                    wrap.append(child)
                    parent.insert(at, wrap)


class _Images(Treeprocessor):
    """Hand every image's src to md.image_src, which checks it and gives the site URL (None drops the src)."""

    def run(self, root: Element) -> None:
        for img in root.iter("img"):
            src = self.md.image_src(img.get("src", ""))  # type: ignore[attr-defined]
            if src is None:
                img.attrib.pop("src", None)
            else:
                img.set("src", src)


def _no_images(src: str) -> None:
    """The default md.image_src: no image is published unless the renderer checks it."""
    return None


class LessonMarkup(Extension):
    """Math as MathML, and no raw HTML passthrough (it is reported earlier; this makes it inert anyway)."""

    def __init__(self, *, headings: bool = True) -> None:
        super().__init__()
        self.headings = headings

    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 (markdown's API)
        md.registerExtension(self)  # for reset()
        self.md = md
        self.reset()
        md.treeprocessors.register(_Inline(md), "inline", 20)  # Python-Markdown's, less searches that find nothing
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.preprocessors.register(_DisplayMath(md), "display_math", 29)
        md.inlinePatterns.register(_InlineMath(_INLINE_MATH, md), "inline_math", 191)  # before backticks (190)
        md.image_src = _no_images  # type: ignore[attr-defined]
        md.treeprocessors.register(_Images(md), "images", 6)  # after inline (20), which makes the <img>s
        guard_block_tests(md)
        md.postprocessors.register(_RawHtml(md), "raw_html", 30)  # Python-Markdown's, searching less
        md.postprocessors.register(_GlueMath(md), "glue_math", 25)  # after raw_html (30), which puts the math back
        if self.headings:
            md.treeprocessors.register(_TableWraps(md), "table_wraps", 7)  # the tables extension's are made by then
            md.treeprocessors.register(_HeadingIds(md), "heading_ids", 5)  # after inline (20): ids from final text
            md.treeprocessors.register(_Parts(md), "parts", 4)  # after the ids, which read the flat top level


    def reset(self) -> None:
        """A new document: no math errors yet."""
        self.md.math_errors = []  # type: ignore[attr-defined]


def new_markdown() -> markdown.Markdown:
    """A Markdown converter configured for lessons (one per build; reset between documents).

    Code fences are pymdown-extensions' SuperFences: a fence inside a list item is a code block there, as authors
    expect (Python-Markdown's own fences work at the top level only). No highlighting: the page ships no Pygments
    stylesheet, and the code stays plain text in <pre><code class="language-…">.
    """
    return markdown.Markdown(
        extensions=["pymdownx.highlight", "pymdownx.superfences", "tables", "sane_lists", LessonMarkup()],
        extension_configs={"pymdownx.highlight": {"use_pygments": False}, "pymdownx.superfences": {"custom_fences": []}},
        output_format="html")


def new_inline_markdown() -> markdown.Markdown:
    """A lighter converter for one-paragraph strings inside blocks (no tables, fences or heading ids)."""
    return markdown.Markdown(extensions=[LessonMarkup(headings=False)], output_format="html")


# A single line that starts no block: each block processor but the paragraph's needs, in a text of one line, a "\n"
# (setext headings), a leading space or tab (indented code, list continuation), or a first character of "#" (ATX
# headings), ">" (quotes), "[" (reference definitions), "*+-" (lists, rules), "_" (rules) or a digit (ordered lists).
_ONE_PARAGRAPH = re.compile(r"[^\s#>\[*+\-_\d][^\n]*\Z")
_BLOCKS_BUT_PARAGRAPHS = ("indent", "code", "hashheader", "setextheader", "hr", "olist", "ulist", "quote", "reference")
_lean: dict[tuple[tuple[str, ...], bool], markdown.Markdown] = {}  # by (the patterns left out, one paragraph), made on first use
_NEEDED = "".join(sorted(set("".join(NEEDS.values()))))  # every character some inline pattern needs
_lean_for: dict[tuple[frozenset[str], bool], markdown.Markdown] = {}  # the same, by (those in a text, one paragraph)


def inline_markdown_for(text: str) -> markdown.Markdown:
    """A converter that turns `text` into what new_inline_markdown() makes of it, without the patterns and block
    processors that cannot apply to it (most of the time a block's string spends in markdown is in their searches)."""
    present = (frozenset(c for c in _NEEDED if c in text), bool(_ONE_PARAGRAPH.match(text)))
    md = _lean_for.get(present)
    if md is not None:
        return md
    absent = tuple(name for name, chars in NEEDS.items() if not any(c in present[0] for c in chars))
    key = (absent, present[1])
    md = _lean.get(key)
    if md is None:
        md = new_inline_markdown()
        for name in NEEDS:
            if name in absent:
                md.inlinePatterns.deregister(name)
        for name in _BLOCKS_BUT_PARAGRAPHS if key[1] else ():
            md.parser.blockprocessors.deregister(name)
        _lean[key] = md
    _lean_for[present] = md
    return md


def raw_html_lines(text: str) -> list[tuple[int, str]]:
    """(line offset, tag) for raw HTML outside code; lessons use markdown and blocks instead."""
    found: list[tuple[int, str]] = []
    if "<" not in text:
        return found  # no tag, nor any line to look at
    for n, line, stripped in outside_fences(text):
        if line.startswith(("    ", "\t")) and not stripped.startswith(("-", "*", "1")):
            continue  # indented code
        if "<" not in line:
            continue
        m = _RAW_HTML.search(_CODE_SPAN.sub("", line))
        if m:
            found.append((n, "<" + m.group(1)))
    return found


def fill_figures(text: str, resolve: Callable[[str, str | None], str]) -> str:
    """Replace each `[[ref]]` or `[[ref = expected]]` with the figure the build computed."""
    if "[[" not in text:
        return str(text)  # what the substitution gives: a plain str
    return FIGURE.sub(lambda m: resolve(m.group("ref").strip(), m.group("expect")), text)


def fill_figures_outside_code(line: str, resolve: Callable[[str, str | None], str]) -> str:
    """fill_figures on one line of prose, its `code spans` left as written."""
    parts, at = [], 0
    for span in _CODE_SPAN.finditer(line):
        parts += [fill_figures(line[at:span.start()], resolve), span.group(0)]
        at = span.end()
    return "".join([*parts, fill_figures(line[at:], resolve)])


_PLAIN = re.compile(r"^[^*_`\[\]$\\<>&!#|~]*$")


def plain(text: str) -> bool:
    """A string inline() gives as escaped text without converting it."""
    return bool(_PLAIN.match(text)) and "--" not in text and "..." not in text and not text[:1].isdigit()


_MATH = re.compile(_INLINE_MATH)


def _text_and_math(md: markdown.Markdown, text: str) -> str | None:
    """What inline() gives a line of plain text and `$…$` math, made without a conversion (None: another text).

    The line is printable, starts no block and has no space at its ends; between its math, no character any inline
    pattern or the paragraph needs. Markdown makes it one paragraph of that text with each math's MathML in place
    (its math found left to right by the inline pattern's own search; no character of the text escaped), which
    inline() unwraps to exactly that; but for a line that is one math alone, whose MathML, if Python-Markdown takes
    it for a block, stands for the paragraph (stripped)."""
    if "`" in text or not text.isprintable() or text != text.strip() or not _ONE_PARAGRAPH.match(text):
        return None
    found = list(_MATH.finditer(text))
    between = [text[a:b] for a, b in zip([0] + [m.end() for m in found], [m.start() for m in found] + [len(text)],
                                         strict=True)]
    if not found or not plain("".join(between)):
        return None
    md.math_errors = []  # type: ignore[attr-defined]  # as reset() leaves it
    mathml = [_mathml(md, m.group("tex")) for m in found]
    if len(found) == 1 and found[0].span() == (0, len(text)):
        raw = md.postprocessors["raw_html"]
        return mathml[0].strip() if raw.isblocklevel(mathml[0]) else mathml[0]  # type: ignore[attr-defined]
    return glue_math("".join(piece for pair in zip(between, [*mathml, ""], strict=True) for piece in pair))


def inline(md: markdown.Markdown, text: str) -> str:
    """Render a one-paragraph author string (quiz text, captions) without the surrounding <p>."""
    if plain(text):
        return str(escape(text))  # nothing for markdown to do: skip a full conversion (most quiz options)
    quick = _text_and_math(md, text)
    if quick is not None:
        return quick
    md.reset()
    html = md.convert(text)
    if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        html = html[3:-4]
    return html


def literal(value: str) -> str:
    """A computed value as literal text inside markdown: never markup, math or a figure (the lab's words are text)."""
    value = value.replace("&", "&amp;").replace("<", "&lt;").replace("$", "&#36;")
    return re.sub(r"([\\`*_\[\]{}()#+!-])", r"\\\1", value)
