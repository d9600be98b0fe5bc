"""Several attention heads side by side, each with its own narrower queries, keys and values.

Three tokens of d_model = 4 numbers. W_Q, W_K and W_V turn every token into a query,
a key and a value of 4 numbers. Cut into `heads` heads, each head gets d_k = 4 / heads
of them, makes its own weights (softmax of its scores divided by √d_k) and mixes its
own values. The heads' outputs are joined side by side and multiplied by W_O.
"""

import math

import labkit

heads = 2  # 1, 2 or 4: how many heads share the 4 numbers

# One row per token (tokens 1, 2 and 3), one column per number of its vector: d_model = 4.
tokens = [
    [0, 0, 1, 1],
    [0, 1, 0, 0],
    [1, 0, 0, 1],
]

# One row per number of a token, one column per number of its query (key, value).
# With 2 heads, head 1 uses columns 1-2 and head 2 columns 3-4: each reads the whole token.
W_Q = [
    [0, 1, 0, 1],
    [2, 0, -1, 1],
    [0, -1, 0, -1],
    [0, 1, 1, 0],
]
W_K = [
    [-1, 0, 0, 1],
    [0, 2, -1, 1],
    [1, 0, 0, -1],
    [1, 0, 1, 0],
]
W_V = [
    [1, 0, 1, 0],
    [0, 1, 0, 1],
    [1, -1, 1, -1],
    [0, 1, 0, 1],
]
# One row per number of the heads' joined outputs, one column per number of the output.
W_O = [
    [1, 0, 0, 0],
    [0, 1, 0, 0],
    [1, 0, 1, 0],
    [0, 1, 0, 1],
]


def matmul(rows, matrix):
    """Each row (a list of numbers) times the matrix: row @ matrix, for every row."""
    columns = range(len(matrix[0]))
    return [[sum(x * matrix[i][j] for i, x in enumerate(row)) for j in columns] for row in rows]


def softmax(logits):
    """Turn scores into weights that add up to 1."""
    top = max(logits)  # subtracting the max keeps exp() from overflowing
    exps = [math.exp(x - top) for x in logits]
    total = sum(exps)
    return [e / total for e in exps]


def split_heads(rows, h):
    """Cut every row into h pieces of len(row) / h numbers: one list of pieces per head."""
    width = len(rows[0])
    if width % h != 0:
        raise ValueError(f"{width} numbers do not split into {h} heads: choose h that divides {width}")
    d_k = width // h
    return [[row[i * d_k:(i + 1) * d_k] for row in rows] for i in range(h)]


def concat_heads(parts):
    """The inverse of split_heads: each token's pieces from every head, joined side by side."""
    return [[x for piece in pieces for x in piece] for pieces in zip(*parts, strict=True)]


def scores(queries, keys):
    """Every query's dot product with every key: one row per query, one column per key."""
    return [[sum(q * k for q, k in zip(query, key, strict=True)) for key in keys] for query in queries]


def attention_weights(queries, keys):
    """One head's weights: each row of scores divided by √d_k, then softmax."""
    d_k = len(queries[0])
    return [softmax([s / math.sqrt(d_k) for s in row]) for row in scores(queries, keys)]


def mix(weights, values):
    """Each query's weighted average of the value vectors (the previous lesson's mixture)."""
    width = range(len(values[0]))
    return [[sum(w * v[j] for w, v in zip(row, values, strict=True)) for j in width] for row in weights]


def multi_head(tokens, h):
    """Everything h heads compute for the tokens, per head (lists of h) and for the layer."""
    queries = split_heads(matmul(tokens, W_Q), h)
    keys = split_heads(matmul(tokens, W_K), h)
    values = split_heads(matmul(tokens, W_V), h)
    weights = [attention_weights(q, k) for q, k in zip(queries, keys, strict=True)]
    outputs = [mix(w, v) for w, v in zip(weights, values, strict=True)]
    joined = concat_heads(outputs)
    return {
        "d_k": len(queries[0][0]),
        "queries": queries,
        "keys": keys,
        "values": values,
        "scores": [scores(q, k) for q, k in zip(queries, keys, strict=True)],
        "weights": weights,
        "outputs": outputs,
        "concat": joined,
        "output": matmul(joined, W_O),
    }


def draw(head, h, weights):
    """One heatmap per head, drawn side by side: a row per query, a column per key (each row adds up to 100 %)."""
    labels = [str(i) for i in range(1, len(weights) + 1)]
    labkit.heatmap(
        weights,
        rows=labels,
        cols=labels,
        row_title="Query (token)",
        col_title="Key (token)",
        percent=True,
        title=f"Head {head} of {h}: attention weights",
    )


def show(h):
    """Print each head's weights and token 3's outputs, and draw one heatmap per head."""
    layer = multi_head(tokens, h)
    d_k = layer["d_k"]
    print(f"heads={h}  d_k = {len(tokens[0])} / {h} = {d_k}  scores divided by √{d_k} = {math.sqrt(d_k):.2f}")
    for n, weights in enumerate(layer["weights"], 1):
        print(f"head {n} weights (one row per query, one column per key):")
        for i, row in enumerate(weights, 1):
            print(f"  query {i}: " + "  ".join(f"{100 * w:5.1f}%" for w in row))
        draw(n, h, weights)
    for n, outputs in enumerate(layer["outputs"], 1):
        print(f"token 3, head {n} output: {rounded(outputs[2])}")
    print(f"token 3, joined: {rounded(layer['concat'][2])}")
    print(f"token 3, after W_O: {rounded(layer['output'][2])}")


def rounded(xs):
    """A vector with 3 decimals (whole numbers as they are): [0, 2] or [0.106, 0.947]."""
    return "[" + ", ".join(f"{x:g}" if float(x).is_integer() else f"{x:.3f}" for x in xs) + "]"


# The Lab's Run. (A widget or a check that imports this file only borrows its functions.)
if __name__ == "__main__":
    show(heads)
