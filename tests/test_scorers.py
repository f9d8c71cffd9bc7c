"""MAP@R and R-precision (pytorch-metric-learning's definitions) on hand-computed cases and against
the library's own formula; the scikit-learn scorers against direct computations, and inside
GridSearchCV."""

import itertools

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from tripletbench.algorithms import ITML, OASIS
from tripletbench.algorithms.base import class_triplet_accuracy
from tripletbench.algorithms.supervised import ITML_Supervised, OASIS_Supervised, SDCA_Supervised
from tripletbench.datasets.constraints import sample_class_triplets, triplets_to_pairs
from tripletbench.evaluation.retrieval import map_at_r, mean_average_precision, r_precision_rows
from tripletbench.evaluation.scorers import (
    SCORERS,
    map_at_r_scorer,
    map_scorer,
    precision_at_k_scorer,
    r_precision_scorer,
    recall_at_k_scorer,
    triplet_accuracy_scorer,
)


def neg_abs(A, B):
    """-|a - b| for 1-D points stored as (n, 1)."""
    return -np.abs(A[:, None, 0] - B[None, :, 0])


# --- MAP@R and R-precision: hand cases -------------------------------------------------------


def test_r_metrics_of_one_ranking_by_hand():
    # ranking (scores decreasing) with relevance 1 0 1 1 0: R = 3, the first 3 hold 2 relevant;
    # MAP@R = (P(1) + P(3)) / R = (1 + 2/3) / 3 = 5/9; R-precision = 2/3
    scores = np.array([[5.0, 4.0, 3.0, 2.0, 1.0]])
    rel = np.array([[1, 0, 1, 1, 0]], dtype=bool)
    m, r = r_precision_rows(scores, rel)
    assert m[0] == pytest.approx(5 / 9) and r[0] == pytest.approx(2 / 3)
    # columns out of rank order: scores 2 6 1 3 5 4 rank the columns 1 4 5 3 0 2, whose
    # relevance 0 1 1 0 0 1 gives R = 3, first 3 = 0 1 1: MAP@R = (1/2 + 2/3) / 3 = 7/18
    scores = np.array([[2.0, 6.0, 1.0, 3.0, 5.0, 4.0]])
    rel = np.array([[0, 0, 1, 0, 1, 1]], dtype=bool)
    m, r = r_precision_rows(scores, rel)
    assert m[0] == pytest.approx(7 / 18) and r[0] == pytest.approx(2 / 3)


def test_r_metrics_leave_one_out_by_hand():
    # points 0, 1, 3, 6 with labels a a b a, similarity -|x - x'|, each point queries the others:
    #   x=0 (a): 1(a) 3(b) 6(a), R=2 -> first 2 = a b: R-prec 1/2, MAP@R (1/1)/2 = 1/2
    #   x=1 (a): 0(a) 3(b) 6(a), R=2 -> the same: 1/2, 1/2
    #   x=3 (b): no other b: R=0, left out
    #   x=6 (a): 3(b) 1(a) 0(a), R=2 -> b a: R-prec 1/2, MAP@R (1/2)/2 = 1/4
    X = np.array([[0.0], [1.0], [3.0], [6.0]])
    y = np.array(["a", "a", "b", "a"])
    out = map_at_r(neg_abs, X, y, X, y, exclude_self=True, batch_size=3)
    assert out["MAP@R"] == pytest.approx((0.5 + 0.5 + 0.25) / 3)
    assert out["R-precision"] == pytest.approx(0.5)
    assert out["queries_without_relevant"] == 1


def test_equal_scores_rank_by_database_index():
    rel = np.array([[False, True, True]])
    m, r = r_precision_rows(np.zeros((1, 3)), rel)  # R = 2, first two by index: 0 1
    assert r[0] == pytest.approx(0.5) and m[0] == pytest.approx(0.25)


def test_no_query_with_a_relevant_item_is_an_error():
    X = np.arange(3.0)[:, None]
    with pytest.raises(ValueError, match="MAP@R is undefined"):
        map_at_r(neg_abs, X, np.array([0, 1, 2]), X, np.array([0, 1, 2]), exclude_self=True)


