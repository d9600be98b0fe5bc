"""Mix the value vectors with attention weights: sharper weights copy one value, flatter ones blend them."""

import math

import labkit

scores = [0.0, 2.0, 1.0]  # the previous lesson's scores for head_dim 4, already divided by √4
values = [
    [1.0, 0.0],  # value vector of key 1
    [0.0, 1.0],  # value vector of key 2
    [1.0, 1.0],  # value vector of key 3
]


def softmax(logits):
    """Turn scores into weights that add up to 1."""
    top = max(logits)  # subtracting the max keeps exp() from overflowing
    exps = [math.exp(x - top) for x in logits]
    total = sum(exps)
    return [e / total for e in exps]


def mix(weights, values):
    """The weighted average of the value vectors: each value times its weight, added up."""
    width = len(values[0])
    return [sum(w * v[j] for w, v in zip(weights, values, strict=True)) for j in range(width)]


weights_by_k = {}
for k in [0.25, 1, 4]:
    weights = softmax([k * s for s in scores])
    output = mix(weights, values)
    weights_by_k[str(k)] = weights
    weights_text = ", ".join(f"{100 * w:.1f}%" for w in weights)
    output_text = ", ".join(f"{x:.3f}" for x in output)
    print(f"k={k:<4}  weights=[{weights_text}]  output=[{output_text}]")

labkit.bars(
    weights_by_k,
    labels=[str(i + 1) for i in range(len(scores))],
    series_title="k",
    x_title="Key",
    item="key",
    y_title="Weight",
    percent=True,
    title="Attention weight per key",
)
