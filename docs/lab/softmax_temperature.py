"""Softmax with a temperature: the same scores, divided by T before softmax, for three temperatures."""

import math

import labkit

scores = [2.0, 1.0, 0.1]


def softmax(xs, temperature=1.0):
    """Turn scores into weights that add up to 1; a higher temperature flattens them."""
    scaled = [x / temperature for x in xs]
    top = max(scaled)  # subtracting the largest keeps exp() from overflowing
    exps = [math.exp(x - top) for x in scaled]
    total = sum(exps)
    return [e / total for e in exps]


# What a run prints and draws; a widget or a check that imports this file gets only the names above.
if __name__ == "__main__":
    temperatures = [0.5, 1, 2]
    for t in temperatures:
        weights = softmax(scores, t)
        print(f"T={t:<3}  weights=[{', '.join(f'{w:.1%}' for w in weights)}]")

    labkit.bars(
        {str(t): softmax(scores, t) for t in temperatures},
        labels=[str(i + 1) for i in range(len(scores))],
        series_title="T",
        x_title="Score",
        item="score",
        y_title="Weight",
        percent=True,
        title="Softmax weight of each score at three temperatures",
    )