def pml_formula(S, y_query, y_db, same_source):
    """pytorch-metric-learning 2.x's computation as written in its accuracy_calculator.py:
    k-NN labels up to k = max_bin_count, a relevance mask of the first R columns per query
    (R = label count in the reference set, less 1 with the query in it), lone queries dropped,
    then r_precision and mean_average_precision(at_r=True)."""
    labels, counts = np.unique(y_db, return_counts=True)
    count = dict(zip(labels.tolist(), counts.tolist()))
    R = np.array([count.get(c, 0) - int(same_source) for c in y_query.tolist()])
    k = int(counts.max()) - int(same_source)
    knn = np.argsort(-S, axis=1, kind="stable")[:, :k]
    knn_labels = y_db[knn]
    keep = R > 0
    knn_labels, yq, R = knn_labels[keep], y_query[keep], R[keep]
    mask = np.arange(k)[None, :] < R[:, None]
    same = knn_labels == yq[:, None]
    r_precision = np.mean(np.sum(same * mask, axis=1) / np.sum(mask, axis=1))
    equality = same * mask
    precision_at_ks = np.cumsum(equality, axis=1) * equality / np.arange(1, k + 1)
    map_r = np.mean(np.sum(precision_at_ks * mask, axis=1) / np.sum(mask, axis=1))
    return map_r, r_precision


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("same_source", [True, False])
def test_map_at_r_matches_the_library_formula(seed, same_source):
    rng = np.random.default_rng(seed)
    X, y = rng.normal(size=(60, 3)), rng.integers(4, size=60)

    def score(A, B):
        return -((A[:, None] - B[None]) ** 2).sum(-1)

    if same_source:
        out = map_at_r(score, X, y, X, y, exclude_self=True, batch_size=7)
        S = score(X, X)
        np.fill_diagonal(S, -np.inf)
        ref = pml_formula(S, y, y, True)
    else:
        out = map_at_r(score, X[:20], y[:20], X[20:], y[20:], batch_size=7)
        ref = pml_formula(score(X[:20], X[20:]), y[:20], y[20:], False)
    assert out["MAP@R"] == pytest.approx(ref[0], abs=1e-12)
    assert out["R-precision"] == pytest.approx(ref[1], abs=1e-12)


# --- the scorers -----------------------------------------------------------------------------


def blobs(seed=0, n=45, d=3, k=3):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(k), n // k)
    return rng.normal(size=(n, d)) + 1.5 * np.eye(k, d)[y], y


@pytest.fixture(scope="module")
def fitted():
    X, y = blobs()
    return X, y, OASIS_Supervised(n_constraints=300, n_epochs=2, random_state=0).fit(X, y)


def test_retrieval_scorers_are_leave_one_out_metrics(fitted):
    X, y, model = fitted
    S = model.similarity_matrix(X, X)
    n = len(y)
    ap, p3, r2 = [], [], []
    for i in range(n):
        others = np.delete(np.arange(n), i)
        order = others[np.argsort(-S[i, others], kind="stable")]
        rel = y[order] == y[i]
        hits = np.cumsum(rel)
        ap.append(np.mean(hits[rel] / (np.flatnonzero(rel) + 1)))  # continuous scores: no ties
        p3.append(rel[:3].mean())
        r2.append(rel[:2].any())
    assert map_scorer(model, X, y) == pytest.approx(np.mean(ap), abs=1e-12)
    assert map_scorer(model, X, y) == pytest.approx(
        mean_average_precision(model.similarity_matrix, X, y, X, y, exclude_self=True)[0]
    )
    assert precision_at_k_scorer(3)(model, X, y) == pytest.approx(np.mean(p3))
    assert recall_at_k_scorer(2)(model, X, y) == pytest.approx(np.mean(r2))
    out = map_at_r(model.similarity_matrix, X, y, X, y, exclude_self=True)
    assert map_at_r_scorer(model, X, y) == out["MAP@R"]
    assert r_precision_scorer(model, X, y) == out["R-precision"]
    with pytest.raises(ValueError, match="k must be an int in"):
        precision_at_k_scorer(n)(model, X, y)


@pytest.mark.parametrize("kind", ["bilinear", "mahalanobis"])
def test_triplet_accuracy_counts_every_class_triplet(kind):
    X, y = blobs(seed=1, n=18)
    cls = OASIS_Supervised if kind == "bilinear" else ITML_Supervised
    params = {"n_epochs": 2} if kind == "bilinear" else {"max_iter": 20}
    model = cls(n_constraints=100, random_state=0, **params).fit(X, y)
    S = model.similarity_matrix(X, X)
    ok = total = 0
    for a, p, q in itertools.permutations(range(len(y)), 3):
        if y[a] == y[p] and y[a] != y[q]:
            total += 1
            ok += S[a, p] > S[a, q]
    assert triplet_accuracy_scorer(model, X, y) == pytest.approx(ok / total, abs=0)
    assert model.score(X, y) == pytest.approx(ok / total, abs=0)
    assert class_triplet_accuracy(model.similarity_matrix, X, y, batch_size=5) == ok / total


