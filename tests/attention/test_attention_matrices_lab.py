"""lab/attention_matrices.py (NumPy) computes exactly what lab/multi_head.py's loops compute, for every head count."""

from __future__ import annotations

import attention_matrices as matrices
import multi_head as loops
import numpy as np
import pytest


@pytest.mark.parametrize("h", [1, 2, 4])
def test_the_matrix_form_agrees_with_the_loops(h: int) -> None:
    assert np.array_equal(matrices.X, np.array(loops.tokens, dtype=float))
    output, weights = matrices.multi_head(matrices.X, h)
    layer = loops.multi_head(loops.tokens, h)
    assert weights.shape == (h, 3, 3)
    assert np.allclose(weights, layer["weights"], rtol=0, atol=1e-12)
    assert np.allclose(output, layer["output"], rtol=0, atol=1e-12)


def test_heads_that_do_not_divide_the_width() -> None:
    with pytest.raises(ValueError, match="4 numbers do not split into 3 heads: choose h that divides 4"):
        matrices.multi_head(matrices.X, 3)
