"""Run each lab file in CPython at build time: its output and its functions feed the page."""

from __future__ import annotations

import contextlib
import hashlib
import io
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lessonkit.errors import Problem


@dataclass
class LabRun:
    """A lab file and what running it unchanged produced."""

    file: str
    rel: str
    code: str
    output: str = ""
    namespace: dict[str, Any] = field(default_factory=dict)
    chart: dict[str, Any] = field(default_factory=dict)
    ok: bool = False

    @property
    def code_hash(self) -> str:
        """Version of the starter code, so saved learner edits know when it changed."""
        return hashlib.sha256(self.code.encode()).hexdigest()[:16]


def run_lab(lab_dir: Path, root: Path, file: str, problems: list[Problem], where: Problem) -> LabRun | None:
    """Compile and run `lab/<file>`; author errors become problems at the lab file's own line."""
    path = lab_dir / file
    rel = _rel(path, root)
    if not path.is_file() or path.suffix != ".py":
        available = ", ".join(sorted(p.name for p in lab_dir.glob("*.py"))) or "none"
        problems.append(Problem(where.path, where.line, f'lab file "{rel}" not found — create it or fix '
                                f'"file:" (Python files in {_rel(lab_dir, root)}/: {available})'))
        return None
    code = path.read_text(encoding="utf-8")
    lab = LabRun(file, rel, code)
    try:
        compiled = compile(code, rel, "exec", dont_inherit=True)
    except SyntaxError as exc:
        problems.append(Problem(rel, exc.lineno or 1, f"SyntaxError: {exc.msg} — the lab must run unchanged"))
        return lab
    out = io.StringIO()
    namespace: dict[str, Any] = {"__name__": "__main__", "__file__": rel}
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            exec(compiled, namespace)  # noqa: S102 — running the author's own lab is the point
    except Exception as exc:  # any failure of the starter code is the author's to fix
        line = _lab_line(exc, rel)
        problems.append(Problem(rel, line, f"{type(exc).__name__}: {exc} — the lab must run unchanged"))
        return lab
    lab.output, lab.namespace, lab.ok = out.getvalue(), namespace, True
    lab.chart = _chart(lab.output, problems, rel)
    return lab


def _chart(output: str, problems: list[Problem], rel: str) -> dict[str, Any]:
    """Chart data parsed by labkit, the same parser the browser's worker uses."""
    try:
        from labkit import chart_data
    except ImportError as exc:
        problems.append(Problem(rel, 1, f"cannot import labkit from lab/ ({exc})"))
        return {}
    return chart_data(output)


def _lab_line(exc: BaseException, rel: str) -> int:
    """Line of the innermost frame that belongs to the lab file."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == rel]
    return frames[-1].lineno or 1 if frames else 1


def _rel(path: Path, root: Path) -> str:
    """Path as the author sees it, relative to the project."""
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def ensure_labkit_importable(lab_dir: Path) -> None:
    """Put lab/ on sys.path so `import labkit` is the very package the browser installs."""
    if str(lab_dir) not in sys.path:
        sys.path.insert(0, str(lab_dir))
