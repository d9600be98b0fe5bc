"""The course layer's build: lesson order (front matter or the course config's list), the course manifest, the index
page and each lesson's navigation, on fixture courses of one, two and three lessons."""

from __future__ import annotations

import json
import re
from pathlib import Path

from course import EXPLAIN, build, edit, line_of, problems, write_course

QUESTION = """  - question: {n}?
    options:
      - text: Yes
        correct: true
        why: Right.
      - text: No
        why: Wrong.
"""
QUIZ = "```{quiz}\nid: check\nquestions:\n" + QUESTION.format(n="One") + QUESTION.format(n="Two") + "```\n"


def lesson(title: str, order: int | None = None, *, extra: str = "", body: str = "") -> str:
    """A small lesson: front matter, a part, and an optional body."""
    meta = f"title: {title}\n" + (f"order: {order}\n" if order is not None else "") + extra
    return f"---\n{meta}summary: About {title.lower()}.\n---\n\n## Part\n\nSome text.\n\n{body}"


NEXT = "## Next Lesson\n\nNext, something else.\n\n## References\n\n- A book.\n"
THREE = {"c.md": lesson("Gamma", 1, body=NEXT), "a.md": lesson("Alpha", 2, body=NEXT), "b.md": lesson("Beta", 3)}


def page_data(html: str) -> dict:
    """A page's data island."""
    found = re.search(r'<script type="application/json" id="lesson-data">(.*?)</script>', html, re.S)
    assert found
    return json.loads(found.group(1))


def manifest(site: Path) -> dict:
    """The index page's course manifest."""
    found = re.search(r'<script type="application/json" id="course-manifest">(.*?)</script>',
                      (site / "index.html").read_text(), re.S)
    assert found
    return json.loads(found.group(1))


def index_lessons(site: Path) -> list[tuple[str, str, str]]:
    """(data-lesson, link, title) of each lesson on the index, in order."""
    return re.findall(r'<li data-lesson="([^"]+)">\s*<h[34] class="lesson-link"><span class="lesson-n">\d+\.</span> '
                      r'<a href="([^"]+)">([^<]+)</a>', (site / "index.html").read_text())


def pager(html: str) -> dict[str, tuple[str, str]]:
    """rel → (href, title) of the previous/next links at a lesson's foot."""
    return {rel: (href, title) for rel, href, title in re.findall(
        r'<a class="pager-\w+" rel="(prev|next)" href="([^"]+)">.*?<span class="pager-title">([^<]+)</span></a>',
        html)}


def course_nav(html: str) -> list[tuple[str, bool, str]]:
    """(href, current, title) of the lessons listed beside "On this page"."""
    nav = re.search(r'<nav aria-label="Lessons in this course">(.*?)</nav>', html, re.S)
    assert nav
    return [(href, bool(current), title) for href, current, title in
            re.findall(r'<li><a href="([^"]+)"( aria-current="page")?><span class="course-nav-n">\d+\.</span> '
                       r'([^<]+)</a></li>', nav.group(1))]


# --- order ----------------------------------------------------------------------------------------------------------

def test_lessons_follow_their_order_and_each_is_its_own_page(tmp_path: Path) -> None:
    """Order comes from "order:", not file names; index.html is the index and each lesson is <slug>.html."""
    site = build(write_course(tmp_path, THREE))
    assert sorted(p.name for p in site.glob("*.html")) == ["a.html", "b.html", "c.html", "index.html"]
    assert index_lessons(site) == [("c", "c.html", "Gamma"), ("a", "a.html", "Alpha"), ("b", "b.html", "Beta")]


def test_the_course_config_s_lessons_list_fixes_the_order(tmp_path: Path) -> None:
    lessons = {"a.md": lesson("Alpha"), "b.md": lesson("Beta"), "c.md": lesson("Gamma")}
    site = build(write_course(tmp_path, lessons, course="title: A course\nlessons:\n  - b\n  - c\n  - a\n"))
    assert [slug for slug, _, _ in index_lessons(site)] == ["b", "c", "a"]
    assert [les["slug"] for les in manifest(site)["lessons"]] == ["b", "c", "a"]
    assert pager((site / "c.html").read_text()) == {"prev": ("b.html", "Beta"), "next": ("a.html", "Alpha")}


