"""The math font's faces, made for the prebuilt files (lessonkit.assets.mathfont publishes them): Noto Sans Math from
the pinned npm package @fontsource/noto-sans-math (checked against vendor-manifest.json like every vendored file),
cut by fontTools into CORE, the characters most formulas are made of (Latin and Greek letters in their math italic
forms, digits, fences, the common operators), and MORE, every other character of the font (arrows, rarer operators,
script and double-struck letters), fetched only by a page that uses one. Each face keeps the MATH table of its own
glyphs, and every glyph a variant or an assembly of them needs (fontTools' closure); the radical's variants are kept to
those of about its own width (`_narrow_radical`). The faces are made once per font, fontTools and ranges, and kept in
the repository's .cache/fonts/; the stylesheet's @font-face rules are made from the same ranges (`font_faces_css`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import shutil
from pathlib import Path

from lessonkit.assets.mathfont import FACES, FAMILY, FOLDER
from lessonkit.core.files import atomic_write

PACKAGE = ("@fontsource/noto-sans-math", "5.3.0")
# Fontsource calls it the "latin" file, but it holds the whole font (its CSS limits it to Latin by unicode-range).
SOURCE = "node_modules/@fontsource/noto-sans-math/files/noto-sans-math-latin-400-normal.woff2"
FILES: tuple[tuple[str, str, str], ...] = ((*PACKAGE, SOURCE),)  # for lessonkit.prebuild.vendor.VENDOR_FILES
CACHE = Path(".cache") / "fonts"
# The name table's copyright, names, version and licence URL (ids 0-6, 14) travel with each face.
NAMES = (0, 1, 2, 3, 4, 5, 6, 14)

# Unicode ranges (first, last) of the core face: Basic Latin and Latin-1 (× · ±), the accents (ˆ ˙ ˜) and Greek,
# general punctuation (′ ″ ‖ … and the invisible operators), letterlike symbols (ℎ, ℓ, ℝ), the common arrows and
# operators, floors, ceilings and angle brackets, and the math italic Latin and Greek letters (what the browser shows a
# one-letter <mi> as).
CORE = (
    (0x0020, 0x007E), (0x00A0, 0x00FF), (0x0131, 0x0131), (0x0237, 0x0237), (0x02C6, 0x02DD), (0x0391, 0x03A9),
    (0x03B1, 0x03C9), (0x03D1, 0x03D1), (0x03D5, 0x03D6), (0x03F0, 0x03F1), (0x03F5, 0x03F5), (0x2000, 0x206F),
    (0x2102, 0x2102), (0x210E, 0x210F), (0x2113, 0x2113), (0x2115, 0x2115), (0x211A, 0x211A), (0x211D, 0x211D),
    (0x2124, 0x2124), (0x2190, 0x2195), (0x21A6, 0x21A6), (0x21D0, 0x21D5), (0x2200, 0x2213), (0x2215, 0x221E),
    (0x2223, 0x222B), (0x2234, 0x2237), (0x223C, 0x223C), (0x2243, 0x2245), (0x2248, 0x2248), (0x224D, 0x224D),
    (0x2260, 0x2265), (0x226A, 0x226B), (0x2282, 0x2287), (0x2295, 0x2299), (0x22A4, 0x22A5), (0x22C0, 0x22C3),
    (0x22C5, 0x22C5), (0x22EE, 0x22F1), (0x2308, 0x230B), (0x27E8, 0x27E9), (0x1D434, 0x1D467), (0x1D6A4, 0x1D6A5),
    (0x1D6E2, 0x1D71B),
)


def _code_points(ranges: tuple[tuple[int, int], ...]) -> set[int]:
    return {cp for first, last in ranges for cp in range(first, last + 1)}


def _ranges(code_points: set[int]) -> list[tuple[int, int]]:
    """The code points as (first, last) runs."""
    runs: list[tuple[int, int]] = []
    for cp in sorted(code_points):
        if runs and cp == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], cp)
        else:
            runs.append((cp, cp))
    return runs


def _source_code_points(root: Path) -> set[int]:
    """Every character the pinned font has."""
    from fontTools.ttLib import TTFont

    return set(TTFont(root / SOURCE, lazy=True).getBestCmap())


def _key(root: Path) -> str:
    """What the faces are made from: the font's bytes, the installed fontTools (found without importing it) and this
    module (its ranges and options)."""
    digest = hashlib.sha256((root / SOURCE).read_bytes() + Path(__file__).read_bytes())
    spec = importlib.util.find_spec("fontTools")
    if spec and spec.origin:
        stat = Path(spec.origin).stat()
        digest.update(f"{spec.origin}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def faces(root: Path) -> dict[str, Path]:
    """The two faces' WOFF2 files (file name → path in the cache), made on the first build that needs them."""
    key = _key(root)
    folder = root / CACHE / key
    made = {f"{face}.woff2": folder / f"{face}.woff2" for face in FACES}
    ranges_file = folder / "ranges.txt"
    if all(path.is_file() for path in made.values()) and ranges_file.is_file():
        return made
    core = _code_points(CORE)
    more = _source_code_points(root) - core
    for path, points in zip(made.values(), (core, more), strict=True):
        atomic_write(path, _subset(root / SOURCE, points))
    atomic_write(ranges_file, "\n".join(_range_text(sorted(points)) for points in (core, more)).encode())
    return made


