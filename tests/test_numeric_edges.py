"""Features at the edge of float64 are refused, never reported.

Every learner is fitted on a small random dataset scaled by 1e300, 1e-300, 1e100 and 1e-100:
either it ranks as on the unscaled data (scale-invariant learners, inside their range), or its
fit raises :class:`~tripletbench.datasets.base.DataError` naming the magnitude and the remedy; never a silent
chance-level model."""

import numpy as np
import pytest
import scipy.sparse as sp

from tripletbench.algorithms import ALGORITHMS, make_learner
from tripletbench.algorithms.base import DEFAULT_FEATURE_SCALE_RANGE, class_triplet_accuracy
from tripletbench.algorithms.supervised import ITML_Supervised
from tripletbench.datasets.base import DataError
from tripletbench.datasets.constraints import sample_class_triplets
from tripletbench.harness.experiment import fit_learner

SCALES = (1e300, 1e-300, 1e100, 1e-100)
REMEDY = "Standardise or scale the features"


def blobs(seed=0, n=60, d=4, k=3):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(k), n // k)
    X = rng.normal(size=(n, d)) + 3 * np.eye(k, d)[y]
    return X, y


def params_of(name):
    if name in ("ITML", "LMNN"):
        return {"max_iter": 30}
    if name == "OAHU":
        return {"n_epochs": 1}
    return {}


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_every_learner_at_the_edge_of_float64_ranks_as_unscaled_or_refuses(name):
    X, y = blobs()
    t = sample_class_triplets(y, 200, np.random.default_rng(0))
    reference = None
    for scale in SCALES:
        Xs = X * scale
        try:
            model, _ = fit_learner(name, params_of(name), t, Xs, y, seed=0, verbose=False)
        except DataError as err:
            message = str(err)
            assert "largest absolute feature value" in message and REMEDY in message, message
            assert f"{np.abs(Xs).max():.3g}" in message  # names the magnitude it found
            continue
        # it learned: the scale must not change its ranking (scale-invariant), nor its accuracy
        if reference is None:
            reference, _ = fit_learner(name, params_of(name), t, X, y, seed=0, verbose=False)
        S = model.similarity_matrix(Xs, Xs)
        S0 = reference.similarity_matrix(X, X)
        assert np.all(np.isfinite(S)), (name, scale)
        same = np.argsort(-S, axis=1, kind="stable") == np.argsort(-S0, axis=1, kind="stable")
        assert same.mean() > 0.99, (name, scale, same.mean())
        assert class_triplet_accuracy(model.similarity_matrix, Xs, y) == pytest.approx(
            class_triplet_accuracy(reference.similarity_matrix, X, y), abs=1e-3
        ), (name, scale)


@pytest.mark.parametrize("name", ["Eucl", "RCA"])
def test_the_scale_invariant_learners_work_at_1e_minus_100(name):
    X, y = blobs(1)
    t = sample_class_triplets(y, 200, np.random.default_rng(1))
    small, _ = fit_learner(name, {}, t, X * 1e-100, y, seed=0, verbose=False)
    unit, _ = fit_learner(name, {}, t, X, y, seed=0, verbose=False)
    assert class_triplet_accuracy(small.similarity_matrix, X * 1e-100, y) == pytest.approx(
        class_triplet_accuracy(unit.similarity_matrix, X, y)
    )


@pytest.mark.parametrize("scale", [1e13, 1e-13, 1e300])
def test_partial_fit_sparse_and_supervised_paths_refuse_the_same_way(scale):
    X, y = blobs(2)
    t = sample_class_triplets(y, 100, np.random.default_rng(2))
    # partial_fit (the online path) and a CSR preprocessor (the sparse engine)
    with pytest.raises(DataError, match=REMEDY):
        make_learner("OASIS", preprocessor=X * scale).partial_fit(t)
    with pytest.raises(DataError, match=REMEDY):
        make_learner("SDCA", preprocessor=sp.csr_matrix(X * scale)).fit(t)
    # labelled points: the *_Supervised variants and OPML's partial_fit
    with pytest.raises(DataError, match=REMEDY):
        ITML_Supervised(random_state=0).fit(X * scale, y)
    with pytest.raises(DataError, match=REMEDY):
        make_learner("OPML").partial_fit(X * scale, y)


def test_the_range_is_wide_for_real_features_and_its_bounds_are_inclusive():
    low, high = DEFAULT_FEATURE_SCALE_RANGE
    X, y = blobs(3)
    X = X / np.abs(X).max()
    t = sample_class_triplets(y, 100, np.random.default_rng(3))
    for scale in (low, high, 255.0, 1e6):  # pixel values, raw counts: accepted
        make_learner("OASIS", preprocessor=X * scale).fit(t)
    # an all-zero feature matrix is not a scale problem: refused as "the same vector"
    with pytest.raises(DataError, match="same vector"):
        make_learner("OASIS", preprocessor=np.zeros_like(X)).fit(t)
