"""The widget of the manual's {widget} page: causal self-attention over four tokens. Each query sees itself and the
tokens before it; the later ones are masked. The build calls table(temperature, show) once per combination."""

import math

TOKENS = ["The", "cat", "sat", "down"]
SCORES = [  # one row per query, one column per key
    [2.0, 0.5, 0.1, 0.3],
    [1.0, 2.5, 0.2, 0.4],
    [0.3, 1.8, 1.2, 0.6],
    [0.2, 1.4, 0.9, 2.2],
]


def weights(query, temperature):
    """Softmax of the query's visible scores divided by the temperature; None for each masked key."""
    visible = [s / temperature for s in SCORES[query][: query + 1]]
    top = max(visible)
    exps = [math.exp(s - top) for s in visible]
    total = sum(exps)
    return [e / total for e in exps] + [None] * (len(TOKENS) - query - 1)


def table(temperature, show):
    """A row per query, a column per key: the weights, or the scaled scores before softmax (masked where unseen)."""
    rows = []
    for query, token in enumerate(TOKENS):
        if show == "scores":
            cells = [s / temperature if key <= query else None for key, s in enumerate(SCORES[query])]
        else:
            cells = weights(query, temperature)
        rows.append({"Query": token, **dict(zip(TOKENS, cells, strict=True))})
    return {"rows": rows, "own": weights(len(TOKENS) - 1, temperature)[-1]}
