"""What every page's head carries besides its text: the import map (every module's integrity) and the <meta> policy
that allows it."""

from __future__ import annotations

import json

from lessonkit.hosting.headers import csp_hash, meta_csp


def import_map(integrity: dict[str, str], search_box: dict[str, str]) -> str:
    """The pages' import map: the integrity of every module the site has, by URL (relative: every page is in the
    site's folder). The browser checks every fetch of these URLs against it — an import(), a static import of a
    chunk, a preload — so a module that is not the build's is refused whoever asks for it, and never runs."""
    modules = {f"./{rel}": value for rel, value in integrity.items() if rel.endswith(".js")}
    if search_box.get("integrity"):
        modules[f"./{search_box['bundle']}"] = search_box["integrity"]
    text = json.dumps({"integrity": dict(sorted(modules.items()))}, separators=(",", ":"))
    return text.replace("<", "\\u003c")  # inside <script>: never a tag, whatever a name holds


def page_csp(importmap: str, connect: tuple[str, ...] = ()) -> str:
    """A page's <meta> policy, allowing its import map (and requests to the origins in `connect`)."""
    return meta_csp([csp_hash(importmap)], connect)
