"""The lesson in Chromium, as a learner uses it: read, switch head dims, answer, reload, explain, print."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from browser.helpers import LESSON_PAGE, assert_no_axe_violations, commit_answer
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]

SECTIONS = [
    "Goal", "The problem: wider heads can make softmax too sharp", "Hold the logits fixed and isolate the scaling effect",
    "Predict", "Why the square root appears", "Compare raw and scaled scores in the Lab",
    "Scaling does not reorder the keys", "Quick Check", "Explain it back", "Key Takeaways", "Next Lesson", "References",
]
HEAD_DIMS = {
    "1": ("Divide by √1 = 1.00", ["0.000", "4.000", "2.000"], ["1.6%", "86.7%", "11.7%"]),
    "4": ("Divide by √4 = 2.00", ["0.000", "2.000", "1.000"], ["9.0%", "66.5%", "24.5%"]),
    "16": ("Divide by √16 = 4.00", ["0.000", "1.000", "0.500"], ["18.6%", "50.6%", "30.7%"]),
}
Q1 = "Why does the standard attention denominator use"
Q2 = "Does division by one positive common factor change which score is largest?"
Q3 = "Why avoid unnecessarily huge logits?"
PREDICT = "If every logit is multiplied by a large positive constant"
QUICK_RIGHT = {
    Q1: "Because the typical dot-product standard deviation grows roughly like the square root",
    Q2: "No; dividing everything by the same positive number keeps the order",
    Q3: "They can make softmax extremely saturated and gradients less informative",
}
QUICK_WRONG = {
    Q1: "Because scaling is meant to compensate for sequence length rather than feature width",
    Q2: "Yes, if some original scores are negative",
    Q3: "They make the causal mask less strict",
}


def group(page: Page, question: str):
    """The radio group of a question, found by its legend."""
    return page.get_by_role("group", name=re.compile(re.escape(question)))


def choose(page: Page, question: str, option: str) -> None:
    """Pick an option by its visible label and check it."""
    commit_answer(group(page, question).get_by_role("radio", name=re.compile("^" + re.escape(option))))


def feedback(page: Page, question: str):
    """The feedback line under a question."""
    return group(page, question).get_by_role("status")


def table_rows(page: Page) -> list[list[str]]:
    """The widget table's body cells as text."""
    return page.locator('[data-block="widget"] tbody[data-widget-rows] tr').evaluate_all(
        "rows => rows.map(r => [...r.cells].map(c => c.textContent.trim()))")


def test_every_section_is_readable(page: Page) -> None:
    """All twelve sections, in order, plus the formula rendered as MathML with a real box."""
    page.goto(LESSON_PAGE)
    expect(page.get_by_role("heading", level=1)).to_have_text("Scaled Dot-Product Attention")
    headings = page.get_by_role("heading", level=2).all_text_contents()
    assert [h for h in headings if h.lower() != "on this page"] == SECTIONS
    shown = page.locator("math:visible")
    assert shown.count() >= 15
    for math in shown.all():
        box = math.bounding_box()
        assert box and box["width"] > 0 and box["height"] > 0
    formula = page.locator(".math-display math").first
    assert formula.bounding_box()["height"] > 30  # a real fraction, not flat text
    expect(page.get_by_text("The division turns the score “volume” down; it does not reorder the scores.")).to_be_visible()
    expect(page.get_by_role("link", name="Attention Is All You Need")).to_have_attribute("href", re.compile("arxiv"))


def test_parts_skipped_by_the_first_paint_are_laid_out_right_after(page: Page) -> None:
    """Parts below the first screen paint lazily, then each is laid out once, so a jump to an element lands on it."""
    page.goto(LESSON_PAGE)
    expect(page.locator("section.part")).to_have_count(len(SECTIONS))
    # One part per idle slice, each within a second at worst (requestIdleCallback's timeout): 12 s on a busy machine.
    expect(page.locator("section.part:not(.part-shown)")).to_have_count(0, timeout=15_000)
    # Scrolled to by script, as test tools and assistive technology do it (estimated heights made this overshoot).
    lab = page.get_by_role("region", name=re.compile(r"^Python lab"))
    lab.scroll_into_view_if_needed()
    page.wait_for_timeout(300)  # a frame or two: a part that changed height would move it now
    box = lab.bounding_box()
    height = page.viewport_size["height"]
    assert box and box["y"] < height and box["y"] + box["height"] > 0, box


