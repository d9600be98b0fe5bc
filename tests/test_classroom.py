"""The instructor's view of a class (lessonkit/lms/classroom.py): the tally from the class's statements, the join
code and link, and `lessonkit class` as the instructor types it."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

from lessonkit.lms import classroom

Q = "urn:lessonkit:c:l:check:1"
EX = "urn:lessonkit:c:l:double"
INTERACTION = "http://adlnet.gov/expapi/activities/cmi.interaction"
CHOICES = [{"id": "1", "description": {"en": "No"}}, {"id": "2", "description": {"en": "Yes"}},
           {"id": "3", "description": {"en": "Only for d_k > 1"}}]


def actor(who: str) -> dict:
    return {"objectType": "Agent", "name": who, "account": {"homePage": "http://x/", "name": who}}


def answered(who: str, response: str, first: str, at: str) -> dict:
    return {"actor": actor(who), "verb": {"id": classroom.VERB + "answered"}, "timestamp": at,
            "object": {"id": Q, "definition": {"type": INTERACTION, "name": {"en": "Question 1 (check): A?"},
                                               "interactionType": "choice", "correctResponsesPattern": ["2"],
                                               "choices": CHOICES}},
            "result": {"response": response, "extensions": {classroom.FIRST: first}}}


def checked(who: str, passed: bool, at: str) -> dict:
    """An exercise Check, as the page sends it (statements.js): attempted, or passed."""
    return {"actor": actor(who), "verb": {"id": classroom.VERB + ("passed" if passed else "attempted")},
            "timestamp": at, "object": {"id": EX, "definition": {"type": INTERACTION, "name": {"en": "Exercise: double"}}},
            "result": {"success": passed}}


def test_the_tally_counts_each_learners_first_attempt_once() -> None:
    statements = [answered("ann", "1", "1", "2026-12-04T10:00:00Z"), answered("ann", "2", "1", "2026-12-04T10:01:00Z"),
                  answered("bob", "2", "2", "2026-12-04T10:00:30Z")]
    t = classroom.tally(statements)
    q = t.questions[Q]
    assert (q.answered, dict(q.first), len(t.learners)) == (2, {"1": 1, "2": 1}, 2)
    assert classroom.tally_lines(t, "Monday") == [
        "Class “Monday”: 2 learners sent answers", "Question 1 (check): A?",
        "  2 answered · first attempts:",
        "    option 1 “No”: 1", "    option 2 “Yes” ✓: 1", "    option 3 “Only for d_k > 1”: 0"]


def test_the_tally_counts_each_learner_once_per_exercise_passed_or_not() -> None:
    statements = [checked("ann", False, "2026-12-04T10:00:00Z"), checked("ann", False, "2026-12-04T10:01:00Z"),
                  checked("ann", True, "2026-12-04T10:02:00Z"), checked("bob", False, "2026-12-04T10:00:30Z"),
                  checked("cy", True, "2026-12-04T10:03:00Z"), answered("dee", "2", "2", "2026-12-04T10:04:00Z")]
    t = classroom.tally(statements)
    assert (t.exercises[EX].attempted, t.exercises[EX].passed) == (3, 2)
    lines = classroom.tally_lines(t, "Monday")
    assert lines[0] == "Class “Monday”: 4 learners sent answers"
    assert lines[-2:] == ["Exercise: double", "  2 passed of 3 who checked it"]
    assert EX not in t.questions and Q not in t.exercises


def lesson(who: str, verb: str, at: str) -> dict:
    return {"actor": actor(who), "verb": {"id": classroom.VERB + verb}, "timestamp": at,
            "object": {"id": "urn:lessonkit:c:l", "definition": {"type": "http://adlnet.gov/expapi/activities/lesson",
                                                                 "name": {"en": "L"}}}}


def test_a_lesson_counts_each_learner_by_their_latest_result() -> None:
    statements = [lesson("ann", "failed", "2026-12-04T10:00:00Z"), lesson("ann", "passed", "2026-12-04T10:05:00Z"),
                  lesson("ann", "completed", "2026-12-04T10:05:00Z"), lesson("bob", "passed", "2026-12-04T10:01:00Z"),
                  lesson("bob", "failed", "2026-12-04T10:02:00Z"), lesson("cy", "failed", "2026-12-04T10:03:00Z")]
    assert classroom.tally_lines(classroom.tally(statements), "Monday")[1:] == [
        "Lesson l: 1 passed, 2 failed, 1 completed"]


def test_a_join_code_holds_the_write_key_and_never_the_read_key() -> None:
    made = classroom.new_class("Gruppe Ä – Montag")
    data = json.loads(base64.urlsafe_b64decode(made.code + "=" * (-len(made.code) % 4)).decode("utf-8"))
    assert data == {"v": 1, "id": made.id, "name": "Gruppe Ä – Montag", "key": made.learner_key}
    link = made.link("https://example.org/course")
    assert link.startswith("https://example.org/course/index.html#class=") and made.instructor_key not in link
    commands = made.ralph_commands("https://lrs/xAPI/")
    assert [cmd[cmd.index("-s") + 1] for cmd in commands] == ["statements/write", "statements/read"]
    # Both keys bound to the class's own target, another class's never the same.
    assert [cmd[cmd.index("-t") + 1] for cmd in commands] == [made.target, made.target]
    assert made.target != classroom.new_class("Gruppe Ä – Montag").target


def test_class_new_prints_the_ralph_commands_the_link_its_code_and_the_read_key(tmp_path: Path) -> None:
    (tmp_path / "course.yaml").write_text("title: A course\nclass:\n  lrs: https://lrs.example.org/xAPI/\n")
    proc = subprocess.run([sys.executable, "-m", "lessonkit", "class", "new", "Gruppe Ä – Montag", "--site",
                           "https://example.org/course/", "--course", str(tmp_path)], capture_output=True, text=True,
                          check=True)
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("Class “Gruppe Ä – Montag”: id ")
    auth = [line.split() for line in lines if line.strip().startswith("ralph auth")]
    assert [cmd[cmd.index("-s") + 1] for cmd in auth] == ["statements/write", "statements/read"]
    targets = {cmd[cmd.index("-t") + 1] for cmd in auth}
    assert len(targets) == 1 and next(iter(targets)).startswith("class-")
    link = next(line.strip() for line in lines if "#class=" in line)
    code = lines[lines.index(next(line for line in lines if "Join with a code" in line)) + 1].strip()
    assert link == f"https://example.org/course/index.html#class={code}"
    key = lines[-1].strip()
    assert re.fullmatch(r"class-[0-9a-f]{8}-instructor:[\w-]+", key) and key not in link


def test_class_needs_a_record_store_in_the_course(tmp_path: Path) -> None:
    (tmp_path / "course.yaml").write_text("title: A course\n")
    proc = subprocess.run([sys.executable, "-m", "lessonkit", "class", "new", "Monday", "--site", "https://x/",
                           "--course", str(tmp_path)], capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert proc.stderr == ('course.yaml: no class record store — add "class:" with "lrs: <the LRS\'s xAPI '
                           'endpoint>"\n')
    (tmp_path / "course.yaml").write_text("title: A course\nclass:\n  lrs: ftp://x\n")
    proc = subprocess.run([sys.executable, "-m", "lessonkit", "check", "--course", str(tmp_path)], capture_output=True,
                          text=True, check=False)
    assert 'course.yaml:3: "lrs:" in the course config\'s "class:" must be an http(s) URL, e.g. "lrs: ' \
           'https://lrs.example.org/xAPI/"' in proc.stderr


def test_the_record_store_is_the_one_origin_the_pages_may_connect_to_besides_their_own(tmp_path: Path) -> None:
    from course import write_course

    from lessonkit.hosting.headers import MARKER, site_connect_sources
    from lessonkit.pipeline.site import build_site

    course = write_course(tmp_path, {"course.yaml": "title: A course\nclass:\n  lrs: https://lrs.example.org:8443/xAPI\n",
                                     "a.md": "---\ntitle: A\n---\n\n## Part\n\nText.\n"})
    site = tmp_path / "site"
    build_site(course, site)
    connect = "connect-src 'self' https://lrs.example.org:8443;"
    meta = connect.replace("'", "&#39;")  # in the <meta> tag's attribute
    assert meta in (site / "a.html").read_text() and meta in (site / "index.html").read_text()
    assert connect in (site / "_headers").read_text() and connect in (site / "nginx.conf").read_text()
    assert site_connect_sources(site) == ("https://lrs.example.org:8443",)
    assert json.loads((site / MARKER).read_text())["connect_src"] == ["https://lrs.example.org:8443"]
    data = json.loads((site / "a.html").read_text().split('id="lesson-data">', 1)[1].split("</script>", 1)[0])
    assert data["class"] == {"lrs": "https://lrs.example.org:8443/xAPI/"}
    assert data["lms"]["lesson"] == {"id": "urn:lessonkit:a-course:a", "title": "A", "lang": "en"}