def test_a_lessons_list_names_every_lesson_once_and_only_lessons(tmp_path: Path) -> None:
    """A missing lesson (with the name it may mean), an unlisted one, one listed twice, "order:" beside the list."""
    config = "title: A course\nlessons:\n  - alpha\n  - gama\n  - alpha\n"
    lessons = {"alpha.md": lesson("Alpha"), "gamma.md": lesson("Gamma"), "beta.md": lesson("Beta", 2)}
    write_course(tmp_path, lessons, course=config)
    assert problems(tmp_path) == [
        'course.yaml:4: "lessons:" lists "gama", a missing lesson (did you mean "gamma"?) — add '
        "lesson/gama.md, or list one of: alpha, beta, gamma",
        'course.yaml:5: lesson "alpha" is listed twice in "lessons:" (first at line 3) — list each lesson once',
        'lesson/beta.md:1: lesson "beta" is not in the course\'s "lessons:" list (course.yaml:2) — add '
        '"- beta" there',
        'lesson/beta.md:3: "order:" is not used: course.yaml lists the lessons in order ("lessons:", line 2) '
        "— remove this line",
        'lesson/gamma.md:1: lesson "gamma" is not in the course\'s "lessons:" list (course.yaml:2) — add '
        '"- gamma" there',
    ]


def test_a_lessons_list_holds_slugs(tmp_path: Path) -> None:
    write_course(tmp_path, {"a.md": lesson("Alpha")}, course="title: A course\nlessons: [a, My Lesson]\n")
    assert problems(tmp_path) == [
        'course.yaml:2: item 2 of the course config\'s "lessons:" must be a lesson\'s slug, e.g. "- my-lesson"',
    ]


PARTS = """title: A course
parts:
  - title: First things
    lessons: [b, c]
  - title: Then
    lessons:
      - a
"""


def index_parts(site: Path) -> list[tuple[str, str, list[str]]]:
    """(data-part, heading, [data-lesson, ...]) of each part on the index, in order."""
    html = (site / "index.html").read_text()
    found = re.findall(r'<section class="course-part" data-part="([^"]+)"[^>]*>\s*<h3 id="part-[^"]+" '
                       r'class="course-part-title">([^<]+)</h3>(.*?)</section>', html, re.S)
    return [(ident, heading, re.findall(r'<li data-lesson="([^"]+)">', body)) for ident, heading, body in found]


def sidebar_parts(html: str) -> list[tuple[str, bool, list[str]]]:
    """(title, open, [lesson titles]) of each part in a lesson page's list of lessons."""
    found = re.findall(r'<details class="course-nav-part"( open)?>\s*<summary>([^<]+?) <span class="course-nav-count">'
                       r"\(\d+\)</span></summary>(.*?)</details>", html, re.S)
    return [(title, bool(is_open), re.findall(r'<span class="course-nav-n">\d+\.</span> ([^<]+)</a>', body))
            for is_open, title, body in found]


def test_parts_group_the_lessons_on_the_index_in_the_sidebar_and_in_the_manifest(tmp_path: Path) -> None:
    lessons = {"a.md": lesson("Alpha"), "b.md": lesson("Beta"), "c.md": lesson("Gamma")}
    site = build(write_course(tmp_path, lessons, course=PARTS))
    assert [slug for slug, _, _ in index_lessons(site)] == ["b", "c", "a"]
    assert index_parts(site) == [("first-things", "First things", ["b", "c"]), ("then", "Then", ["a"])]
    assert manifest(site)["parts"] == [{"id": "first-things", "title": "First things", "lessons": ["b", "c"]},
                                       {"id": "then", "title": "Then", "lessons": ["a"]}]
    # The numbers run on across parts; the current lesson's part is the open one.
    assert "<span class=\"lesson-n\">3.</span> <a href=\"a.html\">" in (site / "index.html").read_text()
    assert sidebar_parts((site / "c.html").read_text()) == [("First things", True, ["Beta", "Gamma"]),
                                                             ("Then", False, ["Alpha"])]
    assert sidebar_parts((site / "a.html").read_text()) == [("First things", False, ["Beta", "Gamma"]),
                                                             ("Then", True, ["Alpha"])]
    assert pager((site / "c.html").read_text()) == {"prev": ("b.html", "Beta"), "next": ("a.html", "Alpha")}


