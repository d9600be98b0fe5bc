"""Math that typesets, in Chromium, on the causal-masking fixture course (tests/course.py CAUSAL): with the page's
own math font (Noto Sans Math, self-hosted, with an OpenType MATH table) a \\left\\{ around an array, \\left( and
\\right) around a fraction, cases and both brackets of pmatrix and bmatrix stretch around what they enclose — measured
by their ink, taller than a line and as tall as KaTeX's (npm katex renders the same LaTeX beside them) — and what is
written right against inline math (a full stop, a comma, "-th", brackets) never starts or ends a line alone, whatever
the width."""

from __future__ import annotations

import base64
import functools
import http.server
import json
import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from course import CAUSAL, build, write_causal
from playwright.sync_api import Locator, Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import ROOT

# Each side's fences: the characters of ours, KaTeX's class for them, and the lesson's, in order (a \\right. and the
# open side of cases have none).
FENCES = {
    "opening": ("({[", "mopen", ["{", "(", "{", "(", "["]),
    "closing": (")}]", "mclose", [")", ")", "]"]),
}
DISPLAYS = re.findall(r"^\$\$\n(.*?)\n\$\$$", CAUSAL, re.S | re.M)  # the lesson's display math, in order
# KaTeX renders the lesson's display math, each in a box of its own with room around it for the glyphs' ink.
_KATEX_JS = """
const katex = require(process.argv[1]);
const texts = JSON.parse(require("fs").readFileSync(0, "utf8"));
console.log(JSON.stringify(texts.map((t) => katex.renderToString(t, { displayMode: true, output: "html" }))));
"""
# The darkest rows of a screenshot: the first and last row with a pixel darker than mid-grey (the ink's extent).
_INK_JS = """async (b64) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const image = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
  const canvas = new OffscreenCanvas(image.width, image.height);
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  const data = context.getImageData(0, 0, image.width, image.height).data;
  let top = -1, bottom = -1;
  for (let y = 0; y < image.height; y += 1) {
    for (let x = 0; x < image.width; x += 1) {
      const i = 4 * (y * image.width + x);
      if (data[i] + data[i + 1] + data[i + 2] < 3 * 128) { if (top < 0) top = y; bottom = y; break; }
    }
  }
  return top < 0 ? 0 : bottom - top + 1;
}"""


@pytest.fixture(scope="module")
def causal_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(write_causal(tmp_path_factory.mktemp("causal")))


@pytest.fixture
def lesson(causal_site: Path, start_test_server: Callable[..., ServerHandle],
           new_page: Callable[..., Page]) -> Page:
    page = new_page(start_test_server(causal_site, isolated=True).url, viewport={"width": 1280, "height": 900})
    page.goto("causal.html")
    page.evaluate("document.fonts.ready")
    return page


@pytest.fixture
def katex_page(tmp_path: Path, new_page: Callable[..., Page]) -> Iterator[Page]:
    """The same display math as KaTeX 0.19 renders it, its CSS and fonts from node_modules, served from 127.0.0.1."""
    rendered = json.loads(subprocess.run(["node", "-e", _KATEX_JS, str(ROOT / "node_modules" / "katex")],
                                         input=json.dumps(DISPLAYS), capture_output=True, text=True, check=True).stdout)
    (tmp_path / "dist").symlink_to(ROOT / "node_modules" / "katex" / "dist")
    boxes = "".join(f'<div class="formula" style="padding: 3em 1em">{html}</div>' for html in rendered)
    (tmp_path / "katex.html").write_text('<!DOCTYPE html><html><head><meta charset="utf-8"><link rel="stylesheet" '
                                         f'href="dist/katex.min.css"></head><body style="font-size: 17px">{boxes}'
                                         "</body></html>", encoding="utf-8")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    page = new_page(f"http://127.0.0.1:{server.server_address[1]}/", viewport={"width": 1280, "height": 900})
    page.goto("katex.html")
    page.evaluate("document.fonts.ready")
    yield page
    server.shutdown()
    server.server_close()


def ink_height(page: Page, fence: Locator, analyst: Page, within: str) -> float:
    """The height of a fence's ink, in ems of its formula: a screenshot of its column across the box the formula is
    shown in (`within`: a glyph's ink may reach past the fence's own box), its dark rows counted."""
    fence.scroll_into_view_if_needed()
    box = fence.bounding_box()
    shown = fence.locator(f"xpath=ancestor::*[contains(concat(' ', @class, ' '), ' {within} ')][1]").bounding_box()
    assert box and shown and box["width"] > 0
    size = float(fence.evaluate("el => parseFloat(getComputedStyle(el).fontSize)"))
    clip = {"x": box["x"] + 0.5, "y": shown["y"], "width": max(1, box["width"] - 1), "height": shown["height"]}
    png = page.screenshot(clip=clip)
    return float(analyst.evaluate(_INK_JS, base64.b64encode(png).decode())) / size


