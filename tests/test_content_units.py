"""Units of lessonkit/content/ that builds exercise only whole: author YAML with lines (yamlsrc), reading author
files (sources) and lesson images (media), each with fixtures made here and every author error pinned."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
import yaml
from places import FIXTURE

from lessonkit import blocks
from lessonkit.content import media, sources, yamlsrc
from lessonkit.content.lesson import load_lesson

ROOT = Path(__file__).resolve().parent.parent

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 24


def test_yaml_keeps_the_file_line_of_every_key_and_item() -> None:
    data = yamlsrc.load("id: q\nquestions:\n  - text: one\n  - text: two\nflag: Yes\n", first_line=10)
    assert data == {"id": "q", "questions": [{"text": "one"}, {"text": "two"}], "flag": True}
    assert data.lines == {"id": 10, "questions": 11, "flag": 14}
    assert data["questions"].lines == [12, 13]
    assert data.text["flag"] == "Yes"  # as written, for a text field


@pytest.mark.parametrize(("source", "line", "message"), [
    ("a: &x [1]\nb: *x\n", 5, 'uses the YAML anchor "&x" — lessons use no YAML anchors or aliases (&name, *name): '
                               "write the value out, and quote text that starts with * or &"),
    ("a: [1\n", 6, "is not valid YAML (did not find expected ',' or ']'): close the list with \"]\" and separate its "
                   'items with ",", e.g. [1, 4, 16]'),
    ("a:\n" + "".join("  " * i + "- \n" for i in range(1, 20)), 21,
     "nests lists and mappings more than 16 deep — blocks need a few levels: flatten it"),
], ids=["anchor", "unclosed list", "too deep"])
def test_yaml_an_author_must_fix_is_refused_at_its_line(source: str, line: int, message: str) -> None:
    with pytest.raises(yamlsrc.AuthorYAMLError) as info:
        yamlsrc.load(source, first_line=5)
    assert (info.value.line, info.value.message) == (line, message)


# YAML's own event stream, from libyaml where PyYAML has it (the one yamlsrc reads its events from).
_EVENTS = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _properties(source: str) -> list[str]:
    """The anchors, aliases and tags YAML's own event stream holds (up to its first error)."""
    found = []
    try:
        for event in yaml.parse(source, Loader=_EVENTS):
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                found.append("anchor or alias")
            if isinstance(event, yaml.ScalarEvent | yaml.CollectionStartEvent) and event.tag not in (None, "!"):
                found.append(f"tag {event.tag}")
    except yaml.YAMLError:
        pass
    return found


def test_yaml_text_without_a_node_property_where_a_node_starts_holds_none() -> None:
    """Every text of a few YAML symbols, up to 4 long: where the event stream holds an anchor, an alias or a tag,
    the quick look for them finds a place for one (so the event stream is read, and the problem reported)."""
    symbols = ["&a", "*a", "!t", "!!str", ":", ": ", "- ", "? ", "[", "]", "{", "}", ",", "\n", "\n  ", " ", "x",
               "#", "'", "---", "...", "\t", "|", ">"]
    missed = [text for n in range(1, 5) for parts in itertools.product(symbols, repeat=n)
              if not yamlsrc.may_have_properties(text := "".join(parts)) and _properties(text)]
    assert missed == []


def test_yaml_values_are_the_safe_loaders_with_their_lines() -> None:
    """Every block of the course's lessons loads as YAML's own safe loader reads it."""
    for path in sorted((FIXTURE / "lesson").glob("*.md")):
        lesson = load_lesson(path, path.name, problems := [], blocks.types())
        assert problems == []
        for block in lesson.blocks:
            assert block.data == yaml.load(block.source, Loader=yaml.SafeLoader)


def test_yaml_values_keep_their_types_and_text() -> None:
    source = ("a: yes\nb: 1.5\nc: ~\nd: ''\ne: 2026-01-01\nf: 0x1F\ng: '7'\nh: ! 12\nj: [No, .inf, -3, null, "
              "text *with* stars & more]\n")
    data = yamlsrc.load(source, first_line=3)
    assert data == yaml.load(source, Loader=yaml.SafeLoader)
    assert data.text == {"a": "yes", "b": "1.5", "d": "", "e": "2026-01-01", "f": "0x1F", "g": "7", "h": "12"}
    assert data["j"].text == ["No", ".inf", "-3", "null", "text *with* stars & more"]
    assert data["j"].lines == [11] * 5 and data.lines["j"] == 11
    assert yamlsrc.load("i: <<\n") == {"i": "<<"}  # the merge key's tag, which no value has: its text


