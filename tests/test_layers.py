"""The package's parts import one way: import-linter's contracts in pyproject.toml hold for the package as it is, and
they catch an import that goes the wrong way (a copy of the package with one planted is refused, naming it)."""

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


def test_an_import_up_a_layer_is_refused(tmp_path: Path) -> None:
    """content (a low layer) importing pipeline (a high one): the contract is broken, and says where."""
    copy = tmp_path / "repo"
    (copy / "src").mkdir(parents=True)
    shutil.copytree(PACKAGE, copy / "src" / "lessonkit", ignore=shutil.ignore_patterns("_prebuilt", "__pycache__"))
    shutil.copytree(PACKAGE.parent / "labkit", copy / "src" / "labkit", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copyfile(ROOT / "pyproject.toml", copy / "pyproject.toml")
    planted = copy / "src" / "lessonkit" / "content" / "media.py"
    planted.write_text(planted.read_text(encoding="utf-8") + "\nfrom lessonkit.pipeline import site  # noqa\n",
                       encoding="utf-8")
    done = _lint(copy)
    assert done.returncode == 1
    assert "lessonkit's layers import one way BROKEN" in done.stdout
    assert "lessonkit.content.media -> lessonkit.pipeline.site" in done.stdout
