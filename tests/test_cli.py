"""The `lessonkit` command as a course author types it, from nothing to a built, served and packed course: `new`,
`check`, `build`, `serve` and `scorm` in the course folder or below it, each run as a process (`python -m lessonkit`
and the `lessonkit` console script), with its exact output."""

from __future__ import annotations

import http.client
import importlib.metadata
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from course import edit, line_of
from terminal import ctrl_c_as_a_terminal_has_it

import lessonkit
from lessonkit.blocks import types
from lessonkit.content.lesson import FRONT_MATTER, load_lesson

TIMEOUT = 300  # a build on a busy machine, with every lab of the first lesson run
TITLE = "Attention from scratch"
COURSE_ID = "attention-from-scratch"
NOTHING = "nothing was written"
SCRIPT = Path(sys.executable).with_name("lessonkit")  # the console script pip installed beside this Python


# A long first step's progress line on stderr ("lessonkit: unpacking Pyodide … once for this lessonkit"): printed
# or not as the user cache, shared by the suite's runs, is fresh or not, so the tests leave these lines out.
PROGRESS = re.compile(r"^lessonkit: [a-z]+ing .*\n?", re.M)


def lessonkit_(*args: str, cwd: Path, script: bool = False) -> subprocess.CompletedProcess[str]:
    """`lessonkit ARGS` in `cwd`: `python -m lessonkit`, or the console script (its stderr without progress lines)."""
    command = [str(SCRIPT)] if script else [sys.executable, "-m", "lessonkit"]
    done = subprocess.run([*command, *args], capture_output=True, text=True, timeout=TIMEOUT, check=False, cwd=cwd)
    done.stderr = PROGRESS.sub("", done.stderr)
    return done


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _block_list() -> str:
    """The block types in the order the first lesson shows their examples."""
    kinds = types()
    return ", ".join(sorted(kinds, key=lambda name: (kinds[name].example_order, name)))


def _ms(line: str) -> str:
    """A line with its timing ("in 734 ms", "(81 ms)") as the pattern N, which differs from run to run."""
    return re.sub(r"\d+ ms\b", "N ms", line)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A course made by `lessonkit new`, once; each test works on its own copy (`course`)."""
    where = tmp_path_factory.mktemp("new")
    done = lessonkit_("new", "course", "--title", TITLE, cwd=where)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return where / "course"


@pytest.fixture()
def course(made: Path, tmp_path: Path) -> Path:
    """This test's own copy of the course `lessonkit new` made."""
    shutil.copytree(made, tmp_path / "course", symlinks=True)
    return tmp_path / "course"


def test_version_has_one_home() -> None:
    """`lessonkit --version` (both ways of running it) is lessonkit.__version__, which the installed package's
    metadata was made from."""
    for script in (False, True):
        done = lessonkit_("--version", cwd=Path.cwd(), script=script)
        assert (done.returncode, done.stdout, done.stderr) == (0, f"lessonkit {lessonkit.__version__}\n", "")
    assert importlib.metadata.version("lessonkit") == lessonkit.__version__


