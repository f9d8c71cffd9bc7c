"""Shared API checks over every learner, and the metric-learn adapters."""

import numpy as np
import pytest

from tripletbench.algorithms import ALGORITHMS, make_learner
from tripletbench.algorithms.base import MahalanobisMixin
from tripletbench.datasets.base import DataError
from tripletbench.datasets.constraints import sample_class_triplets
from tripletbench.harness.experiment import fit_learner


def blobs(seed=0, n=90, d=4, k=3):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(k), n // k)
    X = rng.normal(size=(n, d)) + 3 * np.eye(k, d)[y]
    return X, y


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_every_learner_learns_from_triplets_and_scores_consistently(name):
    X, y = blobs()
    t = sample_class_triplets(y, 600, np.random.default_rng(0))
    params = {"max_iter": 30} if name in ("ITML", "LMNN") else {}
    if name == "OAHU":  # float32 by default: batch-dependent rounding at 1e-7; consistency in float64
        params = {"dtype": "float64"}
    model, timing = fit_learner(name, params, t, X, y, seed=0)
    assert timing["fit_wall_s"] >= 0
    dec = model.decision_function(t)
    assert dec.shape == (600,) and np.all(np.isfinite(dec))
    np.testing.assert_array_equal(model.predict(t), np.where(dec > 0, 1, -1))
    assert model.score(t) == pytest.approx(np.mean(dec > 0))
    assert model.score(t) > 0.8  # well-separated blobs
    S = model.similarity_matrix(X[:5], X)
    pairs = np.column_stack([np.repeat(np.arange(5), len(X)), np.tile(np.arange(len(X)), 5)])
    if isinstance(model, MahalanobisMixin):  # pair_score = -d_M (metric-learn), ranking: -d_M^2
        np.testing.assert_allclose(model.pair_score(X[pairs]), -model.pair_distance(X[pairs]))
        expected = -model.pair_distance(X[pairs]) ** 2
    else:
        expected = model.pair_score(X[pairs])
    np.testing.assert_allclose(S.ravel(), expected, rtol=1e-9, atol=1e-9)
    if hasattr(model, "M_"):
        assert np.linalg.eigvalsh((model.M_ + model.M_.T) / 2).min() > -1e-8
        L = model.components()
        np.testing.assert_allclose(L.T @ L, (model.M_ + model.M_.T) / 2, atol=1e-8)


def test_unknown_algorithm_and_hyperparameter_are_named():
    with pytest.raises(KeyError, match="unknown algorithm 'OASYS'"):
        make_learner("OASYS")
    with pytest.raises(KeyError, match=r"SDCA has no hyperparameter\(s\) \['lambda'\]"):
        make_learner("SDCA", **{"lambda": 0.1})


def test_bad_constraint_input_is_named():
    m = make_learner("OASIS")
    with pytest.raises(DataError, match="need preprocessor"):
        m.fit(np.zeros((3, 3), dtype=int))
    with pytest.raises(DataError, match="NaN"):
        m.fit(np.full((2, 3, 2), np.nan))
    with pytest.raises(DataError, match="zero usable triplets"):
        m.fit(np.zeros((0, 3, 2)))


def test_rca_ignores_a_constant_feature():
    X, y = blobs()
    X = np.column_stack([X, np.full(len(X), 9.0)])
    t = sample_class_triplets(y, 300, np.random.default_rng(1))
    model, _ = fit_learner("RCA", {}, t, X, y, seed=0)
    assert np.all(np.isfinite(model.M_))
    np.testing.assert_array_equal(model.M_[-1], 0.0)


def test_rca_distances_are_invariant_to_an_invertible_linear_map_of_the_features():
    # M = inverse within-chunklet covariance: for X' = X A, M' = A^-1 M A^-T, so every distance
    # (x - y)^T M (x - y) is unchanged. The SDCA Table 2 caption rests on this: no scaling of the
    # svmguide4 files moves RCA's mAP.
    X, y = blobs(d=5)
    A = np.diag([1e3, 1.0, 1e-2, 7.0, 0.5]) @ np.random.default_rng(4).normal(size=(5, 5))
    t = sample_class_triplets(y, 300, np.random.default_rng(1))
    m1, _ = fit_learner("RCA", {}, t, X, y, seed=0)
    m2, _ = fit_learner("RCA", {}, t, X @ A, y, seed=0)
    pairs = np.stack([X[t[:, 0]], X[t[:, 2]]], axis=1)
    d1 = m1.pair_distance(pairs)
    d2 = m2.pair_distance(pairs @ A)
    np.testing.assert_allclose(d2, d1, rtol=1e-5)  # A has condition ~1e5: float64 rounding


def test_rca_with_fewer_chunklet_degrees_of_freedom_than_features_uses_pca_first():
    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(3), 6)  # 18 points in 3 chunklets: within-chunklet rank <= 15
    X = rng.normal(size=(18, 30)) + 4 * np.eye(3, 30)[y]
    chunks = y.copy()
    model = make_learner("RCA").fit(X, chunks)
    assert model.n_components_ == 15
    assert np.all(np.isfinite(model.M_))
    assert np.linalg.matrix_rank(model.M_) == 15
    assert np.linalg.eigvalsh(model.M_).min() > -1e-8
    # within the PCA subspace it is RCA: M_r = inverse within-chunklet covariance there
    from sklearn.decomposition import PCA

    P = PCA(n_components=15, svd_solver="full").fit(X).components_
    Z = X @ P.T
    C = sum(np.cov(Z[y == c].T, bias=True) * 6 for c in range(3)) / 18
    np.testing.assert_allclose(P @ model.M_ @ P.T, np.linalg.inv(C), rtol=1e-6)


def test_lmnn_subsamples_to_max_points():
    X, y = blobs(n=120)
    t = sample_class_triplets(y, 500, np.random.default_rng(0))
    model, _ = fit_learner("LMNN", {"max_points": 30, "max_iter": 10}, t, X, y, seed=0)
    assert model.n_points_ == 30


@pytest.mark.parametrize("name", ["OASIS", "LEGO", "RDML"])
def test_partial_fit_on_two_halves_equals_fit_on_the_stream(name):
    X, y = blobs()
    t = sample_class_triplets(y, 400, np.random.default_rng(2))
    if name == "OASIS":
        kw = {"sampling": "sequential", "n_epochs": 1, "preprocessor": X}
        whole = make_learner(name, **kw).fit(t)
        parts = make_learner(name, **kw).partial_fit(t[:150]).partial_fit(t[150:])
        np.testing.assert_allclose(parts.W_, whole.W_, rtol=1e-12, atol=1e-12)
    else:
        from tripletbench.datasets.constraints import triplets_to_pairs

        pairs, labels = triplets_to_pairs(t)
        whole = make_learner(name, preprocessor=X).fit(pairs, labels)
        parts = make_learner(name, preprocessor=X)
        if name == "LEGO":  # the targets come from the first pairs; give both the same
            parts.targets_ = whole.targets_
        parts.partial_fit(pairs[:300], labels[:300]).partial_fit(pairs[300:], labels[300:])
        np.testing.assert_allclose(parts.M_, whole.M_, rtol=1e-10, atol=1e-12)
