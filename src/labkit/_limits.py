"""What one lab run may send to the page: labkit's caps, which the page enforces again on whatever arrives.

labkit cuts what a run's code prints at OUTPUT_CHARS characters, OUTPUT_LINES lines or OUTPUT_MESSAGES messages
(batches of one stream's text), with a notice, and shortens an error's report to about ERROR_CHARS characters and
ERROR_LINES lines. Past the cap it writes only its own text: the notice, one error report, "Stopped." — at most
REPORT_CHARS characters, REPORT_LINES lines and REPORT_MESSAGES messages. A check run keeps what the learner's code
prints in its report instead (CHECK_OUTPUT_CHARS, CHECK_OUTPUT_LINES, then labkit's own text).

A run draws at most MAX_CHARTS charts (labkit.bars, heatmap, lines): enough for small multiples, one heatmap per
head of a layer of 16.

The page takes for_the_page() from the worker with Ready, read here before any learner code has run, and ends a run
whose worker sends more (lab/protocol.js `Limits`): one home for the numbers, on both sides of the channel.
"""

from __future__ import annotations

OUTPUT_CHARS = 100_000
OUTPUT_LINES = 2_000
# A message per change of stream and per timed batch: only a program that alternates stdout and stderr thousands of
# times, or prints a little at a time for minutes, reaches it.
OUTPUT_MESSAGES = 5_000
FLUSH_SECONDS = 0.05  # output is batched, so a print flood cannot swamp the page with messages
FLUSH_CHARS = 8192
CHECK_OUTPUT_CHARS = 20_000
CHECK_OUTPUT_LINES = 400
ERROR_CHARS = 5_000  # a huge exception message or traceback keeps its ends and says how much was left out
ERROR_LINES = 200
# labkit's own text past the cap: the notice (two lines), one error report or exit message (each with a line saying
# what was left out, and a line break before it), "Stopped." twice at most (a Stop landing while the result is made),
# and the plain report made when even reporting ran out of memory.
REPORT_CHARS = 2 * ERROR_CHARS + 1_000
REPORT_LINES = 2 * ERROR_LINES + 20
REPORT_MESSAGES = 8
MAX_CHARTS = 16
MAX_ERROR_NAME = 40  # characters of an exception's class name the status line shows (labkit._report.shown_name)


def for_the_page() -> dict[str, int]:
    """The most an honest worker sends for one request (lab/protocol.js `Limits`)."""
    return {
        "chars": OUTPUT_CHARS + REPORT_CHARS,  # of stdout and stderr messages together
        "lines": OUTPUT_LINES + REPORT_LINES,
        "messages": OUTPUT_MESSAGES + REPORT_MESSAGES,
        "checkChars": CHECK_OUTPUT_CHARS + REPORT_CHARS,  # of a check report's output
        "checkLines": CHECK_OUTPUT_LINES + REPORT_LINES,
        "errorChars": REPORT_CHARS,  # of one error's (or one check's) message and traceback
        "charts": MAX_CHARTS,  # of one run's result
    }


# What a run may draw: labkit.bars refuses more, with the learner's line; the page checks the same (lab/protocol.js
# `CHART_LIMITS`, from the build's generated/labkit.js).
MAX_SERIES = 12
MAX_LABELS = 64
MAX_TEXT = 200  # characters of any one title, label or legend
MAX_SIDE = 64  # a heatmap's rows, and columns: 64 × 64 cells at most (4,096 numbers is a table no one reads)
MAX_POINTS = 500  # x values of a line chart

# A Python name, as a block declares one (a widget's function, the values panel's variable).
IDENTIFIER = r"[A-Za-z_][A-Za-z0-9_]*"

# An exercise's defaults: seconds the learner's code, and each check, may run; failed checks before the solution
# may be revealed.
CHECK_TIMEOUT = 5.0
CHECK_ATTEMPTS = 3


def for_the_build() -> dict[str, object]:
    """What the build and the page take from labkit (lessonkit.labs.limits: the build's checks, generated/labkit.js)."""
    return {
        "chart": {"charts": MAX_CHARTS, "series": MAX_SERIES, "labels": MAX_LABELS, "text": MAX_TEXT, "side": MAX_SIDE,
                  "points": MAX_POINTS},
        "identifier": IDENTIFIER,
        "errorName": MAX_ERROR_NAME,
        "exercise": {"timeout": CHECK_TIMEOUT, "attempts": CHECK_ATTEMPTS},
    }
