"""The cmi5 package (lessonkit/scorm/cmi5.py, cmi5_pack.py): what `lessonkit cmi5` writes from a fixture course.

No registry package carries the cmi5 spec's CourseStructure.xsd (the SCORM schemas come with an npm package; see
lessonkit/lms/vendor.py), so cmi5.xml is checked here against the shape the spec's section 13 and its XSD give, one
rule at a time: the namespace, the course's required id, title and description, each AU's required id, title,
description and url in the XSD's order, and the value spaces of moveOn, masteryScore and launchMethod. Then what the
AUs say of each lesson, the lesson pages' data and policy, and the author's and the command line's mistakes.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from decimal import Decimal
from pathlib import Path
from urllib.parse import unquote
from xml.etree import ElementTree

import pytest
from course import EXPLAIN, QUIZ_BLOCK, write_course

from lessonkit.core.errors import BuildError
from lessonkit.hosting.headers import meta_csp
from lessonkit.pipeline.site import build_site
from lessonkit.scorm import cmi5, cmi5_pack

NS = "{https://w3id.org/xapi/profiles/cmi5/v1/CourseStructure.xsd}"
MOVE_ON = {"NotApplicable", "Passed", "Completed", "CompletedAndPassed", "CompletedOrPassed"}
LAUNCH_METHODS = {"AnyWindow", "OwnWindow"}
IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+")

JUDGED = f"---\ntitle: Alpha & <one>\norder: 1\nsummary: The *first* one.\n---\n\n## Check\n\n{QUIZ_BLOCK}"
WRITTEN = f"---\ntitle: Beta\norder: 2\n---\n\n## Explain\n\n{EXPLAIN}"
OPTIONAL = """---
title: Gamma
order: 3
---

## Exercise