def test_head_dimension_control_updates_the_table(page: Page) -> None:
    """Default 4 is pre-rendered; choosing 1 and 16 updates caption, scaled logits and probabilities."""
    page.goto(LESSON_PAGE)
    control = page.get_by_role("group", name=re.compile("^Head dimension"))
    expect(control.get_by_role("radio", name="4")).to_be_checked()
    headers = page.locator('[data-block="widget"] thead th').all_text_contents()
    assert headers == ["Position", "Fixed raw logit", "Scaled logit", "Softmax probability"]
    for dim in ["1", "16", "4"]:
        control.get_by_role("radio", name=dim, exact=True).check()
        caption, scaled, probs = HEAD_DIMS[dim]
        expect(page.locator("[data-widget-caption]")).to_have_text(caption)
        rows = table_rows(page)
        assert [r[2] for r in rows] == scaled
        assert [r[3] for r in rows] == probs
        assert [r[1] for r in rows] == ["0.000", "4.000", "2.000"]
    fills = page.locator('[data-block="widget"] [data-widget-rows] .fill')
    widths = fills.evaluate_all("els => els.map(e => e.style.inlineSize)")
    # the bars are as wide as the probabilities of the last choice (4)
    assert [f"{float(w.rstrip('%')):.1f}%" for w in widths] == HEAD_DIMS["4"][2]


def test_head_dimension_is_keyboard_operable(page: Page) -> None:
    """Arrow keys move between 1, 4 and 16 and the table follows."""
    page.goto(LESSON_PAGE)
    control = page.get_by_role("group", name=re.compile("^Head dimension"))
    control.get_by_role("radio", name="4").focus()
    page.keyboard.press("ArrowRight")
    expect(control.get_by_role("radio", name="16")).to_be_checked()
    expect(page.locator("[data-widget-caption]")).to_have_text("Divide by √16 = 4.00")


def test_predict_feedback_for_every_option(page: Page) -> None:
    """Each option says at once whether it is right, and why."""
    page.goto(LESSON_PAGE)
    choose(page, PREDICT, "It becomes flatter")
    expect(feedback(page, PREDICT)).to_contain_text("Not quite.")
    expect(feedback(page, PREDICT)).to_contain_text("Multiplying by a large constant does the opposite")
    choose(page, PREDICT, "It is exactly unchanged")
    expect(feedback(page, PREDICT)).to_contain_text("Not quite.")
    expect(feedback(page, PREDICT)).to_contain_text("not when you multiply by one")
    choose(page, PREDICT, "It becomes sharper")
    expect(feedback(page, PREDICT)).to_contain_text("Correct.")
    expect(feedback(page, PREDICT)).to_contain_text("widens every gap")


def test_quick_check_counts_keeps_and_resets(page: Page) -> None:
    """Wrong then right answers, the counter, answers kept over a reload, and Reset answers."""
    page.goto(LESSON_PAGE)
    progress = page.get_by_text(re.compile(r"^\d of 3 questions answered$"))
    expect(progress).to_have_text("0 of 3 questions answered")
    for n, (question, option) in enumerate(QUICK_WRONG.items(), 1):
        choose(page, question, option)
        expect(feedback(page, question)).to_contain_text("Not quite.")
        expect(progress).to_have_text(f"{n} of 3 questions answered")
    for question, option in QUICK_RIGHT.items():
        choose(page, question, option)
        expect(feedback(page, question)).to_contain_text("Correct.")
    expect(progress).to_have_text("3 of 3 questions answered")
    choose(page, PREDICT, "It becomes sharper")

    page.reload()
    expect(progress).to_have_text("3 of 3 questions answered")
    for question, option in QUICK_RIGHT.items():
        expect(group(page, question).get_by_role("radio", name=re.compile("^" + re.escape(option)))).to_be_checked()
        expect(feedback(page, question)).to_contain_text("Correct.")
    expect(feedback(page, PREDICT)).to_contain_text("Correct.")

    page.locator("#quiz-quick-check").get_by_role("button", name="Reset answers").click()
    expect(progress).to_have_text("0 of 3 questions answered")
    page.reload()
    expect(progress).to_have_text("0 of 3 questions answered")
    expect(feedback(page, PREDICT)).to_contain_text("Correct.")  # the other quiz keeps its answer


def test_quiz_is_keyboard_operable(page: Page) -> None:
    """Tab into a question, arrow to an option (no verdict yet), Enter: feedback without a mouse."""
    page.goto(LESSON_PAGE)
    first = group(page, Q2).get_by_role("radio").first
    first.focus()
    page.keyboard.press("ArrowDown")
    expect(group(page, Q2).get_by_role("radio").nth(1)).to_be_checked()
    expect(group(page, Q2).get_by_role("status", include_hidden=True)).to_have_text("")
    page.keyboard.press("Enter")
    expect(feedback(page, Q2)).to_contain_text("Correct.")


def test_explain_it_back_keeps_the_draft(page: Page) -> None:
    """The draft survives a reload; the guide reveals both claims with their verdicts."""
    page.goto(LESSON_PAGE)
    box = page.get_by_role("textbox", name="Your explanation")
    box.fill("Scaling keeps the ranking; it only turns the volume down.")
    expect(page.get_by_text("Draft saved in this browser.")).to_be_visible()
    page.reload()
    expect(box).to_have_value("Scaling keeps the ranking; it only turns the volume down.")
    guide = page.locator("details.guide")
    expect(guide.get_by_text("not correct; ranking is preserved.")).to_be_hidden()
    page.get_by_text("Compare with the guide").click()
    expect(guide.get_by_text("not correct; ranking is preserved.")).to_be_visible()
    expect(guide.get_by_text("the intended idea.")).to_be_visible()


