"""One stylesheet for every page: the toolkit's parts from static/css, each of its block types' `<type>.css`, and the
print rules under @media print (no second request), minified into the prebuilt files when the wheel is made
(lessonkit.prebuild.bundles); then a course's own block types' styles and its static/css/*.css, as they are."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from lessonkit.core.files import atomic_write
from lessonkit.core.places import PREBUILT, STATIC
from lessonkit.core.prebuilt import check_sources, sources_digest

if TYPE_CHECKING:
    from lessonkit.blocks import BlockType

# In cascade order: the lab's parts follow its colours, and its print rules come last of the lab's.
SCREEN_CSS = ("lesson.css", "course.css", "progress.css", "lab.css", "lab-editor.css", "lab-output.css", "lab-chart.css",
              "lab-print.css", "instructor.css", "presenter.css", "search.css")

PRINT_CSS = "print.css"

STYLE_NAME = "site.css"


def toolkit_text(block_types: Mapping[str, BlockType], css: Path = STATIC / "css") -> str:
    """The toolkit's stylesheet before minifying: the page's screen parts in `css`, each of the toolkit's block types'
    `<type>.css` after them (in the registry's order), then the print rules under @media print (no second request)."""
    parts = [css / name for name in SCREEN_CSS if (css / name).is_file()]
    parts += [kind.stylesheet for _, kind in sorted(block_types.items()) if kind.own and kind.stylesheet.is_file()]
    text = "\n".join(p.read_text(encoding="utf-8") for p in parts)
    printed = css / PRINT_CSS
    if printed.is_file():
        text += f"\n@media print {{\n{printed.read_text(encoding='utf-8')}\n}}\n"
    return text


def css_digest(block_types: Mapping[str, BlockType]) -> str:
    """The digest of the stylesheet's parts the prebuilt one must have been made from."""
    return sources_digest([(STYLE_NAME, toolkit_text(block_types).encode())])


def course_parts(block_types: Mapping[str, BlockType], static: Path | None) -> list[Path]:
    """A course's own styles, after the toolkit's: its block types' `<type>.css`, then its static/css/*.css."""
    parts = [kind.stylesheet for _, kind in sorted(block_types.items()) if not kind.own and kind.stylesheet.is_file()]
    if static is not None and (static / "css").is_dir():
        parts += sorted(p for p in (static / "css").glob("*.css") if p.is_file())
    return parts


def bundle_styles(block_types: Mapping[str, BlockType], static: Path | None, cache: Path,
                  folder: Path = PREBUILT) -> Path:
    """The one stylesheet: the prebuilt, minified toolkit styles (refused unless made from the installed parts),
    then the course's own parts as they are. Returns its path (the prebuilt file when the course adds none; else a
    file in `cache`, the course's build state, named by its content)."""
    check_sources("css", css_digest(block_types), "styles", folder)
    made = folder / "css" / STYLE_NAME
    parts = course_parts(block_types, static)
    if not parts:
        return made
    text = made.read_text(encoding="utf-8") + "".join(
        f"\n/* {p.name} */\n" + p.read_text(encoding="utf-8") for p in parts)
    data = text.encode()
    cached = cache / "css" / f"site-{hashlib.sha256(data).hexdigest()[:16]}.css"
    if not cached.is_file():
        atomic_write(cached, data)
    return cached


def write_styles(style: Path, css: Path) -> None:
    """Put the stylesheet from bundle_styles into the site's css/ folder, in place of the course's own parts (only
    the one stylesheet ships: nothing, the service worker included, should fetch them)."""
    css.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(style, css / STYLE_NAME)
    for part in css.glob("*.css"):
        if part.name != STYLE_NAME:
            part.unlink()
