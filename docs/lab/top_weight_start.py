from softmax_temperature import scores, softmax


def top_weight(xs, temperature):
    """The largest softmax weight of xs at this temperature."""
    return max(softmax(xs))  # the temperature is not used yet


print(top_weight(scores, 0.5))
