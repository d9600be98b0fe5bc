"""The lab after a run that broke Python's state or ran out of memory: the next run starts clean, the status is one line."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .test_lab import LINES_4_2, Lab

OUT_OF_MEMORY = "Python ran out of memory: the program keeps too much data at once"
STATUS_MAX = 250  # "Error on line N: Type: " and a message of at most 160 characters
# The learner's code fills the memory Python may grow to: with big blocks first, then ever smaller ones, so the
# last allocations that fail are the small strings of a program that keeps too much data.
FILL_MEMORY = """print("filling")
a = []
size = 1 << 24
while size >= 64:
    try:
        a.append(bytearray(size))
    except MemoryError:
        size //= 2
while True:
    a.append(str(len(a)) * 3)
"""


def test_print_silenced_by_one_run_prints_again_after_reset_code(
    kept_lab: Lab
) -> None:
    lab = kept_lab
    lab.run("import builtins\nbuiltins.print = lambda *a, **k: None\nprint('hidden')\n")
    expect(lab.status).to_have_text(re.compile(r"^Run finished in \d+ ms$"))
    assert lab.output_text() == ""
    lab.reset_button.click()
    lab.run()
    assert lab.output_text().splitlines() == LINES_4_2


def test_json_dumps_broken_by_one_run_and_the_next_run_works(kept_lab: Lab) -> None:
    lab = kept_lab
    lab.run("import json\njson.dumps = None\nprint('changed')\n")
    expect(lab.status).to_have_text(re.compile(r"^Run finished in \d+ ms$"))
    lab.run("import json\nprint(json.dumps({'a': [1, 2]}))\n")
    expect(lab.status).to_have_text(re.compile(r"^Run finished in \d+ ms$"))
    assert lab.output_text() == '{"a": [1, 2]}\n'


def test_running_out_of_memory_is_one_line_and_the_next_run_works(
    kept_lab: Lab
) -> None:
    lab = kept_lab
    lab.run(FILL_MEMORY, timeout=120)
    # With the memory full to the last bytes, Python may not even record where the error happened.
    expect(lab.status).to_have_text(re.compile(rf"^Error( on line 10)?: MemoryError: {re.escape(OUT_OF_MEMORY)}$"))
    text = lab.output_text()
    assert text.startswith("filling\n") and text.endswith(f"\nMemoryError: {OUT_OF_MEMORY}\n"), text
    for internal in ("labkit", "_pyodide", "/lib/python", "<exec>"):
        assert internal not in text
    lab.run("print(6 * 7)")
    assert lab.output_text() == "42\n"
    expect(lab.status).to_have_text(re.compile(r"^Run finished in \d+ ms$"))


def test_a_huge_error_message_is_one_short_status_line(kept_lab: Lab) -> None:
    lab = kept_lab
    lab.run("print('before')\nraise ValueError('x' * 100_000)\n")
    status = lab.status.text_content() or ""
    assert status.startswith("Error on line 2: ValueError: xxx") and status.endswith("…"), status[:300]
    assert len(status) < STATUS_MAX and "\n" not in status
    text = lab.output_text()
    assert text.startswith("before\nTraceback (most recent call last):\n")
    assert "characters left out" in text and len(text) < 6000
