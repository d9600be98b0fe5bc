"""Learner output in the lab reads like a terminal, as text: "\\r" overwrites, colours are styled text, bidi controls
are shown instead of applied."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page

from lessonkit.serve.server import ServerHandle

from .helpers import assert_no_axe_violations
from .test_lab import Lab, open_lab

BIDI = ["\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200e", "\u200f",
        "\u061c"]

# The computed style of the element holding each given piece of text in the current output.
STYLES_JS = """(texts) => {
  const pre = document.querySelector("[data-lab-current] pre");
  const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  const found = {};
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const text of texts) {
      if (node.data.replace(/\\n$/, "") === text) {
        const style = getComputedStyle(node.parentElement);
        found[text] = { color: style.color, background: style.backgroundColor, weight: style.fontWeight };
      }
    }
  }
  found[""] = { color: getComputedStyle(pre).color };
  return found;
}"""

# Records the current output's text at every change while a run goes on (window.__seen).
RECORD_JS = """() => {
  window.__seen = [];
  const panel = document.querySelector("[data-lab-previous] pre");  // the next run's panel
  new MutationObserver(() => window.__seen.push(panel.textContent))
    .observe(panel, { childList: true, subtree: true, characterData: true });
}"""

# Left edges of the characters of `word` where they appear in the current output.
POSITIONS_JS = """(word) => {
  const pre = document.querySelector("[data-lab-current] pre");
  const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const at = node.data.indexOf(word);
    if (at < 0) continue;
    return [...word].map((_, i) => {
      const range = document.createRange();
      range.setStart(node, at + i);
      range.setEnd(node, at + i + 1);
      return range.getBoundingClientRect().left;
    });
  }
  return null;
}"""


def rgb(css: str) -> tuple[int, ...]:
    """'rgb(1, 2, 3)' -> (1, 2, 3)."""
    return tuple(int(x) for x in re.findall(r"\d+", css)[:3])


def styles(lab: Lab, *texts: str) -> dict[str, Any]:
    """Computed colour, background and weight of the elements holding `texts` in the current output."""
    return lab.page.evaluate(STYLES_JS, list(texts))


@pytest.fixture
def lab(kept_lab: Lab) -> Lab:
    """The lesson's lab, ready (in the module's kept page)."""
    return kept_lab


def test_colour_codes_are_styled_text_not_shown(lab: Lab) -> None:
    lab.run('print("\\x1b[31mred\\x1b[0m plain \\x1b[1;32mbold green\\x1b[0m and \\x1b[38;5;21mblue\\x1b[0m")\n'
            'print("\\x1b]0;a window title\\x07\\x1b[?25lback to plain\\x1b[0m")\n')
    assert lab.output_text() == "red plain bold green and blue\nback to plain\n"
    found = styles(lab, "red", " plain ", "bold green", "blue")
    default = rgb(found[""]["color"])
    red, green, blue = rgb(found["red"]["color"]), rgb(found["bold green"]["color"]), rgb(found["blue"]["color"])
    assert red[0] > red[1] + 60 and red[0] > red[2] + 60, red
    assert green[1] > green[0] + 40 and green[1] > green[2] + 40, green
    assert blue[2] > blue[0] + 60 and blue[2] > blue[1] + 40, blue
    assert int(found["bold green"]["weight"]) >= 700
    assert rgb(found[" plain "]["color"]) == default


def test_an_escape_split_between_batches_still_applies(lab: Lab) -> None:
    lab.run("import sys, time\n"
            "time.sleep(0.2)\n"
            "sys.stdout.write('\\x1b[3')\n"  # sent alone: the worker flushes after the pause
            "time.sleep(0.2)\n"
            "sys.stdout.write('1mred\\x1b[0m\\n')\n")
    assert lab.output_text() == "red\n"
    red = rgb(styles(lab, "red")["red"]["color"])
    assert red[0] > red[1] + 60, red


def test_carriage_return_overwrites_the_line(lab: Lab) -> None:
    lab.run('for i in range(5):\n    print(f"\\r{i}", end="")\nprint()\nprint("hello\\rab")\nprint("50%\\r\\x1b[Kdone")\n')
    assert lab.output_text() == "4\nabllo\ndone\n"


def test_carriage_return_overwrites_across_batches(lab: Lab) -> None:
    lab.page.evaluate(RECORD_JS)
    lab.run("import time\n"
            "for i in range(4):\n"
            "    time.sleep(0.15)\n"  # each step is its own batch
            "    print(f'\\rstep {i}', end='')\n"
            "print('\\r', end='')\n"
            "print('done', end='')\n"
            "time.sleep(0.15)\n"
            "print()\n")
    assert lab.output_text() == "done 3\n"  # "done" over "step 3", as a terminal shows it
    seen = lab.page.evaluate("window.__seen")
    steps = {text for text in seen if text.startswith("step")}
    assert len(steps) >= 2, seen  # the steps arrived apart, each one replacing the last
    assert all(re.fullmatch(r"(step \d|done 3\n?)?", text) for text in seen), seen


def test_bidi_controls_are_shown_and_cannot_reorder_the_line(lab: Lab) -> None:
    escaped = "".join(f"\\u{ord(c):04x}" for c in BIDI)
    lab.run(f'print("abc\\u202edef")\nprint("all:{escaped}.")\nprint("bell\\x07")\n')
    lines = lab.output_text().splitlines()
    assert lines[0] == "abc⟨U+202E⟩def"
    assert lines[1] == "all:" + "".join(f"⟨U+{ord(c):04X}⟩" for c in BIDI) + "."
    assert lines[2] == "bell⟨U+0007⟩"
    token = lab.current.get_by_text("⟨U+202E⟩").first
    assert token.get_attribute("title").startswith("RIGHT-TO-LEFT OVERRIDE")
    left = lab.page.evaluate(POSITIONS_JS, "def")
    assert left == sorted(left), left  # d, e, f from left to right: nothing reversed them


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_coloured_output_is_axe_clean(new_page: Callable[..., Page], server: ServerHandle, scheme: str) -> None:
    lab = open_lab(new_page, server, color_scheme=scheme)
    lab.run("import sys\n"
            "for out in (sys.stdout, sys.stderr):\n"
            "    for base in (30, 90, 40, 100):\n"
            "        print(' '.join(f'\\x1b[{base + i}m c{base + i} \\x1b[0m' for i in range(8)), file=out)\n"
            "    print('\\x1b[7minverse\\x1b[0m \\x1b[1;4;9;3mstyled\\x1b[0m \\x1b[31;7mred inverse\\x1b[0m', file=out)\n"
            "    print('mark \\u202e here', file=out)\n")
    assert "c97" in lab.output_text() and "⟨U+202E⟩" in lab.output_text()
    assert_no_axe_violations(lab.page, context="[data-lab]")