def test_new_makes_a_course_folder(tmp_path: Path) -> None:
    """`lessonkit new DIR`: every file it writes, what it says, and the next commands."""
    done = lessonkit_("new", "my-course", cwd=tmp_path, script=True)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == [
        "created my-course/course.yaml",
        "created my-course/README.md",
        "created my-course/.gitignore",
        "created my-course/requirements.txt",
        "created my-course/.github/workflows/publish.yml",
        f"created my-course/lesson/first-lesson.md (one example of each block type: {_block_list()})",
        "created my-course/lab/first_lesson.py and my-course/lab/first_lesson_widget.py (the Python its lab and widget "
        "run)",
        "next:",
        "  cd my-course",
        "  lessonkit serve         # build, serve at http://127.0.0.1:8000 and rebuild on every save",
        '  lessonkit add "Title"   # another lesson',
    ]
    folder = tmp_path / "my-course"
    assert sorted(_files(folder)) == [".github/workflows/publish.yml", ".gitignore", "README.md", "course.yaml",
                                      "lab/first_lesson.py", "lab/first_lesson_widget.py", "lesson/first-lesson.md",
                                      "requirements.txt"]
    config = yaml.safe_load((folder / "course.yaml").read_text(encoding="utf-8"))
    assert (config["title"], config["id"]) == ("My course", "my-course")  # from the folder's name
    assert (folder / "requirements.txt").read_text(encoding="utf-8") == f"lessonkit=={lessonkit.__version__}\n"
    ignored = (folder / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert {"/site/", "/dist/", "/.lessonkit/"} <= set(ignored)
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert readme.startswith("# My course\n") and all(f"lessonkit {c}" in readme for c in ("serve", "add", "check",
                                                                                          "build", "scorm"))

    lesson = load_lesson(folder / "lesson" / "first-lesson.md", "lesson/first-lesson.md", problems := [], types())
    assert problems == [] and lesson is not None
    assert sorted(block.type for block in lesson.blocks) == sorted(types())  # one example of every block type


def test_the_workflow_publishes_the_built_site(course: Path) -> None:
    """.github/workflows/publish.yml is a GitHub Actions workflow: it installs the pinned lessonkit from
    requirements.txt, runs `lessonkit build`, uploads site/ as the Pages artifact and deploys it."""
    flow = yaml.safe_load((course / ".github" / "workflows" / "publish.yml").read_text(encoding="utf-8"))
    triggers = flow[True]  # YAML 1.1 reads the key `on` as true
    assert triggers["push"]["branches"] == ["main"] and "workflow_dispatch" in triggers
    assert flow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    steps = flow["jobs"]["build"]["steps"]
    runs = [step["run"] for step in steps if "run" in step]
    assert runs == ["pip install -r requirements.txt", "lessonkit build"]
    upload = next(step for step in steps if step.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"] == {"path": "site"}
    assert runs.index("lessonkit build") > runs.index("pip install -r requirements.txt")
    deploy = flow["jobs"]["deploy"]
    assert deploy["needs"] == "build"
    assert deploy["steps"][0]["uses"].startswith("actions/deploy-pages@")
    assert deploy["environment"]["url"] == "${{ steps.deployment.outputs.page_url }}"


def test_new_refuses_a_course_or_a_folder_with_other_files(course: Path, tmp_path: Path) -> None:
    """A folder that is a course already, or holds files of its own, is refused (exit 1) and left as it was; no DIR
    is a usage error that says what to type."""
    before = _files(course)
    again = lessonkit_("new", "course", cwd=tmp_path)
    assert (again.returncode, again.stdout) == (1, "")
    assert again.stderr.splitlines() == [f'course is a course already (it has a course.yaml): {NOTHING} — add a lesson '
                                         'to it with lessonkit add "Title", or choose another folder']
    assert _files(course) == before

    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("mine\n", encoding="utf-8")
    (tmp_path / "notes" / "README.md").write_text("# Mine\n", encoding="utf-8")
    other = lessonkit_("new", "notes", cwd=tmp_path)
    assert (other.returncode, other.stdout) == (1, "")
    assert other.stderr.splitlines() == [f"notes holds other files (todo.txt): {NOTHING} — give a new or empty folder "
                                         "for the course"]
    assert _files(tmp_path / "notes") == {"README.md": b"# Mine\n", "todo.txt": b"mine\n"}

    (tmp_path / "a-file").write_text("x\n", encoding="utf-8")
    file = lessonkit_("new", "a-file", cwd=tmp_path)
    assert (file.returncode, file.stdout, file.stderr) == (
        1, "", f"a-file is a file: {NOTHING} — give a folder for the course\n")

    bare = lessonkit_("new", cwd=tmp_path)
    assert (bare.returncode, bare.stdout) == (2, "")
    assert bare.stderr.splitlines() == [
        "usage: lessonkit new [-h] [--title TITLE] [--language TAG] [DIR]",
        "lessonkit new: error: give the new course's folder, e.g. lessonkit new my-course (or lessonkit new . for the "
        "current, empty folder)"]


def test_new_fills_a_fresh_repository(tmp_path: Path) -> None:
    """`lessonkit new .` in a clone of a new repository: its README is kept, its .gitignore gets the build folders it
    lacks (nothing else changed), and the course builds."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "README.md").write_text("# Our course\n", encoding="utf-8")
    (repo / ".gitignore").write_text("__pycache__/\n*.pyc\n", encoding="utf-8")
    done = lessonkit_("new", ".", "--title", TITLE, cwd=repo)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines()[:5] == ["created course.yaml", "created requirements.txt",
                                            "created .github/workflows/publish.yml",
                                            "added lessonkit's build folders to .gitignore", "kept README.md as it was"]
    assert "  cd " not in done.stdout  # it is there already
    assert (repo / "README.md").read_text(encoding="utf-8") == "# Our course\n"
    assert (repo / ".gitignore").read_text(encoding="utf-8") == (
        "__pycache__/\n*.pyc\n\n# Made by lessonkit build / serve / scorm: never commit them.\n/site/\n/site.tmp-*/\n"
        "/site.old-*/\n/dist/\n/.lessonkit/\n")
    assert yaml.safe_load((repo / "course.yaml").read_text(encoding="utf-8"))["id"] == COURSE_ID


def test_check_writes_nothing_and_says_so(course: Path) -> None:
    """`lessonkit check` in a new course: exit 0, one line, no site/."""
    done = lessonkit_("check", cwd=course)
    assert (done.returncode, done.stderr, _ms(done.stdout)) == (0, "", "checked 1 lesson: no problems (N ms)\n")
    assert not (course / "site").exists()


def test_check_prints_every_problem_at_its_line(course: Path) -> None:
    """A lesson with two mistakes: both on stderr as path:line with how to fix them, exit 1, and still no site/."""
    path = course / "lesson" / "first-lesson.md"
    text = path.read_text(encoding="utf-8")
    broken = edit(edit(text, "        correct: true           # exactly one option per question\n", ""),
                  "timeout: 10                     # seconds the build lets it run\n",
                  "timeout: ten                    # seconds the build lets it run\n")
    path.write_text(broken, encoding="utf-8")
    done = lessonkit_("check", cwd=course / "lab")
    assert (done.returncode, done.stdout) == (1, "")
    question, timeout = line_of(broken, "  - question: What happens"), line_of(broken, "timeout: ten")
    assert done.stderr.splitlines() == [
        f'lesson/first-lesson.md:{question}: question 1 ("What happens to the shares when $p$…") has no correct '
        'option — mark exactly one option with "correct: true"',
        f'lesson/first-lesson.md:{timeout}: "timeout:" is the seconds the lab may run at build time, more than 0 and at '
        'most 600, e.g. "timeout: 20"',
        "check failed: 2 problems"]
    assert not (course / "site").exists()


def test_build_finds_the_course_from_a_subfolder(course: Path) -> None:
    """`lessonkit build` in lesson/ builds the course above it into its site/; a broken lesson then fails the build
    (exit 1) and leaves that site as it was."""
    done = lessonkit_("build", cwd=course / "lesson", script=True)
    assert (done.returncode, done.stderr, _ms(done.stdout)) == (0, "", "built 1 lesson page into site/ in N ms\n")
    site = course / "site"
    assert {"index.html", "first-lesson.html", "sw.js", "_headers"} <= {p.name for p in site.iterdir()}
    assert "<h1 id=\"lesson-title\" tabindex=\"-1\" data-pagefind-meta=\"title\">Your first lesson</h1>" in (
        site / "first-lesson.html").read_text(encoding="utf-8")
    assert not (course / "lesson" / "site").exists()
    published = _files(site)

    path = course / "lesson" / "first-lesson.md"
    path.write_text(edit(path.read_text(encoding="utf-8"), 'title: "Your first lesson"', "titel: First"),
                    encoding="utf-8")
    failed = lessonkit_("build", cwd=course / "lesson")
    assert (failed.returncode, failed.stdout) == (1, "")
    assert failed.stderr.splitlines() == [
        'lesson/first-lesson.md:2: the front matter needs "title:" with the lesson\'s title, e.g. "title: My lesson"',
        'lesson/first-lesson.md:2: unknown key "titel" in the front matter (did you mean "title"?) — use one of: '
        + ", ".join(sorted(FRONT_MATTER.keys)),
        "build failed: 2 problems; site/ was left as it was"]
    assert _files(site) == published


@pytest.mark.parametrize("args", [("check",), ("build",), ("serve",), ("scorm",), ("add", "A lesson")])
def test_outside_any_course(tmp_path: Path, args: tuple[str, ...]) -> None:
    """Every command but `new`, run where no folder up to the root holds a course.yaml: exit 1, one line saying how
    to make one, and nothing written."""
    (tmp_path / "lesson").mkdir()
    done = lessonkit_(*args, cwd=tmp_path / "lesson")
    assert (done.returncode, done.stdout, done.stderr) == (
        1, "", f"lessonkit: no course.yaml in {(tmp_path / 'lesson').resolve()} or above — `lessonkit new DIR` makes "
               "one\n")
    assert [p.name for p in tmp_path.rglob("*")] == ["lesson"]


def test_the_course_folder_given_with_course(course: Path, tmp_path: Path) -> None:
    """`--course DIR` (-C) works on that course from anywhere; a folder that does not exist is a usage error, never a
    course found above it; `lessonkit` alone lists the commands."""
    done = lessonkit_("check", "-C", "course", cwd=tmp_path)
    assert (done.returncode, done.stderr, _ms(done.stdout)) == (0, "", "checked 1 lesson: no problems (N ms)\n")
    typo = lessonkit_("build", "--course", "cuorse", cwd=course)
    assert (typo.returncode, typo.stdout) == (2, "")
    assert typo.stderr.splitlines()[-1] == "lessonkit build: error: --course cuorse: no such folder"
    assert not (course / "site").exists()
    bare = lessonkit_(cwd=tmp_path)
    assert (bare.returncode, bare.stderr) == (2, "")
    assert bare.stdout.startswith("usage: lessonkit [-h] [--version] COMMAND ...\n")
    assert all(f"    {name} " in bare.stdout for name in ("new", "add", "check", "build", "serve", "scorm"))


@pytest.fixture()
def serving(course: Path) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """`lessonkit serve --port 0` in the course (a port the system finds free): the process and its first lines, up to
    the one that says where it serves."""
    proc = subprocess.Popen([sys.executable, "-m", "lessonkit", "serve", "--port", "0"], cwd=course, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=ctrl_c_as_a_terminal_has_it)
    assert proc.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if not PROGRESS.match(line):
            lines.append(line.rstrip("\n"))
        if "Ctrl-C" in line:
            break
    try:
        yield proc, lines
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)


def _get(port: int, path: str) -> tuple[int, str, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type") or "", response.read()
    finally:
        conn.close()


def test_serve_answers_on_a_free_port(course: Path, serving: tuple[subprocess.Popen[str], list[str]]) -> None:
    """`lessonkit serve --port 0`: it builds, says where it serves, answers the index and the lesson over HTTP on
    127.0.0.1, and Ctrl-C stops it (exit 0)."""
    proc, lines = serving
    assert len(lines) == 2, lines
    assert _ms(lines[0]) == "built 1 lesson page into site/ in N ms"
    found = re.fullmatch(r"Serving (.+) at http://127\.0\.0\.1:(\d+)/ \(live reload, cross-origin isolated\)\. "
                         r"Press Ctrl-C to stop\.", lines[1])
    assert found is not None, lines[1]
    assert Path(found.group(1)) == course / "site"
    port = int(found.group(2))
    assert port != 0
    status, kind, index = _get(port, "/index.html")
    assert (status, kind) == (200, "text/html; charset=utf-8")
    assert f"<title>{TITLE}</title>".encode() in index and b'href="first-lesson.html"' in index
    status, kind, page = _get(port, "/first-lesson.html")
    assert (status, kind) == (200, "text/html; charset=utf-8")
    assert b"<title>Your first lesson \xc2\xb7 " + TITLE.encode() + b"</title>" in page
    proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=60)
    assert (proc.returncode, rest) == (0, "\nStopped.\n")


MARKER = re.compile(rb"Saved version marker-(\d+)-end\.")
LAB_SAVE = re.compile(rb"# save (\d+)\b")


def _version(body: bytes) -> tuple[int | None, int | None]:
    """The lesson's and the lab's save a served page shows (None: the text before the burst); a page that shows two
    of either is a mix."""
    markers = {int(n) for n in MARKER.findall(body)}
    saves = {int(n) for n in LAB_SAVE.findall(body)}
    assert len(markers) <= 1 and len(saves) <= 1, (markers, saves)
    return (min(markers) if markers else None), (min(saves) if saves else None)


def _built(body: bytes) -> bytes:
    """A served page as its build wrote it: without the live-reload script serve adds, which names the build's epoch."""
    return re.sub(rb'<script type="module" src="/__lessonkit/dev-reload\.js\?epoch=\d+"></script>\n', b"", body)


def _save_whole(path: Path, text: str) -> None:
    """Save as an editor that writes a new file and renames it over the old: never seen half-written."""
    temporary = path.with_name(f".{path.name}.saving")  # a dot file: the watcher ignores it
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def test_serve_rebuilds_through_a_burst_of_edits_never_serving_a_torn_page(
    course: Path, serving: tuple[subprocess.Popen[str], list[str]]
) -> None:
    """Forty saves of a lesson (and every fifth, of its lab) in quick succession, each written in place (an editor's
    truncate-then-write, so a rebuild may read a half-saved file), while a reader keeps asking for the page: every
    answer is the page of one saved state of the two files (or of the state before the burst), byte for byte the page
    a build of that state serves, never a mix of two saves or a half-written one; once the saves stop the page is the
    last one's."""
    import threading

    proc, lines = serving
    port = int(re.search(r":(\d+)/", lines[-1]).group(1))
    lesson = course / "lesson" / "first-lesson.md"
    original = lesson.read_text(encoding="utf-8")
    lab = course / "lab" / "first_lesson.py"
    lab_code = lab.read_text(encoding="utf-8")
    texts = {"lesson": lambda n: original if n is None else f"{original}\nSaved version marker-{n}-end.\n",
             "lab": lambda k: lab_code if k is None else f"{lab_code}\n# save {k}\n"}
    before = _get(port, "/first-lesson.html")
    assert before[0] == 200 and _version(before[2]) == (None, None)
    saved = {(None, None)}  # (lesson's save, lab's save) after each save: the states the page may show
    answers: list[tuple[int, bytes]] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            status, _, body = _get(port, "/first-lesson.html")
            answers.append((status, body))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        lab_saved = None
        for n in range(40):
            with lesson.open("w", encoding="utf-8") as file:  # in place: truncated, then written in two parts
                file.write(original)
                file.flush()
                file.write(f"\nSaved version marker-{n}-end.\n")
            saved.add((n, lab_saved))
            if n % 5 == 0:  # the lab too: a rebuild that runs it is under way as the next saves land
                lab.write_text(texts["lab"](n), encoding="utf-8")
                lab_saved = n
                saved.add((n, lab_saved))
            time.sleep(0.02)
        last = (39, 35)
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline and _version(_get(port, "/first-lesson.html")[2]) != last:
            time.sleep(0.2)
    finally:
        done.set()
        reader.join(timeout=60)
    final = _get(port, "/first-lesson.html")[2]
    assert _version(final) == last, "the page never showed the last save"
    assert answers
    served: dict[tuple[int | None, int | None], set[bytes]] = {(None, None): {_built(before[2])}, last: {_built(final)}}
    for status, body in answers:
        assert status == 200 and body.rstrip().endswith(b"</html>"), body[-200:]
        version = _version(body)
        assert version in saved, f"a page of lesson save {version[0]} with lab save {version[1]}: never saved together"
        served.setdefault(version, set()).add(_built(body))
    # Each state's page, made again from that state saved whole, is the very page served for it.
    for (n, k), bodies in sorted(served.items(), key=lambda item: (item[0][0] is not None, item[0])):
        _save_whole(lesson, texts["lesson"](n))
        _save_whole(lab, texts["lab"](k))
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline and _version(page := _get(port, "/first-lesson.html")[2]) != (n, k):
            time.sleep(0.2)
        assert bodies == {_built(page)}, f"the page served for lesson save {n} with lab save {k} is not its build's"
    assert proc.poll() is None, "the server stopped"


def test_scorm_packs_the_course_into_dist(course: Path) -> None:
    """`lessonkit scorm` builds the site, then packs it as dist/<course id>-scorm2004.zip for an LMS."""
    done = lessonkit_("scorm", cwd=course)
    assert (done.returncode, done.stderr) == (0, "")
    package = course / "dist" / f"{COURSE_ID}-scorm2004.zip"
    size = package.stat().st_size / 1e6
    assert [_ms(line) for line in done.stdout.splitlines()] == [
        "built 1 lesson page into site/ in N ms",
        f"packed dist/{COURSE_ID}-scorm2004.zip ({size:.1f} MB)",
        "scorm: 1 SCORM 2004 package in N ms"]
    with zipfile.ZipFile(package) as packed:
        names = set(packed.namelist())
    assert {"imsmanifest.xml", "index.html", "first-lesson.html"} <= names


def test_a_build_leaves_the_course_the_authors(course: Path) -> None:
    """What a build adds to the course folder: site/, and its build state in .lessonkit/ (ignored by a .gitignore of
    its own, whatever the course's says); downloads and the unpacked runtime go to the user cache."""
    before = set(_files(course))
    done = lessonkit_("build", cwd=course)
    assert done.returncode == 0, done.stderr
    added = {rel.split("/", 1)[0] for rel in set(_files(course)) - before}
    assert added == {"site", ".lessonkit"}
    assert (course / ".lessonkit" / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
