"""The temperature widget's tables: the build calls table(t) once per option, with the lab's own scores and
softmax, so the page and the lab never disagree."""

from softmax_temperature import scores, softmax


def table(t):
    """One row per score: the score, the score divided by T, its weight; the largest weight for the caption."""
    weights = softmax(scores, t)
    rows = [{"Score": i + 1, "Value": s, "Divided by T": s / t, "Weight": w}
            for i, (s, w) in enumerate(zip(scores, weights, strict=True))]
    return {"rows": rows, "top": max(weights)}
