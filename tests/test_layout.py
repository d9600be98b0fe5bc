"""The toolkit is a package and the course is its author's folder: nothing in the package knows this repository's
course (its lessons' slugs, titles or lab modules), nothing in the package reaches outside it, nothing in the course
reaches into the package's insides, and the toolkit's tests never read the course (they use tests/fixtures/attention,
so an author may add, edit or remove lessons without touching them); and no build's state is kept at the course's root,
tracked or left there by a run."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml
from places import BUILD_STATE, PACKAGE, ROOT, STATE

COURSE = ROOT  # this repository's root is the attention course's folder
TEXT = (".py", ".js", ".mjs", ".css", ".html", ".j2", ".json", ".md", ".toml", ".yaml")
JS_IMPORT = re.compile(r"""(?:^|[;\s])(?:import|export)\b[^"'`;]*?\bfrom\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']""",
                       re.M)


def _package_files() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*")) if p.is_file() and p.suffix in TEXT
            and "_prebuilt" not in p.relative_to(PACKAGE).parts and "__pycache__" not in p.parts]


def _course_names() -> set[str]:
    """What names the course's lessons: their slugs, titles and lab modules (read from the course itself)."""
    names: set[str] = set()
    for lesson in sorted((COURSE / "lesson").glob("*.md")):
        front = yaml.safe_load(lesson.read_text(encoding="utf-8").split("---", 2)[1])
        names |= {lesson.stem, str(front.get("slug") or lesson.stem), str(front["title"])}
    names |= {p.stem for p in (COURSE / "lab").glob("*.py")}
    names.add(str(yaml.safe_load((COURSE / "course.yaml").read_text(encoding="utf-8"))["title"]))
    return {name for name in names if len(name) > 3}


def test_the_package_holds_no_name_of_the_course() -> None:
    names = _course_names()
    slugs = {p.stem for p in (COURSE / "lesson").glob("*.md") if len(p.stem) > 3}
    assert slugs and slugs <= names  # whatever lessons the course has are among what is looked for
    found = [f"{path.relative_to(PACKAGE)}: {name}" for path in _package_files()
             for name in names if name in path.read_text(encoding="utf-8")]
    assert found == []


def test_the_packages_modules_import_only_inside_it() -> None:
    """Every relative import of the page's modules resolves to a file inside the package."""
    outside = []
    for path in _package_files():
        if path.suffix not in (".js", ".mjs"):
            continue
        for match in JS_IMPORT.finditer(path.read_text(encoding="utf-8")):
            spec = match.group(1) or match.group(2)
            if not spec.startswith("."):
                continue
            target = (path.parent / spec).resolve()
            generated = "generated" in Path(spec).parts  # made by the build into the bundler's copy of the tree
            if not target.is_relative_to(PACKAGE) or not (target.is_file() or generated):
                outside.append(f"{path.relative_to(PACKAGE)} imports {spec}")
    assert outside == []


def test_the_packages_python_finds_its_files_inside_it() -> None:
    """No module climbs out of the package to find a file (its data is found from lessonkit.core.places)."""
    climbing = re.compile(r"Path\(__file__\)[^\n]*\.(?:parents\[[1-9]\]|parent\.parent)")
    found = [str(p.relative_to(PACKAGE)) for p in _package_files()
             if p.suffix == ".py" and p.name != "places.py" and climbing.search(p.read_text(encoding="utf-8"))]
    assert found == []


def test_the_course_uses_only_labkits_public_api() -> None:
    """The course's lab code imports labkit's public names, never lessonkit or labkit's private modules."""
    private = re.compile(r"^\s*(?:from|import)\s+(?:lessonkit\b|labkit\._)", re.M)
    found = [p.name for p in sorted((COURSE / "lab").glob("*.py")) if private.search(p.read_text(encoding="utf-8"))]
    assert found == []


def test_the_toolkits_tests_never_read_the_course() -> None:
    """Only tests/attention (the course's own tests) may read lesson/, lab/ or course.yaml at the repository's root
    (and the benchmark, tests/bench*.py, which measures the course as it is: it asserts nothing)."""
    reads = re.compile(r"""(?:ROOT|parents\[[12]\]|parent\.parent)\s*/\s*["'](?:lesson|lab|course\.yaml|templates|static)["']""")
    tests = ROOT / "tests"
    found = [str(p.relative_to(tests)) for p in sorted(tests.rglob("*.py"))
             if "attention" not in p.relative_to(tests).parts and "fixtures" not in p.relative_to(tests).parts
             and p.name != "test_layout.py" and not p.name.startswith("bench")
             and reads.search(p.read_text(encoding="utf-8"))]
    assert found == []


def test_no_build_state_at_the_course_root() -> None:
    """A build's state lives in the course's .lessonkit/ (never committed) or, for a test, in a tmp folder: none of it
    is tracked at the course's root, and no run has left any there."""
    left = sorted(name for name in BUILD_STATE if (COURSE / name).exists())
    assert left == [], f"build state at the course's root: {left} — give the code that wrote it a tmp folder as state"
    listed = subprocess.run(["git", "ls-files", "--", *BUILD_STATE, STATE], cwd=COURSE, capture_output=True, text=True,
                            check=True, timeout=60).stdout.split()
    assert listed == [], f"build state tracked at the course's root: {listed} — git rm it"


def test_the_toolkits_lint_covers_every_file_of_its_own() -> None:
    """`ruff check .` (pyproject.toml's rules) reads every Python file of the package and its tests, each block type's
    folder among them (a `lab` block's folder is not the course's lab/), and neither lab/ folder of a course, which
    are linted by their own rules (lab/ruff.toml, docs/lab/ruff.toml)."""
    ruff = Path(sys.executable).with_name("ruff")
    listed = subprocess.run([str(ruff), "check", "--show-files", "."], cwd=ROOT, capture_output=True, text=True,
                            check=True, timeout=120).stdout.split()
    linted = {Path(line).relative_to(ROOT).as_posix() for line in listed if line.endswith(".py")}
    own = {p.relative_to(ROOT).as_posix() for folder in ("src", "tests") for p in (ROOT / folder).rglob("*.py")
           if not {"_prebuilt", "__pycache__", "fixtures"} & set(p.relative_to(ROOT).parts)}
    assert sorted(own - linted) == []
    assert sorted(p for p in linted if p.startswith(("lab/", "docs/lab/"))) == []
