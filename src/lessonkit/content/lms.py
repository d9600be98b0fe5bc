"""course.yaml's `scorm:` key: how an LMS judges a lesson (the manual's "Use it in an LMS").

    scorm:
      passing: 0.8            # score.scaled a lesson needs for success_status "passed" (0 to 1)
      completion: all-blocks  # "all-blocks": completed when every question is answered, every explanation
                              # drafted and every exercise passed; "opened": completed when the lesson is opened

The manifest carries both to the LMS (imsss:minNormalizedMeasure, adlcp:completionThreshold), and every lesson page
carries them to its reporter, which prefers what the LMS says (cmi.scaled_passing_score, cmi.completion_threshold).
"""

from __future__ import annotations

from typing import Any

from lessonkit.content.schema import Choice, Fields, Key, Number

PASSING = 0.8
COMPLETION = ("all-blocks", "opened")
DEFAULTS: dict[str, Any] = {"passing": PASSING, "completion": COMPLETION[0]}

SCHEMA = Fields({
    "passing": Key(Number(min=0, max=1, example='"passing: 0.8"'), default=PASSING,
                   doc=f"the score (0 to 1) a lesson needs to be passed in an LMS (default {PASSING:g})"),
    "completion": Key(Choice(*COMPLETION), default=COMPLETION[0],
                      doc='when a lesson is complete in an LMS: "all-blocks" (every question answered, explanation '
                      'drafted and exercise passed; the default) or "opened"'),
}, example="{passing: 0.8, completion: all-blocks}")


def settings(data: Any) -> dict[str, Any]:
    """The checked `scorm:` mapping (or None when absent) with its defaults: {"passing": float, "completion": str}."""
    if data is None:
        return dict(DEFAULTS)
    return {"passing": float(data.get("passing", PASSING)), "completion": str(data.get("completion", COMPLETION[0]))}
