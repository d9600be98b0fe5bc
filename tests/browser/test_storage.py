"""Saved progress as untrusted input: entries of the wrong shape, far too large, from an older version of a block, or
written by another tab never stop a part of the page from starting; each discarded entry is named on the console."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from playwright.sync_api import ConsoleMessage, Locator, Page, Route, expect

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE, PageErrors, commit_answer, wait_until
from .test_lab import Lab

PREFIX = "lessonkit:v1"
FEEDBACK = re.compile(r"^(Correct|Not quite)\. ")


@dataclass(frozen=True)
class Big:
    """A stored JSON string of `chars` characters (made in the page: too large to send from the test)."""

    chars: int

    def js(self) -> str:
        """The JavaScript expression for the stored text."""
        return f"'\"' + 'x'.repeat({self.chars}) + '\"'"


# The text stored in each kind of entry: a quiz's answers, an "Explain it back" draft, a lab's saved code.
KINDS = ("quiz", "explain", "lab")
# Each case stores these in the entries it names ("*": every kind). None of them is a shape the page writes.
CASES: dict[str, dict[str, str | Big]] = {
    "string 12": {"*": '"12"'},
    "string 1": {"*": '"1"'},
    "number": {"*": "123"},
    "boolean": {"*": "true"},
    "null": {"*": "null"},
    "array": {"*": '["1", "2"]'},
    "not json": {"*": "{oops"},
    "near miss": {  # the right container, the wrong contents
        "quiz": '{"1": 1}',
        "explain": '{"text": 5, "savedAt": 1}',
        "lab": '{"schema": 1, "base": "0123456789abcdef", "code": 5, "savedAt": null}',
    },
    "unknown parts": {  # a question or option the quiz does not have, a field the page never writes
        "quiz": '{"1": "99", "7": "1"}',
        "explain": '{"text": "hello", "savedAt": 1, "html": "<b>hi</b>"}',
        "lab": '{"schema": 1, "base": "x", "code": "print(1)", "earlier": "oops"}',
    },
    "future schema": {"lab": '{"schema": 2, "base": "x", "code": "print(1)"}'},
    "over 1 MB each": {"*": Big(1_250_000)},  # four of these fill the browser's 5 M character quota
    "5 MB": {"quiz": Big(5_000_000)},  # the quota allows one such entry: the first quiz's
}

# Stores the case's values before the page's modules run (parsing done, deferred modules not yet evaluated), under
# the keys the page's own islands name, once per tab; records the keys in sessionStorage "planted".
PLANT_JS = """
document.addEventListener("readystatechange", () => {
  if (document.readyState !== "interactive" || sessionStorage.getItem("planted")) return;
  const values = %s;
  const lesson = JSON.parse(document.getElementById("lesson-data").textContent).lesson;
  const configs = (sel) => [...document.querySelectorAll(sel)].map((el) => JSON.parse(el.textContent));
  const keys = [
    ...configs('[data-block="quiz"] > [data-block-island]').map((c) => ["quiz", `%s:${lesson}:${c.id}:${c.version}`]),
    ...configs('[data-block="explain"] > [data-block-island]').map((c) => ["explain", `%s:${lesson}:${c.id}:${c.version}`]),
    ...configs("[data-lab-config]").map((c) => ["lab", `%s:${lesson}:${c.id}:code`]),
  ];
  const planted = [];
  for (const [kind, key] of keys) {
    if (!(kind in values) || (values.once && planted.some(([k]) => k === kind))) continue;
    localStorage.setItem(key, values[kind]());
    planted.push([kind, key]);
  }
  sessionStorage.setItem("planted", JSON.stringify(planted.map(([, key]) => key)));
});
"""


def plant(page: Page, values: dict[str, str | Big]) -> None:
    """Store `values` (by kind, "*" for all) in the page's entries on its first load in this tab."""
    once = any(isinstance(v, Big) and v.chars > 2_000_000 for v in values.values())  # one entry fits, not four
    by_kind = {kind: values.get(kind, values.get("*")) for kind in KINDS}
    entries = [f"{json.dumps(kind)}: () => {v.js() if isinstance(v, Big) else json.dumps(v)}"
               for kind, v in by_kind.items() if v is not None]
    if once:
        entries.append("once: true")
    page.add_init_script(PLANT_JS % ("{" + ", ".join(entries) + "}", PREFIX, PREFIX, PREFIX))


