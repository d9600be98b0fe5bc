"""labkit's own words in CPython (labkit/_words.py): what it reports by key, and what it words itself from the
messages its host hands over — the worker's runner given a German page's, as the worker gives them at its boot
(lab/boot.js labkitWords): its output, the exceptions it raises into the learner's code, a stop and running out."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from places import FIXTURE

sys.path.insert(0, str(FIXTURE / "lab"))

import labkit
from labkit import _run, _words
from lessonkit.core.messages import Messages
from lessonkit.labs.limits import WORDED

FILE = "lab.py"


class German:
    """A runner given a German page's words, its output collected in order."""

    def __init__(self, scratch: list[str]) -> None:
        self.calls: list[str] = []
        self.runner = labkit.make_runner(self.calls.append, self.calls.append, scratch=scratch)
        self.runner.use_words(json.dumps(Messages("de").labkit_words(WORDED)))

    def run(self, code: str) -> tuple[dict, str]:
        before = len(self.calls)
        result = json.loads(self.runner(code, FILE))
        self.runner.settle()
        return result, "".join(self.calls[before:])


@pytest.fixture
def german(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[German]:
    """The German runner in a working directory of its own; labkit speaks English again after (the suite's)."""
    monkeypatch.chdir(tmp_path)
    try:
        yield German([str(tmp_path)])
    finally:
        _words.use(**Messages("en").labkit_words(WORDED))


def test_what_labkit_writes_and_raises_is_in_the_pages_language(german: German) -> None:
    result, out = german.run("input()")
    assert result["error"]["message"] == "Dieses Labor hat keine Tastatureingabe: Schreib die Werte stattdessen in den Code"
    assert out.endswith("EOFError: Dieses Labor hat keine Tastatureingabe: Schreib die Werte stattdessen in den Code\n")
    result, out = german.run("import sys\nsys.exit(3)")
    assert out == "Das Programm wurde mit Status 3 beendet.\n"
    # The output cap's notice: the German numbers, and the Stop button by its German name.
    result, out = german.run("for i in range(5000):\n    print(i)")
    assert result["truncated"] and out.endswith("… Ausgabegrenze erreicht: Nur die ersten 2.000 Zeilen oder 100.000 "
                                                "Zeichen werden angezeigt. Das Programm läuft weiter, bis es endet oder "
                                                "du „Stopp“ drückst.\n")


def test_a_stop_and_running_out_are_said_in_the_pages_language(german: German,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    real = _run._error_report

    def stopped(exc: BaseException, filename: str) -> dict:  # a Stop landing while the learner's error is reported
        if filename == FILE:
            raise KeyboardInterrupt
        return real(exc, filename)

    monkeypatch.setattr(_run, "_error_report", stopped)
    result, out = german.run("1 / 0")
    assert result["error"]["message"] == "Gestoppt." and out == "Gestoppt.\n"

    def fails(value: object) -> str:
        raise MemoryError

    encode, german.runner._encode = german.runner._encode, fails  # type: ignore[method-assign]
    try:
        result, _ = german.run("print(2)")
    finally:
        german.runner._encode = encode  # type: ignore[method-assign]
    assert result["error"]["message"] == "Python hat keinen Speicher mehr: Das Programm hält zu viele Daten auf einmal"


def test_a_check_says_by_key_what_the_page_and_the_build_word() -> None:
    report = labkit.check_code("def f():\n    return 4\n", "ex.py", [{"name": "c", "code": "assert f() == 6"}])
    (item,) = report["checks"]
    assert item["message"] == "" and item["said"] == {"key": "check.expected", "values": {"expected": "6", "actual": "4"}}
    assert Messages("de").said(item["said"]) == "erwartet 6, erhalten 4"
    assert Messages("en").said({"key": "check.too_long", "values": {"seconds": 0.5}}) == "took too long (more than 0.5 s)"
    assert Messages("de").said({"key": "check.too_long", "values": {"seconds": 0.5}}) == "hat zu lange gedauert (mehr als 0,5 s)"


def test_words_fill_only_their_names_and_write_numbers_with_the_hosts_signs() -> None:
    try:
        _words.use({"labkit.lines_left_out": "… ({n} Zeilen, {0} {n.x} {missing}) …", "not.labkit": "x"}, ",", ".")
        assert _words.text("labkit.lines_left_out", n=12345) == "… (12.345 Zeilen, {0} {n.x} {missing}) …"
        assert _words.text("labkit.stopped") == "labkit.stopped"  # a host that gave no words shows the key
        assert "not.labkit" not in _words._texts
    finally:
        _words.use(**Messages("en").labkit_words(WORDED))
