"""The lesson's multi-head tables: the lab's own tokens, projections and attention, for h = 1, 2 or 4 heads.

Every table comes from multi_head.multi_head(tokens, h), the function the Lab runs, so the page and the Lab can never
disagree. Two forms:

- attention(heads, show="weights"): one row per head and query, one number per key (the weights, or the scores
  divided by √d_k) — the matrix a shaded widget draws, a function of two keyword parameters.
- weights(heads), projections(heads), outputs(heads): what today's one-parameter widgets show (numbers written as
  the lesson writes them: percentages, vectors).
"""

import math

from multi_head import W_O, matmul, multi_head, tokens

SHOW = ("weights", "scores")
NBSP = "\u00a0"  # no-break space: a narrow table wraps between cells and at " · ", never inside a vector or "Head 1"
FOLLOWED = 3  # the token whose outputs the lesson follows
SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def vector(xs):
    """A vector as the lesson writes it: [0, 2], [1, −1] or [0.106, 0.947] (a real minus sign, no-break spaces)."""
    return "[" + f",{NBSP}".join(number(x) for x in xs) + "]"


def number(x):
    """A whole number as it is, others with 3 decimals; a real minus sign, and never −0."""
    text = str(round(x)) if abs(x - round(x)) < 1e-9 else f"{x:.3f}"
    return "0" if text in ("-0", "-0.000") else text.replace("-", "−")


def percent(w):
    """A weight as a percentage: 89.4%."""
    return f"{100 * w:.1f}%"


def _layer(heads):
    """multi_head for this many heads, with the caption's scalars."""
    layer = multi_head(tokens, heads)
    return layer, {"d_k": layer["d_k"], "d_model": len(tokens[0]), "divisor": math.sqrt(layer["d_k"])}


def _label(head, query):
    return f"Head{NBSP}{head}{NBSP}· query{NBSP}{query}"


def attention(heads, show="weights"):
    """One row per head and query, one numeric column per key: the weights (0…1), or the scores divided by √d_k."""
    if show not in SHOW:
        raise ValueError(f'show is "weights" or "scores", not {show!r}')
    layer, scalars = _layer(heads)
    rows = []
    for n, (raw, weights) in enumerate(zip(layer["scores"], layer["weights"], strict=True), 1):
        shown = weights if show == "weights" else [[s / scalars["divisor"] for s in row] for row in raw]
        for i, row in enumerate(shown, 1):
            rows.append({"Query": _label(n, i), **{f"Key {j}": x for j, x in enumerate(row, 1)}})
    return {"rows": rows, **scalars}


def weights(heads):
    """Today's one-parameter table: attention(heads) with the weights written as percentages."""
    table = attention(heads)
    rows = [{column: percent(x) if column.startswith("Key") else x for column, x in row.items()} for row in table["rows"]]
    return {**table, "rows": rows}


def projections(heads):
    """The tokens' vectors x, then each head's queries, keys and values of d_k numbers and its scores: one column per
    token. Head i's rows are named as the formula names them: qᵢ, kᵢ, vᵢ, and sᵢ for that token's scores qᵢ·k."""
    layer, scalars = _layer(heads)
    columns = [f"Token {i}" for i in range(1, len(tokens) + 1)]
    rows = [{"Row": "x", **{c: vector(x) for c, x in zip(columns, tokens, strict=True)}}]
    for n in range(heads):
        i = str(n + 1).translate(SUBSCRIPTS)
        for name, kind in (("queries", "q"), ("keys", "k"), ("values", "v"), ("scores", "s")):
            rows.append({"Row": kind + i, **{c: vector(x) for c, x in zip(columns, layer[name][n], strict=True)}})
    return {"rows": rows, **scalars}


def outputs(heads, token=FOLLOWED):
    """One token's way out: each head's output, the outputs joined, each head's share through W_O, and their sum."""
    layer, scalars = _layer(heads)
    at = token - 1
    rows = [{"Step": f"Head {n} output", "Vector": vector(out[at])} for n, out in enumerate(layer["outputs"], 1)]
    rows.append({"Step": "Joined", "Vector": vector(layer["concat"][at])})
    rows += [{"Step": f"Head {n} × its rows of W_O", "Vector": vector(_through(out[at], n))}
             for n, out in enumerate(layer["outputs"], 1)]
    rows.append({"Step": "Output: joined × W_O", "Vector": vector(layer["output"][at])})
    return {"rows": rows, "token": token, **scalars}


def _through(piece, head):
    """One head's output times its own d_k rows of W_O: its share of the layer's output."""
    d_k = len(piece)
    return matmul([piece], W_O[(head - 1) * d_k:head * d_k])[0]
