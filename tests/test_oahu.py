"""OAHU (algorithms/oahu.py): the bounds, losses and hedge update against hand-computed values,
the invariants of alpha, full constraint utilization, and the deployment API."""

import numpy as np
import pytest

from algorithms import OAHU, make_learner
from algorithms.oahu import abtl_bounds, abtl_losses, hedge_update
from datasets.base import DataError
from datasets.constraints import sample_class_triplets

TAU = 0.3


def test_bounds_meet_the_boundary_conditions_of_eq_10():
    # d_sim: 0 at d+ = 0, tau at d+ = 2; d_dis: 2 - tau at d- = 0, 2 at d- = 2
    d_sim, d_dis = abtl_bounds(np.array([0.0, 2.0]), np.array([0.0, 2.0]), TAU)
    np.testing.assert_allclose(d_sim, [0.0, TAU])
    np.testing.assert_allclose(d_dis, [2.0 - TAU, 2.0])
    # in between: similar bound below every dissimilar bound when tau < 1
    d = np.linspace(0, 2, 21)
    s, t = abtl_bounds(d, d, TAU)
    assert s.max() <= TAU < 2 - TAU <= t.min()


def test_losses_of_eq_12_on_hand_computed_values():
    # d+ = 1.0: d_sim = 0.15, L_attr = 0.85; d- = 0.5: d_dis = 0.075 + 1.7 = 1.775, L_rep = 1.275
    attr, rep = abtl_losses(1.0, 0.5, TAU)
    assert attr == pytest.approx(0.85) and rep == pytest.approx(1.275)
    # perfect triplet: d+ = 0 and d- = 2 gives no loss
    attr, rep = abtl_losses(0.0, 2.0, TAU)
    assert attr == 0.0 and rep == 0.0


def test_hedge_update_by_hand():
    # alpha = (0.5, 0.5), losses (0, 1), beta = 0.5: (0.5, 0.25) -> (2/3, 1/3)
    np.testing.assert_allclose(hedge_update([0.5, 0.5], [0.0, 1.0], 0.5, 0.1), [2 / 3, 1 / 3])
    # a large loss drives an entry to the floor s/(L+1) = 0.2 / 2 = 0.1 before normalisation
    a = hedge_update([0.5, 0.5], [0.0, 50.0], 0.5, 0.2)
    np.testing.assert_allclose(a, [0.5 / 0.6, 0.1 / 0.6])


