"""OAHU's ``momentum`` option (ours, not the paper's; algorithms/oahu.py): momentum 0 is the paper's
plain update of eqs. 21-22 exactly, and momentum mu > 0 is the heavy-ball step
v_t = mu v_{t-1} + g_t, theta_t = theta_{t-1} - eta v_t on the gradient g_t of eqs. 21-22,
checked on two steps against closed forms built from plain-update runs."""

import numpy as np
import pytest

from tripletbench.algorithms import OAHU
from tripletbench.datasets.constraints import sample_class_triplets

KW = {"n_hidden_layers": 2, "n_hidden": 6, "embedding_dim": 3, "random_state": 4, "eta": 0.2}


def _data(n=45, d=7, k=3, seed=1):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(k), n // k)
    X = rng.normal(size=(n, d)) + 2.0 * np.eye(k, d)[y]
    return X, sample_class_triplets(y, 40, rng)


def _np(p):
    """A parameter or velocity (NumPy array or torch tensor) as a NumPy array copy."""
    return p.detach().cpu().numpy().copy() if hasattr(p, "detach") else np.array(p)


def _theta(m):
    return [_np(p) for p in m._parameters()]


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_zero_momentum_is_the_plain_update_bit_for_bit(backend):
    X, T = _data()
    plain = OAHU(preprocessor=X, backend=backend, **KW).fit(T)
    zero = OAHU(preprocessor=X, momentum=0.0, backend=backend, **KW).fit(T)
    for a, b in zip(_theta(plain), _theta(zero)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(plain.alpha_, zero.alpha_)
    assert zero.velocity_ is None


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_two_heavy_ball_steps_by_hand(backend):
    """Step 1 from v_0 = 0 is the plain step: theta_1 = theta_0 - eta g_1. Step 2 takes g_2 at
    theta_1 with the same alpha as the plain run, so theta_2 = theta_1 - eta (mu g_1 + g_2) =
    plain theta_2 + mu (theta_1 - theta_0), with g_1 = (theta_0 - theta_1) / eta."""
    X, T = _data()
    mu = 0.7
    kw = {**KW, "dtype": "float64", "backend": backend}
    init = OAHU(preprocessor=X, n_epochs=0, **kw).fit(T[:1])
    plain1 = OAHU(preprocessor=X, **kw).fit(T[:1])
    plain2 = OAHU(preprocessor=X, **kw).fit(T[:2])
    mom1 = OAHU(preprocessor=X, momentum=mu, **kw).fit(T[:1])
    mom2 = OAHU(preprocessor=X, momentum=mu, **kw).fit(T[:2])
    t0, t1, p2 = _theta(init), _theta(plain1), _theta(plain2)
    for a, b in zip(_theta(mom1), t1):  # first step: v_1 = g_1
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-13)
    for a, b0, b1, b2 in zip(_theta(mom2), t0, t1, p2):
        np.testing.assert_allclose(a, b2 + mu * (b1 - b0), rtol=0, atol=1e-12)
        assert not np.allclose(a, b2)  # momentum changed the second step
    # the velocity is v_2 = mu g_1 + g_2 = mu (theta_0 - theta_1) / eta + (theta_1 - plain_2) / eta
    for v, b0, b1, b2 in zip(mom2.velocity_, t0, t1, p2):
        np.testing.assert_allclose(
            _np(v), (mu * (b0 - b1) + (b1 - b2)) / KW["eta"], rtol=0, atol=1e-10
        )
    np.testing.assert_allclose(mom2.alpha_, plain2.alpha_, atol=1e-15)  # eq. 20 unaffected at t=2
    # partial_fit carries the velocity: fit(T[:1]) then partial_fit(T[1:2]) = fit(T[:2])
    cont = OAHU(preprocessor=X, momentum=mu, **kw).fit(T[:1]).partial_fit(T[1:2])
    for a, b in zip(_theta(cont), _theta(mom2)):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-13)


def test_bad_momentum_raises():
    X, T = _data()
    for bad in (-0.1, 1.0):
        with pytest.raises(ValueError, match="momentum"):
            OAHU(preprocessor=X, momentum=bad).fit(T)