def test_triplet_accuracy_ties_count_as_wrong_and_needs_two_classes():
    # 1-D points 0, 0, 1 with labels a a b: anchor 0 -> (p = 1 at 0, n at 1): right; anchor 1
    # likewise; anchor 2 (b) has no positive. 2 triplets, both right. With the negative moved
    # onto the anchors, every triplet ties: accuracy 0.
    X, y = np.array([[0.0], [0.0], [1.0]]), np.array([0, 0, 1])
    assert class_triplet_accuracy(neg_abs, X, y) == 1.0
    assert class_triplet_accuracy(neg_abs, np.zeros((3, 1)), y) == 0.0
    with pytest.raises(ValueError, match="no class triplet"):
        class_triplet_accuracy(neg_abs, X, np.array([0, 1, 2]))


def test_grid_search_with_every_scorer_equals_a_manual_split():
    X, y = blobs(seed=2, n=60)
    cv = KFold(3, shuffle=True, random_state=0)
    est = OASIS_Supervised(n_constraints=200, n_epochs=2, random_state=0)
    search = GridSearchCV(est, {"C": [0.01, 0.1]}, scoring=SCORERS, refit="mAP", cv=cv)
    search.fit(X, y)
    for name in SCORERS:
        values = search.cv_results_[f"split0_test_{name}"]
        assert np.all(np.isfinite(values)), name
    train, test = next(cv.split(X, y))
    manual = clone(est).set_params(C=0.1).fit(X[train], y[train])
    for name, scorer in SCORERS.items():
        assert search.cv_results_[f"split0_test_{name}"][1] == pytest.approx(
            scorer(manual, X[test], y[test]), abs=1e-12
        ), name
    assert search.best_estimator_.n_features_in_ == 3


def test_grid_search_over_a_pipeline_scores_the_learner_on_the_transformed_fold():
    """GridSearchCV(make_pipeline(StandardScaler(), SDCA_Supervised(...)), scoring=SCORERS) gave
    NaN for every point and picked one silently (the scorers read the Pipeline's
    similarity_matrix, which it lacks). Now each score is the learner's on the fold as the
    Pipeline sends it (scaled by the scaler fitted on the training folds); an estimator that is
    no learner is refused by name."""
    X, y = blobs(seed=4, n=60)
    X = X * [1.0, 50.0, 0.02]  # scales a scaler changes
    cv = KFold(3, shuffle=True, random_state=0)
    pipe = make_pipeline(StandardScaler(), SDCA_Supervised(n_constraints=200, random_state=0))
    search = GridSearchCV(pipe, {"sdca_supervised__lam": [0.01, 0.1]}, scoring=SCORERS,
                          refit="mAP", cv=cv, error_score="raise")  # fmt: skip
    search.fit(X, y)
    for name in SCORERS:
        assert np.all(np.isfinite(search.cv_results_[f"mean_test_{name}"])), name
    train, test = next(cv.split(X, y))
    scaler = StandardScaler().fit(X[train])
    manual = SDCA_Supervised(n_constraints=200, random_state=0, lam=0.1).fit(
        scaler.transform(X[train]), y[train]
    )
    assert search.cv_results_["split0_test_mAP"][1] == pytest.approx(
        map_scorer(manual, scaler.transform(X[test]), y[test]), abs=1e-12
    )
    with pytest.raises(TypeError, match="StandardScaler has no similarity_matrix"):
        map_scorer(make_pipeline(StandardScaler()).fit(X), X, y)


def test_grid_search_on_pairs_scores_roc_auc_and_on_triplets_accuracy():
    X, y = blobs(seed=3, n=60)
    t = sample_class_triplets(y, 300, np.random.default_rng(0))
    pairs, py = triplets_to_pairs(t)
    search = GridSearchCV(ITML(max_iter=20, preprocessor=X), {"gamma": [0.5, 1.0]}, cv=3)
    search.fit(pairs, py)  # default scoring: ITML.score(pairs, y) = ROC AUC
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    train, test = next(KFold(3).split(pairs))
    m = ITML(max_iter=20, gamma=0.5, preprocessor=X).fit(pairs[train], py[train])
    auc = roc_auc_score(py[test], m.decision_function(pairs[test]))
    assert search.cv_results_["split0_test_score"][0] == pytest.approx(auc)
    oasis = OASIS(n_epochs=2, random_state=0, preprocessor=X)
    search = GridSearchCV(oasis, {"C": [0.01, 0.1]}, cv=3)
    search.fit(t)  # default scoring: triplet accuracy
    assert np.all(np.isfinite(search.cv_results_["mean_test_score"]))
    split = next(KFold(3).split(t))
    m = OASIS(n_epochs=2, C=0.01, random_state=0, preprocessor=X).fit(t[split[0]])
    assert search.cv_results_["split0_test_score"][0] == pytest.approx(
        triplet_accuracy_scorer(m, t[split[1]])
    )
