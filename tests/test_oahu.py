"""OAHU (algorithms/oahu.py) against the paper's equations (Gao et al., WWW 2019, section 3):
the bounds of eqs. 9-11 at eq. 10's boundary conditions, eq. 12-13 on hand values, every branch of
eq. 20 with the floor and normalisation of Algorithm 1, one OGD step of eqs. 21-22, and the
deployment rules of eqs. 23-27 on hand-made embeddings."""

import numpy as np
import pytest

from tripletbench.algorithms import OAHU, make_learner
from tripletbench.algorithms.oahu import (
    abtl_bounds,
    abtl_local_loss,
    abtl_losses,
    hedge_factors,
    hedge_threshold,
    hedge_update,
    weighted_lower_median,
)
from tripletbench.datasets.base import DataError
from tripletbench.datasets.constraints import sample_class_triplets

TAU = 0.3
E = np.e


# ----------------------------------------------------------------------------- ABTL, eqs. 9-13
def test_bounds_meet_the_boundary_conditions_of_eq_10():
    d_sim, d_dis = abtl_bounds(np.array([0.0, 2.0]), np.array([0.0, 2.0]), TAU)
    np.testing.assert_allclose(d_sim, [0.0, TAU], atol=1e-15)  # d_sim(0) = 0, d_sim(2) = T_sim
    np.testing.assert_allclose(d_dis, [2.0 - TAU, 2.0])  # d_dis(0) = T_dis, d_dis(2) = 2


def test_bounds_are_the_exponentials_of_eq_9_not_straight_lines():
    # at D = 1 by hand: d_sim = tau (e - 1) / (e^2 - 1) = tau / (e + 1);
    # d_dis = 2 - tau + tau (1 - 1/e) / (1 - 1/e^2) = 2 - tau + tau e / (e + 1) = 2 - tau / (e + 1)
    d_sim, d_dis = abtl_bounds(1.0, 1.0, TAU)
    assert d_sim == pytest.approx(TAU / (E + 1)) and d_sim != pytest.approx(TAU / 2)
    assert d_dis == pytest.approx(2 - TAU / (E + 1))
    d = np.linspace(0, 2, 41)
    s, t = abtl_bounds(d, d, TAU)
    assert np.all(np.diff(s) > 0) and np.all(np.diff(t) > 0)  # both increasing in D (eq. 9)
    # section 3.3.3: d_sim <= D_orig and d_dis >= D_orig, so every triplet has a loss
    assert np.all(s <= d + 1e-15) and np.all(t >= d - 1e-15)
    # the two bounds mirror each other: d_dis(D) = 2 - d_sim(2 - D)
    np.testing.assert_allclose(t, 2 - abtl_bounds(2 - d, d, TAU)[0], atol=1e-10)
    assert s.max() <= TAU < 2 - TAU <= t.min()  # eq. 8: T_sim = tau, T_dis = 2 - tau


def test_losses_of_eq_12_and_the_mean_of_eq_13_on_hand_values():
    # D+ = D- = 1: c1 = tau/(e+1), c2 = 2 - c1, so L_attr = (1 - c1)/(2 - c1) = 1 - 1/c2 = L_rep
    c1 = TAU / (E + 1)
    attr, rep = abtl_losses(1.0, 1.0, TAU)
    assert attr == pytest.approx((1 - c1) / (2 - c1)) and rep == pytest.approx((1 - c1) / (2 - c1))
    # D+ = 0.5, D- = 1.5 by hand
    c1 = TAU * (np.exp(0.5) - 1) / (E**2 - 1)
    c2 = 2 - TAU + TAU * (1 - np.exp(-1.5)) / (1 - np.exp(-2))
    attr, rep = abtl_losses(0.5, 1.5, TAU)
    assert attr == pytest.approx((0.5 - c1) / (2 - c1)) and rep == pytest.approx(1 - 1.5 / c2)
    assert abtl_local_loss(0.5, 1.5, TAU) == pytest.approx(((0.5 - c1) / (2 - c1) + 1 - 1.5 / c2) / 2)
    # extremes: the perfect triplet has no loss, the worst one loss 1 (both parts at 1)
    assert abtl_local_loss(0.0, 2.0, TAU) == 0.0
    assert abtl_losses(2.0, 0.0, TAU) == (pytest.approx(1.0), pytest.approx(1.0))
    # every loss in [0, 1] and positive unless D+ = 0 and D- = 2
    g = np.linspace(0, 2, 21)
    P, N = np.meshgrid(g, g)
    L = abtl_local_loss(P, N, TAU)
    assert L.min() >= 0 and L.max() <= 1 + 1e-12
    assert np.count_nonzero(L == 0) == 1


