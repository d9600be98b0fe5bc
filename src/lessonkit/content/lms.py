"""course.yaml's `scorm:` key: how an LMS judges a lesson (the manual's "Use it in an LMS").

    scorm:
      passing: 0.8            # score.scaled a lesson needs for success_status "passed" (0 to 1)
      completion: all-blocks  # "all-blocks": completed when every question is answered, every explanation
                              # drafted and every exercise passed; "opened": completed when the lesson is opened
      scoring: final          # "final": a question scores by the learner's last checked answer; "first-attempt":
                              # by the first one
      optional: ignored       # "ignored": an exercise marked `optional: true` counts toward neither the score nor
                              # completion; "counted": it counts like any other

The manifest carries both to the LMS (imsss:minNormalizedMeasure, adlcp:completionThreshold), and every lesson page
carries them to its reporter, which prefers what the LMS says (cmi.scaled_passing_score, cmi.completion_threshold).
"""

from __future__ import annotations

from typing import Any

from lessonkit.content.schema import Choice, Fields, Key, Number

PASSING = 0.8
COMPLETION = ("all-blocks", "opened")
SCORING = ("final", "first-attempt")
OPTIONAL = ("ignored", "counted")
DEFAULTS: dict[str, Any] = {"passing": PASSING, "completion": COMPLETION[0], "scoring": SCORING[0],
                            "optional": OPTIONAL[0]}

SCHEMA = Fields({
    "passing": Key(Number(min=0, max=1, example='"passing: 0.8"'), default=PASSING,
                   doc=f"the score (0 to 1) a lesson needs to be passed in an LMS (default {PASSING:g})"),
    "completion": Key(Choice(*COMPLETION), default=COMPLETION[0],
                      doc='when a lesson is complete in an LMS: "all-blocks" (every question answered, explanation '
                      'drafted and exercise passed; the default) or "opened"'),
    "scoring": Key(Choice(*SCORING), default=SCORING[0],
                   doc='what a question scores by: "final" (the last answer the learner checked; the default) or '
                   '"first-attempt" (the first)'),
    "optional": Key(Choice(*OPTIONAL), default=OPTIONAL[0],
                    doc='exercises marked `optional: true`: "ignored" (they count toward neither score nor completion; '
                    'the default) or "counted"'),
}, example="{passing: 0.8, completion: all-blocks}")


def settings(data: Any) -> dict[str, Any]:
    """The checked `scorm:` mapping (or None when absent) with its defaults: {"passing": float, "completion": str,
    "scoring": str, "optional": str}."""
    if data is None:
        return dict(DEFAULTS)
    return {"passing": float(data.get("passing", PASSING)), "completion": str(data.get("completion", COMPLETION[0])),
            "scoring": str(data.get("scoring", SCORING[0])), "optional": str(data.get("optional", OPTIONAL[0]))}
