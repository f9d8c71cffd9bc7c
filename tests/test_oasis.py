import numpy as np
import pytest

from algorithms import OASIS

# one triplet: p = (1, 0), p+ = (0, 1), p- = (1, 0); with W = I the margin is 0 - 1 = -1, the loss
# 2, V = p (p+ - p-)^T = [[-1, 1], [0, 0]], ||V||_F^2 = 2, tau = min(C, 2 / 2) = min(C, 1).
TRIPLET = np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]])


@pytest.mark.parametrize("C, W1", [(0.5, [[0.5, 0.5], [0.0, 1.0]]), (10.0, [[0.0, 1.0], [0.0, 1.0]])])
def test_one_passive_aggressive_step_matches_hand_computation(C, W1):
    m = OASIS(C=C, n_epochs=1).fit(TRIPLET)
    np.testing.assert_allclose(m.W_, W1, atol=1e-15)
    assert m.trace_["avg_cumulative_loss"] == [2.0]
    assert m.trace_["mistake_rate"] == [1.0] and m.trace_["utilization"] == [1.0]


def test_unclipped_step_makes_the_loss_exactly_zero():
    m = OASIS(C=10.0, n_epochs=1).fit(TRIPLET)
    assert m.decision_function(TRIPLET)[0] == pytest.approx(1.0)


def test_zero_norm_product_is_skipped_without_nan():
    zero_anchor = np.array([[[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]]])
    same_pos_neg = np.array([[[1.0, 2.0], [3.0, 1.0], [3.0, 1.0]]])
    for t in (zero_anchor, same_pos_neg):
        m = OASIS(C=0.1, n_epochs=3).fit(t)
        np.testing.assert_array_equal(m.W_, np.eye(2))
        assert m.trace_["utilization"][-1] == 0.0
        assert np.all(np.isfinite(m.W_))


def test_index_triplets_with_preprocessor_equal_point_triplets():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    idx = rng.integers(20, size=(50, 3))
    a = OASIS(C=0.1, random_state=3, preprocessor=X).fit(idx)
    b = OASIS(C=0.1, random_state=3).fit(X[idx])
    np.testing.assert_array_equal(a.W_, b.W_)
