"""One minified stylesheet for every page: the math font's faces (lessonkit.assets.mathfont), the page's parts from
static/css, each block type's `<type>.css`, and the print rules under @media print (no second request)."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from lessonkit.assets import mathfont
from lessonkit.assets.esbuild import CACHE, cache_key, run_esbuild
from lessonkit.build.files import atomic_write

if TYPE_CHECKING:
    from lessonkit.blocks import BlockType

# In cascade order: the lab's parts follow its colours, and its print rules come last of the lab's.
SCREEN_CSS = ("lesson.css", "course.css", "progress.css", "lab.css", "lab-editor.css", "lab-output.css", "lab-chart.css",
              "lab-print.css", "instructor.css", "search.css")

PRINT_CSS = "print.css"

STYLE_NAME = "site.css"


def bundle_styles(root: Path, css: Path, block_types: Mapping[str, BlockType]) -> Path:
    """One minified stylesheet: the math font's @font-face rules, the page's screen parts in `css`, each block type's
    `<type>.css` after them (in the registry's order), then the print rules under @media print (no second request).
    Returns its path in the cache (esbuild runs only when a part changed)."""
    parts = [css / name for name in SCREEN_CSS if (css / name).is_file()]
    parts += [kind.stylesheet for _, kind in sorted(block_types.items()) if kind.stylesheet.is_file()]
    text = mathfont.font_faces_css(root) + "\n".join(p.read_text(encoding="utf-8") for p in parts)
    printed = css / PRINT_CSS
    if printed.is_file():
        text += f"\n@media print {{\n{printed.read_text(encoding='utf-8')}\n}}\n"
    cached = root / CACHE / f"css-{cache_key(root, ('css',), [('site.css', text.encode())])}.css"
    if not cached.is_file():
        minified = run_esbuild(root, ["--loader=css", "--minify", "--log-level=warning"], [], stdin=text)
        atomic_write(cached, minified.encode())
    return cached


def write_styles(style: Path, css: Path) -> None:
    """Put the stylesheet from bundle_styles into the site's css/ folder in place of its parts."""
    shutil.copyfile(style, css / STYLE_NAME)
    for name in (*SCREEN_CSS, PRINT_CSS):
        # Only the bundle ships: nothing (the service worker included) should fetch the parts.
        (css / name).unlink(missing_ok=True)
