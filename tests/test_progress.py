"""The course's progress (static/js/course/progress.js) under Node: one lesson's progress, the progress file and its
canonical hash, and loading a file back: what it restores, skips and refuses, each refusal changing nothing."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from modules import english, module_tree
from places import STATIC

ROOT = Path(__file__).resolve().parent.parent
STORE = STATIC / "js" / "page" / "store.js"  # imports no generated module: read where it is
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")

# argv: the js folder; stdin: {storage, manifest, calls}: localStorage's entries before, the course manifest, and a list
# of [function, args]. Runs the calls in order with the page's store (as main.js makes it) over an in-memory
# localStorage; prints {answers, storage, warnings}.
_CALL_JS = r"""
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const folder = process.argv[1];
const { storage: before, manifest, calls, insecure } = JSON.parse(readFileSync(0, "utf8"));
if (insecure) Object.defineProperty(globalThis, "crypto", { value: {}, configurable: true }); // no crypto.subtle
const entries = new Map(Object.entries(before));
globalThis.localStorage = {
  get length() { return entries.size; },
  key: (i) => [...entries.keys()][i] ?? null,
  getItem: (k) => (entries.has(k) ? entries.get(k) : null),
  setItem: (k, v) => { if (String(v).includes("FULL")) throw new Error("QuotaExceededError"); entries.set(k, String(v)); },
  removeItem: (k) => { entries.delete(k); },
};
const warnings = [];
console.warn = (text) => warnings.push(String(text));
const load = (name) => import(pathToFileURL(`${folder}/${name}`).href);
const storeModule = await load("page/store.js");
const { saved } = await load("page/shapes.js");
const progress = await load("course/progress.js");
const { plural } = await load("page/dom.js");
const store = { ...storeModule, saved };
const lesson = (slug) => manifest.lessons.find((l) => l.slug === slug);
const fns = {
  describe: (slug) => progress.describe(progress.lessonProgress(lesson(slug), store), plural),
  tally: (slug) => progress.lessonProgress(lesson(slug), store),
  last: () => progress.lastLesson(manifest, store)?.slug ?? null,
  exported: (now) => progress.exportProgress(manifest, store, new Date(now)),
  fileText: async (now) => progress.fileText(await progress.exportProgress(manifest, store, new Date(now))),
  fileName: (now) => progress.fileName(manifest, new Date(now)),
  canonical: (value) => progress.canonicalJSON(value),
  sha256: (text) => progress.sha256Hex(text),
  check: (text) => progress.checkFile(text, manifest, store, plural),
  load: async (text) => {
    const checked = await progress.checkFile(text, manifest, store, plural);
    return checked.ok ? { ...checked, written: progress.applyPlan(checked.plan, store) } : checked;
  },
  reset: () => progress.resetProgress(manifest, store),
};
const answers = [];
for (const [fn, args] of calls) {
  try {
    answers.push(await fns[fn](...args));
  } catch (err) {
    answers.push({ error: err.message });
  }
}
console.log(JSON.stringify({ answers, storage: Object.fromEntries(entries), warnings }));
"""

V1, V2 = "a" * 12, "b" * 12
MANIFEST: dict[str, Any] = {
    "course": {"id": "fixtures", "title": "Fixture course"}, "format": 1,
    "lessons": [
        {"slug": "one", "title": "Lesson one", "summary": "The first.", "version": "1" * 12, "href": "one.html",
         "blocks": [{"type": "quiz", "id": "predict", "version": V1, "questions": 4},
                    {"type": "explain", "id": "explain", "version": V2},
                    {"type": "lab", "id": "demo", "version": "c" * 12},
                    {"type": "exercise", "id": "write-it", "version": "d" * 12}]},
        {"slug": "two", "title": "Lesson two", "summary": "The second.", "version": "2" * 12, "href": "two.html",
         "blocks": [{"type": "quiz", "id": "check", "version": V1, "questions": 1}]},
    ],
}
K = "lessonkit:v1"
DEEP = ("This is not a progress file: its data is nested more than 16 levels deep (a progress file’s is a few levels "
        "deep).")
ANSWERS = {"1": "2", "3": "1"}
DRAFT = {"text": "Scaling keeps the spread.", "savedAt": 1764583200000}
CODE = {"schema": 1, "base": "e" * 12, "code": "print(2)\n", "savedAt": "2026-12-01T10:00:00.000Z"}
EXERCISE = {"passed": True, "attempts": 2, "hints": 1, "solution": False}
EXERCISE_CODE = {"base": "f" * 12, "code": "def f():\n    return 1\n"}
STORED = {
    f"{K}:one:predict:{V1}": ANSWERS,
    f"{K}:one:explain:{V2}": DRAFT,
    f"{K}:one:demo:code": CODE,
    f"{K}:one:write-it:{'d' * 12}": EXERCISE,
    f"{K}:one:write-it:code": EXERCISE_CODE,
    f"{K}:course:last": {"lesson": "one", "course": "fixtures", "at": "2026-12-01T10:05:00.000Z"},
}
NOW = "2026-12-01T10:15:00.000Z"


def run(*calls: tuple[str, list[Any]], storage: dict[str, Any] | None = None,
        manifest: dict[str, Any] | None = None, insecure: bool = False) -> dict[str, Any]:
    """Each (function, args) as Node answers it ({"error": message} if it throws), over localStorage holding
    `storage` (values JSON-encoded); `insecure`: without crypto.subtle, as on a plain http page."""
    before = {k: v if isinstance(v, str) else json.dumps(v) for k, v in (storage or {}).items()}
    payload = json.dumps({"storage": before, "manifest": manifest or MANIFEST, "calls": calls, "insecure": insecure})
    result = subprocess.run(["node", *english(), "--input-type=module", "-e", _CALL_JS,
                             str(module_tree() / "static" / "js")], input=payload, capture_output=True, text=True,
                            check=True)
    out = json.loads(result.stdout)
    out["storage"] = {k: json.loads(v) for k, v in out["storage"].items()}
    return dict(out)


def exported(storage: dict[str, Any] | None = None) -> dict[str, Any]:
    """The progress file the fixture course's store gives."""
    return dict(run(("exported", [NOW]), storage=STORED if storage is None else storage)["answers"][0])


