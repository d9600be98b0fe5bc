"""Every lesson of the course fits the window, on a phone (390 px) and a laptop (1280 px), in the light scheme and the
dark: the page never scrolls sideways, and whatever is wider than the window (display math, a wide table, a printed
table, a long line of code) scrolls inside a box of its own that fits it, whose edges are the colour of what it sits
on (the shadow that says there is more beyond an edge is covered, where there is not, by that colour). The lessons
are the course's, whatever they are: a lesson added to lesson/ is checked with no change here."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from browser.fixtures import goto_kept
from browser.test_lab import Lab
from playwright.sync_api import Error, Page

COURSE = Path(__file__).resolve().parents[2]
WINDOWS = {390: 844, 1280: 900}  # width: height, a phone's window and a laptop's


def _pages() -> list[str]:
    """Each lesson's page, by its slug (its front matter's, else its file name)."""
    found = []
    for lesson in sorted((COURSE / "lesson").glob("*.md")):
        front = yaml.safe_load(lesson.read_text(encoding="utf-8").split("---", 2)[1]) or {}
        found.append(f"{front.get('slug') or lesson.stem}.html")
    return found


PAGES = _pages()

# Every element laid out past the window's left or right edge, unless a box that scrolls sideways (overflow-x auto
# or scroll) holds it and itself fits the window; and every box whose content is wider than it and cut off instead
# of scrolled (overflow-x hidden or clip), unless it ends its text with an ellipsis.
ESCAPES_JS = """() => {
  const name = (el) => el.tagName.toLowerCase() + (el.id ? `#${el.id}` : "")
    + [...el.classList].slice(0, 2).map((c) => `.${c}`).join("");
  const path = (el) => [el.parentElement && el.parentElement !== document.body ? name(el.parentElement) : "", name(el)]
    .filter(Boolean).join(" > ");
  const width = document.documentElement.clientWidth;
  const fits = (box) => box.left >= -1 && box.right <= width + 1;
  const found = [];
  for (const el of document.body.querySelectorAll("*")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.position === "fixed" && style.clip !== "auto") continue;
    if (/hidden|clip/.test(style.overflowX) && el.scrollWidth > el.clientWidth + 1 && style.textOverflow !== "ellipsis"
        && el.clientWidth > 1) {
      found.push(`${path(el)}: content ${el.scrollWidth} px wide, cut off at ${el.clientWidth} px`);
    }
    if (fits(box) || box.right <= 0) continue;  // wholly left of the page (a skip link until focused): no scrolling
    let holder = null;
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      const overflow = getComputedStyle(up).overflowX;
      if (overflow !== "visible") { holder = /auto|scroll/.test(overflow) ? up : null; break; }
    }
    if (holder === null || !fits(holder.getBoundingClientRect())) {
      found.push(`${path(el)}: ${Math.round(box.left)}..${Math.round(box.right)} px in a ${width} px window`);
    }
  }
  return found;
}"""


# Each box that shows a shadow at an edge with more beyond it (lesson.css: .table-wrap, .math-display, pre) covers the
# shadow, where there is nothing beyond, with a gradient from the colour it sits on: its own background, else the
# nearest one around it. A cover of another colour is a patch at each end of the box.
COVERS_JS = """() => {
  const under = (el) => {
    for (let at = el; at; at = at.parentElement) {
      const colour = getComputedStyle(at).backgroundColor;
      if (colour !== "rgba(0, 0, 0, 0)") return colour;
    }
    return getComputedStyle(document.documentElement).backgroundColor;
  };
  const found = [];
  for (const el of document.querySelectorAll(".table-wrap, .math-display, pre")) {
    if (el.getBoundingClientRect().width === 0) continue;
    const cover = getComputedStyle(el).backgroundImage.match(/^linear-gradient\\(to right, (rgba?\\([^)]*\\))/);
    if (cover && cover[1] !== under(el)) {
      found.push(`${el.className || el.tagName}: covered with ${cover[1]}, on ${under(el)}`);
    }
  }
  return found;
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", list(WINDOWS))
@pytest.mark.parametrize("lesson", PAGES)
def test_the_lesson_fits_the_window(kept_page: Page, lesson: str, width: int, scheme: str) -> None:
    """Each lesson is loaded once (the module's kept page), then seen at each width in each scheme, as a learner who
    turns a phone or changes the system's scheme sees it."""
    page = kept_page
    page.set_viewport_size({"width": width, "height": WINDOWS[width]})
    page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
    if goto_kept(page, lesson) and page.locator("[data-lab]").count():  # its editor and panels, as a learner finds them
        Lab(page).wait_ready()
    page.evaluate("""() => {
      document.querySelectorAll(".part").forEach((part) => part.classList.add("part-shown"));  // every part laid out
      document.querySelectorAll("details").forEach((d) => { d.open = true; });  // and what each one folds away
    }""")
    page.evaluate("document.fonts.ready.then(() => true)")  # laid out in the page's own fonts, not a fallback's
    assert page.evaluate("[document.documentElement.scrollWidth, innerWidth]") == [width, width], "scrolls sideways"
    assert page.evaluate(ESCAPES_JS) == []
    assert page.evaluate(COVERS_JS) == []


# Resolves once the box's content fits it, rejects (saying what is wider) if it does not within 5 s.
SETTLES_FITTING = """(box) => new Promise((done) => {
  const fits = () => box.scrollWidth <= box.clientWidth;
  const start = Date.now();
  (function look() {
    if (fits() || Date.now() - start > 5000) done(fits()); else requestAnimationFrame(look);
  })();
}).then((ok) => ok || Promise.reject(new Error(`${box.scrollWidth} px of table in ${box.clientWidth} px: `
  + document.documentElement.className + " "
  + [...box.querySelectorAll("tr")[1].cells].map((c) => `${c.textContent} ${c.getBoundingClientRect().width} px`
    + ` ${getComputedStyle(c).fontSize}`).join(" | "))))"""


def test_the_matrix_lessons_weights_fit_a_phone_without_scrolling(new_page: Callable[..., Page], server) -> None:
    """The six rows' labels wrap at " · " (as the multi-head lesson's do), so every key's column is in sight."""
    page = new_page(server.url, viewport={"width": 390, "height": WINDOWS[390]})
    page.goto("attention-in-matrix-form.html")
    page.evaluate("document.fonts.ready.then(() => true)")  # measured in the page's own fonts, not a fallback's
    wrap = page.locator("#widget-weights .table-wrap")
    try:  # once the page has settled (its scripts done, its part laid out)
        wrap.evaluate(SETTLES_FITTING)
    except Error as e:
        raise AssertionError(f"the weights table scrolls on a phone: {e.message}") from None
