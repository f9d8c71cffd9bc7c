"""One human-judgment cell's tidy rows (set, method, seed): every pair's score table of a
distance or a fitted learner, its triplet accuracy (ties half) on each fold's test answers, and
the rows of the Euclidean distance with the chance and ceiling references, of a learner on each
of its feature sets, and of an ordinal embedding (no features)."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .folds import splits
from .ordinal import fit_ordinal_embedding, is_feature_free
from .rows import EUCLIDEAN, row_features


def item_scores(model_or_X, X) -> tuple[np.ndarray, bool]:
    """``(S, similarity)``: an (n_items, n_items) table of every pair's score, computed once per
    model: for the Euclidean distance (pass ``X`` itself) the squared distances summed pair by
    pair (exactly what :func:`tripletbench.evaluation.human_protocols.embedding_accuracy` compares); for a
    fitted learner its ranking score (:func:`tripletbench.harness.experiment.score_function`: ``x^T W y`` for
    a bilinear learner, ``-d_M^2`` for a Mahalanobis one, the order of its ``pair_score``)."""
    from tripletbench.harness.experiment import score_function

    X = np.asarray(X, dtype=np.float64)
    if isinstance(model_or_X, np.ndarray):
        D = np.stack([np.einsum("kd,kd->k", X - x, X - x) for x in X])
        return D, False
    return np.asarray(score_function(model_or_X, X)(X, X), dtype=np.float64), True


def _accuracy(scores, triplets, weights):
    """Triplet accuracy (ties half) of a table from :func:`item_scores`, looked up per test
    triplet (:func:`tripletbench.evaluation.human_protocols.distance_accuracy`): one (n_items, n_items)
    table instead of one feature difference per test triplet (Food-100: 125,000 test rows per
    fold)."""
    from tripletbench.evaluation.human_protocols import distance_accuracy

    S, similarity = scores
    return distance_accuracy(lambda i, j: S[i, j], triplets, weights, similarity=similarity)


def _scored(scores, tests, row: dict) -> list[dict]:
    """One row per scoring of ``tests`` (scoring -> (triplets, weights)): ``row``'s columns with
    the scoring, the triplet accuracy of ``scores`` (:func:`item_scores`) and its counts."""
    out = []
    for scoring, (tt, w) in tests.items():
        ev = _accuracy(scores, tt, w)
        out.append(
            {
                **row,
                "scoring": scoring,
                "value": ev["triplet_accuracy"],
                "n_test": ev["n"],
                "n_ties": ev["n_ties"],
            }
        )
    return out


def cell_rows(
    judgments, features: dict, cfg: dict, method: str, seed: int, folds=None
) -> pd.DataFrame:
    """The tidy rows of one cell (set, ``method``, seed): one per (protocol, fold, scoring,
    feature set), columns protocol, fold, scoring, method, features, metric
    (``triplet_accuracy``), value, n_test, n_ties, n_train, fit_s (and ``error`` where a
    learner refused a learning-curve point: value NaN; a refusal on (a), (b) or (d) is raised).
    A learner row is fitted on the feature sets :func:`row_features` gives. ``features``: feature set ->
    (n_items, d) array (already normalised); ``folds``: :func:`splits`'s list (computed here
    when None). ``method``: :data:`EUCLIDEAN` (with the chance and ceiling rows) or a row of
    ``cfg["methods"]``: a learner fitted by :func:`tripletbench.harness.experiment.fit_learner`
    with the row's ``fixed`` settings on every feature set, or an ordinal embedding
    (:func:`is_feature_free`), fitted once per fold by :func:`fit_ordinal_embedding` and scored
    by the squared Euclidean distances of its positions (:func:`item_scores`): one row per
    (protocol, fold, scoring) with ``features`` ``""``, none on protocol (b) (no feature map:
    it cannot place a held-out item; the table says n/a, :func:`table_status`)."""
    rows = []
    if folds is None:
        folds, _ = splits(judgments, cfg, seed)
    embedding = method != EUCLIDEAN and is_feature_free(cfg["methods"][method])
    for protocol, fold, train, tests in folds:
        if protocol == "curve" and method == EUCLIDEAN:
            continue  # no training answers: (a)'s Euclidean, chance and ceiling rows stand
        if protocol == "items" and embedding:
            continue  # no feature map: a held-out item has no position
        base = {"protocol": protocol, "fold": fold, "n_train": len(train)}
        if embedding:
            rows += _embedding_rows(
                judgments, cfg["methods"][method], method, seed, train, tests, base
            )
            continue
        if method == EUCLIDEAN:  # the reference rows come with the Euclidean cell (no fit)
            rows += _reference_rows(judgments, tests, base)
        rows += _feature_rows(features, cfg, method, seed, train, tests, base)
    out = pd.DataFrame(rows)
    out["metric"] = "triplet_accuracy"
    return out


def _embedding_rows(judgments, mcfg: dict, method: str, seed: int, train, tests, base) -> list:
    """The rows of an ordinal-embedding ``method`` (row settings ``mcfg``) on one fold: fitted on
    ``train`` over every item of the set, scored by its positions' squared Euclidean distances."""
    E, timing = fit_ordinal_embedding(
        mcfg["algorithm"],
        dict(mcfg.get("fixed") or {}),
        train,
        len(judgments.items),
        seed,
    )
    fit_s = timing["fit_wall_s"]
    print(
        f"  {base['protocol']} fold {base['fold']}: {method} embedded {len(judgments.items)} "
        f"items in {E.shape[1]}-d in {fit_s:.2f} s ({timing['fit_cpu_s']:.2f} s CPU)"
    )
    return _scored(
        item_scores(E, E), tests, {**base, "method": method, "features": "", "fit_s": fit_s}
    )


