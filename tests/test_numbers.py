"""Numbers in the course's language: the build's Babel formats (lessonkit.core.messages) and the page's
Intl.NumberFormat (static/js/page/i18n.js) write the same text for the same value, over many values and languages;
a German widget reads "66,5 %", while `check:` values stay as the author writes them and lab output as Python
prints it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest
from course import build, write_demo
from modules import english, module_tree

from lessonkit.core.messages import Messages

# Languages whose CLDR data Babel's release and Node's ICU agree on (de-AT's and de-CH's group signs and sv's minus
# differ between CLDR versions).
LANGUAGES = ("en", "de", "fr", "es", "fr-CA", "fr-CH", "es-MX", "es-419", "pt-BR", "it", "nl", "pl", "ja")
VALUES = (0, 1, -1, 0.5, -0.5, 0.665, 0.0005, 3.14159, -2.71828, 12.5, 999.999, 1000, 1234.5, 12345.678,
          -98765.4321, 1_000_000, 0.1 + 0.2, 1e-7, 42)
CASES = [("number", digits, grouping) for digits in (None, 0, 1, 2, 3) for grouping in (True, False)] + \
        [("percent", digits, grouping) for digits in (0, 1, 2) for grouping in (True, False)]

NODE_JS = """
const [module, cases] = [process.argv[1], JSON.parse(process.argv[2])];
const i18n = await import(module);
const out = {};
for (const [lang, values] of Object.entries(cases)) {
  i18n.use({}, lang);
  out[lang] = values.map(([style, digits, grouping, value]) => (style === "percent"
    ? i18n.pct(value, digits, { grouping }) : i18n.num(value, digits, { grouping })));
}
console.log(JSON.stringify(out));
"""


def python_texts() -> dict[str, list[str]]:
    out = {}
    for lang in LANGUAGES:
        words = Messages(lang)
        out[lang] = [words.percent(v, d, grouping=g) if style == "percent" else words.number(v, d, grouping=g)
                     for style, d, g in CASES for v in VALUES]
    return out


def _require_node() -> None:
    """Node, or a skip saying so; under CI (`CI` set, as .ci/run sets it) a failure: the page's numbers must be
    compared with the build's there."""
    if shutil.which("node") is not None:
        return
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        pytest.fail("node is not on PATH: CI must compare the page's numbers with the build's (make installs Node)",
                    pytrace=False)
    pytest.skip("node is not on PATH (CI fails instead of skipping)")


def test_node_writes_every_number_as_the_build_does():
    _require_node()
    cases = {lang: [[style, d, g, v] for style, d, g in CASES for v in VALUES] for lang in LANGUAGES}
    module = (module_tree() / "static" / "js" / "page" / "i18n.js").as_uri()
    result = subprocess.run(["node", *english(), "--input-type=module", "-e", NODE_JS, module, json.dumps(cases)],
                            capture_output=True, text=True, check=True)
    node = json.loads(result.stdout)
    python = python_texts()
    wrong = [(lang, case, python[lang][n], node[lang][n]) for lang in LANGUAGES
             for n, case in enumerate([(s, d, g, v) for s, d, g in CASES for v in VALUES])
             if python[lang][n] != node[lang][n]]
    assert wrong == []


def test_german_french_and_spanish_write_percent_their_way():
    assert Messages("de").percent(0.665, 1) == "66,5\u00a0%"
    assert Messages("fr").percent(0.665, 1) == "66,5\u00a0%"
    assert Messages("es").percent(0.665, 1) == "66,5\u00a0%"
    assert Messages("en").percent(0.665, 1) == "66.5%"
    assert Messages("de").number(1234.5, 1) == "1.234,5"
    assert Messages("de").number(1234.5, 1, grouping=False) == "1234,5"


def test_a_german_widget_reads_its_numbers_the_german_way_and_check_stays_as_written(tmp_path):
    root = write_demo(tmp_path)
    (root / "course.yaml").write_text("title: A course\nlanguage: de\n", encoding="utf-8")
    html = (build(root) / "demo.html").read_text(encoding="utf-8")  # its check: ["1.6%", "86.7%", …] passes
    # The bar column's percents, the caption's "{top:.3f}" and the figures in the text, the German way.
    assert "<span data-value>86,7\u00a0%</span>" in html
    assert "k = 1: the largest weight is 0,867" in html
    assert "86.7%" not in html.split('id="lesson-messages"')[0].split("<pre")[0]
