"""A build's first steps on a machine, counted before it takes them: each release's runtime unpacked, each pinned
pure-Python wheel and each carrier of Pyodide packages downloaded, every one once into the user cache. The build says
how many (lessonkit.runtime.download.first_steps), so each step's progress line says which of them it is."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lessonkit.runtime.packages import carrier_file, carriers, load_lock
from lessonkit.runtime.prepared import unpacked
from lessonkit.runtime.releases import Release
from lessonkit.runtime.requirements import cached_wheel, split_requires


def pending_steps(root: Path, unpacking: Iterable[Release], requires: Iterable[tuple[Release, list[Any]]]) -> int:
    """How many first steps a build will take: `unpacking`, the releases whose runtime it links into the site;
    `requires`, each lesson's release and `requires:` list; `root`, the user cache. A list with a problem is fetched
    by no build (its lesson is refused), so it counts none."""
    steps: set[tuple[str, ...]] = {("unpack", release.version) for release in unpacking if not unpacked(release)}
    for release, wanted in requires:
        try:
            keys, pure, problems = split_requires(wanted, load_lock(release), release.version)
        except (RuntimeError, ValueError, OSError):
            continue
        if problems:
            continue
        steps |= {("wheel", "".join(req.split()).lower()) for req in pure if cached_wheel(req, root) is None}
        if keys or (pure and not release.micropip_wheel):  # micropip, from the release's lock, when it has no wheel
            steps |= {("carrier", req) for req, _sha in carriers(release) if carrier_file(root, req) is None}
    return len(steps)
