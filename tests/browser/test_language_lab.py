"""The lab and an exercise of a German build (the fixture course, its lessons left in English) in Chromium, as a
learner meets them, with no English toolkit word (tests/browser/english.py) at any step: an exercise's failing
Check (labkit's "expected …, got …" and the hidden check's words, by key), its hints, a learner's error, exit() in
a check, code stopped before the checks, the solution shown, the passing Check, and a crash of Python; in the lab,
a learner's error, labkit's words in the output (no keyboard, the output cap naming the Stop button as the page
does), CodeMirror's own words, and a chart's numbers the German way ("86,7 %" where the English page reads "86.7%")."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import Locator, Page, expect

from lessonkit.serve.server import ServerHandle

from .helpers import LESSON_PAGE, wait_until
from .test_language import assert_no_english

BOOT_TIMEOUT = 120_000
RUN_TIMEOUT = 60_000
EXERCISE_PAGE = "mixing-values.html"  # its exercise write-attend: four checks, one secret, two hints
SOLUTION = ("def attend(weights, values):\n    width = len(values[0])\n"
            "    return [sum(w * v[j] for w, v in zip(weights, values)) for j in range(width)]\n")
# Recursion inside C (repr of a deeply nested list) overflows the WebAssembly stack: Python crashes.
CRASH = "a = []\nfor i in range(10**6):\n    a = [a]\nprint(len(repr(a)))\n"
CRASH_CONSOLE = ("fatal error", "Maximum call stack size exceeded", "The cause of the fatal error", "at wasm://",
                 "Python crashed")
NBSP = "\u00a0"


class Aufgabe:
    """The German page's exercise, found by role and visible German name."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.root = page.locator('[data-block="exercise"]')
        self.status = self.root.get_by_role("status")
        self.report = self.root.get_by_role("region", name="Prüfergebnisse")
        self.editor = self.root.get_by_role("textbox", name="Dein Code")

    def ready(self) -> None:
        """Scroll to it as a learner does, until its editor shows."""
        def editor_shown() -> bool:
            self.root.evaluate("r => (r.querySelector('.cm-editor') || r.querySelector('[data-exercise-code]'))"
                               ".scrollIntoView({block: 'center'})")
            return self.root.locator(".cm-editor").is_visible()

        wait_until(editor_shown, page=self.page, timeout=BOOT_TIMEOUT / 1000, interval=0.5, message="the editor")

    def button(self, name: str) -> Locator:
        return self.root.get_by_role("button", name=name, exact=True)

    def set_code(self, code: str) -> None:
        self.editor.click()
        self.page.keyboard.press("ControlOrMeta+a")
        self.page.keyboard.insert_text(code)

    def reports(self) -> int:
        return int(self.page.evaluate("document.querySelector('[data-block=exercise]').exerciseController.reports"))

    def check(self, code: str | None = None) -> list[str]:
        """Optionally set code, press Prüfen and wait for the report; each check's line, as read."""
        if code is not None:
            self.set_code(code)
        count = self.reports()
        self.button("Prüfen").click()
        wait_until(lambda: self.reports() > count, page=self.page, timeout=RUN_TIMEOUT / 1000, message="the report")
        return [" ".join(t.split()) for t in self.report.get_by_role("listitem").all_text_contents()]


def test_a_german_exercise_from_a_failing_check_to_the_solution_says_no_english_word(
        open_german: Callable[..., Page], page_errors: object) -> None:
    for text in CRASH_CONSOLE:
        page_errors.expect(text)  # type: ignore[attr-defined]
    page = open_german(EXERCISE_PAGE)
    task = Aufgabe(page)
    task.ready()
    # The starter fails: labkit's "expected …, got …" and the hidden check's words, in German.
    lines = task.check()
    assert lines[0].startswith("✗ gives the Lab's output for k = 1 nicht bestanden: erwartet [")
    assert "(auf 1e-09 genau), erhalten [" in lines[0]
    assert lines[2] == "✓ returns one number per coordinate bestanden"
    assert lines[3] == ("✗ three coordinates and other weights nicht bestanden (verborgene Prüfung): Diese Prüfung ist "
                        "verborgen, und dein Code besteht sie nicht: Probiere deinen Code auch mit anderen Eingaben aus.")
    expect(task.status).to_have_text("Geprüft: 1 von 4 Prüfungen bestanden. Die Ergebnisse stehen unten.")
    assert_no_english(page)
    # The hints, one at a time.
    task.button("Tipp").click()
    expect(task.status).to_have_text("Tipp 1 von 2 steht unten.")
    expect(task.button("Nächster Tipp (noch 1)")).to_be_visible()
    task.button("Nächster Tipp (noch 1)").click()
    expect(task.status).to_have_text("Tipp 2 von 2 steht unten.")
    assert_no_english(page)
    # The learner's function raises: Python's own words inside labkit's, with the learner's lines.
    lines = task.check("def attend(weights, values):\n    return 1 / 0\n")
    assert lines[0].startswith("✗ gives the Lab's output for k = 1 nicht bestanden: dein Code hat ZeroDivisionError: "
                               "division by zero ausgelöst")
    assert_no_english(page)
    # exit() in a check, then code that stops before the checks.
    lines = task.check("def attend(weights, values):\n    import sys\n    sys.exit(1)\n")
    assert lines[1] == ("✗ a weight of 1 copies that value nicht bestanden: Dein Code hat während dieser Prüfung exit() "
                        "aufgerufen.")
    lines = task.check("attend = undefined_name\n")
    assert lines[0] == ("✗ gives the Lab's output for k = 1 nicht bestanden: Nicht ausgeführt: Dein Code ist vor den "
                        "Prüfungen mit einem Fehler abgebrochen (siehe oben).")
    expect(task.status).to_contain_text("Dein Code ist vor den Prüfungen abgebrochen: NameError: name 'undefined_name' "
                                        "is not defined (Zeile 1)")
    assert_no_english(page)
    # Past the attempts the solution may be shown; then the solution passes.
    task.button("Lösung zeigen").click()
    task.button("Ja, zeigen").click()
    expect(task.root.get_by_role("heading", name="Eine Lösung")).to_be_visible()
    expect(task.status).to_have_text("Die Lösung steht unter deinem Code.")
    assert_no_english(page)
    lines = task.check(SOLUTION)
    assert lines[-1] == "✓ three coordinates and other weights bestanden (verborgene Prüfung)"
    assert all(line.startswith("✓") and " bestanden" in line for line in lines), lines
    expect(task.report).to_contain_text("Alle 4 Prüfungen bestanden. Gut gemacht!")
    assert_no_english(page)
    # A crash: the worker reports it by key, the page says it in German.
    task.set_code(CRASH)
    task.button("Ausführen").click()
    expect(task.status).to_have_text("Python ist abgestürzt: Der Stapelspeicher ist ausgegangen (eine zu tiefe Rekursion "
                                     "oder ein sehr tief verschachteltes Objekt). Python wurde neu gestartet.",
                                     timeout=RUN_TIMEOUT)
    assert_no_english(page)


