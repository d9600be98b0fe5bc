"""The lesson's mixing table: the lab's own scores, values, softmax and mix, for one sharpness factor k.

The build calls table(k) once per option of the lesson's {widget} block; everything comes from the lab's starter
file, so the table and the lab can never disagree.
"""

from mixing_values import mix, scores, softmax, values


def vector(xs, spec=".3f"):
    """A vector as the lesson writes it: [0.335, 0.910] (or [1, 0] with spec "g")."""
    return "[" + ", ".join(format(x, spec) for x in xs) + "]"


def table(k):
    """One row per key (weight, value vector, weight × value), then the output row: their sum."""
    weights = softmax([k * s for s in scores])
    rows = [{"Key": str(i + 1), "Weight": w, "Value vector": vector(v, "g"), "Contribution": vector([w * x for x in v])}
            for i, (w, v) in enumerate(zip(weights, values, strict=True))]
    # the weights' sum is 1 up to rounding (it can land a hair above, outside a bar's 0…1)
    rows.append({"Key": "Output", "Weight": round(sum(weights), 12), "Value vector": "",
                 "Contribution": vector(mix(weights, values))})
    return {"rows": rows, "scores": vector(scores, "g")}