# ----------------------------------------------------------------------------- hedge, eq. 20
def test_hedge_threshold_is_where_the_slopes_of_the_two_factors_meet():
    for beta in (0.5, 0.9, 0.99):
        Ls = hedge_threshold(beta)
        # d/dL beta^L = beta^L ln beta equals d/dL [1 - (1 - beta) L] = beta - 1 at L*
        assert beta**Ls * np.log(beta) == pytest.approx(beta - 1)
    assert hedge_threshold(0.99) == pytest.approx(0.49958, abs=1e-5)


def test_eq_20_branches_by_hand():
    beta = 0.99
    f, expo = hedge_factors([0.0, 0.2, 0.49, 0.51, 0.8, 1.0], beta)
    np.testing.assert_array_equal(expo, [False, False, False, True, True, True])
    np.testing.assert_allclose(
        f, [1.0, 1 - 0.01 * 0.2, 1 - 0.01 * 0.49, beta**0.51, beta**0.8, beta**1.0]
    )
    # Freund & Schapire: beta^L <= F(L) <= 1 - (1 - beta) L, and F never rewards a higher loss
    L = np.linspace(0, 1, 201)
    for b in (0.5, 0.9, 0.99):
        F, _ = hedge_factors(L, b)
        assert np.all(F >= b**L - 1e-15) and np.all(F <= 1 - (1 - b) * L + 1e-15)
        assert np.all(np.diff(F) <= 0)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        hedge_factors([0.2, 1.5], beta)


def test_hedge_update_with_floor_and_normalisation_by_hand():
    # beta = 0.5 (L* = 0.471): losses (0.2, 0.8) -> factors (1 - 0.5 * 0.2, 0.5^0.8)
    a = hedge_update([0.5, 0.5], [0.2, 0.8], 0.5, 0.0)
    w = np.array([0.5 * 0.9, 0.5 * 0.5**0.8])
    np.testing.assert_allclose(a, w / w.sum())
    # Algorithm 1, line 10: the floor s/(L+1) = 0.6/2 = 0.3 binds on the second entry only
    a = hedge_update([0.5, 0.5], [0.2, 0.8], 0.5, 0.6)
    np.testing.assert_allclose(a, np.array([0.45, 0.3]) / 0.75)
    # line 11: normalised; uniform losses leave alpha unchanged
    np.testing.assert_allclose(hedge_update([0.2, 0.3, 0.5], [0.4] * 3, 0.9, 0.1), [0.2, 0.3, 0.5])


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


# ----------------------------------------------------------------------------- OGD, eqs. 21-22
def test_network_of_eq_1_has_no_biases():
    X, _y, T = _data()
    m = OAHU(n_hidden_layers=2, n_hidden=5, embedding_dim=3, random_state=0, preprocessor=X)
    m.fit(T[:1])
    assert [tuple(W.shape) for W in m.params_["hidden"]] == [(5, 8), (5, 5)]
    assert [tuple(t.shape) for t in m.params_["theta"]] == [(3, 8), (3, 5), (3, 5)]
    E = m.transform(X)
    # eq. 3: unit norm, except where every ReLU unit of a hidden layer is off (no bias to lift
    # it): such an h(l) = 0 has no direction and embeds at the origin
    norm = np.linalg.norm(E, axis=2)
    assert np.all(np.isclose(norm, 1.0, atol=1e-6) | (norm == 0)) and np.mean(norm > 0) > 0.8
    # f(l)(c x) = f(l)(x) for c > 0: ReLU layers without bias are positively homogeneous
    np.testing.assert_allclose(m.transform(3.0 * X), E, atol=1e-5)


