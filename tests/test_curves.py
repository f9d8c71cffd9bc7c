"""tripletbench.studies.sdca.curves: the features' scale and the traces of the SDCA paper's Figure 1."""

import numpy as np
import pytest

from tripletbench.studies.sdca.curves import l2_normalize, sdca_convergence


def test_l2_normalize_gives_unit_rows_and_keeps_zero_rows():
    X = np.array([[3.0, 4.0], [0.0, 0.0], [-1.0, 0.0]])
    N = l2_normalize(X)
    np.testing.assert_allclose(N, [[0.6, 0.8], [0.0, 0.0], [-1.0, 0.0]])
    np.testing.assert_array_equal(X, [[3.0, 4.0], [0.0, 0.0], [-1.0, 0.0]])  # not in place


def test_figure_1_traces_both_losses_at_the_normalised_scale():
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 40)
    X = 50.0 * (rng.normal(size=(120, 5)) + 2 * np.eye(3, 5)[y])  # far from unit length
    rows = sdca_convergence(X, y, 0, 300, 0.1, 0.01, normalize="l2", log=lambda *a: None)
    metrics = {(r["method"], r["metric"]) for r in rows}
    for method in ("OASIS", "SDCA"):
        assert {
            (method, "avg_cumulative_hinge"),
            (method, "avg_cumulative_squared_hinge"),
        } <= metrics
    # unit vectors: |margin| <= ||x|| ||x+ - x-|| <= 2 for W = I and M = 0, so the first step's
    # hinge is at most 3 (raw features at this scale would give thousands)
    first = [r for r in rows if r["step"] == 1 and r["metric"] == "avg_cumulative_hinge"]
    assert len(first) == 2 and all(r["value"] <= 3.0 for r in first)
    with pytest.raises(ValueError, match="normalize"):
        sdca_convergence(X, y, 0, 30, 0.1, 0.01, normalize="unit", log=lambda *a: None)
