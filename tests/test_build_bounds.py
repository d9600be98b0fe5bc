"""Markdown that would take the converter minutes: refused at its line before it is converted (lessonkit.content.bounds), and
the time limit behind those checks."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from course import LESSON, QUIZ, build, line_of, problems, write_course

from lessonkit.content import bounds

TICKS = ("a run of {n} backticks on this line, more than the 16 in a row a lesson may have (markdown slows to minutes "
         "on long runs) — shorten it: a code span needs one to three")
LINKS = ('{n} link openings from this line to the end of its paragraph never close (a "[" without its "]", or a "](" '
         'without its ")"), more than the 32 a paragraph may have (markdown slows to minutes on them) — close each '
         "link, or write a bracket that is only text as \\[")
SLOW = ("converting this lesson's markdown took more than {s} s, so the build stopped it (a whole lesson converts in "
        "well under a second) — look from this line on for text markdown chokes on, such as a long run of one "
        "punctuation character, and shorten it")


def lesson_with(text: str) -> str:
    return f"{LESSON}\n{text}\n"


def test_the_hostile_lessons_end_the_build_with_their_lines(tmp_path: Path) -> None:
    """2,000 and 30,000 backticks on a line, and 20,000 × "[a](": minutes of Python-Markdown each (the last still
    running after three), refused by `build.py` with their lines instead. The timeout only keeps a regression from
    hanging the suite; nothing here is timed."""
    texts = {"ticks.md": lesson_with("`" * 2000), "more-ticks.md": lesson_with("`" * 30000),
             "links.md": lesson_with("[a](" * 20000)}
    write_course(tmp_path, texts)
    result = subprocess.run([sys.executable, "-m", "lessonkit", "build", "--course", str(tmp_path),
                             "--out", str(tmp_path / "site")],
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 1, result.stderr
    lines = [line.replace(f"{tmp_path}/", "") for line in result.stderr.splitlines()]
    at = {name: line_of(text, "`" if "ticks" in name else "[a](") for name, text in texts.items()}
    assert lines == [
        f"lesson/links.md:{at['links.md']}: {LINKS.format(n='20,000')}",
        f"lesson/more-ticks.md:{at['more-ticks.md']}: {TICKS.format(n='30,000')}",
        f"lesson/ticks.md:{at['ticks.md']}: {TICKS.format(n='2,000')}",
        "build failed: 3 problems; site/ was left as it was",
    ]
    assert not (tmp_path / "site").exists()


def test_runs_of_backticks_up_to_the_limit_build(tmp_path: Path) -> None:
    """Code spans of one to three backticks, and a run of 16, are fine; 17 are not, in prose and in a block."""
    fine = lesson_with("A `span`, a ``span with ` inside``, ```three```, and " + "`" * 16 + " alone.")
    write_course(tmp_path / "fine", {"a.md": fine})
    assert "<code>span with ` inside</code>" in (build(tmp_path / "fine") / "a.html").read_text()
    in_quiz = QUIZ.replace("why: WHY", 'why: "See ' + "`" * 17 + '"')
    write_course(tmp_path / "bad", {"a.md": lesson_with("Text " + "`" * 17), "q.md": in_quiz})
    assert problems(tmp_path / "bad") == [
        f"lesson/a.md:{line_of(lesson_with('Text '), 'Text ')}: {TICKS.format(n=17)}",
        f"lesson/q.md:{line_of(in_quiz, 'See `')}: {TICKS.format(n=17)}",
    ]


def test_unclosed_link_openings_are_counted_per_paragraph_from_the_first(tmp_path: Path) -> None:
    """One "[" a line for 4,000 lines is one paragraph (as slow as one line of them); a blank line starts a new
    count; links that close, escaped brackets and parentheses in prose count for nothing."""
    closed = "\n".join(["[a link](#part) [another][] (a remark) \\[not a link",
                        "[x](https://example.com/a_(b)) and `[` in code"] * 200)
    many = "\n\n".join(["[an open one"] * 100)  # a hundred paragraphs of one each
    write_course(tmp_path / "fine", {"a.md": lesson_with(f"{closed}\n\n{many}\n\n" + "[" * 32)})
    build(tmp_path / "fine")
    tall = lesson_with("Intro.\n\nA paragraph that opens [\n" + "[\n" * 3999)
    write_course(tmp_path / "bad", {"a.md": tall})
    assert problems(tmp_path / "bad") == [f"lesson/a.md:{line_of(tall, 'opens [')}: {LINKS.format(n='4,000')}"]


def test_the_course_config_is_checked_too(tmp_path: Path) -> None:
    course = "title: A course\ndescription: |\n  Welcome.\n\n  " + "[a](" * 40 + "\n"
    write_course(tmp_path, {"a.md": LESSON}, course=course)
    assert problems(tmp_path) == [f"course.yaml:2: {LINKS.format(n=40)}"]


def test_markdown_that_passes_the_checks_but_runs_too_long_is_stopped(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The time limit behind the checks: with them off, 4,000 backticks (minutes of markdown) stop at the limit
    (here half a second) with the lesson's problem, and the next lesson still builds."""
    monkeypatch.setattr(bounds, "problems", lambda text: [])
    monkeypatch.setattr(bounds, "RENDER_SECONDS", 0.5)
    slow = lesson_with("`" * 4000)
    write_course(tmp_path, {"a.md": slow, "b.md": LESSON.replace("A lesson", "B")})
    assert problems(tmp_path) == [f"lesson/a.md:4: {SLOW.format(s=0.5)}"]