def test_sources_read_utf8_text_and_say_what_else_a_file_is(tmp_path: Path) -> None:
    good = tmp_path / "good.md"
    good.write_bytes(sources.BOM + "héllo\n".encode())
    assert sources.read_text(good, "good.md") == ("héllo\n", None)
    latin = tmp_path / "latin.md"
    latin.write_bytes(b"ok\ncaf\xe9\n")
    text, problem = sources.read_text(latin, "latin.md")
    assert text is None and str(problem) == ("latin.md:2: this file is not UTF-8 text (byte 0xE9 on this line; "
                                             "Latin-1, UTF-16 or a binary file?) — save it as UTF-8")
    nul = tmp_path / "nul.md"
    nul.write_bytes(b"a\n\0")
    assert str(sources.read_text(nul, "nul.md")[1]) == ("nul.md:2: this file has a NUL character on this line (a "
                                                        "binary file?) — save it as UTF-8 text")
    (tmp_path / "folder.md").mkdir()
    assert str(sources.read_text(tmp_path / "folder.md", "folder.md")[1]) == (
        "folder.md:1: this file is a folder, not a text file — replace it with a UTF-8 text file")
    loop = tmp_path / "loop.md"
    os.symlink(loop, loop)
    assert sources.file_kind(loop) == "a symbolic link that loops"
    assert sources.file_kind(tmp_path / "gone.md") == "missing"


def test_sources_know_what_is_outside_a_folder(tmp_path: Path) -> None:
    inside = tmp_path / "lesson"
    inside.mkdir()
    (tmp_path / "secret.txt").write_text("x")
    os.symlink(tmp_path / "secret.txt", inside / "link.md")
    assert sources.outside(inside / "link.md", inside)
    assert not sources.outside(inside / "new.md", inside)


def test_media_publishes_image_files_next_to_the_lesson(tmp_path: Path) -> None:
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "plot one.png").write_bytes(PNG)
    assert media.resolve("img/plot%20one.png", tmp_path, "lesson") == "img/plot one.png"
    assert media.url("static/abc", "img/plot one.png") == f"static/abc/{media.MEDIA}/img/plot%20one.png"
    first = media.content_hash(tmp_path)
    (tmp_path / "img" / "plot one.png").write_bytes(PNG + b"\1")
    assert first and media.content_hash(tmp_path) != first


@pytest.mark.parametrize(("src", "message"), [
    ("javascript:alert(1)", 'image "javascript:alert(1)" uses a script URL — images are files next to the lesson, '
                            "e.g. ![A plot](img/plot.png) for lesson/img/plot.png"),
    ("https://x.test/a.png", 'image "https://x.test/a.png" is not on this site (the page loads images from the site '
                             "only) — save it in lesson/, e.g. lesson/img/plot.png, and write ![A plot](img/plot.png)"),
    ("../a.png", 'image "../a.png" must be a path inside lesson/ relative to the lesson, e.g. img/plot.png'),
    ("a.svg", 'image "a.svg": SVG images can carry scripts — use PNG, JPEG, GIF, WebP or AVIF'),
    ("missing.png", 'image "missing.png" not found (looked for lesson/missing.png) — add the file or fix the path'),
    ("fake.png", 'image "fake.png" is not a PNG file (its first bytes say otherwise) — export it again, or fix its '
                 "extension"),
])
def test_media_refuses_what_cannot_be_published(tmp_path: Path, src: str, message: str) -> None:
    (tmp_path / "fake.png").write_bytes(b"GIF89a" + b"\0" * 20)
    with pytest.raises(media.ImageError) as info:
        media.resolve(src, tmp_path, "lesson")
    assert str(info.value) == message


def test_media_refuses_an_image_over_the_course_limit(tmp_path: Path) -> None:
    (tmp_path / "big.png").write_bytes(PNG + b"\0" * (media.MB + 1))
    with pytest.raises(media.ImageError) as info:
        media.resolve("big.png", tmp_path, "lesson", max_mb=1)
    assert str(info.value).startswith('image "big.png" is 1.0 MB, more than the 1 MB a lesson\'s image may be')
