import numpy as np
import pytest

from algorithms import COMET


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