def test_the_time_limit_is_one_budget_per_lesson_on_the_main_thread() -> None:
    """Conversions spend from one budget; once it is spent every later one is refused at once; off the main thread
    (no alarm there) a conversion runs as long as it takes."""
    limit = bounds.TimeLimit(0.5)
    assert limit.run(str.upper, "quick") == "QUICK" and 0 < limit.left <= 0.5
    with pytest.raises(bounds.TooSlowError):
        limit.run(re.match, r"(a+)+$", "a" * 64 + "b")  # catastrophic backtracking: far beyond half a second
    assert limit.spent
    with pytest.raises(bounds.TooSlowError):
        limit.run(str.upper, "after")
    found: list[str] = []
    worker = threading.Thread(target=lambda: found.append(bounds.TimeLimit(0.01).run(lambda: time.sleep(0.1) or "slept")))
    worker.start()
    worker.join()
    assert found == ["slept"]


# Lines as deep nesting and unclosed links are made of: indentation, markers, brackets, code spans, line breaks of
# every kind str.splitlines() knows.
_PIECES = [" ", "    ", "\t", "> ", ">", "- ", "* ", "+ ", "1. ", "12) ", "-", "---", "[", "](", "]", "(", ")", "\\[",
           "`", "``", "word ", "\n", "\n\n", "\r\n", "\r", "\x0b", "\x1e", "\u2028", "```\n"]


def test_the_quick_refusals_find_what_the_full_checks_find(monkeypatch: pytest.MonkeyPatch) -> None:
    """A text with no line starting with enough indentation and markers to nest too deep, or too few "[" and "]("
    for a paragraph to hold too many unclosed links, is passed without the line-by-line checks: the same verdicts,
    at the same lines, as those checks give on a few thousand texts near the limits."""
    import random
    rng = random.Random(3)
    texts = ["".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 80))) for _ in range(3000)]
    links, weights = ["[", "](", "]", ")", "\\[", "x", " ", "\n", "`"], [8, 2, 2, 2, 2, 2, 2, 2, 1]  # near 32 unclosed
    texts += ["".join(rng.choices(links, weights, k=rng.randint(60, 260))) for _ in range(1000)]
    texts += ["> " * n + "x" for n in (15, 16, 17)] + ["\t" * 17 + "x", "  \t" * 6 + "- " * 11, "[" * 32, "[" * 33]
    texts += [f"x{brk}" + "> " * 17 + "x" for brk in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"]  # every line break
    quick = [bounds.problems(text) for text in texts]
    monkeypatch.setattr(bounds, "_MAY_NEST", re.compile(""))
    monkeypatch.setattr(bounds, "_MAY_NEST_LF", re.compile(""))
    monkeypatch.setattr(bounds, "_openings", lambda text: bounds.MAX_UNCLOSED_LINKS + 1)
    assert [bounds.problems(text) for text in texts] == quick
    found = [message for problems in quick for _, message in problems]
    assert any("nested more than" in m for m in found) and any("link openings" in m for m in found)
    assert sum(not problems for problems in quick) > 100


def test_within_with_the_alarm_handler_is_installed_once_and_put_back() -> None:
    """A lesson's conversions share one installed handler (each sets and clears only the timer); the one it
    replaced is back afterwards, and conversions are stopped as without it."""
    import signal
    before = signal.getsignal(signal.SIGALRM)
    with bounds.TimeLimit(0.5) as limit:
        held = signal.getsignal(signal.SIGALRM)
        assert held != before
        assert limit.run(str.upper, "quick") == "QUICK"
        assert signal.getsignal(signal.SIGALRM) == held and signal.getitimer(signal.ITIMER_REAL)[0] == 0
        with pytest.raises(bounds.TooSlowError):
            limit.run(re.match, r"(a+)+$", "a" * 64 + "b")
        assert limit.spent
    assert signal.getsignal(signal.SIGALRM) == before
