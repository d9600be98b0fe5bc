"""What a shared link or learner code shows cannot pass for the page's words or hide from the learner: shared code
wider than the editor is named before Run, and the status shows an exception's name only when it is a short
identifier (labkit._report.shown_name)."""

from __future__ import annotations

import base64
import json
import re
import zlib
from collections.abc import Callable

from playwright.sync_api import Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE
from .test_instructor import Tools
from .test_lab import Lab

HIDDEN = 'print("harmless")' + " " * 3000 + '; print("HIDDEN CODE FAR RIGHT RAN")'


def share_fragment(lab_id: str, code: str) -> str:
    """A share link's fragment, as "Copy link" makes it (lab/tools/share.js: deflate-raw, base64url)."""
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
        "This code came from a shared link. Line 1 is wider than the editor (up to 3,053 characters): scroll "
        "sideways to read all of what will run. Press Run to run it.")
    assert tools.runs() == 0


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