def _data(n=60, d=8, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(k), n // k)
    X = rng.normal(size=(n, d)) + 2.0 * np.eye(k, d)[y]
    return X, y, sample_class_triplets(y, 300, rng)


def test_alpha_stays_a_floored_distribution_and_every_constraint_updates():
    X, _y, T = _data()
    m = OAHU(n_hidden_layers=3, n_hidden=16, embedding_dim=6, random_state=0, preprocessor=X)
    m.fit(T)
    L1 = 4
    for j in range(len(m.trace_["step"])):
        alpha = np.array([m.trace_[f"alpha_{i}"][j] for i in range(L1)])
        assert alpha.sum() == pytest.approx(1.0)
        assert np.all(alpha >= m.s / L1 - 1e-12)
    assert m.trace_["utilization"][-1] == 1.0  # U = 1 (the paper's claim)


def test_one_step_is_gradient_descent_on_the_alpha_weighted_local_losses():
    torch = pytest.importorskip("torch")
    X, _y, T = _data()
    kw = {
        "n_hidden_layers": 2,
        "n_hidden": 5,
        "embedding_dim": 3,
        "random_state": 1,
        "dtype": "float64",
    }
    m = OAHU(**kw, preprocessor=X, eta=0.1).fit(T[:1])
    ref = OAHU(**kw, preprocessor=X, eta=0.1)
    ref._check_params()
    ref._init_params(X.shape[1])
    params = [p for wb in ref.params_["hidden"] for p in wb] + ref.params_["theta"]
    e = torch.stack(ref._embed(torch.as_tensor(X[T[0]])))
    dp = torch.linalg.norm(e[:, 0] - e[:, 1], dim=1)
    dn = torch.linalg.norm(e[:, 0] - e[:, 2], dim=1)
    attr, rep = abtl_losses(dp.detach().numpy(), dn.detach().numpy(), TAU)
    # the gradient of sum_l alpha_l (L_attr + L_rep) with the bounds held constant (d_sim, d_dis
    # are computed from the distances before the step): d/d(d+) = 1 where L_attr > 0, and so on
    c_pos = torch.as_tensor(attr > 0, dtype=torch.float64)
    c_neg = torch.as_tensor(rep > 0, dtype=torch.float64)
    obj = (torch.full((3,), 1 / 3, dtype=torch.float64) * (c_pos * dp - c_neg * dn)).sum()
    grads = torch.autograd.grad(obj, params)
    fitted = [p for wb in m.params_["hidden"] for p in wb] + m.params_["theta"]
    for p0, g, p1 in zip(params, grads, fitted):
        np.testing.assert_allclose(p1.detach().numpy(), (p0 - 0.1 * g).detach().numpy(), atol=1e-9)
    np.testing.assert_allclose(m.alpha_, hedge_update(np.full(3, 1 / 3), attr + rep, 0.99, 0.1))


def test_deployment_api_and_registry():
    X, _y, T = _data()
    m = make_learner("OAHU", n_hidden_layers=1, n_hidden=8, embedding_dim=4, preprocessor=X)
    m.set_params(random_state=0).fit(T)
    pairs = np.array([[0, 1], [0, 59]])
    d = m.pair_distance(pairs)
    assert d.shape == (2,) and np.all((d >= 0) & (d <= 2))
    D = m.distance_matrix(X[:3], X[:5])
    np.testing.assert_allclose(D[0, 1], d[0], atol=1e-6)
    assert m.similar(pairs, T=d[0] + 1e-9)[0]
    assert m.transform(X).shape == (2, len(X), 4)
    assert m.predict(T).shape == (len(T),) and 0 <= m.score(T) <= 1
    # the trained metric separates the blobs better than chance
    assert m.score(T) > 0.7


def test_partial_fit_continues_the_stream():
    X, _y, T = _data()
    kw = {
        "n_hidden_layers": 1,
        "n_hidden": 8,
        "embedding_dim": 4,
        "random_state": 0,
        "preprocessor": X,
    }
    whole = OAHU(**kw).fit(T)
    halves = OAHU(**kw).partial_fit(T[:150]).partial_fit(T[150:])
    np.testing.assert_allclose(whole.alpha_, halves.alpha_, atol=1e-6)
    assert halves.n_steps_ == len(T)


def test_zero_epochs_leave_the_seeded_initialisation():
    """n_epochs = 0 is the untrained control of Table 3: same network as a fitted model's start
    (same seed), uniform alpha, no step, an empty trace (U undefined)."""
    X, _y, T = _data()
    kw = {"n_hidden_layers": 1, "n_hidden": 8, "embedding_dim": 4, "random_state": 3}
    init = OAHU(n_epochs=0, preprocessor=X, **kw).fit(T)
    assert init.n_steps_ == 0 and len(init.trace_["step"]) == 0
    np.testing.assert_array_equal(init.alpha_, np.full(2, 0.5))
    fresh = OAHU(preprocessor=X, **kw)
    fresh._init_params(X.shape[1])
    np.testing.assert_array_equal(init.transform(X), fresh.transform(X))
    trained = OAHU(preprocessor=X, **kw).fit(T)
    assert not np.allclose(trained.transform(X), init.transform(X))
    with pytest.raises(ValueError, match="n_epochs"):
        OAHU(n_epochs=-1, preprocessor=X).fit(T)


def test_bad_input_raises():
    X, _y, T = _data()
    with pytest.raises(ValueError, match="tau"):
        OAHU(tau=0.7, preprocessor=X).fit(T)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(DataError):
        OAHU(preprocessor=bad).fit(T)
    with pytest.raises(DataError):
        OAHU(preprocessor=X).fit(np.zeros((0, 3), dtype=int))
