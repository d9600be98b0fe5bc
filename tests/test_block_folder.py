"""A block type is one folder: a fixture type ("callout": a title and a markdown body), added as a folder of its
own beside the toolkit's, is found by the registry, checked by its schema, rendered by its template, and its page
module and styles are bundled with the page's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from course import write_course

from lessonkit import blocks
from lessonkit.core.errors import BuildError
from lessonkit.pipeline.site import build_site

CALLOUT = {
    "__init__.py": '''"""{callout}: a titled aside, its body in markdown."""

from lessonkit.blocks import BlockType
from lessonkit.content.schema import Fields, Inline, Key, Markdown

SCHEMA = Fields({
    "title": Key(Inline(), required=True, hint="with the aside's heading", doc="the heading"),
    "body": Key(Markdown(), required=True, hint="with the aside's text", doc="the text, in markdown"),
})


def build(ctx):
    return {"title": ctx.inline(ctx.data["title"]), "body": ctx.markdown(ctx.data["body"])}


BLOCK = BlockType("callout", "a titled aside", SCHEMA, build, island=lambda data: {"title": str(data["title"])})
''',
    "callout.html": '''<aside class="callout" data-block="callout">
  <script type="application/json" data-block-island>{{ data|tojson }}</script>
  <h3 class="callout-title">{{ block.title }}</h3>
  {{ block.body }}
</aside>
''',
    "callout.js": '''// {callout}: marks its aside as started (the fixture's page module).
export function init(el, island) {
  el.dataset.calloutStarted = "callout-module-" + island.title.length;
}
''',
    "callout.css": ".callout { border-left: 4px solid var(--accent); padding: .5rem 1rem; }\n",
    "example.md.j2": "```{callout}\nid: note\ntitle: Note\nbody: Some *text*.\n```\n",
}

LESSON = """---
title: Asides
slug: asides
---

Before the aside.

```{callout}
id: note
title: A *short* note
body: |
  Markdown works here: **bold**, and a list:

  - one
  - two
```
"""


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    """The fixture's block folders: callout/ and nothing else."""
    for name, text in CALLOUT.items():
        path = tmp_path / "blocks" / "callout" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path / "blocks"


def test_the_registry_finds_a_type_by_its_folder(folder: Path) -> None:
    kinds = blocks.types([folder])
    callout = kinds["callout"]
    assert set(kinds) == {*blocks.types(), "callout"}
    assert callout.folder == folder.resolve() / "callout"
    for part in (callout.page_module, callout.stylesheet, callout.example, callout.folder / callout.template_name.split("/")[1]):
        assert part.is_file(), part
    assert "callout" not in blocks.types()  # the toolkit's own registry is untouched


def test_a_folder_type_builds_renders_and_is_published(folder: Path, tmp_path: Path) -> None:
    """A type from a folder beside the toolkit's: rendered by its template, its page module published as it is under
    static/<hash>/blocks/<type>/ (checked by the import map) and named in the page's data, its styles in the one
    stylesheet."""
    write_course(tmp_path, {"asides.md": LESSON})
    out = tmp_path / "site"
    build_site(tmp_path, out, block_folders=(folder,))
    page = (out / "asides.html").read_text(encoding="utf-8")
    assert '<aside class="callout" data-block="callout">' in page
    assert '<h3 class="callout-title">A <em>short</em> note</h3>' in page
    assert "<strong>bold</strong>" in page and "<li>one</li>" in page
    static = next(p for p in (out / "static").iterdir() if p.is_dir())
    module = static / "blocks" / "callout" / "callout.js"
    assert module.read_bytes() == (folder / "callout" / "callout.js").read_bytes()
    data = json.loads(re.search(r'<script type="application/json" id="lesson-data">(.*?)</script>', page, re.S)[1])
    assert data["blockModules"] == {"callout": {"module": f"static/{static.name}/blocks/callout/callout.js"}}
    imports = json.loads(re.search(r'<script type="importmap"[^>]*>(.*?)</script>', page, re.S)[1])["integrity"]
    assert f"./static/{static.name}/blocks/callout/callout.js" in imports
    assert ".callout{" in (static / "css" / "site.css").read_text(encoding="utf-8").replace(" ", "")


def test_a_folder_type_is_checked_by_its_schema(folder: Path, tmp_path: Path) -> None:
    write_course(tmp_path, {"asides.md": LESSON.replace("title: A *short* note\n", "")})
    with pytest.raises(BuildError) as info:
        build_site(tmp_path, tmp_path / "site", block_folders=(folder,))
    assert len(info.value.problems) == 1
    assert str(info.value.problems[0]) == ("lesson/asides.md:8: the {callout} block needs "
                                           '"title:" with the aside\'s heading')
