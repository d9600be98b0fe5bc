"""Hold the raw scores fixed and change only the denominator."""

import math

raw = [0.0, 4.0, 2.0]


def softmax(logits):
    """Turn scores into probabilities that add up to 1."""
    top = max(logits)  # subtracting the max keeps exp() from overflowing
    exps = [math.exp(x - top) for x in logits]
    total = sum(exps)
    return [e / total for e in exps]


series = {}  # head_dim -> probabilities, for the chart
legend = []
for head_dim in [1, 4, 16]:
    divisor = math.sqrt(head_dim)
    scaled = [x / divisor for x in raw]
    probs = softmax(scaled)
    scaled_text = ", ".join(f"{x:.3f}" for x in scaled)
    probs_text = ", ".join(f"{100 * p:.1f}%" for p in probs)
    print(f"head_dim={head_dim:<2}  divide by {divisor:.2f}  "
          f"scaled=[{scaled_text}]  probs=[{probs_text}]")
    series[head_dim] = probs
    legend.append(f"head_dim = {head_dim} (divide by {divisor:.2f})")

# The chart under the output: labkit is the lab's toolkit, and bars() draws one bar per position and head_dim.
import labkit

labkit.bars(series, labels=[str(i + 1) for i in range(len(raw))], series_title="head_dim", legend=legend,
            x_title="Position (key)", item="position", y_title="Probability", percent=True,
            title="Softmax probability per position")
