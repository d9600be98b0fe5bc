"""The course's accent colour (course.yaml's `accent:` and `accent_dark:`), readable where the page uses it (links,
buttons, focus rings): the build measures its WCAG contrast against the page's own colours, read from the
stylesheet's light and dark themes, and refuses a colour below MIN_CONTRAST. Given one colour, the dark theme takes
it lightened until it reads there too."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from lessonkit.core.colour import channels, contrast
from lessonkit.core.errors import Problem

MIN_CONTRAST = 4.5  # WCAG 2.2 AA for text
HEX = r"#[0-9a-fA-F]{6}"
# The stylesheet's variables the accent is drawn on or under: it must reach MIN_CONTRAST against each.
AGAINST = {"--bg": "background", "--panel": "panel background", "--accent-fg": "button text"}


def check_accent(data: Any, shown: str, stylesheet: Path, problems: list[Problem]) -> dict[str, str] | None:
    """The accent per theme, each checked against the theme's colours; {} when the course sets none."""
    if "accent" not in data:
        if "accent_dark" in data:
            problems.append(Problem(shown, data.lines["accent_dark"], '"accent_dark:" needs "accent:" (the light '
                                    "theme's) beside it"))
            return None
        return {}
    themes = page_colours(stylesheet)
    light = str(data["accent"]).lower()
    dark = str(data["accent_dark"]).lower() if "accent_dark" in data else lighten(light, themes["dark"])
    ok = True
    for theme, colour, key in (("light", light, "accent"), ("dark", dark, "accent_dark" if "accent_dark" in data
                                                             else "accent")):
        for name, role in AGAINST.items():
            ratio = contrast(colour, themes[theme][name])
            if ratio < MIN_CONTRAST:
                derived = " (the accent lightened for it)" if theme == "dark" and key == "accent" else ""
                fix = ("choose a darker colour" if theme == "light" else
                       'choose another colour, or set "accent_dark:"')
                problems.append(Problem(shown, data.lines[key], f'accent "{colour}"{derived} has a contrast of '
                                        f"{ratio:.1f}:1 against the {theme} theme's {role} ({themes[theme][name]}) — "
                                        f"{fix}, with at least {MIN_CONTRAST}:1"))
                ok = False
                break
    return {"light": light, "dark": dark} if ok else None


def lighten(colour: str, theme: dict[str, str]) -> str:
    """`colour` mixed with white, in steps of 5 %, until it reads on the theme's colours (white at worst)."""
    rgb = channels(colour)
    for step in range(21):
        t = step / 20
        mixed = "#" + "".join(f"{round(c + (255 - c) * t):02x}" for c in rgb)
        if all(contrast(mixed, theme[name]) >= MIN_CONTRAST for name in AGAINST):
            return mixed
    return "#ffffff"


_ROOT = re.compile(r":root\s*\{(?P<body>[^}]*)\}")
_DARK = re.compile(r"@media\s*\(prefers-color-scheme:\s*dark\)\s*\{\s*:root\s*\{(?P<body>[^}]*)\}")
_VAR = re.compile(rf"(--[\w-]+)\s*:\s*({HEX})\s*;")


def page_colours(stylesheet: Path) -> dict[str, dict[str, str]]:
    """The stylesheet's colours the accent meets, per theme: the light :root, and the dark theme's over it."""
    css = stylesheet.read_text(encoding="utf-8")
    light_block, dark_block = _ROOT.search(css), _DARK.search(css)
    if light_block is None or dark_block is None:
        raise RuntimeError(f"{stylesheet}: no :root colours for the light and dark themes")
    light = dict(_VAR.findall(light_block.group("body")))
    dark = {**light, **dict(_VAR.findall(dark_block.group("body")))}
    missing = [name for name in AGAINST if name not in light]
    if missing:
        raise RuntimeError(f"{stylesheet}: :root sets no {', '.join(missing)}")
    return {"light": {n: light[n].lower() for n in AGAINST}, "dark": {n: dark[n].lower() for n in AGAINST}}
