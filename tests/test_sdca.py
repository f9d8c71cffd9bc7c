import numpy as np
import pytest
from scipy.optimize import minimize

from tripletbench.algorithms import SDCA
from tripletbench.algorithms.sdca import squared_hinge_dual, squared_hinge_primal


def small_problem(seed=0, n=40, d=3):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 3, d))


def test_first_coordinate_step_matches_closed_form():
    # a = (1, 0), z = x+ - x- = (-1, 1): ||A||_F^2 = 1 * 2 = 2; n = 1, lambda = 1, alpha = 0, M = 0
    # Delta = (1 - 0 - 0) / (1/2 + 2 / 1) = 0.4 and M = 0.4 * a z^T.
    t = np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]])
    m = SDCA(lam=1.0, n_epochs=1, output="last").fit(t)
    assert m.alpha_[0] == pytest.approx(0.4)
    np.testing.assert_allclose(m.W_, [[-0.4, 0.4], [0.0, 0.0]], atol=1e-15)


def test_duality_gap_vanishes_and_primal_matches_lbfgs():
    T = small_problem()
    lam = 0.1
    m = SDCA(lam=lam, n_epochs=300, output="last", random_state=0).fit(T)
    assert m.duality_gap_ < 1e-6
    assert np.all(m.alpha_ >= 0)
    A, Z = T[:, 0], T[:, 1] - T[:, 2]
    d = A.shape[1]

    def f(w):
        M = w.reshape(d, d)
        margins = np.einsum("ij,jk,ik->i", A, M, Z)
        h = np.maximum(0.0, 1.0 - margins)
        grad = -2.0 / len(A) * (A * h[:, None]).T @ Z + lam * M
        return np.mean(h**2) + 0.5 * lam * np.sum(M * M), grad.ravel()

    ref = minimize(
        f,
        np.zeros(d * d),
        jac=True,
        method="L-BFGS-B",
        options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 10000},
    )
    assert m.primal_ == pytest.approx(ref.fun, rel=1e-6)
    np.testing.assert_allclose(m.W_, ref.x.reshape(d, d), atol=1e-4)


def test_weak_duality_and_gap_trace_decreases():
    T = small_problem(1)
    m = SDCA(lam=0.05, n_epochs=50, output="average", trace_gap=True, random_state=1).fit(T)
    assert m.primal_ >= m.dual_ - 1e-12
    gaps = np.array(m.trace_["duality_gap"])
    assert np.all(gaps >= -1e-12)
    assert gaps[-1] < gaps[0] * 1e-2


def test_averaged_output_gap_is_at_most_the_mean_gap_over_the_window():
    # P is convex and D concave, so gap(mean alpha) <= mean over the window of gap(alpha^(t-1)).
    T = small_problem(3, n=12)
    lam = 0.05
    A, Z = T[:, 0], T[:, 1] - T[:, 2]
    avg, _, _, window = reference_sdca(T, lam, 6, seed=2, keep_window=True)
    gaps = []
    for a in window:
        dual, M = squared_hinge_dual(a, A, Z, lam)
        gaps.append(squared_hinge_primal(M, A, Z, lam) - dual)
    m = SDCA(lam=lam, n_epochs=6, output="average", random_state=2).fit(T)
    assert m.duality_gap_ <= np.mean(gaps) + 1e-12


def reference_sdca(T, lam, n_epochs, seed, average_from=0.5, keep_window=False):
    """Plain transcription of S&Z's Procedure SDCA keeping every alpha^(t-1) (no lazy tricks)."""
    A, Z = T[:, 0], T[:, 1] - T[:, 2]
    n = len(A)
    steps = int(n_epochs * n)
    T0 = int(np.floor(average_from * steps))
    rng = np.random.default_rng(seed)
    t_random = int(rng.integers(T0 + 1, steps + 1))
    order = rng.integers(n, size=steps)
    alpha, M = np.zeros(n), np.zeros((A.shape[1],) * 2)
    history = []
    for t, i in enumerate(order, start=1):
        history.append(alpha.copy())  # alpha^(t-1)
        margin = A[i] @ M @ Z[i]
        q = np.sum(A[i] ** 2) * np.sum(Z[i] ** 2)
        delta = max(-alpha[i], (1 - margin - alpha[i] / 2) / (0.5 + q / (lam * n)))
        alpha[i] += delta
        M += delta / (lam * n) * np.outer(A[i], Z[i])
        if t == t_random:
            random_alpha = alpha.copy()
    out = (np.mean(history[T0:], axis=0), random_alpha, alpha)
    return out + (history[T0:],) if keep_window else out


