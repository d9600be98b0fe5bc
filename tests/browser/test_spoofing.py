"""What a shared link or learner code shows cannot pass for the page's words or hide from the learner: shared code
wider than the editor is named before Run, and the status shows an exception's name only when it is a short
identifier (labkit._report.shown_name)."""

from __future__ import annotations

import base64
import json
import re
import zlib
from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE
from .test_instructor import Tools
from .test_lab import Lab

HIDDEN = 'print("harmless")' + " " * 3000 + '; print("HIDDEN CODE FAR RIGHT RAN")'


def share_fragment(lab_id: str, code: str) -> str:
    """A share link's fragment, as "Copy link" makes it (blocks/lab/tools/share.js: deflate-raw, base64url)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    packed = packer.compress(json.dumps({"code": code}).encode()) + packer.flush()
    return f"#lab={lab_id}&v=1&c={base64.urlsafe_b64encode(packed).decode().rstrip('=')}"


def test_shared_code_wider_than_the_editor_is_named_before_run(
    new_page: Callable[..., Page], server: ServerHandle
) -> None:
    page = new_page(server.url)
    page.goto(LESSON_PAGE + share_fragment("scaled-softmax", HIDDEN + "\nprint(1)\n"))
    tools = Tools(page)
    tools.wait_ready()
    assert tools.code() == HIDDEN + "\nprint(1)\n"
    expect(tools.note).to_contain_text(
        "This code came from a shared link. Line 1 is wider than the editor (up to 3,053 characters wide): "
        "scroll sideways to read all of what will run. Press Run to run it.")
    assert tools.runs() == 0


# Under 80 characters, but the editor draws each tab to its next stop of 4: 17 + 3 + 44 × 4 + 11 = 207 wide.
TABBED = 'print("harmless")' + "\t" * 45 + ';print("X")'
# 62 characters: within what a laptop's editor shows, wider than what a phone's does.
SIXTY_TWO = 'print("harmless")' + " " * 34 + ';print("X")'
LAPTOP, PHONE = {"width": 1280, "height": 900}, {"width": 390, "height": 844}
PLAIN_NOTE = re.compile(r"^This code came from a shared link\. Press Run to run it\.")


def wide_note(longest: int) -> re.Pattern[str]:
    """The note's sentence (its button follows it) for shared code whose line 2 is wider than the editor."""
    return re.compile("^" + re.escape(
        f"This code came from a shared link. Line 2 is wider than the editor (up to {longest} characters wide): "
        "scroll sideways to read all of what will run. Press Run to run it."))


def open_shared(new_page: Callable[..., Page], server: ServerHandle, code: str, viewport: dict[str, int]) -> Tools:
    page = new_page(server.url, viewport=viewport)
    page.goto(LESSON_PAGE + share_fragment("scaled-softmax", code))
    tools = Tools(page)
    tools.wait_ready()
    assert tools.code() == code
    return tools


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["1280px", "390px"])
def test_tabs_count_at_the_width_the_editor_draws_them(
    new_page: Callable[..., Page], server: ServerHandle, viewport: dict[str, int]
) -> None:
    tools = open_shared(new_page, server, f"x = 1\n{TABBED}\n", viewport)
    expect(tools.note).to_have_text(wide_note(207))
    assert tools.runs() == 0


def test_invisible_characters_count_as_the_editor_draws_them(new_page: Callable[..., Page], server: ServerHandle) -> None:
    """A zero-width space takes no room as text, but the editor draws each as a placeholder one character wide."""
    tools = open_shared(new_page, server, 'x = 1\nprint("harmless")' + "\u200b" * 200 + ';print("X")\n', LAPTOP)
    expect(tools.note).to_have_text(wide_note(228))


def test_a_line_a_laptop_shows_whole_is_named_on_a_phone(new_page: Callable[..., Page], server: ServerHandle) -> None:
    code = f"x = 1\n{SIXTY_TWO}\n"
    laptop = open_shared(new_page, server, code, LAPTOP)
    expect(laptop.note).to_have_text(PLAIN_NOTE)
    phone = open_shared(new_page, server, code, PHONE)
    expect(phone.note).to_have_text(wide_note(62))


def test_the_note_follows_the_editors_width(new_page: Callable[..., Page], server: ServerHandle) -> None:
    """Turning a tablet, or narrowing the window: what the editor shows now is what the note says."""
    tools = open_shared(new_page, server, f"x = 1\n{SIXTY_TWO}\n", LAPTOP)
    expect(tools.note).to_have_text(PLAIN_NOTE)
    tools.page.set_viewport_size(PHONE)
    expect(tools.note).to_have_text(wide_note(62))
    tools.page.set_viewport_size(LAPTOP)
    expect(tools.note).to_have_text(PLAIN_NOTE)
    expect(tools.note.get_by_role("button", name="Back to the lesson’s code")).to_be_visible()


def test_shared_code_that_fits_gets_the_plain_note(new_page: Callable[..., Page], server: ServerHandle) -> None:
    page = new_page(server.url)
    page.goto(LESSON_PAGE + share_fragment("scaled-softmax", "print(6 * 7)\n"))
    tools = Tools(page)
    tools.wait_ready()
    expect(tools.note).to_have_text(re.compile(r"^This code came from a shared link\. Press Run to run it\."))


SPOOF = "Run finished in 3 ms. All 5 checks passed. Well done!"


def test_an_exception_named_like_a_sentence_shows_its_base_class_in_the_status(
    new_page: Callable[..., Page], server: ServerHandle
) -> None:
    page = new_page(server.url)
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    lab.wait_ready()
    lab.run(f"E = type({SPOOF!r}, (ValueError,), {{}})\nraise E('boom')\n")
    expect(lab.status).to_have_text("Error on line 2: ValueError: boom")
