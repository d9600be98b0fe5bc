"""A quiz question as a learner answers it: choosing an option only selects it; "Check answer" or Enter commits it,
and only then does the page say whether it is right. Arrowing through the options never reveals the right one."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, Route, expect

from .helpers import LESSON_PAGE

pytestmark = pytest.mark.browser

QUESTION = "Does division by one positive common factor change which score is largest?"


def test_arrowing_through_the_options_reveals_nothing(page: Page) -> None:
    page.goto(LESSON_PAGE)
    question = page.get_by_role("group", name=re.compile(re.escape(QUESTION)))
    radios = question.get_by_role("radio")
    feedback = question.get_by_role("status", include_hidden=True)
    progress = page.locator("#quiz-quick-check").get_by_text(re.compile(r"questions answered$"))
    expect(progress).to_have_text("0 of 3 questions answered")

    radios.first.focus()
    page.keyboard.press("Space")
    expect(radios.first).to_be_checked()
    for n in range(1, radios.count()):
        page.keyboard.press("ArrowDown")
        expect(radios.nth(n)).to_be_checked()
        expect(feedback).to_have_text("")  # selected, not answered
    page.keyboard.press("ArrowUp")
    expect(feedback).to_have_text("")
    expect(progress).to_have_text("0 of 3 questions answered")
    assert page.evaluate("Object.keys(localStorage).filter((k) => k.includes(':quick-check:')).length") == 0

    # Enter on the selected option commits it.
    page.keyboard.press("Enter")
    expect(feedback).to_have_text(re.compile(r"^(Correct|Not quite)\. "))
    expect(progress).to_have_text("1 of 3 questions answered")


def test_check_answer_commits_and_another_selection_hides_the_verdict(page: Page) -> None:
    page.goto(LESSON_PAGE)
    question = page.get_by_role("group", name=re.compile(re.escape(QUESTION)))
    feedback = question.get_by_role("status", include_hidden=True)
    check = question.get_by_role("button", name="Check answer")

    check.click()
    expect(feedback).to_have_text("Choose an option first.")
    question.get_by_role("radio", name=re.compile("^Yes")).click()
    expect(feedback).to_have_text("")
    check.click()
    expect(feedback).to_contain_text("Not quite.")

    # Another option selected: the verdict was the other option's, so it goes until that one is checked.
    question.get_by_role("radio", name=re.compile("^No")).click()
    expect(feedback).to_have_text("")
    page.reload()
    expect(question.get_by_role("radio", name=re.compile("^Yes"))).to_be_checked()  # the committed answer comes back
    expect(feedback).to_contain_text("Not quite.")
    question.get_by_role("radio", name=re.compile("^No")).click()
    check.click()
    expect(feedback).to_contain_text("Correct.")


def test_a_choice_made_before_the_scripts_start_is_kept_and_a_return_brings_back_only_answers(page: Page) -> None:
    # The page's modules held back: the learner (on a slow phone) chooses while the page is still only HTML.
    held: list[Route] = []
    main = re.compile(r"/js/main\.js$")
    page.route(main, lambda route: held.append(route))
    page.goto(LESSON_PAGE, wait_until="commit")
    question = page.get_by_role("group", name=re.compile(re.escape(QUESTION)))
    chosen = question.get_by_role("radio", name=re.compile("^No"))
    chosen.check()
    expect(question.get_by_role("button", name="Check answer")).to_be_hidden()
    for _ in range(300):  # the page asks for main.js once the parser (or its preloader) reaches it
        if held:
            break
        page.wait_for_timeout(100)
    assert len(held) == 1, held
    held[0].fallback()  # on to the server
    page.unroute(main)
    check = question.get_by_role("button", name="Check answer")
    expect(check).to_be_visible()
    expect(chosen).to_be_checked()  # the quiz starts with the learner's choice, still only selected
    feedback = question.get_by_role("status", include_hidden=True)
    expect(feedback).to_have_text("")
    check.click()
    expect(feedback).to_contain_text("Correct.")

    # A selection not committed is not what the browser brings back on a return: only the committed answer is.
    question.get_by_role("radio", name=re.compile("^Yes")).check()
    other = page.locator("#quiz-quick-check").get_by_role("group").first
    assert other.get_attribute("data-question") != question.get_attribute("data-question")
    other.get_by_role("radio").first.check()
    page.evaluate("addEventListener('unload', () => {})")  # no back/forward cache: the page is loaded again
    page.get_by_role("link", name="Attention, one idea at a time").first.click()
    expect(page).to_have_url(re.compile(r"index\.html$"))
    page.go_back()
    expect(check).to_be_visible()
    expect(chosen).to_be_checked()
    expect(feedback).to_contain_text("Correct.")
    expect(other.locator("input:checked")).to_have_count(0)
