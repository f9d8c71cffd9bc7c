import numpy as np
import pytest

from tripletbench.algorithms import OASIS, DissimOASIS
from tripletbench.datasets.base import DataError

# one triplet: p = (1, 0), p+ = (0, 1), p- = (1, 0); with W = I the margin is 0 - 1 = -1, the loss
# 2, V = p (p+ - p-)^T = [[-1, 1], [0, 0]], ||V||_F^2 = 2, tau = min(C, 2 / 2) = min(C, 1).
TRIPLET = np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]])


@pytest.mark.parametrize(
    "C, W1", [(0.5, [[0.5, 0.5], [0.0, 1.0]]), (10.0, [[0.0, 1.0], [0.0, 1.0]])]
)
def test_one_passive_aggressive_step_matches_hand_computation(C, W1):
    m = OASIS(C=C, n_epochs=1).fit(TRIPLET)
    np.testing.assert_allclose(m.W_, W1, atol=1e-15)
    assert m.trace_["avg_cumulative_loss"] == [2.0]
    assert m.trace_["mistake_rate"] == [1.0] and m.trace_["utilization"] == [1.0]


def test_unclipped_step_makes_the_loss_exactly_zero():
    m = OASIS(C=10.0, n_epochs=1).fit(TRIPLET)
    assert m.decision_function(TRIPLET)[0] == pytest.approx(1.0)


def test_zero_norm_product_is_skipped_without_nan():
    """A triplet whose step has ||V||^2 = 0 (a zero anchor, or the positive equal to the
    negative) is skipped, never a NaN; beside it a triplet the identity already orders with a
    margin over 1 (no update), since input whose every triplet has its positive equal to its
    negative is refused (DataError: nothing to learn)."""
    ordered = [[1.0, 0.0], [2.0, 0.0], [-5.0, 0.0]]  # s(a, p) - s(a, n) = 7: no loss
    zero_anchor = np.array([[[0.0, 0.0], [0.0, 1.0], [1.0, 0.0]]])
    same_pos_neg = np.array([[[1.0, 2.0], [3.0, 1.0], [3.0, 1.0]], ordered])
    with pytest.raises(DataError, match="positive is the negative"):
        OASIS(C=0.1, n_epochs=3).fit(same_pos_neg[:1])
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


def test_symmetric_variant_stays_symmetric_and_equals_projection_after_each_step():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 4))
    t = rng.integers(30, size=(200, 3))
    m = OASIS(C=0.1, n_epochs=2, symmetrize="step", random_state=0, preprocessor=X).fit(t)
    np.testing.assert_allclose(m.W_, m.W_.T, atol=1e-13)
    W = np.eye(4)  # plain transcription: step, then project
    for i in m.order_:
        p, v = X[t[i, 0]], X[t[i, 1]] - X[t[i, 2]]
        loss, nrm = 1 - p @ W @ v, (p @ p) * (v @ v)
        if loss > 0 and nrm > 0:
            W = W + min(0.1, loss / nrm) * np.outer(p, v)
            W = (W + W.T) / 2
    np.testing.assert_allclose(m.W_, W, rtol=1e-10, atol=1e-12)
    end = OASIS(C=0.1, n_epochs=2, symmetrize="end", random_state=0, preprocessor=X).fit(t)
    np.testing.assert_allclose(end.W_, end.W_.T)


@pytest.mark.parametrize("psd", [1, 25, "end"])
def test_psd_projection_gives_nonnegative_eigenvalues(psd):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 5))
    t = rng.integers(30, size=(300, 3))
    m = OASIS(C=1.0, n_epochs=3, psd=psd, random_state=0, preprocessor=X).fit(t)
    assert np.linalg.eigvalsh(m.W_).min() >= -1e-10
    np.testing.assert_allclose(m.W_, m.W_.T, atol=1e-12)


def test_dissim_oasis_one_step_by_hand():
    # p = (0, 0), p+ = (1, 0), p- = (0, 1); with W = I, d(p, p-) = d(p, p+) = 1 and the loss is 1.
    # Dn = p - p- = (0, -1), Dp = p - p+ = (-1, 0): V = Dn Dn^T - Dp Dp^T = diag(-1, 1),
    # ||V||_F^2 = 2, tau = min(C, 1/2) = 1/2, W = I + V/2 = diag(1/2, 3/2).
    t = np.array([[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]])
    m = DissimOASIS(C=10.0, n_epochs=1).fit(t)
    np.testing.assert_allclose(m.W_, [[0.5, 0.0], [0.0, 1.5]], atol=1e-15)
    assert m.decision_function(t)[0] == pytest.approx(1.0)  # -d(p,p+) + d(p,p-) = -0.5 + 1.5
    S = m.similarity_matrix(t[0], t[0])
    np.testing.assert_allclose(S[0], [0.0, -0.5, -1.5])