def _np(p):
    """A parameter (NumPy array or torch tensor) as a NumPy array."""
    return p.detach().cpu().numpy() if hasattr(p, "detach") else np.asarray(p)


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_one_step_is_eqs_21_22_with_the_bounds_held_constant(backend):
    torch = pytest.importorskip("torch")
    X, _y, T = _data()
    kw = {"n_hidden_layers": 2, "n_hidden": 5, "embedding_dim": 3, "random_state": 1}
    m = OAHU(**kw, preprocessor=X, eta=0.1, tau=TAU, dtype="float64", backend=backend)
    m.fit(T[:1])
    ref = OAHU(**kw, preprocessor=X, dtype="float64", backend="torch")
    ref._check_params()
    ref._init_params(X.shape[1])
    W1, W2 = ref.params_["hidden"]
    th = ref.params_["theta"]
    e = torch.stack(ref._embed(torch.as_tensor(X[T[0]])))
    dp = torch.linalg.norm(e[:, 0] - e[:, 1], dim=1)
    dn = torch.linalg.norm(e[:, 0] - e[:, 2], dim=1)
    P, N = dp.detach().numpy(), dn.detach().numpy()
    c1, c2 = abtl_bounds(P, N, TAU)
    # eq. 12 differentiated with c1, c2 fixed: dL/dD+ = 1/(2(2 - c1)), dL/dD- = -1/(2 c2)
    per_layer = dp / torch.as_tensor(2 * (2 - c1)) - dn / torch.as_tensor(2 * c2)
    alpha = np.full(3, 1 / 3)
    new = {id(p): p1 for p, p1 in zip(ref._parameters(), m._parameters())}

    def step(p, layers):  # -eta sum_{j in layers} alpha_j grad_p L(j)
        obj = sum(alpha[j] * per_layer[j] for j in layers)
        return (p - 0.1 * torch.autograd.grad(obj, p, retain_graph=True)[0]).detach().numpy()

    for l in range(3):  # eq. 21: Theta(l) sees its own loss only
        np.testing.assert_allclose(_np(new[id(th[l])]), step(th[l], [l]), atol=1e-10)
    # eq. 22: W(l) sees the losses of the models built on it, j >= l
    np.testing.assert_allclose(_np(new[id(W1)]), step(W1, [1, 2]), atol=1e-10)
    np.testing.assert_allclose(_np(new[id(W2)]), step(W2, [2]), atol=1e-10)
    # eq. 20 with the losses before the step
    np.testing.assert_allclose(
        m.alpha_, hedge_update(alpha, abtl_local_loss(P, N, TAU), 0.99, 0.1), atol=1e-12
    )


# ----------------------------------------------------------------------------- deployment
class FixedEmbedding(OAHU):
    """OAHU with given per-layer embeddings: row i of the input is item i (feature 0 = i)."""

    def __init__(self, E, alpha, deployment="layers"):
        super().__init__(deployment=deployment)
        self.E, self.alpha_ = np.asarray(E, float), np.asarray(alpha, float)

    def transform(self, X):
        return self.E[:, np.asarray(X)[:, 0].astype(int)]


# items 0 = query, 1..4 = references; layer 0 and layer 1 place them on the unit circle
U = {"e1": (1.0, 0.0), "e2": (0.0, 1.0), "-e1": (-1.0, 0.0), "-e2": (0.0, -1.0)}
LAYERS = [["e1", "e1", "e2", "-e1", "-e2"], ["e1", "-e1", "e1", "e2", "-e1"]]
EMB = np.array([[U[n] for n in layer] for layer in LAYERS])
ITEMS = np.arange(5)[:, None].astype(float)
Q, REF, Y_REF = ITEMS[:1], ITEMS[1:], np.array(["A", "B", "B", "A"])


