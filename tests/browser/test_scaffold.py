"""A lesson made by `lessonkit add` in Chromium, as its author first sees it: every example block works at once."""

from __future__ import annotations

import re
import runpy
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from course import LESSON, build, write_course
from playwright.sync_api import Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import assert_no_axe_violations, commit_answer
from .test_lab import RUN_TIMEOUT, Lab

TITLE = "A scaffolded lesson"


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A fixture course of one lesson plus the one `lessonkit add` makes: (site, the new lab file)."""
    root = write_course(tmp_path_factory.mktemp("scaffold"), {"first.md": LESSON})
    done = subprocess.run([sys.executable, "-m", "lessonkit", "add", TITLE], cwd=root, capture_output=True, text=True,
                          timeout=300, check=False)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout.splitlines()[1] == ("created lab/a_scaffolded_lesson.py (the code its lab runs; checks may "
                                           "import it as a_scaffolded_lesson)")
    return build(root), root / "lab" / "a_scaffolded_lesson.py"


def test_the_new_lesson_works_in_the_page(new_page: Callable[..., Page], scaffolded: tuple[Path, Path],
                                          start_test_server: Callable[..., ServerHandle]) -> None:
    site, lab_file = scaffolded
    server = start_test_server(site, isolated=True)
    page = new_page(server.url)
    page.goto("index.html")
    page.get_by_role("link", name=TITLE).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(TITLE)
    assert_no_axe_violations(page)

    # The widget: another option shows that option's table and caption, computed by the lab's table().
    shares = runpy.run_path(str(lab_file))["shares"]  # the widget file's table() caption: the largest share
    control = page.get_by_role("group", name=re.compile("^Power"))
    control.get_by_role("radio", name="2", exact=True).check()
    expect(page.get_by_text(re.compile(r"^p = 2: the largest share is "))).to_have_text(
        f"p = 2: the largest share is {max(shares(2)):.1%}")

    # The quiz answers its Check, saying why.
    question = page.get_by_role("group", name=re.compile("What happens to the shares"))
    commit_answer(question.get_by_role("radio", name=re.compile("^The largest value takes more")))
    expect(question.get_by_role("status")).to_contain_text("Correct.")

    # The explain block keeps a draft.
    expect(page.get_by_role("textbox", name="Your explanation")).to_be_editable()

    # The lab runs its file and draws its chart, as the build did.
    lab = Lab(page)
    built = lab.output_text()
    assert built.strip()
    lab.wait_ready()
    lab.run(timeout=RUN_TIMEOUT / 1000)
    assert lab.output_text() == built
    expect(lab.current.get_by_role("img", name=re.compile(r"^Chart of this run\. Share of each item"))).to_be_visible()
    matrix = lab.current.get_by_role("img", name=re.compile(r"^Chart of this run\. Shares as a matrix\. Heatmap of 3 rows"))
    expect(matrix).to_have_attribute("aria-label", re.compile(r"Power p=2: Item 1 3\.3%, .* Item 4 53\.3%\.$"))
