"""The learner API against metric-learn's meanings: pair_score / pair_distance,
get_metric, components_, callable preprocessors, pair classifiers with a threshold, the
*_Supervised variants, NotFittedError, partial_fit."""

import copy

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.metrics import roc_auc_score
from sklearn.neighbors import KNeighborsClassifier

from tripletbench.algorithms import ALGORITHMS, LEGO, OPML, RDML, make_learner
from tripletbench.algorithms import supervised as sv
from tripletbench.algorithms.base import BilinearMixin, MahalanobisMixin, PairClassifierMixin
from tripletbench.datasets.base import DataError
from tripletbench.datasets.constraints import sample_class_triplets, triplets_to_pairs
from tripletbench.evaluation.retrieval import retrieval_scores
from tripletbench.harness.experiment import fit_learner

FAST = {
    "ITML": {"max_iter": 30},
    "LMNN": {"max_iter": 30},
    "OAHU": {
        "n_hidden_layers": 1, "n_hidden": 8, "embedding_dim": 4, "dtype": "float64",
        "device": "cpu",
    },
    "COMET": {"n_sweeps": 2},
    "SparseCOMET": {"n_sweeps": 2},
}
SUPERVISED_FAST = {"OAHU": FAST["OAHU"], "ITML": {"max_iter": 20}}


def blobs(seed=0, n=45, d=3, k=3):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(k), n // k)
    return rng.normal(size=(n, d)) + 2.0 * np.eye(k, d)[y], y


@pytest.fixture(scope="module")
def data():
    X, y = blobs()
    return X, y, sample_class_triplets(y, 200, np.random.default_rng(0))


@pytest.fixture(scope="module")
def models(data):
    X, y, t = data
    return {
        name: fit_learner(name, FAST.get(name, {}), t, X, y, seed=0)[0] for name in ALGORITHMS
    }


def all_pairs(X):
    n = len(X)
    return np.column_stack([np.repeat(np.arange(n), n), np.tile(np.arange(n), n)])


MAHALANOBIS = sorted(n for n, c in ALGORITHMS.items() if issubclass(c, MahalanobisMixin))
BILINEAR = sorted(n for n, c in ALGORITHMS.items() if issubclass(c, BilinearMixin))


# --- pair_score, pair_distance, decision_function --------------------------------------------