def test_a_german_lab_says_a_learners_error_and_labkits_own_words_in_german(open_german: Callable[..., Page]) -> None:
    page = open_german(LESSON_PAGE)
    lab = page.get_by_role("region", name=re.compile(r"^Python-Labor"))
    status = lab.get_by_role("status")
    expect(status).to_contain_text("Bereit", timeout=BOOT_TIMEOUT)
    lab.locator("[data-lab-editor]").scroll_into_view_if_needed()
    editor = lab.get_by_role("textbox", name="Labor-Code")
    output = lab.get_by_role("region", name="Labor-Ausgabe")

    def run(code: str) -> str:
        before = int(page.evaluate("document.querySelector('[data-lab]').labController.runs.length"))
        editor.click()
        page.keyboard.press("ControlOrMeta+a")
        page.keyboard.insert_text(code)
        lab.get_by_role("button", name="Ausführen", exact=True).click()
        skip = lab.get_by_role("button", name="Überspringen und ausführen")
        if skip.count():
            skip.click()
        wait_until(lambda: int(page.evaluate("document.querySelector('[data-lab]').labController.runs.length")) > before,
                   page=page, timeout=RUN_TIMEOUT / 1000, message="the run")
        return str(output.get_by_role("group", name=re.compile(r"^Dieser Lauf")).locator("pre").text_content())

    expect(lab.locator(".cm-editor")).to_be_visible(timeout=BOOT_TIMEOUT)
    text = run("x = 1\nprint(y)\n")
    expect(status).to_have_text("Fehler in Zeile 2: NameError: name 'y' is not defined")
    assert_no_english(page)
    text = run("input()\n")
    assert text.endswith("EOFError: Dieses Labor hat keine Tastatureingabe: Schreib die Werte stattdessen in den Code\n")
    text = run("for i in range(2500):\n    print(i)\n")
    assert text.endswith("… Ausgabegrenze erreicht: Nur die ersten 2.000 Zeilen oder 100.000 Zeichen werden angezeigt. "
                         "Das Programm läuft weiter, bis es endet oder du „Stopp“ drückst.\n")
    expect(lab.get_by_role("button", name="Stopp", exact=True)).to_be_visible()
    assert_no_english(page)
    # CodeMirror's own words: a control character's name, and what it announces when a selection is deleted.
    editor.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text("bell = '\x07'\n")
    expect(lab.locator(".cm-specialChar").first).to_have_attribute("title", re.compile("^Steuerzeichen"))
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    expect(lab.locator(".cm-announced")).to_have_text("Auswahl gelöscht")
    assert_no_english(page)


def _chart_cell(page: Page, region: str) -> tuple[str, str]:
    """The chart's figure name and its table's cell of head_dim 1, position 2 (its value 0.8668…), in the lab of the
    lesson on `page` (found by the lab's region name, and the data table's disclosure)."""
    lab = page.get_by_role("region", name=re.compile(region))
    chart = lab.get_by_role("img").first
    expect(chart).to_be_attached(timeout=BOOT_TIMEOUT)
    lab.locator(".lab-chart-table > summary").first.click()
    row = lab.get_by_role("table").first.get_by_role("row").nth(1)
    expect(row).to_be_visible()
    return str(chart.get_attribute("aria-label")), row.get_by_role("cell").nth(1).inner_text()


def test_a_lab_charts_numbers_read_the_german_way(open_german: Callable[..., Page], new_page: Callable[..., Page],
                                                  server: ServerHandle) -> None:
    english = new_page(server.url)
    english.goto(LESSON_PAGE)
    name, cell = _chart_cell(english, r"^Python lab")
    assert cell == "86.7%" and "position 2 86.7%" in name
    german = open_german(LESSON_PAGE)
    name, cell = _chart_cell(german, r"^Python-Labor")
    assert cell == f"86,7{NBSP}%", cell
    assert f"position 2 86,7{NBSP}%" in name
    assert_no_english(german)
