"""Rule: what fit refuses, scoring refuses too, in every learner's public methods.

A model fitted on sound features once scored features x 1e200 as accuracy 0.0 and pair scores NaN
(the scale check ran in fit only), points of another d or of zero features gave numpy's
"matmul: dimension mismatch" or a reshape error, triplets whose positive is their negative were
scored (accuracy 0.0), a sparse point matrix reached learners with dense arithmetic (RDML:
"matmul: dimension mismatch"), and ``SDCA(lam=inf)`` was accepted. Each case is tried on every
learner the package registers and on each public scoring method."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from tripletbench.algorithms import ALGORITHMS, make_learner
from tripletbench.algorithms._params import is_number
from tripletbench.datasets.base import DataError
from tripletbench.datasets.constraints import sample_class_triplets

SMALL = {
    "LMNN": {"max_iter": 5},
    "ITML": {"max_iter": 5},
    "OASIS": {"n_epochs": 1},
    "Dissim-OASIS": {"n_epochs": 1},
    "SDCA": {"n_epochs": 1},
    "COMET": {"n_sweeps": 1},
    "SparseCOMET": {"n_sweeps": 1},
    "OAHU": {"n_hidden_layers": 1, "n_hidden": 8, "embedding_dim": 4},
}
TRIPLET_METHODS = ("score", "predict", "decision_function")


@pytest.fixture(scope="module")
def points():
    """60 points in 5-d, three classes, and 200 class triplets as (n, 3, d) points."""
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 20)
    X = rng.normal(size=(60, 5)) + 2.0 * (y == 1)[:, None]
    t = sample_class_triplets(y, 200, np.random.default_rng(1))
    return X, y, t


def fitted(name, X, y, t, **params):
    from tripletbench.harness.experiment import fit_learner

    model, _ = fit_learner(name, {**SMALL.get(name, {}), **params}, t, X, y, 0, verbose=False)
    return model


@pytest.fixture(scope="module")
def models(points):
    X, y, t = points
    return {name: fitted(name, X, y, t) for name in sorted(ALGORITHMS)}


def _bad(case, P):
    """The (n, 3, d) triplet points of ``case`` made from sound ones ``P``."""
    if case == "scale x 1e200":
        return P * 1e200, "too large"
    if case == "another d":
        return np.concatenate([P, P[:, :, :1]], axis=2), "6 features, but the model was fitted on 5"
    if case == "zero features":
        return P[:, :, :0], "zero features"
    if case == "NaN":
        Q = P.copy()
        Q[3, 1, 2] = np.nan
        return Q, "NaN or inf"
    return P[:, [0, 1, 1]], "the positive is the negative"  # "positive = negative"


CASES = ["scale x 1e200", "another d", "zero features", "NaN", "positive = negative"]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_scoring_refuses_what_fitting_refuses(points, models, name, case):
    X, _, t = points
    bad, message = _bad(case, X[t])
    model = models[name]
    for method in TRIPLET_METHODS:
        with pytest.raises(DataError, match=message):
            getattr(model, method)(bad)
    if case != "positive = negative":  # a pair (a, p) of one point is a pair like any other
        for method in ("pair_score", "pair_distance"):
            if hasattr(model, method):
                with pytest.raises(DataError, match=message):
                    getattr(model, method)(bad[:, :2])


RANKED = {  # a matrix of points for a ranking, and what its refusal says
    "scale x 1e200": (lambda X: X * 1e200, "too large"),
    "another d": (lambda X: np.hstack([X, X[:, :1]]), "6 features, but the model was fitted on 5"),
    "zero features": (lambda X: X[:, :0], "0 features, but the model was fitted on 5"),
    "NaN": (lambda X: np.where(np.arange(X.size).reshape(X.shape) == 7, np.nan, X), "NaN or inf"),
    "not 2-D": (lambda X: X[0], "2-D"),
}


@pytest.mark.parametrize("case", list(RANKED))
@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_rankings_refuse_what_fitting_refuses(points, models, name, case):
    """similarity_matrix (the tables' mAP, precision@k and Recall@K), prepare_database, and
    score(X, y) of the labelled learners check their matrices of points as the scored tuples'
    points are checked: x 1e200 once gave non-finite similarities, another d numpy's matmul
    error. Queries and database alike."""
    X, y, _ = points
    make, message = RANKED[case]
    bad = make(X)
    model = models[name]
    with pytest.raises(DataError, match=message):
        model.similarity_matrix(bad, X)
    with pytest.raises(DataError, match=message):
        model.similarity_matrix(X[:3], bad)
    if hasattr(model, "prepare_database"):
        with pytest.raises(DataError, match=message):
            model.prepare_database(bad)
        with pytest.raises(DataError, match=message):
            model.prepare_database(X)(bad)
    if case != "not 2-D" and getattr(model, "constraint_kind", "") == "labels":
        # scikit-learn's validate_data speaks first for d and NaN (its own clear ValueError)
        with pytest.raises(ValueError, match=r"too large|feature|NaN|infinity"):
            model.score(bad, y[: len(bad)])
    np.testing.assert_array_equal(model.similarity_matrix(X[:3], X), model.similarity_matrix(X[:3], X))


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_transform_refuses_a_scale_fit_refuses(points, models, name):
    X, _, _ = points
    model = models[name]
    if not hasattr(model, "transform"):
        pytest.skip(f"{name} has no transform of points")
    with pytest.raises(DataError, match="too large"):
        model.transform(X * 1e200)
    with pytest.raises(ValueError):
        model.transform(X[:, :4])


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_sparse_points_are_taken_or_refused_by_name_never_a_numpy_error(points, models, name):
    """A learner with a sparse path (the bilinear learners, SVM-relative) scores CSR and LIL
    points as the same dense ones; any other refuses them naming itself and the remedy."""
    import copy

    X, _, t = points
    model = models[name]
    dense = copy.copy(model)
    dense.preprocessor = X
    for kind in (sp.csr_matrix, sp.lil_matrix):
        probe = copy.copy(model)
        probe.preprocessor = kind(X)
        if model._sparse_ok:
            np.testing.assert_allclose(probe.decision_function(t), dense.decision_function(t),
                                       rtol=1e-10, atol=1e-12)  # fmt: skip
        else:
            with pytest.raises(DataError, match=f"{type(model).__name__} .*sparse.*toarray"):
                probe.score(t)


def test_rdml_with_a_sparse_preprocessor_is_refused_at_fit_by_name(points):
    from tripletbench.datasets.constraints import triplets_to_pairs

    X, _, t = points
    pairs, labels = triplets_to_pairs(t)
    for kind in (sp.csr_matrix, sp.lil_matrix):
        with pytest.raises(DataError, match="RDML pairs: .*sparse.*toarray"):
            make_learner("RDML", preprocessor=kind(X)).fit(pairs, labels)


def _numeric_params(name):
    model = make_learner(name)
    return [k for k, v in model.get_params(deep=False).items() if is_number(v)]


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_no_learner_accepts_a_nan_or_infinite_hyperparameter(points, name):
    """Every hyperparameter given as a number, in every learner: NaN, inf and -inf refused at fit
    and by the config check's call (``_check_params``), naming the hyperparameter."""
    X, y, t = points
    keys = _numeric_params(name)
    for key in keys:
        for value in (np.nan, np.inf, -np.inf):
            model = make_learner(name, **{key: value})
            check = getattr(model, "_check_params", model._check_common_params)
            with pytest.raises(ValueError, match=f"{key} must be finite"):
                check()
    if "lam" in keys:
        with pytest.raises(ValueError, match="lam must be finite"):
            fitted(name, X, y, t, lam=np.inf)


def test_sdca_lam_inf_is_refused_by_the_config_check():
    import copy

    import yaml
    from tripletbench.harness.config import ConfigError, check_config

    from tests.pipeline import ROOT

    cfg = yaml.safe_load((ROOT / "config/ci.yaml").read_text())
    blocks = [b for b, v in cfg.items() if isinstance(v, dict) and "SDCA" in v.get("methods", {})]
    assert blocks
    bad = copy.deepcopy(cfg)
    methods = bad[blocks[0]]["methods"]
    methods["SDCA"]["grid"]["lam"] = [0.005, float("inf")]
    with pytest.raises(ConfigError, match=r"grid\.lam\[1\]: .*lam must be finite"):
        check_config(bad)