```{exercise}
id: double
title: Double it
optional: true
prompt: Make `double(x)` return twice `x`.
starter: |
  def double(x):
      return x
solution: |
  def double(x):
      return 2 * x
checks:
  - name: doubles 2
    code: assert double(2) == 4
```
"""
COURSE = "id: pack\ntitle: A cmi5 course\ndescription: Attention, *one idea* at a time.\nlanguage: de\n"


def write(tmp_path: Path, course: str = COURSE) -> Path:
    return write_course(tmp_path, {"a.md": JUDGED, "b.md": WRITTEN, "c.md": OPTIONAL}, course=course)


def cmi5_command(course: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lessonkit", "cmi5", "--course", str(course), *args], cwd=course,
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def packed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, zipfile.ZipFile]:
    """The fixture course packed by the command, as an author runs it."""
    course = write(tmp_path_factory.mktemp("cmi5"))
    proc = cmi5_command(course, "--endpoint-origin", "https://lms.example.org")
    assert proc.returncode == 0, proc.stderr
    assert "packed dist/pack-cmi5.zip" in proc.stdout
    return course, zipfile.ZipFile(course / "dist" / "pack-cmi5.zip")


def check_shape(root: ElementTree.Element) -> None:
    """cmi5.xml against the course structure's shape (the spec's section 13 and CourseStructure.xsd)."""

    def text(el: ElementTree.Element, what: str) -> None:
        strings = [c for c in el if c.tag == f"{NS}langstring"]
        assert strings and len(strings) == len(el), f"{what}: langstrings only, at least one"
        assert all(s.get("lang") and (s.text or "").strip() for s in strings), f"{what}: each with lang and text"

    assert root.tag == f"{NS}courseStructure"
    children = list(root)
    course, units = children[0], children[1:]
    assert course.tag == f"{NS}course" and IRI.fullmatch(course.get("id", ""))
    assert [c.tag for c in course] == [f"{NS}title", f"{NS}description"]
    for part in course:
        text(part, f"the course's {part.tag}")
    assert units and all(u.tag == f"{NS}au" for u in units)
    ids = [u.get("id", "") for u in units]
    assert len(set(ids)) == len(ids) and all(IRI.fullmatch(i) for i in ids)
    for au in units:
        assert set(au.attrib) <= {"id", "moveOn", "masteryScore", "launchMethod", "activityType"}
        tags = [c.tag.removeprefix(NS) for c in au]
        assert tags[:2] == ["title", "description"] and tags[2:] in (["url"], ["objectives", "url"]), tags
        text(au[0], "an AU's title")
        text(au[1], "an AU's description")
        assert (au.find(f"{NS}url").text or "").strip()
        assert au.get("moveOn", "NotApplicable") in MOVE_ON
        assert au.get("launchMethod", "AnyWindow") in LAUNCH_METHODS
        if "masteryScore" in au.attrib:
            score = Decimal(au.get("masteryScore"))
            assert 0 <= score <= 1 and -score.as_tuple().exponent <= 4, au.get("masteryScore")


def test_cmi5_xml_is_a_course_structure_with_one_au_per_lesson_in_course_order(packed: tuple[Path, zipfile.ZipFile]) -> None:
    _, z = packed
    root = ElementTree.fromstring(z.read("cmi5.xml"))
    check_shape(root)
    course, *aus = list(root)
    assert course.get("id") == "urn:lessonkit:pack"
    assert course.find(f"{NS}title/{NS}langstring").text == "A cmi5 course"
    assert course.find(f"{NS}description/{NS}langstring").text == "Attention, one idea at a time."
    assert {s.get("lang") for s in root.iter(f"{NS}langstring")} == {"de"}
    assert [au.get("id") for au in aus] == ["urn:lessonkit:pack:a", "urn:lessonkit:pack:b", "urn:lessonkit:pack:c"]
    assert [au.find(f"{NS}title/{NS}langstring").text for au in aus] == ["Alpha & <one>", "Beta", "Gamma"]
    assert aus[0].find(f"{NS}description/{NS}langstring").text == "The first one."  # its summary, as plain text
    assert aus[1].find(f"{NS}description/{NS}langstring").text == "Beta"  # no summary: its title
    urls = [au.find(f"{NS}url").text for au in aus]
    assert urls == ["a.html", "b.html", "c.html"] and all(unquote(u) in z.namelist() for u in urls)
    assert {au.get("launchMethod") for au in aus} == {"AnyWindow"}


def test_move_on_and_mastery_follow_the_courses_scorm_rule(packed: tuple[Path, zipfile.ZipFile],
                                                            tmp_path: Path) -> None:
    _, z = packed
    aus = list(ElementTree.fromstring(z.read("cmi5.xml")))[1:]
    # A lesson with a question is passed or failed at scorm.passing; one with an explanation alone, or an optional
    # exercise (scorm.optional "ignored"), is only completed.
    assert [(au.get("moveOn"), au.get("masteryScore")) for au in aus] == [
        ("CompletedAndPassed", "0.8"), ("Completed", None), ("Completed", None)]
    course = write(tmp_path, COURSE + "scorm:\n  passing: 0.65\n  optional: counted\n")
    made = cmi5_pack.package(course / "site", build_site(course, course / "site"), None)
    aus = list(ElementTree.fromstring(made.members["cmi5.xml"]))[1:]
    assert [(au.get("moveOn"), au.get("masteryScore")) for au in aus] == [
        ("CompletedAndPassed", "0.65"), ("Completed", None), ("CompletedAndPassed", "0.65")]


def test_the_package_is_the_whole_site_and_its_pages_know_they_are_the_cmi5_packages(
        packed: tuple[Path, zipfile.ZipFile]) -> None:
    course, z = packed
    names = set(z.namelist())
    assert "imsmanifest.xml" not in names and {"cmi5.xml", "index.html", "a.html", "sw.js"} <= names
    assert not {"_headers", "nginx.conf"} & names and not any(n.endswith(".mjs") for n in names)
    for name in ("a.html", "b.html", "c.html", "index.html"):
        html = z.read(name).decode()
        data = json.loads(re.search(r'id="lesson-data">(.*?)</script>', html, re.S)[1])
        assert (data["cmi5"], data["framed"]) == (True, "lms"), name
    built = build_site(course, course / "site")
    lesson = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', z.read("a.html").decode())[1]
    assert lesson.replace("&#x27;", "'") == meta_csp(built.script_hashes, ["https://lms.example.org"])
    assert "connect-src 'self' https://lms.example.org;" in lesson.replace("&#x27;", "'")
    index = z.read("index.html").decode()
    assert "connect-src &#39;self&#39;;" in index  # the index reports nothing: the site's own policy


def test_without_an_endpoint_origin_the_lessons_may_connect_to_any_https_origin_and_the_class_store_stays(
        tmp_path: Path) -> None:
    course = write(tmp_path, COURSE + "class:\n  lrs: https://lrs.example.org/xAPI/\n")
    built = build_site(course, course / "site")
    made = cmi5_pack.package(course / "site", built, None)
    policy = re.search(r'Content-Security-Policy" content="([^"]*)"', made.members["a.html"].decode())[1]
    assert "connect-src 'self' https://lrs.example.org https:;" in policy.replace("&#x27;", "'")
    assert made.name == "pack-cmi5.zip"
    assert made.members == cmi5_pack.package(course / "site", built, None).members  # the same site, the same package


def test_a_passing_score_cmi5_cannot_hold_is_the_authors_problem_at_its_line(tmp_path: Path) -> None:
    course = write(tmp_path, COURSE + "scorm:\n  passing: 0.83333\n")
    with pytest.raises(BuildError) as caught:
        cmi5_pack.package(course / "site", build_site(course, course / "site"), None)
    assert caught.value.problems == [
        'course.yaml:5: "passing: 0.83333" has more than 4 decimals, and a cmi5 masteryScore holds 4 — round it, '
        'e.g. "passing: 0.8333"']
    proc = cmi5_command(course)
    assert proc.returncode == 1 and not (course / "dist").exists()
    assert 'course.yaml:5: "passing: 0.83333" has more than 4 decimals' in proc.stderr
    assert "cmi5 failed: 1 problem; dist/ was left as it was" in proc.stderr


@pytest.mark.parametrize("origin", ["http://lms.example.org", "https://lms.example.org/xapi/", "lms.example.org",
                                    "https://lms.example.org:0", "https://*.example.org"])
def test_an_endpoint_origin_that_is_no_https_origin_is_a_usage_error(tmp_path: Path, origin: str) -> None:
    proc = cmi5_command(write(tmp_path), "--endpoint-origin", origin)
    assert proc.returncode == 2 and not (tmp_path / "site").exists()
    assert proc.stderr == (
        f'lessonkit cmi5: --endpoint-origin "{origin}" must be the origin of the LMS\'s xAPI endpoint: "https://" and '
        'its host (and ":port"), nothing after it, e.g. --endpoint-origin https://lms.example.org (plain "http://" '
        "only for 127.0.0.1 or localhost)\n")


def test_a_loopback_origin_may_be_plain_http() -> None:
    assert cmi5_pack.origin_problem("http://127.0.0.1:8123") is None
    assert cmi5_pack.origin_problem("https://lms.example.org:8443") is None


def test_mastery_is_a_plain_decimal() -> None:
    assert [cmi5.mastery(x) for x in (0, 1, 0.5, 0.8, 0.1234, 1e-4)] == ["0", "1", "0.5", "0.8", "0.1234", "0.0001"]