@pytest.mark.parametrize("name", MAHALANOBIS)
def test_mahalanobis_pair_score_is_minus_the_distance(models, data, name):
    X, _, t = data
    m = models[name]
    P = all_pairs(X[:6])
    D = X[P[:, 0]] - X[P[:, 1]]
    d = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", D, m.M_, D), 0))  # direct, no factor
    np.testing.assert_allclose(m.pair_distance(X[P]), d, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(m.pair_score(X[P]), -d, rtol=1e-10, atol=1e-12)
    d_ap = m.pair_distance(X[t[:, [0, 1]]])
    d_an = m.pair_distance(X[t[:, [0, 2]]])
    np.testing.assert_allclose(m.decision_function(X[t]), d_an - d_ap, rtol=1e-10, atol=1e-12)
    # the tables rank by similarity_matrix = -d^2: the same order, hence the same mAP
    pd = m.pair_distance(X[all_pairs(X)]).reshape(len(X), len(X))
    S = m.similarity_matrix(X, X)
    for i in range(len(X)):
        np.testing.assert_array_equal(np.argsort(-S[i], kind="stable")[1:],
                                      np.argsort(pd[i], kind="stable")[1:])
    y = data[1]
    ap_sq = retrieval_scores(m.similarity_matrix, X, y, X, y, exclude_self=True)["ap"]
    ap_d = retrieval_scores(lambda A, B: -pd, X, y, X, y, exclude_self=True)["ap"]
    np.testing.assert_array_equal(ap_sq, ap_d)


@pytest.mark.parametrize("name", BILINEAR)
def test_bilinear_pair_score_and_no_distance(models, data, name):
    X, _, _ = data
    m = models[name]
    P = all_pairs(X[:5])
    expected = np.einsum("ij,jk,ik->i", X[P[:, 0]], m.W_, X[P[:, 1]])
    if name == "Dissim-OASIS":  # ranks by -d_W(x, y) = -(x - y)^T W (x - y)
        D = X[P[:, 0]] - X[P[:, 1]]
        expected = -np.einsum("ij,jk,ik->i", D, m.W_, D)
    np.testing.assert_allclose(m.pair_score(X[P]), expected, rtol=1e-10, atol=1e-12)
    assert not hasattr(m, "pair_distance")
    with pytest.raises(AttributeError, match="not a distance: it has no pair_distance"):
        m.pair_distance(X[P])
    assert m.components_ is m.W_
    # no distance, so no get_metric (a similarity as a neighbours metric= ranks backwards);
    # get_similarity is pair_score
    assert not hasattr(m, "get_metric")
    with pytest.raises(AttributeError, match="not a distance: it has no get_metric.*get_similarity"):
        m.get_metric()
    f = m.get_similarity()
    got = np.array([f(X[i], X[j]) for i, j in P])
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


def test_get_metric_is_always_a_distance_for_a_neighbours_estimator(models, data):
    """metric-learn's get_metric is a distance, and scikit-learn's neighbours estimators take it
    as one: SDCA's similarity there scored 0.000 on digits. Every learner that has get_metric
    gives a distance (zero on a point and itself, symmetric for the Mahalanobis ones, and a kNN
    classifier with it as good as its own ranking); the bilinear ones refuse it."""
    X, y, _ = data
    for name, m in models.items():
        if isinstance(m, BilinearMixin):
            assert not hasattr(m, "get_metric"), name
            continue
        f = m.get_metric()
        d = np.array([f(X[0], X[j]) for j in range(1, 10)])
        assert (d >= -1e-9).all(), name
        if isinstance(m, MahalanobisMixin):
            assert f(X[0], X[0]) == pytest.approx(0.0, abs=1e-6), name
            assert f(X[1], X[0]) == pytest.approx(d[0]), name
            knn = KNeighborsClassifier(n_neighbors=3, metric=f).fit(X[::2], y[::2])
            S = m.similarity_matrix(X[1::2], X[::2])  # the learner's own ranking, 3 nearest
            votes = y[::2][np.argsort(-S, axis=1, kind="stable")[:, :3]]
            own = np.mean([np.bincount(v).argmax() == t for v, t in zip(votes, y[1::2])])
            assert knn.score(X[1::2], y[1::2]) == pytest.approx(own, abs=0.1), name


# --- get_metric, components_, transform -------------------------------------------------------


@pytest.mark.parametrize("name", ["Eucl", "ITML", "LEGO", "LMNN", "RCA", "OAHU", "SVM-relative"])
def test_get_metric_is_the_distance_and_is_frozen(models, data, name):
    X, y, t = data
    m = copy.deepcopy(models[name])
    f = m.get_metric()
    P = all_pairs(X[:4])
    P = P[P[:, 0] != P[:, 1]]
    got = np.array([f(X[i], X[j]) for i, j in P])
    np.testing.assert_allclose(got, m.pair_distance(X[P]), rtol=1e-9, atol=1e-12)
    if name != "SVM-relative":  # its pair_distance refuses a pair of one point
        assert f(X[0], X[0]) == pytest.approx(0.0, abs=1e-7)
    if isinstance(m, MahalanobisMixin):
        assert f(X[0], X[1], squared=True) == pytest.approx(f(X[0], X[1]) ** 2)
        knn = KNeighborsClassifier(n_neighbors=3, metric=f).fit(X, y)
        assert knn.score(X, y) > 0.8
    before = f(X[0], X[5])
    refit, _ = fit_learner(name, FAST.get(name, {}), t[:50], X * 3.0, y, seed=1)
    m.__dict__.update(refit.__dict__)  # the learner changes; f must not
    if name != "Eucl":  # M = I whatever the data
        assert m.pair_distance(X[[[0, 5]]])[0] != pytest.approx(before)
    assert f(X[0], X[5]) == before
    with pytest.raises(ValueError, match="1-D points"):
        f(X[:2], X[1])


def test_components_factor_m_follow_partial_fit_and_leave_dict_unchanged(data):
    X, y, t = data
    pairs, py = triplets_to_pairs(t)
    m = LEGO(preprocessor=X).fit(pairs[:100], py[:100])
    L = m.components_
    np.testing.assert_allclose(L.T @ L, m.M_, atol=1e-10)
    with pytest.raises(ValueError):
        L[0, 0] = 1.0  # read-only
    before = dict(m.__dict__)
    np.testing.assert_allclose(m.transform(X), X @ L.T)
    assert m.__dict__.keys() == before.keys()
    m.partial_fit(pairs[100:], py[100:])  # M_ changes in place
    np.testing.assert_allclose(m.components_.T @ m.components_, m.M_, atol=1e-10)
    assert not np.allclose(m.components_, L)
    M = m.get_mahalanobis_matrix()
    M[:] = 0.0
    assert np.any(m.M_ != 0)  # a copy, as metric-learn's
    with pytest.raises(ValueError, match="X has 2 features, but LEGO is expecting 3 features"):
        m.transform(X[:, :2])


# --- preprocessors ---------------------------------------------------------------------------


def test_a_callable_preprocessor_gives_the_same_model_as_the_points(data):
    X, _, t = data
    ids = np.array([f"img{i:03d}" for i in range(len(X))])
    lookup = {s: i for i, s in enumerate(ids)}

    def load(keys):
        return X[[lookup[k] for k in keys]]

    a = make_learner("OASIS", n_epochs=2, random_state=0).fit(X[t])
    b = make_learner("OASIS", n_epochs=2, random_state=0, preprocessor=load).fit(ids[t])
    np.testing.assert_array_equal(a.W_, b.W_)
    pairs, py = triplets_to_pairs(t)
    c = LEGO().fit(X[pairs], py)
    d = LEGO(preprocessor=load).fit(ids[pairs], py)
    np.testing.assert_allclose(c.M_, d.M_, rtol=1e-12)
    np.testing.assert_allclose(d.pair_score(ids[pairs[:5]]), c.pair_score(X[pairs[:5]]))
    with pytest.raises(DataError, match="one row of features per indicator"):
        LEGO(preprocessor=lambda k: X[:2]).fit(ids[pairs], py)


# --- pair classifiers ------------------------------------------------------------------------


def identity_rdml():
    """An RDML fitted, then set to M = I: pairs (0, k) of the points 0, 1, 2, 3, 4 on a line
    are at distance k."""
    P = np.array([[[0.0], [1.0]], [[0.0], [2.0]]])
    m = RDML().fit(P, np.array([1, -1]))
    m.M_ = np.eye(1)
    return m


PAIRS = np.array([[[0.0], [1.0]], [[0.0], [2.0]], [[0.0], [3.0]], [[0.0], [4.0]]])  # d = 1..4
LABELS = np.array([1, -1, 1, -1])


@pytest.mark.parametrize(
    "strategy, kw, threshold",
    [
        # accept d <= t: t=-inf 2/4, 1: 3/4, 2: 2/4, 3: 3/4, 4: 2/4 -> first best: 1
        ("accuracy", {}, 1.0),
        # F1: t=1: TP 1 FP 0 FN 1 -> 2/3; 2: 1/2; 3: TP 2 FP 1 -> 4/5; 4: 2/3 -> 3
        ("f_beta", {"beta": 1.0}, 3.0),
        # TNR >= 0.5 at t = -inf, 1, 2, 3 with TPR 0, 1/2, 1/2, 1 -> 3
        ("max_tpr", {"min_rate": 0.5}, 3.0),
        # TPR >= 1 at t = 3 (TNR 1/2) and 4 (TNR 0) -> 3
        ("max_tnr", {"min_rate": 1.0}, 3.0),
    ],
)
def test_calibrate_threshold_by_hand(strategy, kw, threshold):
    m = identity_rdml().calibrate_threshold(PAIRS, LABELS, strategy=strategy, **kw)
    assert m.threshold_ == threshold
    np.testing.assert_array_equal(m.predict(PAIRS), np.where(np.arange(1, 5) <= threshold, 1, -1))


def test_pair_score_is_roc_auc_and_threshold_errors():
    m = identity_rdml()
    # scores -1 -2 -3 -4; positives at 1, 3, negatives at 2, 4: 3 of 4 (pos, neg) orders right
    assert m.score(PAIRS, LABELS) == pytest.approx(0.75)
    assert m.score(PAIRS, LABELS) == pytest.approx(roc_auc_score(LABELS, -np.arange(1.0, 5.0)))
    np.testing.assert_array_equal(m.decision_function(PAIRS), -np.arange(1.0, 5.0))
    assert m.set_threshold(2.5).predict(PAIRS).tolist() == [1, 1, -1, -1]
    with pytest.raises(ValueError, match="needs the pair labels"):
        m.score(PAIRS)
    with pytest.raises(ValueError, match="strategy must be"):
        m.calibrate_threshold(PAIRS, LABELS, strategy="auc")
    with pytest.raises(ValueError, match="min_rate"):
        m.calibrate_threshold(PAIRS, LABELS, strategy="max_tpr")
    with pytest.raises(ValueError, match="both labels"):
        m.calibrate_threshold(PAIRS, np.full(4, -1), strategy="f_beta")  # no positive pair
    with pytest.raises(ValueError, match=r"\{\+1, -1\}"):
        m.calibrate_threshold(PAIRS, np.array([1, 0, 1, 0]))
    with pytest.raises(ValueError, match="real number"):
        m.set_threshold("1")


@pytest.mark.parametrize("strategy", ["accuracy", "f_beta", "max_tpr", "max_tnr"])
def test_calibrated_threshold_is_optimal_over_every_threshold(data, strategy):
    X, _, t = data
    pairs, py = triplets_to_pairs(t)
    m = RDML(preprocessor=X).fit(pairs, py)
    kw = {"min_rate": 0.8} if strategy in ("max_tpr", "max_tnr") else {}
    m.calibrate_threshold(pairs, py, strategy=strategy, **kw)
    d = m.pair_distance(pairs)
    P, N = np.sum(py == 1), np.sum(py == -1)

    def value(thr):
        pred = d <= thr
        tp, fp = np.sum(pred & (py == 1)), np.sum(pred & (py == -1))
        if strategy == "accuracy":
            return (tp + N - fp) / len(py)
        if strategy == "f_beta":
            return 2 * tp / (2 * tp + (P - tp) + fp) if tp else 0.0
        if strategy == "max_tpr":
            return tp / P if 1 - fp / N >= 0.8 else -1.0
        return 1 - fp / N if tp / P >= 0.8 else -1.0

    candidates = np.concatenate([[-np.inf], np.unique(d)])
    values = np.array([value(c) for c in candidates])
    assert value(m.threshold_) == pytest.approx(values.max())
    assert m.threshold_ == candidates[np.flatnonzero(np.isclose(values, values.max()))[0]]


@pytest.mark.parametrize("name", ["ITML", "ITML-online", "LEGO", "RDML"])
def test_pair_learners_calibrate_at_fit_and_keep_the_triplet_api(models, data, name):
    X, _, t = data
    m = models[name]
    assert isinstance(m, PairClassifierMixin)
    pairs, py = triplets_to_pairs(t)
    fitted = m.threshold_
    assert clone(m).set_params(preprocessor=X).fit(pairs, py).threshold_ == fitted
    assert m.calibrate_threshold(pairs, py).threshold_ == fitted  # the training pairs, accuracy
    assert m.predict(pairs).shape == (len(pairs),)
    assert 0.5 < m.score(pairs, py) <= 1.0
    assert m.score(t) == pytest.approx(np.mean(m.decision_function(t) > 0))
    with pytest.raises(ValueError, match="takes no y"):
        m.score(t, np.ones(len(t)))


# --- NotFittedError everywhere ---------------------------------------------------------------

UNFITTED = [(n, lambda n=n: make_learner(n)) for n in sorted(ALGORITHMS)] + [
    (f"{n}_Supervised", cls) for n, cls in sorted(sv.SUPERVISED.items())
]


@pytest.mark.parametrize("name, make", UNFITTED, ids=[u[0] for u in UNFITTED])
def test_every_method_of_an_unfitted_learner_raises_not_fitted(data, name, make):
    X, y, t = data
    m = make()
    m.set_params(preprocessor=X)
    calls = {
        "pair_score": lambda: m.pair_score(t[:, :2]),
        "pair_distance": lambda: m.pair_distance(t[:, :2]),
        "decision_function": lambda: m.decision_function(t),
        "predict": lambda: m.predict(t),
        "score": lambda: m.score(t),
        "get_metric": lambda: m.get_metric(),
        "get_similarity": lambda: m.get_similarity(),
        "similarity_matrix": lambda: m.similarity_matrix(X, X),
        "transform": lambda: m.transform(X),
        "components_": lambda: m.components_,
        "get_mahalanobis_matrix": lambda: m.get_mahalanobis_matrix(),
        "get_bilinear_matrix": lambda: m.get_bilinear_matrix(),
        "set_threshold": lambda: m.set_threshold(1.0),
        "calibrate_threshold": lambda: m.calibrate_threshold(t[:, :2], np.ones(len(t), int)),
    }
    if name.endswith("_Supervised"):
        calls["score"] = lambda: m.score(X, y)
    checked = []
    for method, call in calls.items():
        if not hasattr(type(m), method):
            continue
        if method in ("pair_distance", "get_metric") and isinstance(m, BilinearMixin):
            continue  # no distance (tested above)
        if method in ("predict", "decision_function") and name.endswith("_Supervised"):
            continue
        with pytest.raises(NotFittedError):
            call()
        checked.append(method)
    assert {"pair_score", "get_similarity", "score"} <= set(checked)
    if not isinstance(m, BilinearMixin):
        assert "get_metric" in checked
    if name.removesuffix("_Supervised") in ("OAHU", "SVMRelative", "SVM-relative"):
        assert {"transform", "similarity_matrix"} <= set(checked)
    if name.removesuffix("_Supervised") in ("SVMRelative", "SVM-relative"):
        assert {"pair_distance", "get_mahalanobis_matrix"} <= set(checked)


# --- partial_fit -----------------------------------------------------------------------------

ONLINE = ["OASIS", "Dissim-OASIS", "LEGO", "ITML-online", "RDML", "OPML", "OAHU"]


@pytest.mark.parametrize("name", ONLINE)
def test_every_online_learner_has_partial_fit(name):
    assert callable(getattr(ALGORITHMS[name], "partial_fit", None))


def test_opml_partial_fit_continues_the_one_pass_stream():
    # the hand case of test_opml: y = 0 0 1 1 0 2 forms (3, 2, 1) and (4, 1, 3); split 0 0 1 |
    # 1 0 2, both triplets fall in the second batch and refer to samples of the first
    X = np.array([[0.0, 0.0], [0.3, 0.1], [1.0, 0.5], [0.9, 0.7], [0.1, 0.4], [2.0, 2.0]])
    y = np.array([0, 0, 1, 1, 0, 2])
    whole = OPML(gamma=0.3, shuffle=False).fit(X, y)
    np.testing.assert_array_equal(whole.triplets_, [[3, 2, 1], [4, 1, 3]])
    parts = OPML(gamma=0.3, shuffle=False).partial_fit(X[:3], y[:3])
    np.testing.assert_array_equal(parts.L_, np.eye(2))  # no triplet yet
    assert parts.trace_["step"] == []
    parts.partial_fit(X[3:], y[3:])
    np.testing.assert_allclose(parts.L_, whole.L_, rtol=1e-12)
    np.testing.assert_allclose(parts.M_, whole.M_, rtol=1e-12)
    rng = np.random.default_rng(0)
    Xr, yr = rng.normal(size=(90, 4)), rng.integers(3, size=90)
    whole = OPML(shuffle=False).fit(Xr, yr)
    parts = OPML(shuffle=False)
    for lo in range(0, 90, 7):
        parts.partial_fit(Xr[lo : lo + 7], yr[lo : lo + 7])
    np.testing.assert_allclose(parts.L_, whole.L_, rtol=1e-10)
    with pytest.raises(ValueError, match="X has 3 features, but OPML is expecting 4"):
        parts.partial_fit(Xr[:5, :3], yr[:5])


# --- *_Supervised ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(sv.SUPERVISED))
def test_supervised_variant_fits_the_learner_on_the_documented_sample(name):
    X, y = blobs(seed=4)
    cls = sv.SUPERVISED[name]
    base = cls._base
    params = SUPERVISED_FAST.get(name, {})
    m = cls(n_constraints=60, random_state=3, **params).fit(X, y)
    triplets = sample_class_triplets(y, 60, np.random.default_rng([3, sv.SAMPLER_STREAM]))
    args = sv.constraints_from_triplets(base.constraint_kind, triplets, X)
    ref = base(random_state=3, **params).fit(*args)
    attr = "W_" if hasattr(ref, "W_") else "M_" if hasattr(ref, "M_") else None
    if attr:
        np.testing.assert_array_equal(getattr(m, attr), getattr(ref, attr))
    else:  # OAHU, SVM-relative: their learned distances
        P = all_pairs(X[:5])
        np.testing.assert_array_equal(m.pair_score(X[P]), ref.pair_score(X[P]))
    assert m.n_features_in_ == 3 and m.constraint_kind == "labels"
    assert not hasattr(m, "predict") and not hasattr(m, "decision_function")
    with pytest.raises(AttributeError, match="has no predict"):
        m.predict(X)
    assert "n_constraints" in m.get_params() and clone(m).get_params() == m.get_params()
    assert 0.0 <= m.score(X, y) <= 1.0


def test_supervised_defaults_errors_and_partial_fit(monkeypatch):
    X, y = blobs(seed=5)
    drawn = []
    real = sv.sample_class_triplets
    monkeypatch.setattr(
        sv, "sample_class_triplets", lambda yy, n, g: drawn.append(n) or real(yy, n, g)
    )
    sv.Euclidean_Supervised().fit(X, y)
    assert drawn == [20 * 3**2]  # metric-learn's default, 20 n_classes^2
    with pytest.raises(ValueError, match="n_constraints must be None or an int >= 1"):
        sv.Euclidean_Supervised(n_constraints=0).fit(X, y)
    with pytest.raises(DataError, match="one class"):
        sv.OASIS_Supervised().fit(X, np.zeros(len(y)))
    m = sv.OASIS_Supervised(n_constraints=50, random_state=0).partial_fit(X, y)
    ref = make_learner("OASIS", random_state=0)
    ref.partial_fit(X[real(y, 50, np.random.default_rng([0, sv.SAMPLER_STREAM]))])
    np.testing.assert_array_equal(m.W_, ref.W_)
    with pytest.raises(ValueError, match="X has 2 features"):
        m.partial_fit(X[:, :2], y)
    assert not hasattr(sv.SDCA_Supervised(), "partial_fit")