def planted(page: Page) -> list[str]:
    """The keys PLANT_JS wrote."""
    return json.loads(page.evaluate("sessionStorage.getItem('planted') || '[]'"))


def watch_warnings(page: Page) -> list[str]:
    """Console warnings of this page, as they come."""
    seen: list[str] = []

    def on_console(msg: ConsoleMessage) -> None:
        if msg.type == "warning":
            seen.append(msg.text)

    page.on("console", on_console)
    return seen


def quizzes(page: Page) -> list[Locator]:
    """Every quiz on the page."""
    return page.locator('[data-block="quiz"]').all()


def answer_every_question(quiz: Locator) -> None:
    """Check the first option of each question: every one says whether it is right."""
    for question in quiz.get_by_role("group").all():
        commit_answer(question.get_by_role("radio").first)
        expect(question.get_by_role("status")).to_have_text(FEEDBACK)


def assert_quizzes_work(page: Page) -> None:
    """Every quiz starts empty, answers with feedback, and Reset answers clears it."""
    for quiz in quizzes(page):
        questions = quiz.get_by_role("group").all()
        for question in questions:
            expect(question.get_by_role("radio").first).not_to_be_checked()
        answer_every_question(quiz)
        progress = quiz.get_by_text(re.compile(r"^\d+ of \d+ questions answered$"))
        if len(questions) > 1:
            expect(progress).to_have_text(f"{len(questions)} of {len(questions)} questions answered")
        quiz.get_by_role("button", name="Reset answers").click()
        for question in questions:
            expect(question.get_by_role("status", include_hidden=True)).to_have_text("")
            for radio in question.get_by_role("radio").all():
                expect(radio).not_to_be_checked()
        if len(questions) > 1:
            expect(progress).to_have_text(f"0 of {len(questions)} questions answered")


@pytest.mark.parametrize("case", list(CASES))
def test_saved_progress_of_the_wrong_shape_is_discarded_and_every_part_starts(
    new_page: Callable[..., Page], server: ServerHandle, case: str
) -> None:
    page = new_page(server.url)
    warnings = watch_warnings(page)
    plant(page, CASES[case])
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    keys = planted(page)
    assert keys, "nothing was planted"
    # Each discarded entry is named once on the console, and gone from storage.
    for key in keys:
        wait_until(lambda key=key: any(f'"{key}"' in w for w in warnings), page=page, message=f"a warning naming {key}")
        assert sum(f'"{key}"' in w for w in warnings) == 1, warnings
        assert page.evaluate("(key) => localStorage.getItem(key)", key) is None
    # Every part works: the quizzes, the draft, the lab (with the lesson's own code).
    assert_quizzes_work(page)
    box = page.get_by_role("textbox", name="Your explanation")
    expect(box).to_have_value("")
    box.fill("Dividing by one number keeps the order.")
    expect(page.get_by_text("Draft saved in this browser.")).to_be_visible()
    lab.wait_ready()
    assert lab.code() == page.evaluate("document.querySelector('[data-lab-code]').defaultValue")
    lab.run("print(6 * 7)")
    assert lab.output_text() == "42\n"


