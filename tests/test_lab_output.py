"""The lab's terminal rendering of learner output (static/js/lab/output.js), its pure part run under Node."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from modules import english
from places import STATIC

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")

# argv: module, JSON [[stream, text], ...]. Applies each write's patch to a model page the way writeOutput applies it
# to the <pre>, and prints {text, marked, runs, redraws, tokens}: the page's text, the same with [class]…[/] marks,
# how many runs (DOM nodes) it took, which writes redrew the unfinished line, and how control characters are shown.
_RUN_JS = r"""
import { pathToFileURL } from "node:url";
const [module, writes] = process.argv.slice(1);
const { Screen, splitControls, controlToken } = await import(pathToFileURL(module).href);
const screen = new Screen();
let page = [];
let live = 0;
const redraws = [];
for (const [stream, text] of JSON.parse(writes)) {
  const { redraw, done, line } = screen.write(stream, text);
  redraws.push(redraw);
  if (redraw) {
    page = page.slice(0, page.length - live);
    live = 0;
  }
  if (done.length) {
    page.push(...done);
    live = 0;
  }
  page.push(...line);
  live += line.length;
}
const shown = (run) => splitControls(run.text).map((p) => (typeof p === "string" ? p : controlToken(p.control).text)).join("");
console.log(JSON.stringify({
  text: page.map(shown).join(""),
  marked: page.map((r) => (r.cls ? `[${r.cls}]${shown(r)}[/]` : shown(r))).join(""),
  runs: page.length,
  redraws,
}));
"""


def render(*writes: tuple[str, str] | str) -> dict[str, Any]:
    """The page after these writes (a bare string is stdout)."""
    pairs = [("stdout", w) if isinstance(w, str) else w for w in writes]
    result = subprocess.run(["node", *english(), "--input-type=module", "-e", _RUN_JS, str(STATIC / "js/lab/output.js"),
                             json.dumps(pairs)], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def text(*writes: tuple[str, str] | str) -> str:
    """The page's text after these writes."""
    return render(*writes)["text"]


def marked(*writes: tuple[str, str] | str) -> str:
    """The page's text with its classes marked."""
    return render(*writes)["marked"]


@pytest.mark.parametrize(("writes", "shown"), [
    (["hello\rab\n"], "abllo\n"),  # a terminal overwrites, it does not clear
    (["hello", "\rab", "\n"], "abllo\n"),
    (["\r0", "\r1", "\r2"], "2"),
    (["abc\bd\n"], "abd\n"),
    (["a\r\nb\n"], "a\nb\n"),
    (["50%", "\r\x1b[Kdone\n"], "done\n"),
    (["abcdef\x1b[3D\x1b[1K|\n"], "   |ef\n"),  # erased up to the cursor, which stays
    (["abc\x1b[2K\rxy\n"], "xy \n"),
    (["x\x1b[3Cy\x1b[1Gz\n"], "z   y\n"),
    (["\x1b[99999999Cz\n"], " " * 80 + "z\n"),  # moves stop at the margin: no padding bomb
    (["\x1b]0;a title\x07\x1b]8;;https://example.org\x1b\\link\x1b]8;;\x1b\\\n"], "link\n"),
    (["\x1b[?25lhidden cursor\x1b(B\x1b7\n"], "hidden cursor\n"),
    (["a\x1b\n"], "a⟨U+001B⟩\n"),  # not a sequence: the ESC is shown
    (["\x1b[" + "1" * 100 + "m\n"], "⟨U+001B⟩[" + "1" * 100 + "m\n"),  # too long to be one: shown, not waited for
    (["tab\tkept\n"], "tab\tkept\n"),
])
def test_terminal_lines(writes: list[str], shown: str) -> None:
    assert text(*writes) == shown


def test_stdout_and_stderr_share_the_line_and_notices_never_overwrite() -> None:
    assert text("abc", ("stderr", "\rX"), "\n") == "Xbc\n"
    assert marked("abc\r", ("notice", "Stopped.\n")) == "abc[lab-notice]Stopped.\n[/]"
    assert marked(("notice", "\x1b[31m\rnot an escape\n")) == "[lab-notice]⟨U+001B⟩[31m⟨U+000D⟩not an escape\n[/]"


def test_colours_become_classes() -> None:
    assert marked("\x1b[31mred\x1b[0m plain \x1b[1;92mbold\x1b[22m not\x1b[m\n") == (
        "[lab-ansi-red]red[/] plain [lab-ansi-bright-green lab-ansi-bold]bold[/][lab-ansi-bright-green] not\n[/]")
    # 256-colour and RGB codes, both separators, map to the nearest of the 16.
    assert marked("\x1b[38;5;196ma\x1b[38:5:21mb\x1b[38;2;0;200;0mc\x1b[38:2::250:250:0md\x1b[38;5;244me\x1b[0m\n") == (
        "[lab-ansi-bright-red]a[/][lab-ansi-blue]b[/][lab-ansi-green]c[/][lab-ansi-bright-yellow]d[/]"
        "[lab-ansi-bright-black]e\n[/]")
    # A background brings its own text colour; inverse swaps, and inverse of the default is the text colour as ground.
    assert marked("\x1b[31;42mx\x1b[0m\x1b[7my\x1b[0m\x1b[33;7mz\x1b[0m\n") == (
        "[lab-ansi-bg-green]x[/][lab-ansi-bg-default]y[/][lab-ansi-bg-yellow]z\n[/]")
    assert marked("\x1b[3;4;9mall\x1b[23;24;29m none\x1b[2;5;8m faint blink conceal\n") == (
        "[lab-ansi-italic lab-ansi-underline lab-ansi-strike]all[/] none faint blink conceal\n")
    assert marked(("stderr", "\x1b[33mwarn\x1b[0m err\n")) == "[lab-stderr lab-ansi-yellow]warn[/][lab-stderr] err\n[/]"
    assert marked("\x1b[38;5;999mbad\x1b[38;2;1;2mcodes\n") == "badcodes\n"  # out of range: ignored


def test_escapes_split_between_batches_wait_for_their_end() -> None:
    assert marked("\x1b", "[3", "1mred\x1b[0m\n") == "[lab-ansi-red]red\n[/]"
    assert text("a\x1b]0;tit", "le\x1b", "\\b\n") == "ab\n"
    assert marked("\x1b[3", ("stderr", "1m"), "1mx\n") == "[lab-stderr]1m[/][lab-ansi-red]x\n[/]"  # per stream


def test_bidi_and_control_characters_are_shown_as_tokens() -> None:
    bidi = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
    assert text(f"a{bidi}b\n") == "a" + "".join(f"⟨U+{ord(c):04X}⟩" for c in bidi) + "b\n"
    assert text("\x00\x07\x0b\x0c\x7f\x85\n") == "⟨U+0000⟩⟨U+0007⟩⟨U+000B⟩⟨U+000C⟩⟨U+007F⟩⟨U+0085⟩\n"
    assert text("abc\u202edef\rX\n") == "Xbc⟨U+202E⟩def\n"  # a token is one column, like the character


def test_only_an_overwritten_line_on_the_page_is_redrawn() -> None:
    result = render("abc", "def", "\rX", "yz\n", "\rnew line", "\n")
    assert result["text"] == "Xyzdef\nnew line\n"
    assert result["redraws"] == [False, False, True, True, False, False]
    # A flood is one run per batch: ended lines go to the page as they are.
    flood = render("".join(f"{i}\n" for i in range(2000)), ("stderr", "Traceback\n"))
    assert flood["runs"] == 2 and flood["text"].startswith("0\n1\n") and flood["redraws"] == [False, False]
