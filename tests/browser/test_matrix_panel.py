"""The values panel for a matrix in Chromium: a grid of labelled number inputs for the lab's `scores = [[...], ...]`,
edited by keyboard, rows and columns added and removed within min and max, Live re-running after each edit, the code
rewritten one row a line as the author wrote it — on the causal-masking fixture course with a panel declared."""

from __future__ import annotations

import re
from collections.abc import Callable

from course import MASK_LAB, MASK_WIDGET, build, mask_with_panel, write_course
from playwright.sync_api import Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import assert_no_axe_violations, wait_until
from .test_lab import RUN_TIMEOUT, Lab

LESSON = mask_with_panel(2, 5)


def test_the_matrix_panel_edits_the_scores_and_live_reruns(tmp_path, start_test_server: Callable[..., ServerHandle],
                                                          new_page: Callable[..., Page]) -> None:
    site = build(write_course(tmp_path, {"masking.md": LESSON}, {"masking.py": MASK_LAB,
                                                                 "masking_widget.py": MASK_WIDGET}))
    server = start_test_server(site, isolated=True)
    page = new_page(server.url, viewport={"width": 390, "height": 900})
    page.goto("masking.html")
    lab = Lab(page)
    lab.wait_ready()
    panel = lab.root.get_by_role("group", name="Scores: one row per query")
    cell = panel.get_by_role("spinbutton", name="cat, The", exact=True)
    expect(cell).to_have_value("0.5")
    assert panel.get_by_role("spinbutton").count() == 16
    assert panel.get_by_role("columnheader").all_text_contents() == ["The", "cat", "sat", "down"]
    assert panel.get_by_role("rowheader").all_text_contents() == ["The", "cat", "sat", "down"]

    controller = "document.querySelector('[data-lab]').labController"
    runs = lambda: page.evaluate(f"{controller}.runs.length")  # noqa: E731
    lab.root.get_by_role("checkbox", name="Live: re-run after each edit").check()
    cell.fill("3")  # by keyboard: typed into the labelled input
    wait_until(lambda: runs() >= 1, page=page, timeout=RUN_TIMEOUT / 1000, message="a Live run")
    code = page.evaluate(f"{controller}.getCode()")
    assert "scores = [\n    [2.0, 1.0, 0.5, -1.0],\n    [3.0, 2.0, 1.0, 0.0],\n" in code  # one row a line, as written
    expect(lab.current.get_by_role("img", name=re.compile(r"^Chart of this run\. Masked scores\."))).to_have_attribute(
        "aria-label", re.compile(r"Query cat: Key The 3, Key cat 2, Key sat masked"))

    # Rows and columns, within min and max; the new cells are 0 and labelled past the declared labels.
    panel.get_by_role("button", name="Add column").click()
    expect(panel.get_by_role("spinbutton", name="The, Column 5", exact=True)).to_have_value("0.0")
    add_column = panel.get_by_role("button", name="Add column")
    expect(add_column).to_have_attribute("aria-disabled", "true")  # max: 5
    panel.get_by_role("button", name="Remove row").click()
    panel.get_by_role("button", name="Remove row").click()
    expect(panel.get_by_role("button", name="Remove row")).to_have_attribute("aria-disabled", "true")  # min: 2
    assert panel.get_by_role("spinbutton").count() == 2 * 5
    code = page.evaluate(f"{controller}.getCode()")
    assert "scores = [\n    [2.0, 1.0, 0.5, -1.0, 0.0],\n    [3.0, 2.0, 1.0, 0.0, 0.0],\n]\n" in code

    # The code edited by hand: the grid follows; a ragged matrix turns the panel off, saying why.
    lab.editor.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(code.replace("[3.0, 2.0, 1.0, 0.0, 0.0]", "[3.0, 2.0]"))
    expect(panel).to_contain_text("This panel is off")
    expect(panel.get_by_role("spinbutton")).to_have_count(0)

    # A matrix past the panel's max rows and columns: off, saying its size, with no grid of 10,000 inputs.
    big = "scores = [\n" + "".join("    [" + ", ".join(["1.0"] * 100) + "],\n" for _ in range(100)) + "]\n"
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(big)
    expect(panel).to_contain_text("This panel is off: scores has 100 rows of 100 numbers, more than the 5 rows and "
                                  "columns it shows. Reset code brings it back.")
    expect(panel.get_by_role("spinbutton")).to_have_count(0)
    assert_no_axe_violations(page, context="[data-lab]")
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
