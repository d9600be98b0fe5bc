"""The SCORM 2004 package (lessonkit/lms/): what `python build.py scorm` writes from a fixture course, its manifest's
structure, the author's problems at their lines, the lesson pages' LMS data, and a deterministic zip that replaces
the last good one only when it is whole."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest
from course import COURSE, EXPLAIN, QUIZ_BLOCK, ROOT, edit, write_course
from modules import module_tree

from lessonkit.core.errors import BuildError
from lessonkit.lms import limits, vendor
from lessonkit.lms.report import interaction_id
from lessonkit.lms.text import clip, plain
from lessonkit.pipeline.site import Built, build_site
from lessonkit.scorm import check, pack

MATH = """---
title: Beta
order: 2
---

## Part

```{quiz}
id: scale
questions:
  - question: What is $\\sqrt{d_k}$ for $d_k = 16$?
    options:
      - text: "4"
        correct: true
        why: Sixteen's root.
      - text: "16"
        why: That is d_k itself.
  - question: Second?
    options:
      - text: A
        why: No.
      - text: B
        correct: true
        why: Yes.
```
"""


ALPHA = f"---\ntitle: Alpha\norder: 1\n---\n\n## Check\n\n{QUIZ_BLOCK}\n## Explain\n\n{EXPLAIN}"


def write(tmp_path: Path, course: str = COURSE, first: str | None = None) -> Path:
    return write_course(tmp_path, {"a.md": first or ALPHA, "b.md": MATH}, course=course)


def built(tmp_path: Path, **kwargs: str) -> tuple[Path, Built]:
    write(tmp_path, **kwargs)
    site = tmp_path / "site"
    return site, build_site(tmp_path, site)


def page_data(html: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="lesson-data">(.*?)</script>', html, re.S)[1])


def scorm(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`lessonkit scorm` for the fixture course under tmp_path, into tmp_path/dist."""
    return subprocess.run([sys.executable, "-m", "lessonkit", "scorm", "--course", str(tmp_path), *args], cwd=tmp_path,
                          capture_output=True, text=True)


# --- what the package holds ------------------------------------------------------------------------------------

def test_the_package_is_the_whole_site_with_a_manifest_naming_every_file(tmp_path: Path) -> None:
    site, made = built(tmp_path)
    (package,) = pack.packages(site, made, None)
    assert package.name == "a-course-scorm2004.zip"
    files = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    left_out = {"_headers", "nginx.conf", ".lessonkit-build"} | {f for f in files if f.endswith(".br")}
    expected = {pack.renamed(f) for f in files - left_out} | {"imsmanifest.xml"}
    assert set(package.members) == expected | set(vendor.XSD_FILES)  # the schemas at the root, beside the manifest
    assert package.members["imscp_v1p1.xsd"] == (ROOT / vendor.XSD_DIR / "imscp_v1p1.xsd").read_bytes()
    assert not set(vendor.XSD_FILES) & set(re.findall(r'<file href="([^"]+)"', package.members["imsmanifest.xml"].decode()))
    assert any(f.endswith("/pyodide.asm.wasm") for f in expected) and any(f.startswith("pagefind/") for f in expected)
    assert any(f.startswith("runtime/wheels/labkit-") for f in expected)
    assert check.problems(package.members) == []
    manifest = package.members["imsmanifest.xml"].decode()
    assert re.findall(r'<item identifier="([^"]+)" identifierref="([^"]+)" isvisible="true">\s*<title>([^<]+)</title>',
                      manifest) == [("item-a", "res-a", "Alpha"), ("item-b", "res-b", "Beta")]
    assert re.findall(r'<resource identifier="([^"]+)" type="webcontent" adlcp:scormType="(\w+)"(?: href="([^"]*)")?',
                      manifest) == [("res-a", "sco", "a.html"), ("res-b", "sco", "b.html"),
                                    ("res-index", "asset", "index.html"), ("res-site", "asset", "")]
    assert "<schemaversion>2004 4th Edition</schemaversion>" in manifest
    assert '<imsss:minNormalizedMeasure>0.8</imsss:minNormalizedMeasure>' in manifest
    assert '<adlcp:completionThreshold completedByMeasure="true" minProgressMeasure="1"/>' in manifest


