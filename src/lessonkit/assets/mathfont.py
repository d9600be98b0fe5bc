"""The font every page's MathML is set in: Noto Sans Math, a font with an OpenType MATH table (its glyph variants and
assemblies are what let the browser stretch a brace, a bracket or a root around what it encloses), cut into two WOFF2
faces of one family, told apart by `unicode-range`, so a page downloads only the face whose characters it shows:
`math-core` (the characters most formulas are made of: Latin and Greek letters in their math italic forms, digits,
fences, the common operators) and `math-more` (every other character of the font). lessonkit.prebuild.mathfont makes
them, and their @font-face rules at the head of the prebuilt stylesheet, when the wheel is made; the build publishes
them from the prebuilt files (checked with them) into static/<hash>/fonts/.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from lessonkit.core.places import PREBUILT
from lessonkit.core.prebuilt import manifest

FAMILY = "Noto Sans Math"
FOLDER = "fonts"  # in static/<hash>/ beside css/, and in the prebuilt files
FACES = ("math-core", "math-more")


def faces(folder: Path = PREBUILT) -> dict[str, Path]:
    """The two faces' WOFF2 files (file name → path in the prebuilt files)."""
    manifest(folder)
    return {f"{face}.woff2": folder / FOLDER / f"{face}.woff2" for face in FACES}


def write_faces(made: dict[str, Path], folder: Path) -> None:
    """Put the faces from faces() into the site's fonts/ folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, path in made.items():
        shutil.copyfile(path, folder / name)
