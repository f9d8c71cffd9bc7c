"""Online ITML (Davis et al. 2007, section 4): the rank-one LogDet step on hand cases, positive
definiteness, both learning-rate bounds of growing steps (the unit ceiling A <= I as we recall the
paper's, and our no-overshoot alternative), and agreement with a plain NumPy version."""

import numpy as np
import pytest

from tripletbench.algorithms import LEGO, OnlineITML

# squared distances 1 (similar pair) and 9 (dissimilar pair), z = (1, 0, 0) and (3, 0, 0)
PAIRS = np.array([[[0.0, 0, 0], [1.0, 0, 0]], [[0.0, 0, 0], [3.0, 0, 0]]])
Z1 = np.array([1.0, 0, 0])


@pytest.mark.parametrize(
    "eta, eta_t",
    [(0.01, 0.01), (0.5, 0.1)],  # bound 1 / (2 y_t y_hat) = 1 / (2 * 5 * 1) = 0.1
)
def test_growing_step_matches_the_closed_form_with_the_learning_rate_bound(eta, eta_t):
    # quantiles (0.5, 1): targets 5 (similar) and 9 (dissimilar). First pair: y_hat = 1 < 5, so
    # eta_t = min(eta, 0.1) and c = 2 eta_t (1 - 5); A_1^{-1} = I + c z z^T, so
    # z^T A_1 z = 1 / (1 + c).
    m = OnlineITML(eta=eta, eta_bound="no-overshoot", target_quantiles=(0.5, 1.0), n_passes=0.5)
    m.fit(PAIRS, [1, -1])
    c = 2 * eta_t * (1 - 5)
    np.testing.assert_allclose(np.linalg.inv(m.M_), np.eye(3) + c * np.outer(Z1, Z1), rtol=1e-12)
    assert Z1 @ m.M_ @ Z1 == pytest.approx(1 / (1 + c), rel=1e-12)
    if eta == 0.5:  # the bound is active: the step lands exactly on the target, no overshoot
        assert Z1 @ m.M_ @ Z1 == pytest.approx(5.0, rel=1e-12)
    assert m.trace_["avg_cumulative_loss"] == [pytest.approx(16.0)]  # (1 - 5)^2, before the step


def test_shrinking_step_uses_the_full_learning_rate():
    # quantiles (0, 0.5): targets 1 (similar) and 5 (dissimilar). The dissimilar pair first:
    # y_hat = 9 > 5, eta_t = eta = 0.5, c = 2 * 0.5 * (9 - 5) = 4, z^T A_1 z = 9 / (1 + 4 * 9).
    pairs = PAIRS[::-1].copy()
    m = OnlineITML(eta=0.5, target_quantiles=(0.0, 0.5), n_passes=0.5).fit(pairs, [-1, 1])
    z = np.array([3.0, 0, 0])
    np.testing.assert_allclose(np.linalg.inv(m.M_), np.eye(3) + 4.0 * np.outer(z, z), rtol=1e-12)
    assert z @ m.M_ @ z == pytest.approx(9 / 37, rel=1e-12)


def plain_online_itml(Z, y, eta0, lo, hi, bound):
    """The update of the module docstring, dense NumPy with explicit inverses, one pass in order."""
    d = Z.shape[1]
    A = np.eye(d)
    for z, label in zip(Z, y):
        yt = lo if label == 1 else hi
        yhat = z @ A @ z
        if yhat <= 0:
            continue
        eta = eta0
        if yhat < yt and bound == "no-overshoot":
            eta = min(eta0, 1 / (2 * yt * yhat))
        elif yhat < yt:
            B = np.linalg.inv(A) - np.eye(d)
            if np.linalg.eigvalsh(B).min() <= 1e-10:  # I + B^{-1} undefined: no growing step
                continue
            q = z @ (np.eye(d) + np.linalg.inv(B)) @ z
            eta = min(eta0, 1 / (2 * (yt - yhat) * q))
        c = 2 * eta * (yhat - yt)
        Az = A @ z
        A = A - c / (1 + c * yhat) * np.outer(Az, Az)
    return A


