"""The templates' loader: a course's own templates/ first (a file there overrides the toolkit's of the same name, a
block type's `<type>/<type>.html` included), then the toolkit's pages' templates, then each block type's from its
folder (`<type>/<type>.html`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2

from lessonkit import blocks
from lessonkit.core import messages
from lessonkit.core.places import TEMPLATES

_DICT_NAMES = frozenset(dir(dict))  # `d.items` in a template is the method, as Jinja gives it


class _Environment(jinja2.Environment):
    """Jinja2's environment, with `x.key` on a plain dict looked up as the key first.

    Jinja tries the attribute first and the key after the AttributeError: a plain dict has no attribute but its
    methods, so for any other name the key is what it returns (or undefined). Most of what the pages render is dicts
    (the lessons of the sidebar, a widget's cells), and the exception per lookup is most of the cost of rendering them.
    """

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_NAMES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


def environment(templates: Path | None, kinds: Mapping[str, blocks.BlockType] | None = None) -> jinja2.Environment:
    """Jinja2 with autoescape and StrictUndefined: a missing variable is a build error, never blank.

    The pages' templates come from the course's `templates` (None: it has none), then the toolkit's, each block
    type's from its folder (`<type>/<type>.html`). A
    template is read and compiled once per environment, never checked for changes (Jinja's auto_reload: a file stat
    for each template a page renders): a build that finds a template changed makes a new environment
    (lessonkit.pipeline.site).
    """
    folders = {name: jinja2.FileSystemLoader(kind.folder) for name, kind in (kinds or blocks.types()).items()}
    pages = [templates, TEMPLATES] if templates is not None else [TEMPLATES]
    env = _Environment(
        extensions=["jinja2.ext.i18n"],
        loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(pages), jinja2.PrefixLoader(folders)]),
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, auto_reload=False,
        cache_size=-1,  # every template kept, in a plain dict (a site has a few dozen): no LRU bookkeeping per lookup
    )
    # The i18n extension's `_("key")`, `gettext` and `ngettext` say the page's words: those of the messages being
    # rendered with (lessonkit.core.messages.using), so one compiled template serves every language.
    env.globals.update(_=_gettext, gettext=_gettext, ngettext=_ngettext, number=_number, percent=_percent)
    return env


def _gettext(key: str, **params: Any) -> str:
    return messages.current().text(key, **params)


def _ngettext(key: str, plural: str, n: float, **params: Any) -> str:
    return messages.current().plural(key, n, **params)


def _number(value: float, digits: int | None = None) -> str:
    return messages.current().number(value, digits)


def _percent(value: float, digits: int = 0) -> str:
    return messages.current().percent(value, digits)
