"""The course's navigation inside an LMS: Previous and Next hand over to the LMS (a navigation request, then the LMS
launches the next lesson with a session of its own); the lessons' list only where the LMS takes a choice; no plain
link ever loads another lesson into the lesson's frame; the lesson launched alone; the index, an asset; and the
package's pages without an LMS, exactly as the site's."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import ConsoleMessage, Page, expect

from .scorm_lms import (
    BOOT_S,
    LESSON_1,
    LESSON_2,
    LESSON_3,
    Host,
    LMSServer,
    Package,
    choose,
    option_checked,
    scorm_package,
    serve_lms,
)

__all__ = ["scorm_package"]  # the session's package, a fixture


@pytest.fixture(scope="module")
def lms(scorm_package: Package) -> Iterator[LMSServer]:
    yield from serve_lms(scorm_package.folder)


@pytest.fixture
def host(new_page: Callable[..., Page], lms: LMSServer) -> Callable[..., Host]:
    lms.log.clear()  # the module's LMS: what this test's pages asked it for, whichever tests ran before
    return lambda **kwargs: Host(new_page(lms.url, **kwargs), lms)


def pager(frame: object, name: str) -> object:
    return frame.get_by_role("navigation", name="Previous and next lessons").get_by_role("link", name=re.compile(name))


def test_next_and_previous_ask_the_lms_which_launches_each_lesson_with_its_own_session(
        host: Callable[..., Host]) -> None:
    lms = host().open()
    frame = lms.lesson()
    expect(pager(frame, "^Previous lesson")).to_have_count(0)  # the first lesson: the LMS says there is none
    expect(frame.get_by_role("navigation", name="Lessons in this course")).to_be_hidden()  # no choice in this LMS
    expect(frame.locator(".site-header .course a[href]")).to_have_count(0)  # the course's title leads nowhere
    choose(frame, "predict", 1, 1)
    pager(frame, "^Next lesson").click()
    lms.page.wait_for_function(f"__lms.current === '{LESSON_2}'")
    frame = lms.lesson()
    expect(frame.get_by_role("heading", level=1)).to_have_text("Mixing Values")
    state = lms.lms_state()
    assert [launch["item"] for launch in state["launches"]] == [LESSON_1, LESSON_2]
    assert state["records"][LESSON_1]["cmi"]["exit"] == "suspend"
    assert state["records"][LESSON_1]["cmi"]["interactions"]["0"]["learner_response"] == "1"
    events = [e["event"] for e in state["log"] if e["item"] == LESSON_1]
    assert events[-2:] == ["Terminate", "SequenceNext"] or events[-2:] == ["SequenceNext", "Terminate"]
    expect(pager(frame, "^Previous lesson")).to_be_visible()
    pager(frame, "^Previous lesson").click()
    lms.page.wait_for_function(f"__lms.launches.length === 3 && __lms.current === '{LESSON_1}'")
    frame = lms.lesson()
    assert lms.lms_state()["launches"][-1] == {"item": LESSON_1, "entry": "resume"}
    assert option_checked(frame, "predict", 1, 1)
    # The lesson pages were only ever loaded by the LMS (one launch each), never by a link inside the frame.
    assert len(lms.lms.asked("/pkg/mixing-values.html")) == 1
    assert len(lms.lms.asked("/pkg/scaled-dot-product-attention.html")) == 2


def test_a_link_to_another_lesson_stays_in_the_lesson_and_says_where_to_go(host: Callable[..., Host]) -> None:
    lms = host().open()
    frame = lms.lesson()
    box = frame.get_by_role("search", name="Course")
    box.get_by_role("searchbox", name="Search the course").fill("split_heads")
    # Pagefind loads on the first search (its index and wasm, from the package): a busy machine takes a while.
    expect(box.get_by_role("status")).to_have_text(re.compile(r"^\d+ results? for “split_heads”"), timeout=BOOT_S * 1000)
    result = box.get_by_role("list", name="Search results").get_by_role("link").first
    expect(result).to_contain_text("Multi-Head Attention")
    result.click()
    expect(frame.get_by_role("status").filter(has_text="from your LMS's course menu")).to_have_text(
        re.compile(r"^Open “.*Multi-Head Attention.*” from your LMS's course menu\.$"))
    assert frame.url.endswith("/pkg/scaled-dot-product-attention.html")
    assert lms.lms.asked("/pkg/multi-head-attention.html") == []
    assert frame.evaluate("document.documentElement.dataset.lms") == "open"  # the session goes on
    choose(frame, "predict", 1, 1)
    lms.wait_commit("count(cmi) === 2", "the answer after the link")


def test_where_the_lms_takes_a_choice_the_list_of_lessons_asks_for_one(host: Callable[..., Host]) -> None:
    lms = host().open("choice=1")
    frame = lms.lesson()
    lessons = frame.get_by_role("navigation", name="Lessons in this course")
    if not lessons.is_visible():  # a narrow window folds the list
        frame.get_by_text("Lessons", exact=True).click()
    lessons.get_by_role("link", name="Multi-Head Attention").click()
    lms.page.wait_for_function(f"__lms.current === '{LESSON_3}'")
    expect(lms.lesson().get_by_role("heading", level=1)).to_have_text("Multi-Head Attention")
    assert [e["args"] for e in lms.lms_state()["log"] if e["event"] == "SequenceChoice"] == [[LESSON_3]]


def test_the_lesson_launched_alone_offers_no_way_out_of_it(host: Callable[..., Host]) -> None:
    lms = host().open(f"item={LESSON_2}&only=1")
    frame = lms.lesson()
    expect(frame.get_by_role("heading", level=1)).to_have_text("Mixing Values")
    expect(pager(frame, "lesson")).to_have_count(0)
    expect(frame.locator(".next-lesson-link")).to_have_count(0)
    expect(frame.get_by_role("navigation", name="Lessons in this course")).to_be_hidden()
    choose(frame, "predict", 1, 1)
    assert lms.wait_commit("count(cmi) === 2", "the answer")["completion_status"] == "incomplete"


def test_an_lms_that_answers_unknown_as_moodle_does_still_gets_previous_and_next(host: Callable[..., Host]) -> None:
    lms = host().open(f"item={LESSON_2}&nav=unknown")
    frame = lms.lesson()
    expect(pager(frame, "^Previous lesson")).to_be_visible()
    pager(frame, "^Next lesson").click()
    lms.page.wait_for_function(f"__lms.current === '{LESSON_3}'")
    expect(lms.lesson().get_by_role("heading", level=1)).to_have_text("Multi-Head Attention")


def test_the_index_is_an_asset_that_talks_to_no_lms(host: Callable[..., Host]) -> None:
    lms = host().open()
    lms.lesson()
    lms.page.get_by_role("button", name="Exit activity").click()
    lms.page.wait_for_function(f"__lms.records['{LESSON_1}']")
    before = len(lms.lms_state()["log"])
    lms.page.evaluate("document.getElementById('content').src = '/pkg/index.html'")
    frame = lms.frame
    expect(frame.get_by_role("heading", level=1)).to_have_text("Attention, one idea at a time")
    expect(frame.locator("[data-lesson-progress]").first).to_have_text("Not started")
    assert frame.evaluate("document.documentElement.dataset.lms") is None
    assert lms.lms_state()["log"][before:] == []  # no call of the API at all
    assert lms.lms.asked("sw.js") == []


def test_the_packages_pages_without_an_lms_are_the_sites(new_page: Callable[..., Page], lms: LMSServer) -> None:
    page = new_page(service_workers="allow")
    said: list[str] = []
    page.on("console", lambda m: said.append(f"{m.type}: {m.text}"))
    page.goto(f"{lms.url}/pkg/scaled-dot-product-attention.html")
    choose(page.main_frame, "predict", 1, 1)
    assert page.evaluate("document.documentElement.dataset.lms") is None
    page.wait_for_function("navigator.serviceWorker.getRegistration().then((r) => Boolean(r && r.active))",
                           timeout=60_000)  # the package's own service worker, as the site registers its own
    page.get_by_role("navigation", name="Previous and next lessons").get_by_role("link", name=re.compile("^Next")).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Mixing Values")  # a plain link, as on the site
    assert said == []


def test_the_sites_pages_have_no_lms_and_say_nothing(new_page: Callable[..., Page], server: object) -> None:
    page = new_page(server.url)  # type: ignore[attr-defined]
    said: list[ConsoleMessage] = []
    page.on("console", lambda m: said.append(m))
    page.goto("scaled-dot-product-attention.html")
    choose(page.main_frame, "predict", 1, 1)
    expect(page.locator("#quiz-predict [data-feedback]")).to_contain_text("Correct.")
    assert page.evaluate("document.documentElement.dataset.lms") is None
    assert [m.text for m in said] == []