def _reference_rows(judgments, tests, base) -> list:
    """The reference rows of one fold, per scoring of ``tests``: ``chance`` (a distance that ties
    every pair) and, where the set has answer counts, the ``answers`` scoring's ``ceiling``."""
    from tripletbench.evaluation.human_protocols import human_ceiling, triplet_accuracy

    rows = []
    for scoring, (tt, w) in tests.items():
        zero = np.zeros(len(tt))
        ev = triplet_accuracy(zero, zero, w)
        rows.append(
            {
                **base,
                "scoring": scoring,
                "method": "chance",
                "features": "",
                "value": ev["triplet_accuracy"],
                "n_test": ev["n"],
                "n_ties": ev["n_ties"],
                "fit_s": 0.0,
            }
        )
        if judgments.counts is not None and scoring == "answers":
            ceil = human_ceiling(tt, w)
            rows.append(
                {
                    **base,
                    "scoring": scoring,
                    "method": "ceiling",
                    "features": "",
                    "value": ceil["ceiling"],
                    "n_test": ceil["n_answers"],
                    "n_ties": ceil["n_tied"],
                    "fit_s": 0.0,
                }
            )
    return rows


class _Refused(Exception):
    """A learner's refusal of a learning-curve point: ``why`` names the error."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


def _feature_rows(features: dict, cfg: dict, method: str, seed: int, train, tests, base) -> list:
    """The rows of the Euclidean distance or a learner row on one fold, per feature set it runs
    on (:func:`row_features`): a learner fitted on ``train``, a refused curve point as rows
    without a value (:func:`_refused_rows`)."""
    rows = []
    for fs, X in features.items():
        if method == EUCLIDEAN:
            model, fit_s = X, 0.0
        elif fs not in row_features(cfg["methods"][method], features):
            continue  # the row's features restriction: n/a in the table (not_run_status)
        else:
            try:
                model, fit_s = _fit(cfg["methods"][method], method, seed, train, X, base, fs)
            except _Refused as refused:
                rows += _refused_rows(tests, base, method, fs, refused.why)
                continue
        rows += _scored(
            item_scores(model, X),
            tests,
            {**base, "method": method, "features": fs, "fit_s": fit_s},
        )
    return rows


def _fit(mcfg: dict, method: str, seed: int, train, X, base, fs: str):
    """``(model, fit_s)``: learner row ``method`` (settings ``mcfg``) fitted on ``train`` over
    feature set ``fs`` (``X``). A ``ValueError`` of the fit is raised, on a learning-curve point
    as :class:`_Refused` (a point below what the learner accepts)."""
    from tripletbench.harness.experiment import algorithm_of, fit_learner, row_params

    protocol, fold = base["protocol"], base["fold"]
    params = row_params(mcfg)
    y = np.zeros(len(X), dtype=np.int64)  # no labels: triplet learners only
    t0 = time.perf_counter()
    try:
        model, timing = fit_learner(
            algorithm_of(method, mcfg), params, train, X, y, seed, verbose=False
        )
    except ValueError as err:
        if protocol != "curve":
            raise
        # a curve point below what the learner accepts (metric-learn's SCML: fewer
        # triplets than features): rows without a value, the error named
        # (figure_human_curve leaves the point out and says why)
        why = f"{type(err).__name__}: {' '.join(str(err).split())}"
        print(f"  {protocol} fold {fold} {fs}: {method} not fitted on {len(train)} answers: {why}")
        raise _Refused(why) from err
    fit_s = timing["fit_wall_s"]
    print(
        f"  {protocol} fold {fold} {fs}: {method} fitted in {fit_s:.2f} s "
        f"({time.perf_counter() - t0:.2f} s with conversion)"
    )
    return model, fit_s


def _refused_rows(tests, base, method: str, fs: str, why: str) -> list:
    """The rows of a refused learning-curve point, one per scoring: no value, the error named."""
    return [
        {
            **base,
            "scoring": scoring,
            "method": method,
            "features": fs,
            "value": np.nan,
            "n_test": len(tt),
            "n_ties": 0,
            "fit_s": np.nan,
            "error": why,
        }
        for scoring, (tt, _w) in tests.items()
    ]