@pytest.mark.parametrize("side", list(FENCES))
def test_fences_stretch_around_what_they_enclose_as_katex_sets_them(lesson: Page, katex_page: Page,
                                                                  new_page: Callable[..., Page], side: str) -> None:
    characters, katex_class, expected = FENCES[side]
    analyst = new_page()
    # Set in the site's own math font, its core face loaded (not a math font the machine happens to have).
    assert lesson.evaluate("""[...document.fonts].some((f) => f.family.replaceAll('"', "") === "Noto Sans Math"
                              && f.status === "loaded")""")
    assert lesson.locator("math").first.evaluate("m => getComputedStyle(m).fontFamily").startswith('"Noto Sans Math"')
    displays = lesson.locator(".math-display math")
    expect(displays).to_have_count(len(DISPLAYS))
    ours = [mo for n in range(len(DISPLAYS)) for mo in displays.nth(n).locator("mo").all()
            if (mo.text_content() or "").strip() in list(characters)]
    # KaTeX's: each delimiter of that side (a glyph, or for a tall one a stack of pieces), not an empty one.
    theirs = katex_page.locator(f".katex-html .{katex_class}:not(.nulldelimiter)").all()
    assert [f.text_content() for f in ours] == expected
    assert len(theirs) == len(ours), [t.text_content() for t in theirs]
    for mine, katex in zip(ours, theirs, strict=True):
        height = ink_height(lesson, mine, analyst, "math-display")
        reference = ink_height(katex_page, katex, analyst, "formula")
        assert height > 1.6, (mine.text_content(), height)  # a one-line fence is about 1em of ink
        assert 0.8 <= height / reference <= 1.6, (mine.text_content(), round(height, 2), round(reference, 2))


@pytest.mark.parametrize(("sentence", "tex", "before", "after"), [
    ("for every finite score", "s", "", "."),  # "… for every finite score $s$. So …"
    ("may attend to key", "j \\le i", "", ","),  # "… only when $j \\le i$, so …"
    ("may attend to key", "i", "", "-th"),  # "… the $i$-th query …"
    ("may attend to key", "1 \\le j \\le i", "(", ")."),  # "… keys ($1 \\le j \\le i$). The …"
], ids=["full stop", "comma", "suffix", "brackets"])
def test_what_is_written_against_inline_math_stays_on_its_line(lesson: Page, sentence: str, tex: str, before: str,
                                                              after: str) -> None:
    """At every width from 240 to 700 px, what is written right before and after the math is on the math's line."""
    paragraph = lesson.locator("p", has_text=sentence)
    quoted = tex.replace("\\", "\\\\")  # a CSS string: its backslashes escaped
    glued = paragraph.locator(".math-glue", has=lesson.locator(f'math[alttext="{quoted}"]'), has_text=after)
    expect(glued).to_have_count(1)
    lines = paragraph.evaluate("""(p, [tex, before, after]) => {
      const glue = [...p.querySelectorAll(".math-glue")].find((g) => g.querySelector("math").getAttribute("alttext") === tex
                                                                   && g.lastChild.textContent === after);
      const math = glue.querySelector("math");
      const texts = [...glue.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE);
      const out = [];
      for (let width = 240; width <= 700; width += 3) {
        p.style.width = `${width}px`;
        const bottom = math.getBoundingClientRect().bottom;
        const apart = texts.map((text) => {
          const range = document.createRange();
          range.selectNodeContents(text);
          const boxes = [...range.getClientRects()];
          return boxes.length === 1 && Math.abs(boxes[0].bottom - bottom) < 6;
        });
        out.push([width, texts.map((t) => t.textContent).join("|"), apart.every(Boolean)]);
      }
      p.style.width = "";
      return out;
    }""", [tex, before, after])
    assert all(text == "|".join(t for t in (before, after) if t) for _, text, _ in lines)
    assert [width for width, _, same in lines if not same] == []


def test_a_short_radical_ends_where_its_radicand_does(lesson: Page) -> None:
    """"divided by $\\sqrt{d_k}$, is": the comma follows the radical's bar, with no gap the width of a wider radical
    (the math font keeps its radical's variants about as wide as its own glyph: lessonkit/assets/mathfont.py)."""
    root = lesson.locator("p math msqrt").first
    gap = root.evaluate("""(s) => (s.getBoundingClientRect().right - s.firstElementChild.getBoundingClientRect().right)
                                  / parseFloat(getComputedStyle(s).fontSize)""")
    assert 0 <= gap < 0.15, gap  # a thin space at most (a third of an em with all of the radical's variants)
