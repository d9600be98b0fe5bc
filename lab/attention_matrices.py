"""The previous lesson's multi-head attention with NumPy: every query of every head at once, as matrix products.

X holds one token per row. Each head's queries, keys and values are columns of X @ W_Q, X @ W_K and X @ W_V;
reshape cuts them into heads, and one line computes softmax(Q Kᵀ / √d_k) V for all of them.
"""

import labkit
import numpy as np

heads = 2  # 1, 2 or 4: how many heads share the 4 numbers

X = np.array([
    [0, 0, 1, 1],  # token 1
    [0, 1, 0, 0],  # token 2
    [1, 0, 0, 1],  # token 3
], dtype=float)

# The previous lesson's matrices: one row per number of a token, one column per number of its query (key, value).
W_Q = np.array([[0, 1, 0, 1], [2, 0, -1, 1], [0, -1, 0, -1], [0, 1, 1, 0]], dtype=float)
W_K = np.array([[-1, 0, 0, 1], [0, 2, -1, 1], [1, 0, 0, -1], [1, 0, 1, 0]], dtype=float)
W_V = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, -1, 1, -1], [0, 1, 0, 1]], dtype=float)
W_O = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1]], dtype=float)


def softmax(scores):
    """Softmax of every row (the last axis), whatever the leading axes are."""
    exps = np.exp(scores - scores.max(axis=-1, keepdims=True))  # minus each row's max: exp() never overflows
    return exps / exps.sum(axis=-1, keepdims=True)


def split_heads(M, h):
    """(tokens, d_model) -> (h, tokens, d_k): head i gets columns i·d_k to (i+1)·d_k of every row."""
    tokens, width = M.shape
    if width % h != 0:
        raise ValueError(f"{width} numbers do not split into {h} heads: choose h that divides {width}")
    return M.reshape(tokens, h, width // h).transpose(1, 0, 2)


def attention(Q, K, V):
    """One head, every query at once: softmax(Q Kᵀ / √d_k) V; the outputs and the weights."""
    d_k = K.shape[-1]
    weights = softmax(Q @ K.T / np.sqrt(d_k))
    return weights @ V, weights


def multi_head(X, h):
    """The layer: project, split into heads, attend in each, join the heads side by side, project with W_O."""
    Q, K, V = (split_heads(X @ W, h) for W in (W_Q, W_K, W_V))
    heads = [attention(q, k, v) for q, k, v in zip(Q, K, V, strict=True)]
    joined = np.concatenate([output for output, _ in heads], axis=-1)
    return joined @ W_O, np.stack([weights for _, weights in heads])


def show(h):
    """Print the shapes, each head's weights and token 3's output; draw each head's weight matrix as a heatmap."""
    output, weights = multi_head(X, h)
    print(f"heads={h}  X {X.shape}  Q, K, V per head {split_heads(X @ W_Q, h).shape}  weights {weights.shape}")
    with np.printoptions(precision=3, suppress=True):
        for n, w in enumerate(weights, 1):
            print(f"head {n} weights (one row per query, one column per key):\n{w}")
        print(f"token 3, after W_O: {output[2]}")
    labels = [str(i) for i in range(1, X.shape[0] + 1)]
    for n, w in enumerate(weights, 1):
        labkit.heatmap(w, rows=labels, cols=labels, row_title="Query (token)", col_title="Key (token)", percent=True,
                       title=f"Head {n} of {h}: attention weights")


if __name__ == "__main__":
    show(heads)
