"""Sharing a lab with the class in Chromium: Copy link gives a short link and a QR code drawn on the page, which a
camera reads back (zxing-cpp) as that link; a student who opens it in their own browser, while the instructor's page
is in presenter mode with Live on and a baseline pinned, sees the lesson's view (its own layout and text size, Live
off, no pinned baseline) with the shared code, not run."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import zxingcpp
from playwright.sync_api import Locator, Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE, SHARED_NOTE, assert_no_axe_violations
from .test_instructor import Tools

# The QR code as a camera sees it: drawn into a canvas at 8 px a module, its pixels' grey levels.
PIXELS_JS = """async (svg) => {
  const size = Number(svg.dataset.modules) + 8, scale = 8;
  const img = new Image();
  img.src = "data:image/svg+xml;base64," + btoa(new XMLSerializer().serializeToString(svg));
  await img.decode();
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = size * scale;
  const g = canvas.getContext("2d");
  g.imageSmoothingEnabled = false;
  g.drawImage(img, 0, 0, size * scale, size * scale);
  const { data } = g.getImageData(0, 0, size * scale, size * scale);
  const grey = [];
  for (let i = 0; i < data.length; i += 4) grey.push(data[i]);
  return { side: size * scale, grey };
}"""


def presenting(page: Page) -> bool:
    """Whether the page is in presenter mode."""
    return bool(page.evaluate("document.documentElement.classList.contains('presenting')"))


def read_qr(qr: Locator) -> str:
    """The text a QR reader finds in the drawn code."""
    drawn = qr.evaluate(PIXELS_JS)
    pixels = np.array(drawn["grey"], dtype=np.uint8).reshape(drawn["side"], drawn["side"])
    found = zxingcpp.read_barcodes(pixels)
    assert len(found) == 1, f"a QR reader found {len(found)} codes"
    assert found[0].format == zxingcpp.BarcodeFormat.QRCode
    return str(found[0].text)


def test_copy_link_shows_a_qr_code_of_a_short_link_that_opens_the_lesson_view(
    new_page: Callable[..., Page], server: ServerHandle
) -> None:
    page = new_page(server.url, viewport={"width": 1920, "height": 1080},
                    permissions=["clipboard-read", "clipboard-write"])
    page.goto(LESSON_PAGE)
    tools = Tools(page)
    tools.wait_ready()
    page.keyboard.press("Alt+Shift+P")  # the instructor projects the page, in Live mode, a baseline pinned
    tools.live.check()
    tools.root.get_by_role("button", name="Pin as baseline").click()
    tools.logit(2).fill("8")
    tools.root.get_by_role("button", name="Skip and run").click()  # Live asks for the prediction before its first run
    tools.copy.click()
    expect(tools.tool_note).to_contain_text("Link copied")
    url = tools.link.input_value()
    assert len(url) <= 140, f"a {len(url)}-character link: {url}"
    qr = tools.root.get_by_role("img", name="QR code of the link to this code")
    expect(qr).to_be_visible()
    assert read_qr(qr) == url
    side = qr.bounding_box()
    assert side is not None and side["width"] >= 250, "large enough to read from across a room when projected"
    modules = int(qr.get_attribute("data-modules") or 0)
    assert modules <= 49, f"{modules} modules for {url}: version 8 or less, few and large modules"
    assert_no_axe_violations(page, context="[data-lab]")

    # The instructor's page is in their view at that moment: presenter mode, Live on, a baseline pinned.
    assert presenting(page)
    expect(tools.live).to_be_checked()
    expect(tools.root.get_by_role("button", name="Pin as baseline")).to_have_attribute("aria-pressed", "true")
    assert "present" not in url and "live" not in url.lower() and "pin" not in url.lower()

    # A student opens it, in a browser of their own: on a laptop and on a phone.
    for viewport in ({"width": 1280, "height": 720}, {"width": 390, "height": 844}):
        student_page = new_page(server.url, viewport=viewport)
        student_page.goto(url.removeprefix(server.url.rstrip("/") + "/"))
        student = Tools(student_page)
        student.wait_ready()
        assert student.code() == tools.code()
        expect(student.logit(2)).to_have_value("8.0")
        expect(student.note).to_contain_text(SHARED_NOTE)
        # The lesson's view: not presenter mode (the page's own text size; on the laptop the sidebar's lists open
        # beside the lesson, the lab no wider than the lesson's column)…
        assert not presenting(student_page)
        expect(student.presenter).to_have_attribute("aria-pressed", "false")
        assert student_page.evaluate("getComputedStyle(document.documentElement).fontSize") == "16px"
        if viewport["width"] >= 1024:
            toc = student_page.get_by_role("navigation", name="On this page")
            expect(toc).to_be_visible()
            toc_box, lab_box = toc.bounding_box(), student.root.bounding_box()
            assert toc_box and lab_box and toc_box["x"] + toc_box["width"] <= lab_box["x"], "the sidebar beside it"
            assert lab_box["width"] < 0.75 * viewport["width"], f"the lab {lab_box} spans the screen"
        # …and none of the instructor's settings: Live off, no pinned baseline, nothing run.
        expect(student.live).not_to_be_checked()
        expect(student.root.get_by_role("button", name="Pin as baseline")).to_have_attribute("aria-pressed", "false")
        expect(student.root.get_by_role("group", name="Previous run: the pinned baseline")).to_have_count(0)
        assert student.runs() == 0