def echoed(name: str) -> str:
    """A name from the file as a message echoes it: in a bidi isolate (FSI … PDI)."""
    return f"\u2068{name}\u2069"


def rehash(file: dict[str, Any]) -> dict[str, Any]:
    """`file` with its sha256 recomputed the way the module's header tells a person to (Python's json)."""
    body = {k: v for k, v in file.items() if k != "sha256"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {**body, "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest()}


def test_a_lessons_progress_in_words() -> None:
    out = run(("describe", ["one"]), ("describe", ["two"]), ("tally", ["one"]), storage=STORED)
    one, two, counts = out["answers"]
    assert one == "2 of 4 questions answered · explanation drafted · 1 of 1 exercise passed · code edited"
    assert two == "Not started"
    assert counts == {"questions": {"done": 2, "total": 4}, "drafts": {"done": 1, "total": 1},
                      "exercises": {"done": 1, "total": 1}, "code": {"done": 2, "total": 2}, "started": True}


def test_progress_counts_only_what_the_lesson_has_now() -> None:
    storage = {
        f"{K}:one:predict:{'0' * 12}": ANSWERS,  # an older version of the quiz: not this lesson's any more
        f"{K}:one:explain:{V2}": {"text": "   "},  # a draft of spaces is not a draft
        f"{K}:one:write-it:{'d' * 12}": {**EXERCISE, "passed": False},
        f"{K}:two:check:{V1}": {"1": "3"},
    }
    out = run(("describe", ["one"]), ("describe", ["two"]), storage=storage)
    assert out["answers"] == ["0 of 4 questions answered · 0 of 1 exercise passed", "1 of 1 question answered"]


def test_a_saved_entry_of_the_wrong_shape_counts_as_nothing() -> None:
    storage = {f"{K}:two:check:{V1}": {"2": "1"}, f"{K}:one:explain:{V2}": {"text": 3}}
    out = run(("describe", ["two"]), ("describe", ["one"]), storage=storage)
    assert out["answers"] == ["Not started", "Not started"]
    assert any("discarded saved progress" in w for w in out["warnings"])


def test_continue_names_the_last_lesson_of_this_course_only() -> None:
    assert run(("last", []), storage=STORED)["answers"] == ["one"]
    gone = {f"{K}:course:last": {"lesson": "removed-lesson", "at": NOW}}
    assert run(("last", []), storage=gone)["answers"] == [None]
    assert run(("last", []))["answers"] == [None]


def test_continue_is_this_courses_only_even_for_a_lesson_of_the_same_slug() -> None:
    """The key is the origin's: another course's entry naming a slug this course has too is not this course's; an
    entry an older page saved (no course) is read by its lesson alone."""
    theirs = {f"{K}:course:last": {"lesson": "one", "course": "another", "at": NOW}}
    older = {f"{K}:course:last": {"lesson": "one", "at": NOW}}
    assert run(("last", []), storage=theirs)["answers"] == [None]
    assert run(("last", []), storage=older)["answers"] == ["one"]


def test_the_storage_layout_has_one_home() -> None:
    """store.js builds its keys from storage-layout.json, as the build's slug check reads it; neither spells them."""
    from lessonkit.content.lesson import RESERVED_SLUGS, STORAGE_LAYOUT

    layout = json.loads(STORAGE_LAYOUT.read_text(encoding="utf-8"))
    script = ('const store = await import(process.argv[1]); console.log(JSON.stringify(store.LAST_LESSON_KEY));')
    result = subprocess.run(["node", "--input-type=module", "-e", script, STORE.as_uri()],
                            capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == f"{layout['prefix']}:{layout['keys']['last']['key']}" == f"{K}:course:last"
    for entry in layout["keys"].values():
        assert entry["key"].split(":")[0] in RESERVED_SLUGS
    code = "\n".join(line.split("//")[0] for line in STORE.read_text(encoding="utf-8").splitlines())
    assert layout["prefix"] not in code and "course:last" not in code


def test_the_file_holds_every_lesson_with_its_saved_entries_and_a_hash_anyone_can_recompute() -> None:
    file = exported()
    assert list(file) == ["format", "version", "course", "exported", "lessons", "sha256"]
    assert file["format"] == "lessonkit-progress" and file["version"] == 1
    assert file["course"] == {"id": "fixtures", "title": "Fixture course"}
    assert file["exported"] == "2026-12-01T10:15:00Z"
    assert file["lessons"] == {
        "one": {"title": "Lesson one", "version": "1" * 12,
                "entries": {f"predict:{V1}": ANSWERS, f"explain:{V2}": DRAFT, "demo:code": CODE,
                            f"write-it:{'d' * 12}": EXERCISE, "write-it:code": EXERCISE_CODE}},
        "two": {"title": "Lesson two", "version": "2" * 12, "entries": {}},
    }
    assert rehash(file)["sha256"] == file["sha256"]


def test_the_file_name_and_text() -> None:
    out = run(("fileName", ["2026-12-01T10:15:00"]), ("fileText", [NOW]), storage=STORED)
    name, text = out["answers"]
    assert name == "fixtures-progress-2026-12-01.json"
    assert text.startswith('{\n  "format": "lessonkit-progress",\n') and text.endswith("}\n")
    assert json.loads(text) == exported()


def test_canonical_json_sorts_keys_at_every_level_and_has_no_spaces() -> None:
    value = {"b": [3, {"z": "é\n\"", "a": None}], "a": 1.5, "B": True, "é": "x\u0001", "": []}
    text, digest, empty = run(("canonical", [value]), ("sha256", ["é"]), ("sha256", [""]))["answers"]
    assert text == '{"":[],"B":true,"a":1.5,"b":[3,{"a":null,"z":"é\\n\\""}],"é":"x\\u0001"}'
    assert text == json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert digest == hashlib.sha256("é".encode()).hexdigest()
    assert empty == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_loading_a_file_restores_every_entry_and_says_what() -> None:
    text = json.dumps(exported())
    out = run(("load", [text]), ("describe", ["one"]))
    result, words = out["answers"]
    assert result["ok"] and result["written"]
    words_one = "2 of 4 questions answered · explanation drafted · 1 of 1 exercise passed · code edited"
    assert result["plan"]["lessons"] == [{"slug": "one", "title": "Lesson one", "progress": words_one}]
    assert result["plan"]["skipped"] == {"lessons": 0, "entries": 0}
    assert result["plan"]["exported"] == "2026-12-01T10:15:00Z"
    assert words.startswith("2 of 4")
    assert out["storage"] == {k: v for k, v in STORED.items() if k != f"{K}:course:last"}


def test_lessons_and_blocks_the_course_does_not_have_are_skipped_and_counted_never_written() -> None:
    file = exported()
    file["lessons"]["removed"] = {"title": "Removed", "version": "f" * 12, "entries": {f"predict:{V1}": ANSWERS}}
    file["lessons"]["one"]["entries"][f"predict:{'0' * 12}"] = ANSWERS  # an older version of the quiz
    file["lessons"]["one"]["entries"]["gone:code"] = CODE
    out = run(("load", [json.dumps(rehash(file))]))
    result = out["answers"][0]
    assert result["ok"] and result["plan"]["skipped"] == {"lessons": 1, "entries": 2}
    assert not any(":removed:" in k or ":gone:" in k or "0" * 12 in k for k in out["storage"])
    assert out["storage"][f"{K}:one:predict:{V1}"] == ANSWERS


def test_loading_replaces_the_files_entries_and_keeps_everything_else() -> None:
    mine = {f"{K}:one:predict:{V1}": {"1": "1"}, f"{K}:two:check:{V1}": {"1": "2"}}
    file = exported({f"{K}:one:predict:{V1}": ANSWERS})
    out = run(("load", [json.dumps(file)]), storage=mine)
    assert out["storage"] == {f"{K}:one:predict:{V1}": ANSWERS, f"{K}:two:check:{V1}": {"1": "2"}}


def test_every_refusal_has_its_message_and_changes_nothing() -> None:
    good = exported()
    newer = rehash({**good, "version": 2})
    foreign = rehash({**good, "course": {"id": "another", "title": "Another course"}})
    tampered = copy.deepcopy(good)
    tampered["lessons"]["one"]["entries"][f"predict:{V1}"] = {"1": "1", "2": "1", "3": "1", "4": "1"}
    bad_entry = copy.deepcopy(good)
    bad_entry["lessons"]["one"]["entries"][f"predict:{V1}"] = {"9": "1"}
    extra_field = rehash({**good, "note": "hello"})
    no_hash = {k: v for k, v in good.items() if k != "sha256"}
    cases = {
        "not json": "{oops",
        "an array": "[1, 2]",
        "another format": json.dumps({**good, "format": "something-else"}),
        "a version of 0": json.dumps(rehash({**good, "version": 0})),
        "a newer version": json.dumps(newer),
        "another course": json.dumps(foreign),
        "a tampered entry": json.dumps(tampered),
        "no hash": json.dumps(no_hash),
        "an entry of the wrong shape": json.dumps(rehash(bad_entry)),
        "an unknown field": json.dumps(extra_field),
        "too large": " " * (16 * 1024 * 1024 + 1),
        "nested 100,000 deep": "[" * 100_000 + "]" * 100_000,
        "a file nested deep": json.dumps({**good, "lessons": {}})[:-1] + ', "note": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "17 deep": json.dumps(rehash({**good, "note": json.loads("[" * 16 + "]" * 16)})),
    }
    mine = {f"{K}:one:predict:{V1}": {"1": "1"}}
    out = run(*[("load", [text]) for text in cases.values()], storage=mine)
    got = {name: (a["ok"], a["message"]) for name, a in zip(cases, out["answers"], strict=True)}
    assert got == {
        "not json": (False, "This is not a progress file: it is not JSON."),
        "an array": (False, "This is not a progress file of a lessonkit course."),
        "another format": (False, "This is not a progress file of a lessonkit course."),
        "a version of 0": (False, "This is not a progress file of a lessonkit course."),
        "a newer version": (False, "This file was made by a newer version of this course site. Reload the page to get "
                                   "the newest version, then try again."),
        "another course": (False, f"This file is for the course “{echoed('Another course')}”, not this one."),
        "a tampered entry": (False, "The file was changed or damaged after it was saved: its sha256 does not match "
                                    "its content."),
        "no hash": (False, "The file was changed or damaged after it was saved: its sha256 does not match its "
                           "content."),
        "an entry of the wrong shape": (False, f"The file’s entry “{echoed(f'predict:{V1}')}” for the lesson “Lesson "
                                               "one” is not what this course saves there."),
        "an unknown field": (False, "This is not a progress file of a lessonkit course."),
        "too large": (False, "This file is too large to be a progress file."),
        "nested 100,000 deep": (False, DEEP),
        "a file nested deep": (False, DEEP),
        "17 deep": (False, DEEP),
    }
    assert out["storage"] == mine


def test_a_file_nested_as_deep_as_the_limit_is_read() -> None:
    """16 levels, the limit, pass the depth check (and are then refused for their shape, not their depth)."""
    file = rehash({**exported(), "note": json.loads("[" * 15 + "]" * 15)})
    assert run(("check", [json.dumps(file)]))["answers"][0]["message"] == "This is not a progress file of a lessonkit course."


def test_a_foreign_file_without_a_title_is_named_by_its_id() -> None:
    file = rehash({**exported(), "course": {"id": "another", "title": " "}})
    assert run(("check", [json.dumps(file)]))["answers"][0]["message"] == \
        f"This file is for the course “{echoed('another')}”, not this one."


def test_a_foreign_course_title_of_100_000_characters_is_echoed_cut() -> None:
    file = rehash({**exported(), "course": {"id": "another", "title": "Spoof\n" + "x" * 100_000}})
    message = run(("check", [json.dumps(file)]))["answers"][0]["message"]
    assert message == f"This file is for the course “{echoed('Spoof ' + 'x' * 73 + '…')}”, not this one."


# A title that closes the message's quotes and goes on in the page's voice, hides text with bidi overrides and
# zero-width characters, or breaks the line.
SPOOF_TITLE = ("Physics”, not this one.\u2029Loaded: 12 of 12 «done» \"and\" ″ok″ `ok´ \u202ekcab\u202c\u2066x\u2069"
               "\u200bz\u200d\r\n\u0085end \ue000\U000e0001")


def test_a_foreign_title_cannot_close_the_quotes_or_hide_text() -> None:
    file = rehash({**exported(), "course": {"id": "another", "title": SPOOF_TITLE}})
    message = run(("check", [json.dumps(file)]))["answers"][0]["message"]
    assert message == ("This file is for the course “\u2068Physics , not this one. Loaded: 12 of 12 done and ok ok kcab x "
                       "z end\u2069”, not this one.")


def test_storage_that_refuses_a_write_puts_back_what_was_there() -> None:
    file = copy.deepcopy(exported())
    file["lessons"]["one"]["entries"][f"explain:{V2}"] = {"text": "FULL: storage refuses this one"}
    mine = {f"{K}:one:predict:{V1}": {"1": "1"}, f"{K}:one:explain:{V2}": DRAFT}
    out = run(("load", [json.dumps(rehash(file))]), storage=mine)
    assert out["answers"][0]["ok"] and out["answers"][0]["written"] is False
    assert out["storage"] == mine


def test_reset_removes_every_entry_of_the_courses_lessons_and_nothing_else() -> None:
    other = {f"{K}:another-course-lesson:quiz:{V1}": {"1": "1"}, "unrelated": {"x": 1}}
    older = {f"{K}:one:predict:{'0' * 12}": ANSWERS}
    out = run(("reset", []), ("describe", ["one"]), ("last", []), storage={**STORED, **other, **older})
    removed, words, last = out["answers"]
    assert removed == {"entries": 6, "lessons": 1}
    assert words == "Not started" and last is None
    assert out["storage"] == other


@pytest.mark.parametrize("last", [{"lesson": "elsewhere", "at": NOW},
                                  {"lesson": "one", "course": "another", "at": NOW}], ids=["its lesson", "its course"])
def test_reset_keeps_the_continue_link_of_another_course(last: dict[str, str]) -> None:
    """Another course's Continue entry stays, even when it names a lesson of the same slug; this course's goes."""
    theirs = {f"{K}:course:last": last}
    assert run(("reset", []), storage=theirs)["storage"] == theirs
    mine = {f"{K}:course:last": {"lesson": "one", "course": "fixtures", "at": NOW}}
    assert run(("reset", []), storage=mine)["storage"] == {}


def test_a_block_type_it_does_not_know_is_left_out_with_a_warning() -> None:
    manifest = copy.deepcopy(MANIFEST)
    manifest["lessons"][1]["blocks"].append({"type": "poll", "id": "vote", "version": V1})
    out = run(("describe", ["two"]), ("describe", ["two"]), manifest=manifest)
    assert out["answers"] == ["Not started", "Not started"]
    assert out["warnings"] == ['lessonkit: progress of "poll" blocks is not counted (progress.js does not know that type).']


def test_without_crypto_subtle_no_file_is_made_or_loaded() -> None:
    text = json.dumps(exported())
    out = run(("exported", [NOW]), ("load", [text]), storage=STORED, insecure=True)
    why = "This browser makes and checks progress files only on a secure (https) page."
    assert out["answers"] == [{"error": why}, {"error": why}]
    assert out["storage"] == STORED


def test_several_explanations_are_counted() -> None:
    manifest = copy.deepcopy(MANIFEST)
    manifest["lessons"][1]["blocks"] += [{"type": "explain", "id": "first", "version": V2},
                                         {"type": "explain", "id": "second", "version": V2}]
    storage = {f"{K}:two:first:{V2}": DRAFT}
    out = run(("describe", ["two"]), storage=storage, manifest=manifest)
    assert out["answers"] == ["0 of 1 question answered · 1 of 2 explanations drafted"]