@pytest.mark.parametrize("bound", ["unit-ceiling", "no-overshoot"])
@pytest.mark.parametrize("eta", [0.01, 0.125, 0.5, 50.0])
def test_equals_a_plain_numpy_version_and_stays_positive_definite(eta, bound):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(50, 6))
    n = 60 if bound == "no-overshoot" else 300  # short: large steps amplify rounding
    pairs = rng.integers(0, 50, (n, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    y = np.where(rng.random(len(pairs)) < 0.5, 1, -1)
    m = OnlineITML(eta=eta, eta_bound=bound, preprocessor=X).fit(pairs, y)
    Z = X[pairs[:, 0]] - X[pairs[:, 1]]
    lo, hi = np.quantile((Z**2).sum(1), [0.05, 0.95])
    np.testing.assert_allclose(m.targets_, [lo, hi])
    plain = plain_online_itml(Z, y, eta, lo, hi, bound)
    # the stream is short: large steps make A ill-conditioned (cond up to 1e7 here) and amplify
    # rounding, so the comparison is relative to the largest entry
    assert np.abs(m.M_ - plain).max() <= 1e-6 * np.abs(plain).max()
    assert np.array_equal(m.M_, m.M_.T)
    eig = np.linalg.eigvalsh(m.M_)
    assert eig.min() > 0
    if bound == "unit-ceiling":
        assert eig.max() <= 1 + 1e-12 and m.trace_["utilization"][-1] > 0.5


def test_unit_ceiling_takes_no_growing_step_from_the_identity():
    # targets 5 and 9 (quantiles (0.5, 1)); the similar pair (y_hat = 1 < 5) would grow A = I
    m = OnlineITML(eta=0.5, target_quantiles=(0.5, 1.0), n_passes=0.5).fit(PAIRS, [1, -1])
    np.testing.assert_array_equal(m.M_, np.eye(3))
    assert m.trace_["utilization"] == [0.0]
    # the zeroed share is recorded (one step, growing, zeroed)
    assert m.growing_step_fraction_ == 1.0 and m.zeroed_step_fraction_ == 1.0


def test_unit_ceiling_growing_step_after_a_shrinking_one_matches_the_hand_computation():
    # 1-d, targets set by hand (similar 1, dissimilar 2). Shrink: y_hat = 4 > 1,
    # eta_t = eta_0 = 0.5, c = 2 * 0.5 * (4 - 1) = 3,
    # a_1 = 1 / (1 + 3 * 4) = 1/13. Grow: z = 1, y_hat = 1/13 < y = 2; the bound is
    # 1 / (2 (2 - 1/13) * 1 / (1 - 1/13)) = (12/13) / (2 * 25/13) = 6/25 < eta_0 = 0.5, so
    # c = 2 * 6/25 * (1/13 - 2) = -12/13 and a_2^{-1} = 13 - 12/13: a_2 = 13/157.
    m = OnlineITML(eta=0.5, n_passes=1)
    m.fit(np.array([[[0.0], [2.0]]]), [1])  # A_0 = 1, targets from this pair (no step: y = y_hat)
    m.targets_ = np.array([1.0, 2.0])
    m.partial_fit(np.array([[[0.0], [2.0]]]), [1])  # similar: y_hat = 4 > 1, shrink
    assert m.M_[0, 0] == pytest.approx(1 / 13, rel=1e-12)
    m.partial_fit(np.array([[[0.0], [1.0]]]), [-1])  # dissimilar: y_hat = 1/13 < 2, grow
    assert m.M_[0, 0] == pytest.approx(13 / 157, rel=1e-12)
    assert m.growing_step_fraction_ == 1.0 and m.zeroed_step_fraction_ == 0.0  # bounded, not 0


def test_a_growing_step_never_overshoots_its_target():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 4))
    pairs = rng.integers(0, 30, (200, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    m = OnlineITML(eta=10.0, eta_bound="no-overshoot", preprocessor=X)
    m.fit(pairs[:1], [1])  # A_0 = I and the targets ...
    m.targets_ = np.array([50.0, 60.0])  # ... replaced: similar pairs aim at 50
    grown = 0
    for p in pairs:
        z = X[p[0]] - X[p[1]]
        before = z @ m.M_ @ z
        m.partial_fit(p[None], [1])
        after = z @ m.M_ @ z
        if before < 50.0:  # a growing step: never past the target; where the bound is active
            grown += 1  # (1 / (2 * 50 * before) < eta_0 = 10), exactly on it
            assert before < after <= 50.0 * (1 + 1e-9)
            if 1 / (100 * before) < 10.0:
                assert after == pytest.approx(50.0, rel=1e-9)
        else:  # a shrinking step (the paper bounds no rate here): still positive
            assert 0 < after <= before
    assert grown > 10
    assert np.linalg.eigvalsh(m.M_).min() > 0


def test_differs_from_lego_and_checks_its_parameters():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(20, 3))
    pairs = rng.integers(0, 20, (60, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    y = np.where(rng.random(len(pairs)) < 0.5, 1, -1)
    a = OnlineITML(eta=0.125, preprocessor=X).fit(pairs, y)
    b = LEGO(eta=0.125, preprocessor=X).fit(pairs, y)
    assert not np.allclose(a.M_, b.M_)
    with pytest.raises(ValueError, match="eta must be > 0"):
        OnlineITML(eta=0.0, preprocessor=X).fit(pairs, y)
    with pytest.raises(ValueError, match="eta_bound"):
        OnlineITML(eta_bound="paper", preprocessor=X).fit(pairs, y)
    with pytest.raises(ValueError, match="label"):
        OnlineITML(preprocessor=X).fit(pairs, np.zeros(len(pairs)))
