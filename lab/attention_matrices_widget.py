"""The lesson's weight matrices, computed at build time by the Lab's own NumPy code (attention_matrices.multi_head),
so the page's shaded table and the Lab's heatmaps can never disagree."""

from attention_matrices import X, multi_head

NBSP = "\u00a0"  # no-break space: a phone's narrow table wraps at " · ", never inside "Head 1" or "query 2"


def weights(heads):
    """One row per head and query, one column per key: the weights (0…1) of softmax(Q Kᵀ / √d_k), for h heads."""
    _, matrices = multi_head(X, heads)
    rows = []
    for n, matrix in enumerate(matrices.tolist(), 1):  # plain floats: the page's table is JSON
        for i, row in enumerate(matrix, 1):
            rows.append({"Query": f"Head{NBSP}{n}{NBSP}· query{NBSP}{i}",
                         **{f"Key {j}": w for j, w in enumerate(row, 1)}})
    return {"rows": rows, "d_k": X.shape[1] // heads}
