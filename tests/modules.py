"""The page's modules as the bundler sees them (lessonkit.assets.scripts.module_tree: static/js, each block type's
folder, the generated modules), the service worker's code, the JavaScript units (tests/js) and node_modules beside
them: what Node runs the units on, so a unit imports the generated modules as the page does."""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

from places import PACKAGE, STATIC

ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def module_tree() -> Path:
    """A folder holding the module tree and tests/js, made once per test session."""
    from lessonkit import blocks
    from lessonkit.assets.scripts import SERVICE_WORKER, write_module_tree
    from lessonkit.assets.scripts import module_tree as tree

    dest = Path(tempfile.mkdtemp(prefix="lessonkit-modules-"))
    atexit.register(shutil.rmtree, dest, ignore_errors=True)
    write_module_tree(tree(STATIC / "js", blocks.types()), dest)
    shutil.copytree(ROOT / "tests" / "js", dest / "tests" / "js")
    sw = Path("static") / "js" / SERVICE_WORKER  # a realm of its own, not in the page's tree
    shutil.copytree(PACKAGE / sw, dest / sw)
    (dest / "node_modules").symlink_to(ROOT / "node_modules")  # the units' real libraries (scorm-again's runtime)
    # The page's words as an English page has them (its #lesson-messages), for the units (node --import english.mjs).
    import json

    from lessonkit.core.messages import Messages

    (dest / ENGLISH).write_text('import * as i18n from "./static/js/page/i18n.js";\n'
                                f"i18n.use({json.dumps(Messages('en').page_catalog())}, \"en\");\n"
                                "globalThis.lessonkitWords = i18n;\n", encoding="utf-8")
    return dest


ENGLISH = "english.mjs"


def english() -> list[str]:
    """Node's arguments that give a unit the page's English words (as a page's #lesson-messages island does)."""
    return ["--import", (module_tree() / ENGLISH).as_uri()]


def words_of(language: str) -> list[str]:
    """Node's arguments that give a unit the page's words in `language` (its catalog, as a page of it has them)."""
    import json

    from lessonkit.core.messages import Messages

    module = module_tree() / f"words-{language}.mjs"
    if not module.exists():
        module.write_text('import * as i18n from "./static/js/page/i18n.js";\n'
                          f"i18n.use({json.dumps(Messages(language).page_catalog())}, {json.dumps(language)});\n"
                          "globalThis.lessonkitWords = i18n;\n", encoding="utf-8")
    return ["--import", module.as_uri()]
