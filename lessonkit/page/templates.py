"""The templates' loader: the pages' own from templates/, each block type's from its folder (`<type>/<type>.html`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import jinja2

from lessonkit import blocks


def environment(templates: Path, kinds: Mapping[str, blocks.BlockType] | None = None) -> jinja2.Environment:
    """Jinja2 with autoescape and StrictUndefined: a missing variable is a build error, never blank.

    The pages' templates come from `templates`, each block type's from its folder (`<type>/<type>.html`).
    """
    folders = {name: jinja2.FileSystemLoader(kind.folder) for name, kind in (kinds or blocks.types()).items()}
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(templates), jinja2.PrefixLoader(folders)]),
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
    )