def test_average_and_random_outputs_match_the_plain_algorithm():
    T = small_problem(2, n=15)
    avg, rnd, last = reference_sdca(T, 0.2, 7, seed=5)
    for output, expected in (("average", avg), ("random", rnd), ("last", last)):
        m = SDCA(lam=0.2, n_epochs=7, output=output, random_state=5).fit(T)
        np.testing.assert_allclose(m.alpha_, expected, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(
            m.W_,
            squared_hinge_dual(expected, T[:, 0], T[:, 1] - T[:, 2], 0.2)[1],
            rtol=1e-12,
            atol=1e-14,
        )


def test_zero_constraint_leaves_model_unchanged_and_finite():
    T = np.array([[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [2.0, 2.0], [2.0, 2.0]]])
    m = SDCA(lam=0.1, n_epochs=20, output="last").fit(T)
    np.testing.assert_array_equal(m.W_, 0.0)
    assert np.all(np.isfinite(m.alpha_))
    assert squared_hinge_primal(m.W_, T[:, 0], T[:, 1] - T[:, 2], 0.1) == pytest.approx(1.0)


def test_bad_hyperparameters_raise():
    with pytest.raises(ValueError, match="lam"):
        SDCA(lam=0).fit(small_problem())
    with pytest.raises(ValueError, match="output"):
        SDCA(output="best").fit(small_problem())


@pytest.mark.parametrize("learner", ["SDCA", "OASIS"])
def test_both_losses_traced_without_changing_the_iterates(learner):
    """trace_losses records the averages of the hinge and of the squared hinge of each step's
    triplet (before its update); they equal avg_cumulative_loss under the matching trace_loss,
    and the learned matrix does not depend on what is traced."""
    from tripletbench.algorithms import OASIS

    T = small_problem(3, n=60, d=4)
    cls = SDCA if learner == "SDCA" else OASIS
    kw = {"n_epochs": 3, "random_state": 0}
    runs = {
        loss: cls(trace_loss=loss, trace_losses=True, **kw).fit(T)
        for loss in ("hinge", "squared_hinge")
    }
    plain = cls(**kw).fit(T)
    for loss, key in (
        ("hinge", "avg_cumulative_hinge"),
        ("squared_hinge", "avg_cumulative_squared_hinge"),
    ):
        tr = runs[loss].trace_
        np.testing.assert_allclose(tr[key], tr["avg_cumulative_loss"], rtol=1e-12)
        np.testing.assert_array_equal(runs[loss].W_, plain.W_)
    h = np.array(runs["hinge"].trace_["avg_cumulative_hinge"])
    sq = np.array(runs["hinge"].trace_["avg_cumulative_squared_hinge"])
    assert np.all(sq >= h**2 - 1e-12)  # Jensen: mean of squares >= square of the mean
    assert "avg_cumulative_hinge" not in plain.trace_


def test_first_step_losses_by_hand():
    # the closed-form case above: M_0 = 0, margin 0, so hinge 1 and squared hinge 1 at step 1;
    # OASIS's one-triplet case (tests/test_oasis.py): margin -1, hinge 2, squared hinge 4
    from tripletbench.algorithms import OASIS

    t = np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]])
    s = SDCA(lam=1.0, n_epochs=1, output="last", trace_losses=True).fit(t).trace_
    assert s["avg_cumulative_hinge"] == [1.0] and s["avg_cumulative_squared_hinge"] == [1.0]
    o = OASIS(C=0.5, n_epochs=1, trace_losses=True).fit(t).trace_
    assert o["avg_cumulative_hinge"] == [2.0] and o["avg_cumulative_squared_hinge"] == [4.0]
    with pytest.raises(ValueError, match="trace_loss"):
        SDCA(trace_loss="hinge2").fit(t)


def test_the_gap_trace_takes_the_dual_from_the_iterate_and_is_off_by_default():
    """D(alpha) at a checkpoint uses M = M(alpha) kept by the steps (no second pass);
    it equals the dual computed from alpha afresh. The per-checkpoint gap costs a primal pass, so
    it is off unless asked for."""
    from tripletbench.algorithms.sdca import dual_value

    T = small_problem(1)
    A, Z = T[:, 0], T[:, 1] - T[:, 2]
    m = SDCA(lam=0.05, n_epochs=5, output="last", random_state=0).fit(T)
    assert "duality_gap" not in m.trace_ and np.isfinite(m.duality_gap_)
    fresh, M_fresh = squared_hinge_dual(m.alpha_, A, Z, 0.05)
    np.testing.assert_allclose(m.W_, M_fresh, rtol=1e-10, atol=1e-13)
    assert dual_value(m.alpha_, m.W_, 0.05) == pytest.approx(fresh, rel=1e-10)
    traced = SDCA(lam=0.05, n_epochs=5, output="last", trace_gap=True, random_state=0).fit(T)
    assert traced.trace_["duality_gap"][-1] == pytest.approx(m.duality_gap_last_, rel=1e-10)
