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
    return dest
