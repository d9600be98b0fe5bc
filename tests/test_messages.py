"""The toolkit's message catalogs (src/lessonkit/locale/<lang>/LC_MESSAGES/lessonkit.po): every message the code
says is in the English catalog, every English message is said somewhere, and every shipped language has each one
(its placeholders and its plural forms), read the way the build reads them (Babel's pofile). What labkit and the
lab's worker say by key (labkit/_words.py, lab/worker-said.json) is in the catalog with exactly the values they
hand over."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from places import PACKAGE

from lessonkit.core import messages

SHIPPED = ("de", "en", "es", "fr")
KEYWORDS = {"t": None, "tn": None, "_": None, "gettext": None, "ngettext": (1,)}
METHODS = [("**/_prebuilt/**", "ignore"), ("**.py", "python"), ("**.html", "jinja2.ext:babel_extract"),
           ("**.js", "javascript")]


def said() -> dict[str, list[str]]:
    """Every message key the package's Python, templates and page modules say, with where."""
    found: dict[str, list[str]] = {}
    for name, line, key, _comments, _context in extract_from_dir(PACKAGE, METHODS, keywords=KEYWORDS,
                                                                   options_map={"**.js": {"parse_template_string": "true"}}):
        key = key[0] if isinstance(key, tuple) else key
        if isinstance(key, str) and re.fullmatch(r"[a-z]+\.[a-z0-9_.]+", key):
            found.setdefault(key, []).append(f"{name}:{line}")
    return found


def declared() -> dict[str, list[str]]:
    """The keys said by data rather than by a call, with the names of their values: labkit's (SAID and WORDED) and
    the lab worker's problems."""
    from labkit import _words

    worker = json.loads((PACKAGE / "static" / "js" / "lab" / "worker-said.json").read_text(encoding="utf-8"))
    return {**{k: list(v) for k, v in {**_words.SAID, **_words.WORDED}.items()}, **worker["said"], **worker["worded"]}


def test_what_labkit_and_the_worker_say_by_key_is_in_the_catalog_with_its_values():
    have = messages.keys()
    for key, names in declared().items():
        assert key in have, key
        entry = have[key]
        assert not entry.plural, key
        assert sorted(set(messages.PLACEHOLDER.findall(entry.text))) == sorted(names), key


def test_the_shipped_languages():
    assert messages.shipped() == SHIPPED


def test_every_message_the_code_says_is_in_the_english_catalog_and_every_one_is_said():
    used, have = {**said(), **declared()}, messages.keys()
    assert sorted(k for k in used if k not in have) == [], "said but not in the catalog"
    assert sorted(k for k in have if k not in used) == [], "in the catalog but never said"


@pytest.mark.parametrize("language", SHIPPED)
def test_each_catalog_is_complete(language):
    assert messages.catalog_problems(language) == []


def test_a_catalog_missing_a_message_fails(tmp_path, monkeypatch):
    shutil.copytree(messages.LOCALE_DIR, tmp_path / "locale")
    po = tmp_path / "locale" / "de" / "LC_MESSAGES" / "lessonkit.po"
    text = po.read_text(encoding="utf-8")
    text = re.sub(r'msgid "lab\.run"\nmsgstr "[^"]*"\n', "", text)
    text = text.replace('msgstr "Stopp"', 'msgstr ""')
    text = text.replace('msgstr "Fehler in Zeile {line}: {error}"', 'msgstr "Fehler in Zeile {zeile}: {error}"')
    po.write_text(text, encoding="utf-8")
    monkeypatch.setattr(messages, "LOCALE_DIR", tmp_path / "locale")
    messages.read_catalog.cache_clear()
    try:
        problems = messages.catalog_problems("de")
    finally:
        messages.read_catalog.cache_clear()
    assert problems == [
        'de: "lab.error_on_line" has {zeile}, which the English message has not — use {error}, {line}',
        'de: "lab.error_on_line" lacks {line} — the English message has it',
        'de: "lab.run" is missing — translate "Run"',
        'de: "lab.stop" is empty — translate "Stop"',
    ]


def test_plural_forms_follow_each_language():
    assert messages.Messages("en").plural("index.lessons", 1) == "1 lesson"
    assert messages.Messages("en").plural("index.lessons", 0) == "0 lessons"
    assert messages.Messages("fr").plural("index.lessons", 0) == "0 leçon"  # French counts 0 as one
    assert messages.Messages("de").plural("index.lessons", 1200) == "1.200 Lektionen"
    # The page's forms by CLDR category, as Intl.PluralRules picks them.
    assert messages.Messages("de").page_catalog()["index.lessons"] == {"one": "{n} Lektion", "other": "{n} Lektionen"}


def test_a_language_lessonkit_has_no_catalog_of_reads_english_and_a_region_reads_its_language():
    assert messages.Messages("ar").text("lab.run") == "Run"
    assert messages.Messages("de-AT").text("lab.run") == "Ausführen"
    assert messages.Messages("fr-CA").text("lab.run") == "Exécuter"


def test_the_english_catalog_is_under_the_package(tmp_path):
    assert (PACKAGE / "locale" / "en" / "LC_MESSAGES" / "lessonkit.po").is_file()
    assert Path(messages.LOCALE_DIR) == PACKAGE / "locale"


# The messages each catalog words as English does: a name ("Heatmap"), punctuation, a word both languages share.
# Any other English text in a catalog is a word left untranslated.
SAME_AS_ENGLISH = {
    "de": {"exercise.checklist_end", "chart.named_where", "chart.heatmap_title"},
    "fr": {"quiz.correct", "exercise.checklist_end", "lms.question_n", "lms.question", "key.question", "key.question_n",
           "key.solution", "chart.named_where"},
    "es": {"exercise.checklist_end", "lab.error", "chart.named_where"},
}


@pytest.mark.parametrize("language", sorted(SAME_AS_ENGLISH))
def test_a_catalog_says_a_message_as_english_does_only_where_its_language_has_the_same_words(language):
    english, own = messages.read_catalog("en").entries, messages.read_catalog(language).entries
    same = {key for key, entry in english.items()
            if (entry.forms or (entry.text,)) == (own[key].forms or (own[key].text,))}
    assert same == SAME_AS_ENGLISH[language]
