"""The lesson's head-dimension table: the lab's own raw scores and softmax, divided by √head_dim.

The build calls table(head_dim) once per option of the lesson's {widget} block; raw and softmax come from the lab's
starter file, so the table and the lab can never disagree.
"""

import math

from scaled_softmax import raw, softmax


def table(head_dim):
    """One row per position (raw score, scaled score, probability), and the divisor for the caption."""
    divisor = math.sqrt(head_dim)
    scaled = [x / divisor for x in raw]
    probs = softmax(scaled)
    rows = [{"Position": i + 1, "Fixed raw logit": r, "Scaled logit": s, "Softmax probability": p}
            for i, (r, s, p) in enumerate(zip(raw, scaled, probs, strict=True))]
    return {"rows": rows, "divisor": divisor}
