"""What a lesson tells its LMS in words is in the page's language: an exercise's learner_response, its correct
pattern, and the note on a cut explanation (static/js/lms/record.js, scorm-values.js, worded from the catalog), run
under Node with a German page's words."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from modules import module_tree, words_of

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")

NODE_JS = """
const root = process.argv[1];
const record = await import(`${root}/static/js/lms/record.js`);
const values = await import(`${root}/static/js/lms/scorm-values.js`);
const lms = { blocks: [{ type: "exercise", id: "ex", version: "e1" }],
  items: [{ id: "urn:x", block: "ex", kind: "exercise", description: "Aufgabe" }] };
const entries = { "ex:e1": { passed: true, attempts: 2, hints: 1, solution: true } };
console.log(JSON.stringify({
  response: record.exerciseResponse({ passed: false, attempts: 1, hints: 0, solution: false }),
  interaction: record.interactions(lms, entries)[0],
  cut: values.longText("x".repeat(values.limits.learnerResponse + 5)).slice(-80),
}));
"""


def test_an_exercises_response_and_a_cut_text_are_in_the_pages_language() -> None:
    tree = module_tree()
    done = subprocess.run(["node", *words_of("de"), "--input-type=module", "-e", NODE_JS, tree.as_uri()],
                          capture_output=True, text=True, check=True, cwd=tree)
    said = json.loads(done.stdout)
    assert said["response"] == "nicht bestanden, 1 fehlgeschlagene Prüfung"
    assert said["interaction"]["response"] == "bestanden, 2 fehlgeschlagene Prüfungen, 1 Tipp, Lösung angezeigt"
    assert said["interaction"]["correct"] == "bestanden"
    assert said["cut"].endswith(" … (hier gekürzt: der ganze Text ist im gespeicherten Stand der Lektion)")