def test_storage_that_throws_never_breaks_the_page(new_page: Callable[..., Page], server) -> None:
    """localStorage disabled: the page works and says progress can't be saved."""
    page = new_page(server.url)
    page.add_init_script("Storage.prototype.setItem = () => { throw new DOMException('full', 'QuotaExceededError'); };")
    page.goto(LESSON_PAGE)
    expect(page.get_by_text(re.compile("Progress can’t be saved in this browser"))).to_be_visible()
    choose(page, Q3, QUICK_RIGHT[Q3])
    expect(feedback(page, Q3)).to_contain_text("Correct.")
    expect(page.get_by_text("1 of 3 questions answered")).to_be_visible()


def test_corrupt_storage_is_ignored(new_page: Callable[..., Page], server) -> None:
    """A garbled saved entry is dropped, not fatal."""
    page = new_page(server.url)
    page.add_init_script("""
      for (const k of ['quick-check', 'predict', 'explain-it-back'])
        for (let i = 0; i < 1; i++) localStorage.setItem('lessonkit:v1:scaled-dot-product-attention:' + k, '{oops');
    """)
    page.goto(LESSON_PAGE)
    expect(page.get_by_text("0 of 3 questions answered")).to_be_visible()


def test_readable_without_javascript(new_page: Callable[..., Page], server) -> None:
    """With JavaScript off: all text, the default widget state, the lab's build-time output, answers on demand."""
    page = new_page(server.url, java_script_enabled=False)
    page.goto(LESSON_PAGE)
    assert [h for h in page.get_by_role("heading", level=2).all_text_contents() if h.lower() != "on this page"] == SECTIONS
    assert [r[3] for r in table_rows(page)] == ["9.0%", "66.5%", "24.5%"]
    expect(page.get_by_text("head_dim=16").first).to_be_visible()
    page.locator("#quiz-predict").get_by_text("Show the answer").click()
    expect(page.locator("#quiz-predict").get_by_text("It becomes sharper —")).to_be_visible()


@pytest.mark.parametrize("width", [320, 1280])
def test_no_horizontal_scrolling(new_page: Callable[..., Page], server, width: int) -> None:
    """Responsive from 320 px: nothing wider than the viewport."""
    page = new_page(server.url, viewport={"width": width, "height": 800})
    page.goto(LESSON_PAGE)
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0


@pytest.mark.parametrize(("scheme", "width"), [("light", 1280), ("dark", 1280), ("light", 320), ("dark", 320)])
def test_axe_finds_no_violations(new_page: Callable[..., Page], server, scheme: str, width: int) -> None:
    """WCAG 2.2 AA in light and dark mode, wide and at 320 px, before and after answering."""
    page = new_page(server.url, color_scheme=scheme, viewport={"width": width, "height": 900})
    page.goto(LESSON_PAGE)
    assert_no_axe_violations(page)
    choose(page, PREDICT, "It becomes flatter")
    choose(page, Q2, QUICK_RIGHT[Q2])
    page.get_by_text("Compare with the guide").click()
    assert_no_axe_violations(page)


def test_dark_mode_changes_colours(new_page: Callable[..., Page], server) -> None:
    """prefers-color-scheme: dark gives a dark background."""
    page = new_page(server.url, color_scheme="dark")
    page.goto(LESSON_PAGE)
    bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert bg == "rgb(21, 23, 27)"


def test_print_hides_controls_and_keeps_answers(page: Page) -> None:
    """Print media: buttons gone, content and the chosen answer kept."""
    page.goto(LESSON_PAGE)
    choose(page, PREDICT, "It becomes sharper")
    page.emulate_media(media="print")
    expect(page.get_by_role("button", name="Reset answers").first).to_be_hidden()
    expect(page.get_by_role("navigation", name="On this page")).to_be_hidden()
    chosen = group(page, PREDICT).locator(".option:has(input:checked)")
    assert chosen.evaluate("e => getComputedStyle(e).fontWeight") == "700"
    expect(page.get_by_role("heading", name="Key Takeaways")).to_be_visible()


def test_no_render_blocking_script(page: Page) -> None:
    """Scripts are modules (deferred); the head has none that blocks parsing."""
    page.goto(LESSON_PAGE)
    blocking = page.evaluate("""[...document.scripts].filter(s => s.src && s.type !== 'module' && !s.defer && !s.async)
                                .map(s => s.src)""")
    assert blocking == []


def test_html_validates(site_dir: Path) -> None:
    """The built pages pass html-validate's recommended rules (inline style allowed for the bars)."""
    result = subprocess.run(["node_modules/.bin/html-validate", "--config", ".htmlvalidate.json",
                             str(site_dir / LESSON_PAGE), str(site_dir / "index.html")], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
