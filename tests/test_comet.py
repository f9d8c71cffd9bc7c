import numpy as np
import pytest

from tripletbench.algorithms import COMET, SparseCOMET


def blobs(seed=0, n=60, d=5):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), n // 3)
    X = rng.normal(size=(n, d)) + 2 * np.eye(3, d)[y]
    t = []
    for _ in range(400):
        a = rng.integers(n)
        p = rng.choice(np.flatnonzero(y == y[a]))
        q = rng.choice(np.flatnonzero(y != y[a]))
        t.append((a, p, q))
    return X, np.array(t)


@pytest.mark.parametrize("mu", [1e-4, 0.5])
def test_stays_positive_definite_at_every_checkpoint_even_with_tiny_mu(mu):
    X, t = blobs()
    m = COMET(
        mu=mu, max_step=10.0, bound_weight=0.9, n_sweeps=6, preprocessor=X, random_state=0
    ).fit(t)
    assert min(m.trace_["min_eigenvalue"]) > 0
    assert np.linalg.eigvalsh(m.W_).min() > 0
    np.testing.assert_allclose(m.W_, m.W_.T, atol=1e-12)


def test_objective_decreases_and_steps_respect_the_schur_bound():
    X, t = blobs(1)
    m = COMET(mu=0.5, max_step=1e-3, n_sweeps=5, preprocessor=X, random_state=0).fit(t)
    obj = np.array(m.trace_["objective"])
    assert obj[-1] < obj[0]
    W = np.eye(5)
    u = np.array([0.3, -1.0, 0.2, 0.0, 0.5])
    Winv = np.linalg.inv(W)
    eta = COMET(max_step=1e9, bound_weight=0.999)._step_size(W, Winv, u, 1)
    # at 0.999 of the bound W + eta (u e_k^T + e_k u^T) is still PD; slightly past the bound it is not
    E = np.outer(u, np.eye(5)[1]) + np.outer(np.eye(5)[1], u)
    assert np.linalg.eigvalsh(W + eta * E).min() > 0
    assert np.linalg.eigvalsh(W + eta / 0.999 * 1.01 * E).min() < 0


def test_woodbury_inverse_update():
    rng = np.random.default_rng(3)
    B = rng.normal(size=(4, 4))
    W = B @ B.T + 4 * np.eye(4)
    v = rng.normal(size=4) * 0.1
    E = np.outer(v, np.eye(4)[2]) + np.outer(np.eye(4)[2], v)
    np.testing.assert_allclose(
        COMET._woodbury(np.linalg.inv(W), v, 2), np.linalg.inv(W + E), rtol=1e-10
    )


# --- Sparse COMET (group-lasso proximal steps) ---------------------------------------------


def test_sparse_prox_step_matches_the_hand_computed_group_soft_threshold():
    d, k = 4, 1
    m = SparseCOMET(mu=0.5, sparse_weight=0.06, max_step=0.1, bound_weight=0.3)
    m.V_ = np.zeros((d, d))
    W, Winv = np.eye(d), np.eye(d)
    u = np.array([0.3, 7.0, -0.4, 0.0])  # u[k] (the diagonal) is not part of the group
    # Schur bound of I + eta (u e_k^T + e_k u^T) with u_k = 0: 1 - eta^2 ||u_A||^2 > 0, i.e.
    # eta < 1 / ||u_A|| = 2 > max_step, so the step is max_step with no back-off
    h = 0.1 * np.array([0.3, 0.0, -0.4, 0.0])  # ||h|| = 0.05
    assert np.linalg.norm(h) == pytest.approx(0.05)
    assert m._group_step(W, Winv, u, k) is None  # ||h|| below the threshold: the group stays 0
    m.sparse_weight = 0.01
    m.V_[:] = 0.0
    delta = m._group_step(W, Winv, u, k)
    np.testing.assert_allclose(delta, h * (1.0 - 0.01 / 0.05), rtol=1e-12)
    np.testing.assert_allclose(m.V_[:, k], delta)


@pytest.mark.parametrize("sparse_weight", [1e-4, 0.05])
def test_sparse_comet_stays_positive_definite_and_is_diagonal_plus_groups(sparse_weight):
    X, t = blobs(2, n=90, d=6)
    m = SparseCOMET(
        mu=1e-3,
        sparse_weight=sparse_weight,
        max_step=1.0,
        bound_weight=0.9,
        n_sweeps=4,
        n_steps_diag=10,
        stepsize_diag=0.01,
        preprocessor=X,
        random_state=0,
    ).fit(t)
    assert min(m.trace_["min_eigenvalue"]) > 0 and np.linalg.eigvalsh(m.W_).min() > 0
    np.testing.assert_allclose(m.W_, m.W_.T, atol=1e-12)
    assert np.all(np.diag(m.V_) == 0)
    D = np.diag(np.diag(m.W_))
    np.testing.assert_allclose(m.W_, D + m.V_ + m.V_.T, atol=1e-12)
    assert m.diag_steps_ > 0 and np.diag(m.W_).min() > 0


def test_a_larger_sparse_weight_gives_sparser_metrics_and_a_huge_one_a_diagonal():
    X, t = blobs(0, n=90, d=8)
    fits = [
        SparseCOMET(
            mu=0.5, sparse_weight=w, max_step=0.01, n_sweeps=5, preprocessor=X, random_state=0
        ).fit(t)
        for w in (1e-4, 0.1, 1.0)
    ]
    groups = [f.trace_["nonzero_groups"][-1] for f in fits]
    assert groups[0] == 1.0 and groups[1] < 1.0 and groups[2] == 0.0
    np.testing.assert_array_equal(fits[2].W_, np.eye(8))  # no group ever left zero
    assert fits[0].score(t) > fits[2].score(t)  # learning off-diagonal terms helps here
    with pytest.raises(ValueError, match="sparse_weight"):
        SparseCOMET(sparse_weight=0.0, preprocessor=X).fit(t)


def test_sparse_comet_on_zero_and_duplicate_points_takes_no_step_and_no_nan():
    X = np.zeros((4, 3))
    X[1] = X[2] = [1.0, 0.0, 0.0]  # a duplicate pair, and zero vectors as anchors
    t = np.array([[0, 1, 2], [3, 1, 2], [1, 2, 3]])
    m = SparseCOMET(mu=0.5, sparse_weight=0.01, n_sweeps=2, preprocessor=X, random_state=0)
    m.fit(t)
    assert np.all(np.isfinite(m.W_)) and np.linalg.eigvalsh(m.W_).min() > 0