def test_entries_from_an_older_version_of_a_block_are_removed(new_page: Callable[..., Page],
                                                             server: ServerHandle) -> None:
    """An entry saved before a block's content changed is never read again: it is removed, not left to fill quota."""
    page = new_page(server.url)
    page.goto(LESSON_PAGE)
    quiz = quizzes(page)[0]
    answer_every_question(quiz)
    expect(page.get_by_role("textbox", name="Your explanation")).to_be_editable()
    # The lesson's entries (the course's Continue entry aside).
    lesson_keys = f"Object.keys(localStorage).filter((k) => k.startsWith('{PREFIX}:') && k !== '{PREFIX}:course:last')"
    current = page.evaluate(lesson_keys)
    assert len(current) == 1
    lesson_block = current[0].rsplit(":", 1)[0]
    stale = [f"{lesson_block}:0123456789ab", f"{lesson_block}:old"]
    for key in stale:
        page.evaluate("([key, value]) => localStorage.setItem(key, value)", [key, "x" * 100_000])
    page.reload()
    expect(quiz.get_by_role("group").first.get_by_role("status")).to_have_text(FEEDBACK)  # kept
    assert page.evaluate(lesson_keys) == current


def test_another_tab_answers_show_here_and_its_bad_values_are_discarded(new_page: Callable[..., Page],
                                                                        server: ServerHandle) -> None:
    """Two tabs of the same lesson: answers and drafts follow each other; a bad value written there is ignored here."""
    here = new_page(server.url)
    warnings = watch_warnings(here)
    here.goto(LESSON_PAGE)
    there = here.context.new_page()
    there.goto(LESSON_PAGE)
    quiz_here, quiz_there = quizzes(here)[0], quizzes(there)[0]
    question_here = quiz_here.get_by_role("group").first

    answer_every_question(quiz_there)
    expect(question_here.get_by_role("status")).to_have_text(FEEDBACK)
    expect(question_here.get_by_role("radio").first).to_be_checked()
    quiz_there.get_by_role("button", name="Reset answers").click()
    expect(question_here.get_by_role("status", include_hidden=True)).to_have_text("")
    expect(question_here.get_by_role("radio").first).not_to_be_checked()

    there.get_by_role("textbox", name="Your explanation").fill("Written in the other tab.")
    expect(there.get_by_text("Draft saved in this browser.")).to_be_visible()
    expect(here.get_by_role("textbox", name="Your explanation")).to_have_value("Written in the other tab.")

    key = here.evaluate(f"""() => {{
        const lesson = JSON.parse(document.getElementById("lesson-data").textContent).lesson;
        const c = JSON.parse(document.querySelector('[data-block="quiz"] > [data-block-island]').textContent);
        return `{PREFIX}:${{lesson}}:${{c.id}}:${{c.version}}`;
    }}""")
    there.evaluate("(key) => localStorage.setItem(key, '\"12\"')", key)
    wait_until(lambda: any(f'"{key}"' in w for w in warnings), page=here, message="a warning naming the key")
    answer_every_question(quiz_here)  # still answers, and saves a good value over the bad one
    assert json.loads(here.evaluate("(key) => localStorage.getItem(key)", key))


def test_a_part_that_fails_to_start_leaves_the_others_and_the_lab_working(
    new_page: Callable[..., Page], server: ServerHandle, page_errors: PageErrors
) -> None:
    page_errors.expect("quiz: could not start")
    page = new_page(server.url)

    def break_first_quiz(route: Route) -> None:
        response = route.fetch()
        first_quiz = 'data-block="quiz">\n  <script type="application/json" data-block-island>{'
        route.fulfill(response=response, body=response.text().replace(first_quiz, first_quiz + "oops", 1))

    page.route(f"**/{LESSON_PAGE}", break_first_quiz)
    page.goto(LESSON_PAGE)
    lab = Lab(page)
    first, *others = quizzes(page)
    expect(first.get_by_role("button", name="Reset answers")).to_be_hidden()  # never started
    assert others, "the page needs a second quiz for this test"
    for quiz in others:
        answer_every_question(quiz)
    box = page.get_by_role("textbox", name="Your explanation")
    box.fill("still saved")
    expect(page.get_by_text("Draft saved in this browser.")).to_be_visible()
    lab.wait_ready()
    lab.run("print(6 * 7)")
    assert lab.output_text() == "42\n"
    assert any("quiz: could not start" in text for _, text in page_errors.entries)