def test_pyodides_modules_are_js_in_the_package_and_its_pages_name_them_so(tmp_path: Path) -> None:
    """An LMS such as Moodle serves .mjs as "document/unknown", which no browser runs as a module."""
    site, made = built(tmp_path)
    (package,) = pack.packages(site, made, None)
    assert not [name for name in package.members if name.endswith(".mjs")]
    runtime = page_data(package.members["a.html"].decode())["runtime"]
    assert runtime["pyodideURL"].endswith("/pyodide.js") and runtime["asmURL"].endswith("/pyodide.asm.js")
    assert runtime["pyodideURL"] in package.members and runtime["asmURL"] in package.members
    assert package.members[runtime["asmURL"]] == (site / runtime["asmURL"].replace(".js", ".mjs")).read_bytes()
    own = page_data((site / "a.html").read_text())["runtime"]  # the site itself keeps Pyodide's names
    assert own["pyodideURL"].endswith("/pyodide.mjs") and (site / own["pyodideURL"]).is_file()
    sw = package.members["sw.js"].decode()  # the package's own service worker: its files, not the site's
    assert "pyodide.asm.js" in sw and "pyodide.asm.mjs" not in sw


def test_a_lesson_on_its_own_release_has_its_runtime_in_every_package(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Lesson b boots Pyodide 0.27.7 with NumPy, a the course's 314.0.7: the package holds both runtimes and the
    wheel (the shared resource every SCO depends on lists them), b's page names 0.27.7's files as the package has
    them, and each per-lesson package holds the whole site too."""
    monkeypatch.delenv("LESSONKIT_PYODIDE_PACKAGES", raising=False)
    numpy = "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
    write(tmp_path)
    b = tmp_path / "lesson" / "b.md"
    b.write_text(edit(b.read_text(), "\n---\n", "\npyodide: 0.27.7\nrequires: [numpy]\n---\n"))
    site = tmp_path / "site"
    made = build_site(tmp_path, site)
    (package,) = pack.packages(site, made, None)
    assert check.problems(package.members) == []
    core, own = (page_data(package.members[page].decode())["runtime"] for page in ("a.html", "b.html"))
    assert core["asmURL"].startswith("runtime/pyodide-314.0.7-") and not core.get("asmScript")
    assert own["asmURL"].startswith("runtime/pyodide-0.27.7-") and own["asmScript"] is True
    assert own["pyodideURL"].endswith("/pyodide.js") and own["asmURL"].endswith("/pyodide.asm.js")
    folder = own["indexURL"]
    for name in (own["pyodideURL"], own["asmURL"], f"{folder}pyodide.asm.wasm", own["stdLibURL"], f"{folder}{numpy}",
                 own["labkit"], core["labkit"], f"{core['indexURL']}pyodide.asm.wasm"):
        assert name in package.members, name
    manifest = package.members["imsmanifest.xml"].decode()
    shared = manifest.split('<resource identifier="res-site"', 1)[1]
    assert f'<file href="{folder}{numpy}"/>' in shared and f'<file href="{own["asmURL"]}"/>' in shared
    assert f"{folder}{numpy}" in package.members["sw.js"].decode()
    per_lesson = {p.name: p for p in pack.packages(site, made, None, per_lesson=True)}
    members = per_lesson["a-course-b-scorm2004.zip"].members
    assert check.problems(members) == [] and f"{folder}{numpy}" in members and own["asmURL"] in members


def test_lesson_pages_carry_the_rule_and_the_interactions_the_build_made(tmp_path: Path) -> None:
    """Each question with its options' plain text by their value (a class's statements name them)."""
    site, _ = built(tmp_path, course=COURSE + "scorm:\n  passing: 0.5\n  completion: opened\n")
    lms = page_data((site / "b.html").read_text())["lms"]
    assert (lms["passing"], lms["completion"], lms["scoring"], lms["optional"]) == (0.5, "opened", "final", "ignored")
    assert [b["id"] for b in lms["blocks"]] == ["scale"]
    assert lms["items"] == [
        {"id": "urn:lessonkit:a-course:b:scale:1", "block": "scale", "kind": "question", "n": 1, "correct": "1",
         "description": "Question 1 (scale): What is √(d_k) for d_k=16?",
         "choices": [{"id": "1", "description": "4"}, {"id": "2", "description": "16"}],
         "first": {"id": "urn:lessonkit:a-course:b:scale:1:first",
                   "description": "Question 1 (scale), first attempt: What is √(d_k) for d_k=16?"}},
        {"id": "urn:lessonkit:a-course:b:scale:2", "block": "scale", "kind": "question", "n": 2, "correct": "2",
         "description": "Question 2 (scale): Second?",
         "choices": [{"id": "1", "description": "A"}, {"id": "2", "description": "B"}],
         "first": {"id": "urn:lessonkit:a-course:b:scale:2:first", "description": "Question 2 (scale), first attempt: Second?"}},
    ]
    first = page_data((site / "a.html").read_text())["lms"]["items"]
    assert [(i["kind"], i["id"]) for i in first] == [("question", "urn:lessonkit:a-course:a:check:1"),
                                                      ("explanation", "urn:lessonkit:a-course:a:in-your-words")]
    assert first[0]["description"] == "Question (check): Which?"


def test_descriptions_are_one_short_line_of_plain_text() -> None:
    assert plain("A <code>sqrt(d)</code> &amp; <em>b</em>\n<math><mfrac><mrow><mi>a</mi></mrow><mrow><mn>2</mn></mrow>"
                 "</mfrac></math><br>c") == "A sqrt(d) & b (a)/(2) c"
    long = clip("word " * 100, limits.DESCRIPTION)
    assert len(long) <= limits.DESCRIPTION and long.endswith("word…")
    assert interaction_id("c", "l", "b", 3) == "urn:lessonkit:c:l:b:3"


def test_course_yaml_scorm_settings_go_into_the_manifest(tmp_path: Path) -> None:
    site, made = built(tmp_path, course=COURSE + "scorm: {passing: 0.65, completion: opened}\n")
    (package,) = pack.packages(site, made, None)
    manifest = package.members["imsmanifest.xml"].decode()
    assert manifest.count("<imsss:minNormalizedMeasure>0.65</imsss:minNormalizedMeasure>") == 2
    assert "completionThreshold" not in manifest  # "opened": complete at launch, not by measure


@pytest.mark.parametrize(("setting", "message"), [
    ("scorm: {passing: 1.5}", 'course.yaml:2: "passing:" in the course config\'s "scorm:" must be a number at '
     'least 0 and at most 1, e.g. "passing: 0.8"'),
    ("scorm: {completion: all-block}", 'course.yaml:2: "completion:" in the course config\'s "scorm:" must be '
     'one of: all-blocks, opened (did you mean "all-blocks"?)'),
    ("scorm: {pass: 0.5}", 'course.yaml:2: unknown key "pass" in the course config\'s "scorm:" (did you mean '
     '"passing"?) — use one of: completion, optional, passing, scoring'),
    ("scorm: {scoring: first_attempt}", 'course.yaml:2: "scoring:" in the course config\'s "scorm:" must be one of: final, '
     'first-attempt (did you mean "first-attempt"?)'),
    ("scorm: {optional: count}", 'course.yaml:2: "optional:" in the course config\'s "scorm:" must be one of: '
     'ignored, counted (did you mean "counted"?)'),
    ("scorm: yes", 'course.yaml:2: "scorm:" in the course config must be "key: value" lines, e.g. '
     "{passing: 0.8, completion: all-blocks}"),
])
def test_wrong_scorm_settings_are_refused_at_their_line(tmp_path: Path, setting: str, message: str) -> None:
    write(tmp_path, course=COURSE + setting + "\n")
    with pytest.raises(BuildError) as info:
        build_site(tmp_path, tmp_path / "site")
    assert [p.replace(f"{tmp_path}/", "") for p in info.value.problems] == [message]


# --- the command, the zip, the last good zip -------------------------------------------------------------------

def test_build_py_scorm_writes_a_deterministic_zip_and_a_failure_leaves_the_last_good_one(tmp_path: Path) -> None:
    write(tmp_path)
    first = scorm(tmp_path)
    assert first.returncode == 0, first.stderr
    zip_path = tmp_path / "dist" / "a-course-scorm2004.zip"
    assert f"packed {zip_path.relative_to(tmp_path).as_posix()}" in first.stdout and "1 SCORM 2004 package" in first.stdout
    good = zip_path.read_bytes()
    with zipfile.ZipFile(zip_path) as z:
        infos = z.infolist()
        assert [i.filename for i in infos] == sorted(i.filename for i in infos)
        assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)} and {i.external_attr >> 16 for i in infos} == {0o100644}
        assert "imsmanifest.xml" in z.namelist()
    again = scorm(tmp_path)
    assert again.returncode == 0 and zip_path.read_bytes() == good  # same inputs, same bytes
    # An author error in a lesson: the site build fails, and neither site/ nor the zip changes.
    (tmp_path / "lesson" / "b.md").write_text(edit(MATH, "```{quiz}", "```{quizz}"))
    bad = scorm(tmp_path)
    assert bad.returncode == 1
    assert "build failed: 1 problem; site/ and dist/ were left as they were" in bad.stderr
    assert zip_path.read_bytes() == good
    # A title an LMS cannot keep: the site builds, the package is refused at the title's line, the zip stays.
    (tmp_path / "lesson" / "b.md").write_text(edit(MATH, "title: Beta", "title: " + "B" * 201))
    long = scorm(tmp_path)
    assert long.returncode == 1
    assert "lesson/b.md:2: the title has 201 characters; an LMS keeps 200 of an activity's title — " \
           "shorten it" in long.stderr
    assert "scorm failed: 1 problem; dist/ was left as it was" in long.stderr
    assert zip_path.read_bytes() == good
    assert sorted(p.name for p in (tmp_path / "dist").iterdir()) == ["a-course-scorm2004.zip"]  # no temporary file


def test_a_write_that_fails_leaves_the_last_good_zip_and_no_temporary_file(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "dist" / "c-scorm2004.zip"
    pack.write_zip(out, {"imsmanifest.xml": b"<manifest/>", "a.html": b"a"})
    good = out.read_bytes()

    def full_disk(self: zipfile.ZipFile, info: zipfile.ZipInfo, data: bytes, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(zipfile.ZipFile, "writestr", full_disk)
    with pytest.raises(OSError, match="No space left"):
        pack.write_zip(out, {"imsmanifest.xml": b"<manifest/>", "a.html": b"b"})
    assert out.read_bytes() == good
    assert [p.name for p in out.parent.iterdir()] == [out.name]


def test_per_lesson_packages_have_one_sco_each(tmp_path: Path) -> None:
    write(tmp_path)
    done = scorm(tmp_path, "--per-lesson")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "dist").iterdir()) == ["a-course-a-scorm2004.zip", "a-course-b-scorm2004.zip"]
    with zipfile.ZipFile(tmp_path / "dist" / "a-course-b-scorm2004.zip") as z:
        manifest = z.read("imsmanifest.xml").decode()
        assert check.problems({name: z.read(name) for name in z.namelist()}) == []
    assert re.findall(r"<item identifier=\"([^\"]+)\"", manifest) == ["item-b"]
    assert 'identifier="lessonkit-a-course-b"' in manifest and "<title>A course: Beta</title>" in manifest
    assert 'href="a.html"' in manifest  # the other lesson is there, as an asset
    assert scorm(tmp_path).returncode == 0


def test_per_lesson_is_for_scorm_only() -> None:
    done = subprocess.run([sys.executable, "-m", "lessonkit", "build", "--per-lesson"], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 2 and "lessonkit: error: unrecognized arguments: --per-lesson" in done.stderr


# --- the manifest's structure -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    site, made = built(tmp_path_factory.mktemp("scorm"))
    (package,) = pack.packages(site, made, None)
    return package.members


def broken(members: dict[str, bytes], old: str, new: str) -> dict[str, bytes]:
    text = members["imsmanifest.xml"].decode()
    assert old in text, old
    return {**members, "imsmanifest.xml": text.replace(old, new, 1).encode()}


def line(members: dict[str, bytes], needle: str) -> int:
    text = members["imsmanifest.xml"].decode()
    return text[: text.index(needle)].count("\n") + 1


def test_the_checks_pass_a_good_package(good: dict[str, bytes]) -> None:
    assert check.problems(good) == []


@pytest.mark.parametrize(("old", "new", "at", "message"), [
    ('<item identifier="item-b"', '<item identifier="item-a"', '<item identifier="item-a" identifierref="res-b"',
     'identifier "item-a" is used twice (first at line {a}) — identifiers are unique in a manifest'),
    ('identifierref="res-b"', 'identifierref="res-c"', 'identifierref="res-c"',
     'item "item-b" refers to resource "res-c", which the manifest does not have'),
    ("<title>Beta</title>", "", '<item identifier="item-b"',
     'item "item-b" needs exactly one non-empty <title> — the LMS shows it to learners'),
    ("<title>Beta</title>", f"<title>{'B' * 201}</title>", "<title>BBB",
     'the title of item "item-b" has 201 characters, more than the 200 an LMS must keep — shorten it'),
    ('<dependency identifierref="res-site"/>', '<dependency identifierref="res-shared"/>', "res-shared",
     'a dependency refers to "res-shared", which the manifest does not have'),
    ("<schemaversion>2004 4th Edition</schemaversion>", "<schemaversion>1.2</schemaversion>", "<metadata>",
     "<metadata> must say <schema>ADL SCORM</schema> and <schemaversion>2004 4th Edition</schemaversion> — LMSs read "
     "the version from them"),
])
def test_each_structural_problem_is_found_at_its_line(good: dict[str, bytes], old: str, new: str, at: str,
                                                      message: str) -> None:
    members = broken(good, old, new)
    where = line(members, at)
    expected = message.format(a=line(members, '<item identifier="item-a"'))
    assert check.problems(members) == [f"imsmanifest.xml:{where}: {expected}"]


def test_files_missing_unlisted_or_listed_twice(good: dict[str, bytes]) -> None:
    members = broken(good, '<file href="b.html"/>', '<file href="c.html"/>')
    resource = line(members, '<resource identifier="res-b"')
    assert check.problems(members) == [
        f'imsmanifest.xml:{line(members, "c.html")}: file "c.html" is not in the package — add it, or list only files '
        "it has",
        f'imsmanifest.xml:{resource}: resource "res-b" launches "b.html" but does not list it as a <file>',
        "imsmanifest.xml:1: b.html is in the package but listed by no resource — list every file of the package"]
    twice = broken(good, '<file href="a.html"/>', '<file href="a.html"/>\n<file href="b.html"/>')
    first = line(twice, '<file href="b.html"/>')
    assert check.problems(twice) == [f'imsmanifest.xml:{first + 4}: file "b.html" is listed by two resources (first at '
                                     f"line {first}) — list each file once"]


def test_a_file_no_resource_lists_and_a_manifest_that_is_not_xml(good: dict[str, bytes]) -> None:
    assert check.problems({**good, "extra.txt": b"x"}) == [
        "imsmanifest.xml:1: extra.txt is in the package but listed by no resource — list every file of the package"]
    assert check.problems({**good, "imsmanifest.xml": b"<manifest>\n<a></b>"}) == [
        "imsmanifest.xml:2: not well-formed XML (mismatched tag)"]
    assert check.problems({"a.html": b""}) == [
        "imsmanifest.xml:1: the package has no manifest at its root — a SCORM package needs one"]


# --- suspend_data, across the two languages ----------------------------------------------------------------------

def test_python_reads_the_pages_suspend_data() -> None:
    """What static/js/lms/suspend.js writes, decoded as the README says."""
    script = ("import { encode, encodePlain } from './static/js/lms/suspend.js';"
              "const p = {format: 'lessonkit-scorm', version: 1, lessons: {a: {version: 'v', entries: {'q:v': {'1': '2'},"
              " 'e:v': {text: 'ü€😀 \"x\"', savedAt: 1}}, local: []}}};"
              "console.log(JSON.stringify([await encode(p), encodePlain(p)]));")
    done = subprocess.run(["node", "--input-type=module", "-e", script], cwd=module_tree(), capture_output=True,
                          text=True, check=True)
    deflated, plain_form = json.loads(done.stdout.splitlines()[-1])
    assert deflated.startswith("lk1:") and plain_form.startswith("lk0:")
    first = json.loads(zlib.decompress(base64.b64decode(deflated[4:]), -15))
    assert first == json.loads(base64.b64decode(plain_form[4:]))
    assert first["lessons"]["a"]["entries"] == {"q:v": {"1": "2"}, "e:v": {"text": 'ü€😀 "x"', "savedAt": 1}}
