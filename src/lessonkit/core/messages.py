"""Every word the toolkit shows, in the course's language: gettext catalogs (src/lessonkit/locale/<lang>/LC_MESSAGES/
lessonkit.po), read at build time by Babel's pofile reader, so the .po files are the only copy (no compiled .mo to
keep in step).

A message's id is a dotted key ("lab.run", "index.lessons"): the English catalog holds the English words like every
other language's, so changing an English word is an edit of en's .po, never of the code, and an author's `strings:`
(course.yaml) names a message by a key that stays when its words change. Placeholders are `{name}`, filled by
`Messages.text(key, name=…)`; a message with plural forms is a gettext plural entry (msgid_plural), each language
with its own forms (its Plural-Forms header).

The templates read them through Jinja's i18n extension (`_("key")`, `ngettext("key", "key", n)`); the page's
modules read the same messages from the page's `#lesson-messages` island (`page_catalog`: each plural message as
its forms by CLDR plural category, which Intl.PluralRules picks in the page). The worker realm's words are chosen
by the page (the worker reports what happened by key, the page says it). labkit reports by key too (`said`), and
words what it writes into a run's output with the messages its host gives it (`labkit_words`: the page from this
catalog, the build's lab host from the build's). Python's own exception texts, and whatever a lab prints, stay as
Python writes them.
"""

from __future__ import annotations

import contextlib
import contextvars
import decimal
import difflib
import gettext
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale, UnknownLocaleError
from babel.messages import pofile
from babel.messages.plurals import get_plural
from babel.numbers import parse_pattern

from lessonkit.core.places import LOCALE

LOCALE_DIR = LOCALE
DOMAIN = "lessonkit"
SOURCE = "en"  # the language every other catalog translates, and the fallback for a language lessonkit lacks
DEFAULT_LANGUAGE = "en"
PLACEHOLDER = re.compile(r"\{(\w+)\}")
# A BCP 47 tag as course.yaml takes it: language, then optional script, region or variant subtags.
TAG = r"[A-Za-z]{2,3}(?:-[A-Za-z]{4})?(?:-(?:[A-Za-z]{2}|[0-9]{3}))?(?:-[A-Za-z0-9]{5,8})*"