def test_knn_scores_of_eqs_23_to_25_by_hand():
    # k = 2. Layer 0: item 1 at D = 0, then items 2 and 4 tie at sqrt(2) -> item 2 (index order);
    # d_min = 0, d_max = sqrt(2): S = alpha_0 (class A) and e^-1 alpha_0 (B). Layer 1: item 2 at 0
    # (B), item 3 at sqrt(2) (B): S = alpha_1 and e^-1 alpha_1.
    for alpha, label in (((0.7, 0.3), "A"), ((0.5, 0.5), "B")):
        m = FixedEmbedding(EMB, alpha)
        classes, S = m.knn_class_scores(Q, REF, Y_REF, k=2)
        a0, a1 = alpha
        np.testing.assert_allclose(S[0], [a0, a0 / E + a1 + a1 / E])  # eq. 24
        assert list(classes) == ["A", "B"] and m.knn_classify(Q, REF, Y_REF, 2)[0] == label
    # alpha multiplies the exponential: the trusted layer 0 decides at alpha = (0.7, 0.3)
    # k = 1: d_max = d_min, each neighbour scores alpha(l) (our choice)
    _, S = FixedEmbedding(EMB, (0.7, 0.3)).knn_class_scores(Q, REF, Y_REF, k=1)
    np.testing.assert_allclose(S[0], [0.7, 0.3])


def test_combined_distance_variant_is_a_majority_vote():
    # alpha = (0.5, 0.5): d = 0.5 D0 + 0.5 D1 to items 1..4 = 1, 0.707, 1.707, 1.707 -> k = 1: B
    m = FixedEmbedding(EMB, (0.5, 0.5), deployment="combined")
    assert m.knn_classify(Q, REF, Y_REF, 1)[0] == "B"
    np.testing.assert_allclose(m.distance_matrix(Q, REF)[0], [1, 0.5 * 2**0.5, 1 + 0.5 * 2**0.5] + [1 + 0.5 * 2**0.5])


def test_retrieval_of_eq_27_by_hand():
    # k = 2 candidates: layer 0 items 1 (alpha_0), 2 (alpha_0/e); layer 1 items 2 (alpha_1),
    # 3 (alpha_1/e); sorted by score, top 2 distinct
    db = ITEMS[1:] - 0  # database = the references (indices 0..3 = items 1..4)
    got = FixedEmbedding(EMB, (0.7, 0.3)).retrieve(Q, db, [2])[2]
    np.testing.assert_array_equal(got[0], [0, 1])  # 0.7 (item 1), 0.3 (item 2)
    got = FixedEmbedding(EMB, (0.2, 0.8)).retrieve(Q, db, [1, 2])
    np.testing.assert_array_equal(got[2][0], [1, 2])  # 0.8 (item 2), 0.8/e = 0.294 (item 3)
    np.testing.assert_array_equal(got[1][0], [1])  # k = 1: item 2 (alpha_1) beats item 1
    # exclude_self: the query set is the database, item i never retrieves itself
    got = FixedEmbedding(EMB, (0.7, 0.3)).retrieve(ITEMS, ITEMS, [2], exclude_self=True)[2]
    assert not np.any(got == np.arange(5)[:, None]) and len(np.unique(got[0])) == 2


def test_verification_of_eq_26_by_hand_and_its_roc_score():
    # one pair, three layers: D/2 = (0.1, 0.6, 0.4), alpha = (0.2, 0.3, 0.5)
    D = np.array([0.2, 1.2, 0.8])
    Emb = np.zeros((3, 2, 2))
    for l, dist in enumerate(D):  # two unit vectors at distance dist
        angle = 2 * np.arcsin(dist / 2)
        Emb[l] = [[1.0, 0.0], [np.cos(angle), np.sin(angle)]]
    m = FixedEmbedding(Emb, (0.2, 0.3, 0.5))
    m.preprocessor = np.arange(2)[:, None].astype(float)
    pair = np.array([[0, 1]])
    # T = 0.5: p = (1, 0, 1), P = 0.7 -> similar; T = 0.3: p = (1, 0, 0), P = 0.2 -> not
    assert m.similarity_probability(pair, 0.5)[0] == pytest.approx(0.7) and m.similar(pair, 0.5)[0]
    assert m.similarity_probability(pair, 0.3)[0] == pytest.approx(0.2)
    assert not m.similar(pair, 0.3)[0]
    # the weighted lower median: sorted 0.1 (0.2), 0.4 (0.5: cumulative 0.7 >= 0.5) -> 0.4
    assert m.verification_distance(pair)[0] == pytest.approx(0.4)


