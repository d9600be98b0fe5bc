"""The package's parts import one way: import-linter's contracts in pyproject.toml hold for the package as it is, and
they catch an import that goes the wrong way and a part placed in no layer (a copy of the package with one planted is
refused, naming it)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from places import PACKAGE, ROOT

LINT = Path(sys.executable).with_name("lint-imports")


def _lint(cwd: Path, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(cwd / "src"), "PATH": str(LINT.parent), **(extra or {})}
    return subprocess.run([str(LINT), "--no-cache"], cwd=cwd, capture_output=True, text=True, env=env, check=False,
                          timeout=300)


def test_the_contracts_hold() -> None:
    done = _lint(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 3 kept, 0 broken." in done.stdout


def _copy(tmp_path: Path) -> Path:
    """The repository's package, labkit and pyproject.toml, copied (a test plants its change there)."""
    copy = tmp_path / "repo"
    (copy / "src").mkdir(parents=True)
    shutil.copytree(PACKAGE, copy / "src" / "lessonkit", ignore=shutil.ignore_patterns("_prebuilt", "__pycache__"))
    shutil.copytree(PACKAGE.parent / "labkit", copy / "src" / "labkit", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(ROOT / "pyproject.toml", copy / "pyproject.toml")
    return copy


def test_an_import_up_a_layer_is_refused(tmp_path: Path) -> None:
    """content (a low layer) importing pipeline (a high one): the contract is broken, and says where."""
    copy = _copy(tmp_path)
    planted = copy / "src" / "lessonkit" / "content" / "media.py"
    planted.write_text(planted.read_text(encoding="utf-8") + "\nfrom lessonkit.pipeline import site  # noqa\n",
                       encoding="utf-8")
    done = _lint(copy)
    assert done.returncode == 1
    assert "lessonkit's layers import one way BROKEN" in done.stdout
    assert "lessonkit.content.media -> lessonkit.pipeline.site" in done.stdout


def test_a_part_in_no_layer_is_refused(tmp_path: Path) -> None:
    """A new subpackage, and a new module beside the subpackages, are in no layer: the contract is broken until each
    is given its place."""
    copy = _copy(tmp_path)
    (copy / "src" / "lessonkit" / "extras").mkdir()
    (copy / "src" / "lessonkit" / "extras" / "__init__.py").write_text('"""A part of no layer."""\n', encoding="utf-8")
    (copy / "src" / "lessonkit" / "loose.py").write_text('"""A module of no layer."""\n', encoding="utf-8")
    done = _lint(copy)
    assert done.returncode == 1
    assert "lessonkit's layers import one way BROKEN" in done.stdout
    assert "- lessonkit.extras\n" in done.stdout and "- lessonkit.loose\n" in done.stdout
