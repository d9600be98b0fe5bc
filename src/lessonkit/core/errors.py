"""Author-facing build problems: every one is reported as `path:line: message`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with the author's input, with where it is and how to fix it."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class BuildError(Exception):
    """The build found problems; nothing was written to the output folder."""

    def __init__(self, problems: Sequence[Problem] | Sequence[str], notes: Sequence[Problem] | Sequence[str] = ()) -> None:
        # One lab used by many lessons reports its own problem once.
        self.problems = list(dict.fromkeys(str(p) for p in sorted(problems, key=_sort_key)))
        self.notes = list(dict.fromkeys(str(p) for p in sorted(notes, key=_sort_key)))  # printed too; they fail nothing
        super().__init__("\n".join(self.problems))


def _sort_key(p: Problem | str) -> tuple:
    """Sort problems by file, then line, so authors read them top to bottom."""
    return (p.path, p.line, p.message) if isinstance(p, Problem) else (p, 0, "")


class SourcesChangedError(Exception):
    """The course's files changed while a build read them (`lessonkit serve`, a save during a rebuild): what it made may
    mix two saves, so nothing was written; the next build reads them again."""


class RuntimeSetupError(RuntimeError):
    """lessonkit's own files (its prebuilt bundles and runtime, a pinned download) are missing or wrong: not the
    author's doing; the message says how to fix it."""