def test_a_course_without_parts_has_one_list(tmp_path: Path) -> None:
    site = build(write_course(tmp_path, {"a.md": lesson("Alpha", 1), "b.md": lesson("Beta", 2)}))
    assert index_parts(site) == []
    assert sidebar_parts((site / "a.html").read_text()) == []
    assert course_nav((site / "a.html").read_text()) == [("a.html", True, "Alpha"), ("b.html", False, "Beta")]


def test_parts_list_every_lesson_once_and_only_lessons(tmp_path: Path) -> None:
    config = ("title: A course\nparts:\n  - title: One\n    lessons: [alpha, gama]\n  - title: Two\n"
              "    lessons: [alpha]\n")
    lessons = {"alpha.md": lesson("Alpha"), "gamma.md": lesson("Gamma"), "beta.md": lesson("Beta", 2)}
    write_course(tmp_path, lessons, course=config)
    assert problems(tmp_path) == [
        'course.yaml:4: "parts:" lists "gama", a missing lesson (did you mean "gamma"?) — add '
        "lesson/gama.md, or list one of: alpha, beta, gamma",
        'course.yaml:6: lesson "alpha" is listed twice in "parts:" (first at line 4) — list each lesson once',
        'lesson/beta.md:1: lesson "beta" is not in the course\'s "parts:" parts (course.yaml:2) — add '
        '"- beta" to the lessons of one of its parts',
        'lesson/beta.md:3: "order:" is not used: course.yaml lists the lessons in order ("parts:", line 2) '
        "— remove this line",
        'lesson/gamma.md:1: lesson "gamma" is not in the course\'s "parts:" parts (course.yaml:2) — add '
        '"- gamma" to the lessons of one of its parts',
    ]


def test_a_part_s_keys_are_checked(tmp_path: Path) -> None:
    config = ("title: A course\nparts:\n  - title: One\n    lesons: [a]\n  - lessons: [a]\n  - title: One!\n"
              "    lessons: []\n")
    write_course(tmp_path, {"a.md": lesson("Alpha")}, course=config)
    assert problems(tmp_path) == [
        'course.yaml:3: part 1 ("One") needs "lessons:" with its lessons\' slugs in order, e.g. '
        '"lessons: [a, b]"',
        'course.yaml:4: unknown key "lesons" in part 1 ("One") (did you mean "lessons"?) — use one of: '
        "lessons, title",
        'course.yaml:5: part 2 needs "title:" naming the part, e.g. "title: Attention"',
        'course.yaml:7: "lessons:" of part 3 ("One!") needs at least 1 item',
    ]


def test_parts_and_lessons_together_and_two_parts_of_one_title(tmp_path: Path) -> None:
    write_course(tmp_path / "both", {"a.md": lesson("Alpha")},
                 course="title: A course\nlessons: [a]\nparts:\n  - title: One\n    lessons: [a]\n")
    assert problems(tmp_path / "both") == [
        'course.yaml:2: "lessons:" and "parts:" both give the order of the lessons — keep "parts:" (its parts '
        'list the lessons in order) and remove "lessons:"',
    ]
    write_course(tmp_path / "twice", {"a.md": lesson("Alpha"), "b.md": lesson("Beta")},
                 course="title: A course\nparts:\n  - title: One\n    lessons: [a]\n  - title: one!\n"
                        "    lessons: [b]\n")
    assert problems(tmp_path / "twice") == [
        'course.yaml:5: part "one!" has a title that reads as the same ("One") of the part at line 3 — give '
        "each part its own title",
    ]


def test_two_lessons_with_one_order_and_an_order_that_is_not_whole(tmp_path: Path) -> None:
    write_course(tmp_path, {"a.md": lesson("Alpha", 1), "b.md": lesson("Beta", 1),
                            "c.md": lesson("Gamma", extra="order: 2.5\n")})
    assert problems(tmp_path) == [
        'lesson/b.md:3: order 1 is also the order of lesson/a.md — give each lesson its own "order:"',
        'lesson/c.md:3: "order:" in the front matter must be a whole number, e.g. "order: 2"',
    ]