def shipped() -> tuple[str, ...]:
    """The languages lessonkit has a catalog of (each folder of locale/ with a lessonkit.po)."""
    return tuple(sorted(p.parent.parent.name for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po")))


def locale_of(tag: str) -> Locale | None:
    """Babel's locale for a BCP 47 tag ("de", "pt-BR", "sr-Latn"), or None when Babel knows no such language."""
    try:
        return Locale.parse(tag.replace("_", "-"), sep="-")
    except (UnknownLocaleError, ValueError, TypeError):
        return None


@cache
def known_tags() -> tuple[str, ...]:
    """The BCP 47 tags of every locale Babel has (for did-you-mean)."""
    from babel.localedata import locale_identifiers

    return tuple(sorted(i.replace("_", "-") for i in locale_identifiers()))


def unknown_language(tag: str) -> str:
    """The problem with a "language:" tag Babel knows no language of ("" for a known one)."""
    if locale_of(tag) is not None:
        return ""
    close = difflib.get_close_matches(tag, known_tags(), n=1)
    hint = f' (did you mean "{close[0]}"?)' if close else ""
    return (f'"language: {tag}" is no language lessonkit knows{hint} — use a BCP 47 tag such as "de", "fr", "es", '
            '"pt-BR" or "ar"')


def direction(tag: str) -> str:
    """"rtl" for a language written right to left (Arabic, Hebrew, Persian, Urdu …), else "ltr" (CLDR's order)."""
    locale = locale_of(tag)
    return "rtl" if locale is not None and locale.character_order == "right-to-left" else "ltr"


def catalog_language(tag: str) -> str | None:
    """The shipped catalog a tag reads: its own ("pt-BR"), its language's ("de" for "de-AT"), or None (English)."""
    have = shipped()
    locale = locale_of(tag)
    candidates = [tag.replace("-", "_"), tag.split("-")[0]]
    if locale is not None:
        candidates += [str(locale), locale.language]
    return next((c for c in candidates if c in have), None)


@dataclass(frozen=True)
class Entry:
    """One message: its text, or its plural forms in the catalog's order (gettext's msgstr[0], msgstr[1] …)."""

    key: str
    text: str = ""
    forms: tuple[str, ...] = ()
    line: int = 0

    @property
    def plural(self) -> bool:
        return bool(self.forms)


@dataclass(frozen=True)
class Catalog:
    """One language's catalog as read from its .po: its entries by key and its plural rule."""

    language: str
    entries: dict[str, Entry]
    plural_expr: str  # gettext's Plural-Forms expression, in C ("(n != 1)")
    nplurals: int
    path: Path

    def form_index(self, n: float) -> int:
        """Which of a plural message's forms counts `n` (gettext's rule: whole numbers)."""
        return int(_plural_function(self.plural_expr)(int(abs(n))))


@cache
def _plural_function(expr: str) -> Any:
    return gettext.c2py(expr)


@cache
def _form_of_category(locale: Locale, plural_expr: str) -> tuple[tuple[str, int], ...]:
    """(CLDR category, gettext form index) for each category of `locale` that a number 0–999 falls in, in the order
    they first appear: the form index is the one gettext's rule gives the first such number."""
    rule, forms = locale.plural_form, _plural_function(plural_expr)
    out: dict[str, int] = {}
    for n in range(0, 1000):
        out.setdefault(rule(n), int(forms(n)))
    return tuple(out.items())


@cache
def read_catalog(language: str) -> Catalog:
    """The shipped catalog of a language (a key of `shipped()`), read from its .po."""
    path = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    with path.open("rb") as handle:
        po = pofile.read_po(handle, locale=language, domain=DOMAIN)
    entries: dict[str, Entry] = {}
    for message in po:
        if not message.id:
            continue  # the header
        line = message.lineno or 0
        if isinstance(message.id, tuple | list):
            key = str(message.id[0])
            strings = tuple(str(s) for s in message.string) if isinstance(message.string, tuple | list) else ()
            entries[key] = Entry(key, forms=strings, line=line)
        else:
            entries[str(message.id)] = Entry(str(message.id), text=str(message.string or ""), line=line)
    rule = get_plural(language)
    return Catalog(language, entries, rule.plural_expr, rule.num_plurals, path)


def catalog_problems(language: str) -> list[str]:
    """What a shipped catalog lacks beside the English one: a message missing or empty, a placeholder it lacks or
    adds, a plural message without plural forms (or the other way round). Sorted; [] when it is complete."""
    source, own = read_catalog(SOURCE), read_catalog(language)
    problems = []
    for key, english in source.entries.items():
        entry = own.entries.get(key)
        shown = english.forms[-1] if english.plural else english.text
        if entry is None:
            problems.append(f'{language}: "{key}" is missing — translate "{shown}"')
            continue
        texts = entry.forms if entry.plural else (entry.text,)
        if not all(texts):
            problems.append(f'{language}: "{key}" is empty — translate "{shown}"')
            continue
        if entry.plural != english.plural:
            problems.append(f'{language}: "{key}" must {"" if english.plural else "not "}have plural forms, as the '
                            "English message has")
        if entry.plural and len(entry.forms) != own.nplurals:
            problems.append(f'{language}: "{key}" has {len(entry.forms)} plural forms, not the {own.nplurals} of its '
                            "Plural-Forms")
        wanted = set(PLACEHOLDER.findall(" ".join(english.forms or (english.text,))))
        for text in texts:
            have = set(PLACEHOLDER.findall(text))
            for extra in sorted(have - wanted):
                problems.append(f'{language}: "{key}" has {{{extra}}}, which the English message has not — use '
                                + (", ".join("{" + w + "}" for w in sorted(wanted)) or "no placeholder"))
            for lacking in sorted(wanted - have - {"n"}):
                problems.append(f'{language}: "{key}" lacks {{{lacking}}} — the English message has it')
    for key in own.entries:
        if key not in source.entries:
            problems.append(f'{language}: "{key}" is no message of lessonkit — remove it')
    return sorted(set(problems))


def keys() -> dict[str, Entry]:
    """Every message the toolkit has, by key: the English catalog's (the source every other catalog translates)."""
    return read_catalog(SOURCE).entries


@dataclass
class Messages:
    """The words of one page: the course's language, its catalog (English where lessonkit has none), the author's
    overrides (`strings:`), and the locale that writes its numbers."""

    language: str = DEFAULT_LANGUAGE
    overrides: Mapping[str, Any] = field(default_factory=dict)  # key → text, or key → {category: text} (plural)

    def __post_init__(self) -> None:
        self.catalog = read_catalog(catalog_language(self.language) or SOURCE)
        self.source = read_catalog(SOURCE)
        self.locale = locale_of(self.language) or Locale.parse(SOURCE)
        self.dir = direction(self.language)

    def entry(self, key: str) -> Entry:
        """The catalog's entry for a key (the English one where this catalog has it empty); KeyError if none."""
        own = self.catalog.entries.get(key)
        if own is not None and (own.text or any(own.forms)):
            return own
        return self.source.entries[key]

    def text(self, key: str, **params: Any) -> str:
        """The message of `key` in this language, its `{name}` placeholders filled from params."""
        override = self.overrides.get(key)
        if isinstance(override, str):
            return fill(override, params)
        entry = self.entry(key)
        if entry.plural:
            return self.plural(key, params.get("n", 0), **params)
        return fill(entry.text, params)

    def plural(self, key: str, n: float, **params: Any) -> str:
        """The plural message of `key` for the count `n` (`{n}` filled with n as this language writes it)."""
        params = {"n": self.number(n), **{k: v for k, v in params.items() if k != "n"}}
        override = self.overrides.get(key)
        if isinstance(override, Mapping):
            category = self.locale.plural_form(n)
            chosen = override.get(category, override.get("other", ""))
            return fill(str(chosen), params)
        if isinstance(override, str):
            return fill(override, params)
        entry = self.entry(key)
        catalog = self.catalog if entry is self.catalog.entries.get(key) else self.source
        forms = entry.forms
        return fill(forms[min(catalog.form_index(n), len(forms) - 1)], params)

    def number(self, value: float, digits: int | None = None, *, grouping: bool = True) -> str:
        """A number as this language writes it (digits: that many decimals; None: as many as it has, up to 6;
        grouping: thousands separated, as prose writes counts — a table's cells have none)."""
        return format_decimal(value, self.locale, digits, grouping=grouping)

    def percent(self, value: float, digits: int = 0, *, grouping: bool = True) -> str:
        """A fraction as this language writes a percentage (0.665, 1 → "66,5 %" in German)."""
        return format_percent(value, self.locale, digits, grouping=grouping)

    def localize(self, text: str) -> str:
        """Python's digits in `text` ("1,234.5", "+0.25 s") with this language's decimal and group signs."""
        signs = self.signs()
        decimal, group = signs["decimal"], signs["group"]
        if (decimal, group) == (".", ","):
            return text
        swap = {".": decimal, ",": group}
        return _DIGITS.sub(lambda m: re.sub(r"[.,]", lambda s: swap[s.group(0)], m.group(0)), text)

    def said(self, said: Mapping[str, Any]) -> str:
        """What labkit or the lab's worker reported by key ({"key", "values"}: labkit._words SAID), in this
        language: numbers among the values as this language writes them, text as it is."""
        values = {name: self.number(v) if isinstance(v, int | float) and not isinstance(v, bool) else v
                  for name, v in dict(said.get("values") or {}).items()}
        return self.text(str(said["key"]), **values)

    def template(self, key: str) -> str:
        """A message's text with its placeholders unfilled (the author's `strings:` first)."""
        override = self.overrides.get(key)
        return override if isinstance(override, str) else self.entry(key).text

    def signs(self) -> dict[str, str]:
        """The decimal and group signs this language writes numbers with (Latin digits)."""
        symbols = self.locale.number_symbols.get("latn", self.locale.number_symbols)
        return {"decimal": symbols.get("decimal", "."), "group": symbols.get("group", ",")}

    def labkit_words(self, keys: Iterable[str]) -> dict[str, Any]:
        """What labkit words its own text with (labkit._words.use): these messages' texts, and the number signs."""
        return {"texts": {key: self.template(key) for key in keys}, **self.signs()}

    def gettext(self, key: str, **params: Any) -> str:
        """Jinja's `_("key")` and `gettext("key")` (newstyle: placeholders from keyword arguments)."""
        return self.text(key, **params)

    def ngettext(self, singular: str, _plural: str, n: float, **params: Any) -> str:
        """Jinja's `ngettext("key", "key", n)`: the plural message of the key for n."""
        return self.plural(singular, n, **params)

    def page_catalog(self) -> dict[str, Any]:
        """Every message for the page's modules: key → text, or key → {CLDR category: text} for a plural one (the
        page picks the category with Intl.PluralRules, the same CLDR rule Babel's locale has)."""
        out: dict[str, Any] = {}
        for key in self.source.entries:
            entry = self.entry(key)
            override = self.overrides.get(key)
            if entry.plural:
                out[key] = dict(override) if isinstance(override, Mapping) else (
                    {c: override for c in self.categories()} if isinstance(override, str) else self._forms(key))
            else:
                out[key] = override if isinstance(override, str) else entry.text
        return out

    def categories(self) -> tuple[str, ...]:
        """The CLDR plural categories of this language ("one", "other"; Arabic's six)."""
        return tuple(sorted(self.locale.plural_form.tags | {"other"}))

    def _forms(self, key: str) -> dict[str, str]:
        """A plural message's forms by CLDR category: each category's form is the one gettext's rule picks for the
        numbers CLDR puts in that category."""
        entry = self.entry(key)
        catalog = self.catalog if entry is self.catalog.entries.get(key) else self.source
        out = {category: entry.forms[min(index, len(entry.forms) - 1)]
               for category, index in _form_of_category(self.locale, catalog.plural_expr)}
        out.setdefault("other", entry.forms[-1])
        return out

    def page_info(self) -> dict[str, str]:
        """The page's language facts its modules read: the tag (Intl's locale) and the direction."""
        return {"lang": self.language, "dir": self.dir}


def fill(text: str, params: Mapping[str, Any]) -> str:
    """`{name}` placeholders filled (a name not given stays as written)."""
    return PLACEHOLDER.sub(lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), text)


_DIGITS = re.compile(r"\d[\d,]*(?:\.\d+)?|\.\d+")  # a number as Python writes it: 1,234.5 or .5


def format_decimal(value: float, locale: Locale, digits: int | None = None, *, grouping: bool = True) -> str:
    """A number in the locale's decimal pattern (Babel's CLDR data): `digits` decimals exactly, or (None) as many as
    it has, up to 6; without group separators when `grouping` is False. The page's Intl.NumberFormat with the same
    options writes the same text (static/js/page/i18n.js)."""
    pattern = parse_pattern(locale.decimal_formats[None].pattern)
    pattern.frac_prec = (digits, digits) if digits is not None else (0, 6)
    with decimal.localcontext(rounding=decimal.ROUND_HALF_UP):  # half away from zero, as Intl.NumberFormat rounds
        return pattern.apply(decimal.Decimal(repr(value)), locale, group_separator=grouping)


def format_percent(value: float, locale: Locale, digits: int = 0, *, grouping: bool = True) -> str:
    """A fraction in the locale's percent pattern with `digits` decimals ("66,5 %" in German, "66.5%" in English)."""
    pattern = parse_pattern(locale.percent_formats[None].pattern)
    pattern.frac_prec = (digits, digits)
    with decimal.localcontext(rounding=decimal.ROUND_HALF_UP):
        return pattern.apply(decimal.Decimal(repr(value)), locale, group_separator=grouping)


def for_page(language: str, overrides: Mapping[str, Any]) -> Messages:
    """The messages of a page in this language with these overrides (made once per build process)."""
    import json

    return _for_page(language, json.dumps(dict(overrides), sort_keys=True))


@cache
def _for_page(language: str, overrides: str) -> Messages:
    import json

    return Messages(language, json.loads(overrides))


_CURRENT: contextvars.ContextVar[Messages | None] = contextvars.ContextVar("lessonkit_messages", default=None)


def current() -> Messages:
    """The messages of the page being rendered (English when none is set)."""
    found = _CURRENT.get()
    return found if found is not None else _english()


@cache
def _english() -> Messages:
    return Messages(DEFAULT_LANGUAGE)


@contextlib.contextmanager
def using(messages: Messages) -> Iterator[Messages]:
    """Render with these messages: the templates' `_()` and the blocks' numbers read them meanwhile."""
    token = _CURRENT.set(messages)
    try:
        yield messages
    finally:
        _CURRENT.reset(token)


def t(key: str, **params: Any) -> str:
    """The current page's message of `key` (lessonkit.core.messages.current)."""
    return current().text(key, **params)
