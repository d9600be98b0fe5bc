"""Each block type of the registry (lessonkit/blocks/<type>/), on its own: its scaffold example passes its schema,
and every key its schema requires is asked for, in the author's terms, when it is left out."""

from __future__ import annotations

import re
from typing import Any

import jinja2
import pytest

from lessonkit import blocks
from lessonkit.content import yamlsrc

TYPES = blocks.types()
FENCE = re.compile(r"^```\{(\w+)\}\n(.*?)^```", re.M | re.S)


def example(name: str) -> tuple[str, str]:
    """The type's example block from its example.md.j2: (type, YAML)."""
    text = jinja2.Template(TYPES[name].example.read_text(encoding="utf-8")).render(lab_file="demo.py", module="demo",
                                                                               widget_file="demo_widget.py", slug="demo")
    found = FENCE.search(text)
    assert found, f"{name}: example.md.j2 has no ```{{{name}}} block"
    return found.group(1), found.group(2)


def problems(name: str, data: Any) -> list[str]:
    """What the type's schema says of `data`."""
    found: list[str] = []
    TYPES[name].schema.validate(data, f"the {{{name}}} block", lambda line, message: found.append(message), 1)
    return found


@pytest.mark.parametrize("name", sorted(TYPES))
def test_the_example_passes_its_schema(name: str) -> None:
    kind, source = example(name)
    assert kind == name
    assert problems(name, yamlsrc.load(source)) == []


@pytest.mark.parametrize("name", sorted(TYPES))
def test_every_required_key_is_asked_for(name: str) -> None:
    _, source = example(name)
    required = [key for key, spec in TYPES[name].schema.keys.items() if spec.required]
    assert required, f"{name} requires no key"
    for key in required:
        data = yamlsrc.load(source)
        if key not in data:
            continue  # the example leaves an optional-looking key to its default
        del data[key]
        spec = TYPES[name].schema.keys[key]
        assert problems(name, data) == [f'the {{{name}}} block needs "{key}:"' + (f" {spec.hint}" if spec.hint else "")]


@pytest.mark.parametrize("name", sorted(TYPES))
def test_the_folder_holds_the_types_parts(name: str) -> None:
    kind = TYPES[name]
    assert kind.name == name and kind.folder.name == name
    for part in (kind.page_module, kind.example, kind.folder / f"{name}.html"):
        assert part.is_file(), part
    assert kind.progress_module.is_file() == (kind.progress is not None), "progress.js goes with BlockType.progress"