# --- the manifest and the index -------------------------------------------------------------------------------------

def test_the_manifest_lists_each_lesson_and_the_blocks_that_keep_progress(tmp_path: Path) -> None:
    """Quizzes (with their question count) and explain blocks, with the versions their pages store under."""
    first = lesson("Alpha", 1, body=f"## Check\n\n{QUIZ}\n## Explain\n\n{EXPLAIN}")
    site = build(write_course(tmp_path, {"a.md": first, "b.md": lesson("Beta", 2)}))
    page = (site / "a.html").read_text()
    versions = dict(re.findall(r'"id": "([\w-]+)".*?"version": "([0-9a-f]{12})"', page))
    lesson_version = page_data(page)["version"]
    assert manifest(site) == {
        "course": {"id": "a-course", "title": "A course"},
        "format": 1,
        "lessons": [
            {"slug": "a", "title": "Alpha", "summary": "About alpha.", "version": lesson_version, "href": "a.html",
             "blocks": [{"type": "quiz", "id": "check", "version": versions["check"], "questions": 2},
                        {"type": "explain", "id": "in-your-words", "version": versions["in-your-words"]}]},
            {"slug": "b", "title": "Beta", "summary": "About beta.", "version": page_data(
                (site / "b.html").read_text())["version"], "href": "b.html", "blocks": []},
        ],
        "parts": [],
    }
    assert 'id="course-manifest"' not in page  # lesson pages stay small


def test_the_course_id_is_declared_or_made_from_the_title(tmp_path: Path) -> None:
    write_course(tmp_path / "made", {"a.md": lesson("Alpha")}, course="title: Über Attention, one idea!\n")
    assert manifest(build(tmp_path / "made"))["course"] == {"id": "uber-attention-one-idea",
                                                              "title": "Über Attention, one idea!"}
    write_course(tmp_path / "declared", {"a.md": lesson("Alpha")}, course="id: attn\ntitle: Attention\n")
    site = build(tmp_path / "declared")
    assert manifest(site)["course"]["id"] == "attn"
    assert page_data((site / "a.html").read_text())["course"] == {"id": "attn", "title": "Attention",
                                                                  "index": "index.html"}
    write_course(tmp_path / "bad", {"a.md": lesson("Alpha")}, course="id: My Course\ntitle: Attention\n")
    assert problems(tmp_path / "bad") == [
        '"id:" in the course config must be lowercase letters, digits and single dashes, e.g. "id: my-course"'
        .join(["course.yaml:1: ", ""]),
    ]


def test_the_index_shows_the_course_and_every_lesson(tmp_path: Path) -> None:
    config = ("title: A <course>\ntagline: Short *and* sweet\ndescription: |-\n  Some **words** about it.\n\n"
              "  - a list\n")
    site = build(write_course(tmp_path, THREE, course=config))
    html = (site / "index.html").read_text()
    assert "<title>A &lt;course&gt;</title>" in html
    assert '<h1 id="course-title" tabindex="-1">A &lt;course&gt;</h1>' in html
    assert '<p class="tagline">Short <em>and</em> sweet</p>' in html
    assert "<p>Some <strong>words</strong> about it.</p>\n<ul>\n<li>a list</li>\n</ul>" in html
    assert re.findall(r'<p class="lesson-summary">([^<]+)</p>', html) == ["About gamma.", "About alpha.",
                                                                          "About beta."]
    # Where progress goes, hidden until the page's JavaScript fills it.
    assert html.count('<div class="lesson-progress" data-lesson-progress hidden></div>') == 3
    assert '<p class="course-continue" data-course-continue hidden></p>' in html
    assert re.search(r'<section [^>]*data-progress-tools aria-labelledby="progress-title" hidden>\s*'
                     r'<h2 id="progress-title">Your progress</h2>', html)
    assert page_data(html) == {"page": "index", "course": {"id": "a-course", "title": "A <course>",
                                                           "index": "index.html"}}