def make_faces(root: Path, out: Path) -> None:
    """The faces into `out` (the prebuilt files' fonts/)."""
    out.mkdir(parents=True, exist_ok=True)
    for name, path in faces(root).items():
        shutil.copyfile(path, out / name)


def _subset(source: Path, code_points: set[int]) -> bytes:
    """The font cut to these characters (and the glyphs its MATH and layout tables reach from them), as WOFF2."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    options.name_IDs = list(NAMES)
    options.hinting = False  # browsers rasterize math unhinted well; the instructions are a fifth of the bytes
    options.notdef_outline = True
    font = TTFont(source)
    _narrow_radical(font)
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=code_points)
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


RADICAL = 0x221A
RADICAL_WIDEST = 1.2  # a radical's variants at most this much wider than its smallest


def _narrow_radical(font: object) -> None:
    """The radical's variants kept to those at most RADICAL_WIDEST times as wide as its own glyph, and the advances
    of its assembly's parts capped at the widest kept.

    MathML Core gives a stretchy radical the inline size of its widest variant or part (the preferred inline size of
    a glyph stretched along the block axis) but puts the radicand right after the variant it draws: Noto Sans Math's
    radicals widen as they grow (0.68em to 1.01em), which left up to a third of an em of space after a short radicand
    ("√d_k ."). Kept: the variants up to 1.78em tall, and the assembly beyond them.
    """
    variants = font["MATH"].table.MathVariants  # type: ignore[index]
    advances = font["hmtx"]  # type: ignore[index]
    glyph = font.getBestCmap()[RADICAL]  # type: ignore[attr-defined]
    construction = variants.VertGlyphConstruction[variants.VertGlyphCoverage.glyphs.index(glyph)]
    most = RADICAL_WIDEST * advances[glyph][0]
    construction.MathGlyphVariantRecord = [r for r in construction.MathGlyphVariantRecord
                                           if advances[r.VariantGlyph][0] <= most]
    construction.VariantCount = len(construction.MathGlyphVariantRecord)
    widest = max(advances[r.VariantGlyph][0] for r in construction.MathGlyphVariantRecord)
    if construction.GlyphAssembly:
        for part in construction.GlyphAssembly.PartRecords:
            advance, bearing = advances[part.glyph]
            advances[part.glyph] = (min(advance, widest), bearing)


def _range_text(code_points: list[int]) -> str:
    """A unicode-range value: "U+20-7E, U+A0-FF, …"."""
    return ", ".join(f"U+{a:X}" if a == b else f"U+{a:X}-{b:X}" for a, b in _ranges(set(code_points)))


def font_faces_css(root: Path, folder: str = f"../{FOLDER}") -> str:
    """The @font-face rules of the faces (from the stylesheet at css/site.css, the fonts are in ../fonts/)."""
    made = faces(root)
    ranges = (made["math-core.woff2"].parent / "ranges.txt").read_text(encoding="utf-8").splitlines()
    return "".join(
        f'@font-face {{ font-family: "{FAMILY}"; font-style: normal; font-weight: 400; font-display: swap; '
        f'src: url("{folder}/{name}") format("woff2"); unicode-range: {unicode_range}; }}\n'
        for name, unicode_range in zip(made, ranges, strict=True))