def test_eq_26_decision_is_the_weighted_median_below_threshold():
    rng = np.random.default_rng(0)
    for _ in range(200):
        n_layers = int(rng.integers(1, 7))
        alpha = rng.dirichlet(np.ones(n_layers))
        half = rng.uniform(0, 1, size=(n_layers, 50))
        q = weighted_lower_median(half, alpha)
        for T in np.linspace(0, 1, 41):
            P = alpha @ (half < T)  # eq. 26
            np.testing.assert_array_equal(P >= 0.5 - 1e-12, q < T)


# ----------------------------------------------------------------------------- API
def test_deployment_api_and_registry():
    X, y, T = _data()
    m = make_learner("OAHU", n_hidden_layers=1, n_hidden=8, embedding_dim=4, preprocessor=X)
    m.set_params(random_state=0).fit(T)
    pairs = np.array([[0, 1], [0, 59]])
    d = m.pair_distance(pairs)
    assert d.shape == (2,) and np.all((d >= 0) & (d <= 2))
    np.testing.assert_allclose(m.distance_matrix(X[:3], X[:5])[0, 1], d[0], atol=1e-6)
    v = m.verification_distance(pairs)
    assert np.all((v >= 0) & (v <= 1)) and m.similar(pairs, v[0] + 1e-9)[0]
    assert m.transform(X).shape == (2, len(X), 4)
    assert m.layer_distances(X[:3], X[:5]).shape == (2, 3, 5)
    assert m.predict(T).shape == (len(T),) and 0 <= m.score(T) <= 1
    assert m.score(T) > 0.7  # the trained metric separates the blobs better than chance
    assert np.mean(m.knn_classify(X, X, y, 3) == y) > 0.8
    with pytest.raises(ValueError, match="k must lie"):
        m.knn_classify(X, X, y, 0)


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
    assert halves.n_steps_ == whole.n_steps_ == len(T)  # fit counted its steps twice before


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
    with pytest.raises(ValueError, match="deployment"):
        OAHU(deployment="vote", preprocessor=X).fit(T)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(DataError):
        OAHU(preprocessor=bad).fit(T)
    with pytest.raises(DataError):
        OAHU(preprocessor=X).fit(np.zeros((0, 3), dtype=int))


def test_a_training_triplet_may_hold_no_evaluation_pair_among_any_two_items():
    """The LFW filter checked (a, p) and (a, n) but not (p, n)."""
    from tripletbench.studies.oahu.experiment import triplets_touching

    banned = {frozenset((1, 2)), frozenset((7, 9))}
    t = np.array([[1, 2, 5], [5, 1, 2], [0, 3, 4], [9, 8, 7], [4, 7, 9]])
    assert triplets_touching(t, banned).tolist() == [True, True, False, True, True]


@pytest.mark.slow
@pytest.mark.parametrize("learner", ["OAHU", "OASIS"])
def test_heldout_triplet_stats_are_the_same_gathered_in_chunks(learner):
    """harness.oahu_experiment.heldout_triplet_stats gathers the test triplets' points a chunk at
    a time (the whole (n, 3, d) array was an OAHU Table 3 job's memory peak): the accuracy is the
    same fraction, the mean distances the same values, for any chunk size."""
    from tripletbench.studies.oahu.experiment import heldout_triplet_stats

    X, y, T = _data()
    test_idx = np.arange(0, len(y), 2)
    # float64: a float32 network's distances move with the batch at float32 rounding (1.5e-8
    # relative measured between chunks of 1 and 500), BLAS's sums depending on the batch's shape
    kw = {"random_state": 0, "dtype": "float64"} if learner == "OAHU" else {"C": 0.1}
    model = make_learner(learner, **kw)
    model.fit(X[T])
    whole = heldout_triplet_stats(model, X, y[test_idx], test_idx, seed=3, n=500, chunk=500)
    for chunk in (1, 7, 499):
        part = heldout_triplet_stats(model, X, y[test_idx], test_idx, seed=3, n=500, chunk=chunk)
        assert part.keys() == whole.keys()
        assert part["test_triplet_accuracy"] == whole["test_triplet_accuracy"]
        for k in set(whole) - {"test_triplet_accuracy"}:
            assert part[k] == pytest.approx(whole[k], rel=1e-12)
    assert 0.5 < whole["test_triplet_accuracy"] <= 1  # it learned the classes' separation
    assert ("test_mean_d_pos" in whole) == (learner == "OAHU")