# --- a lesson's navigation ------------------------------------------------------------------------------------------

def test_each_lesson_links_the_index_its_neighbours_and_every_lesson(tmp_path: Path) -> None:
    site = build(write_course(tmp_path, THREE))
    first, middle, last = ((site / f"{s}.html").read_text() for s in "cab")
    for html in (first, middle, last):
        assert '<p class="course"><a href="index.html">A course</a></p>' in html
        assert page_data(html)["page"] == "lesson"
    assert course_nav(middle) == [("c.html", False, "Gamma"), ("a.html", True, "Alpha"), ("b.html", False, "Beta")]
    assert "(2 of 3)" in middle
    assert pager(first) == {"next": ("a.html", "Alpha")}
    assert pager(middle) == {"prev": ("c.html", "Gamma"), "next": ("b.html", "Beta")}
    assert pager(last) == {"prev": ("a.html", "Alpha")}
    assert '<link rel="prev" href="c.html">' in middle and '<link rel="next" href="b.html">' in middle
    assert '<link rel="prev"' not in first and '<link rel="next"' not in last


def test_one_lesson_has_no_neighbours(tmp_path: Path) -> None:
    site = build(write_course(tmp_path, {"only.md": lesson("Only", body=NEXT)}))
    html = (site / "only.html").read_text()
    assert pager(html) == {} and "lesson-pager" not in html and 'rel="next"' not in html
    assert course_nav(html) == [("only.html", True, "Only")]
    assert "next-lesson-link" not in html
    assert index_lessons(site) == [("only", "only.html", "Only")]


def test_the_next_lesson_section_links_to_the_next_lesson(tmp_path: Path) -> None:
    """The link ends the "Next Lesson" part; the author's text stays as written; the last lesson gets none."""
    site = build(write_course(tmp_path, THREE))
    first = (site / "c.html").read_text()
    part = re.search(r'<section class="part">\s*<h2 id="next-lesson">Next Lesson</h2>(.*?)</section>', first, re.S)
    assert part
    assert part.group(1).split() == ("<p>Next, something else.</p> <p class=\"next-lesson-link\"><a href=\"a.html\">"
                                     "Continue with the next lesson: Alpha</a></p>").split()
    assert first.count("next-lesson-link") == 1
    assert "next-lesson-link" not in (site / "b.html").read_text()  # the last lesson


def test_a_declared_next_section(tmp_path: Path) -> None:
    body = "## What next\n\nOn to the next one.\n\n## Next Lesson\n\nNot this one.\n"
    first = lesson("Alpha", 1, extra="next_section: what-next\n", body=body)
    site = build(write_course(tmp_path, {"a.md": first, "b.md": lesson("Beta", 2)}))
    part = re.search(r'<h2 id="what-next">What next</h2>(.*?)</section>', (site / "a.html").read_text(), re.S)
    assert part and 'href="b.html">Continue with the next lesson: Beta</a>' in part.group(1)
    assert (site / "a.html").read_text().count("next-lesson-link") == 1  # not under "Next Lesson" as well

    wrong = edit(first, "next_section: what-next", "next_section: what-nxt")
    write_course(tmp_path / "wrong", {"a.md": wrong})
    assert problems(tmp_path / "wrong") == [
        'lesson/a.md:4: "next_section:" names "what-nxt", which is no "##" heading of this lesson (did you mean '
        '"what-next"?) — use one of: part, what-next, next-lesson',
    ]
    assert line_of(wrong, "next_section:") == 4


def test_a_lesson_may_link_to_the_index_and_its_sections(tmp_path: Path) -> None:
    good = lesson("Alpha", body="[All lessons](index.html) and [the list](index.html#lessons).\n")
    build(write_course(tmp_path / "good", {"a.md": good}))
    bad = lesson("Alpha", body="[The list](index.html#lesons).\n")
    write_course(tmp_path / "bad", {"a.md": bad})
    assert problems(tmp_path / "bad") == [
        'lesson/a.md:10: link "index.html#lesons" points to nothing on the course\'s index — link to one of: '
        "#course-title, #lessons, #progress-title",
    ]
