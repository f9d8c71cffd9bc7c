"""The human-judgment experiment (issue 38, the pipeline's first slice): which sets a config can
run, their item features, and one cell's tidy rows (rules ``human_fetch``, ``human_features``,
``human_cell`` and ``table_human``, ``workflow/rules/human.smk``).

Everything about the data is in :mod:`tripletbench.datasets.food100`, :mod:`tripletbench.datasets.cars60`,
:mod:`tripletbench.datasets.material_similarity` (parsing), :mod:`tripletbench.datasets.human_features` (features) and
:mod:`tripletbench.evaluation.human_protocols` (folds, scoring with ties as half, the human ceiling); the
learners are fitted by :func:`tripletbench.harness.experiment.fit_learner`, as every other experiment fits
them. This module only puts them together:

* protocol **(a)** (``"triplets"``): k-fold over the answers
  (:func:`tripletbench.evaluation.human_protocols.triplet_folds`, ``human.n_splits`` folds, one seed per
  ``human.seeds`` entry), grouped by question where ``human.grouped`` (every answer to one
  question ``(i, {j, k})`` in one fold). A learner is trained on **one triplet per training
  answer** (a material row with answer count c is repeated c times), at most
  ``human.max_train_triplets`` of them (the first of one seeded permutation,
  :func:`tripletbench.evaluation.human_protocols.learning_curve`); every method is scored on the same whole
  test fold, each answer counting once (material: rows weighted by their counts);
* protocol **(d)** (``"publisher"``, material only): the publisher's training questions
  (Lagunas et al. 2019), one triplet per answer as above, scored on the test questions against
  every individual answer (``"answers"``, comparable to the ceiling) and against each
  question's majority answer (``"majority"``, ties left out; the authors' measure).

Reference rows: ``chance`` (a distance that ties every pair: 0.5 exactly under ties-as-half,
the expected accuracy of a coin flip) and, on material, ``ceiling``
(:func:`tripletbench.evaluation.human_protocols.human_ceiling` of the test answers: the share of answers
that agree with their question's majority, ties half; the best any distance can score against
the answers). On Food-100 and the cars a question is mostly asked once, so their "ceiling"
would be 1 and is not shown.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

SETS = {  # the config's set name -> its module's name under datasets/
    "material": "material_similarity",
    "cars60": "cars60",
    "food100": "food100",
}
PROTOCOLS = ("triplets", "publisher")
EUCLIDEAN = "Eucl"  # the cell "method" of the Euclidean distance on each feature set, and of
# the reference rows (chance, ceiling): none of them fits anything


def module(name: str):
    """The dataset module of set ``name`` (:data:`SETS`)."""
    import importlib

    return importlib.import_module(f"tripletbench.datasets.{SETS[name]}")


def available(name: str, route: str, mirror: str | None) -> bool:
    """Whether set ``name`` can be fetched: the download route only (no embedded copy exists);
    with a folder mirror, the mirror must hold the publisher's archive or its members (food,
    cars: ``<source>/<archive>`` or ``<source>/<top>/``; material: ``material/``)."""
    if route != "download":
        return False
    if not mirror:
        return True
    from tripletbench.datasets.base import DataUnavailable, mirror_location

    try:
        kind, base = mirror_location(mirror)
    except DataUnavailable:
        return False
    if kind != "folder":
        return True
    mod = module(name)
    if name == "material":
        return (Path(base) / "material").is_dir()
    return (Path(base) / mod.SOURCE / mod.ARCHIVE).is_file() or (
        Path(base) / mod.SOURCE / mod.TOP
    ).is_dir()


def load(name: str, cache_dir, mirror: str | None, allow_unpinned: bool = False):
    """Set ``name``'s :class:`tripletbench.datasets.human_judgments.Judgments` (fetched once by pooch)."""
    return module(name).load_judgments(Path(cache_dir), mirror=mirror, allow_unpinned=allow_unpinned)


def feature_sets(name: str, wanted) -> list[str]:
    """The feature sets of ``wanted`` that set ``name`` has (``ingredients``: Food-100 only)."""
    return [f for f in wanted if f != "ingredients" or name == "food100"]


def normalize(X: np.ndarray, how: str) -> np.ndarray:
    """``"l2"``: every row at unit length (a zero row stays zero); ``"none"``: as computed."""
    X = np.asarray(X, dtype=np.float64)
    if how == "none":
        return X
    n = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(n > 0, n, 1.0)


def answers(triplets: np.ndarray, counts: np.ndarray | None) -> np.ndarray:
    """One triplet per answer: each row repeated by its count (``None``: rows as they are)."""
    return triplets if counts is None else np.repeat(triplets, counts, axis=0)


def training_triplets(triplets, counts, rows, max_n, seed) -> np.ndarray:
    """The training answers of ``rows`` (:func:`answers`), at most ``max_n`` (``None``: all) of
    them: the first of one seeded permutation (:func:`tripletbench.evaluation.human_protocols.learning_curve`,
    nested over sizes)."""
    from tripletbench.evaluation.human_protocols import learning_curve

    t = answers(triplets[rows], None if counts is None else counts[rows])
    if max_n is None or len(t) <= max_n:
        return t
    return t[learning_curve(np.arange(len(t)), [max_n], seed)[max_n]]


def splits(judgments, cfg: dict, seed: int):
    """``[(protocol, fold, train_triplets, tests)]`` of one set and seed: ``tests`` maps a
    scoring (``"answers"``, ``"majority"``) to ``(triplets, weights)``. Protocol (a) for every
    set, (d) for material where ``cfg["protocols"]`` asks for it. Also returns the record of the
    (a) folds (:meth:`tripletbench.evaluation.human_protocols.Protocol.record`)."""
    from tripletbench.evaluation.human_protocols import publisher_split, question_ids, triplet_folds

    t, c = judgments.triplets, judgments.counts
    out, record = [], None
    if "triplets" in cfg["protocols"]:
        groups = question_ids(t) if cfg.get("grouped", True) else None
        prot = triplet_folds(len(t), cfg["n_splits"], seed, groups=groups)
        record = prot.record()
        for k, s in enumerate(prot):
            train = training_triplets(t, c, s.train, cfg.get("max_train_triplets"), seed)
            tests = {"answers": (t[s.test], None if c is None else c[s.test])}
            out.append(("triplets", str(k), train, tests))
    if "publisher" in cfg["protocols"] and judgments.name == "material_similarity":
        p = publisher_split(judgments)
        rows = np.arange(len(p["train_triplets"]))
        train = training_triplets(
            p["train_triplets"], p["train_counts"], rows, cfg.get("max_train_triplets"), seed
        )
        tests = {
            "answers": (p["test_triplets"], p["test_counts"]),
            "majority": (p["test_majority"], None),
        }
        out.append(("publisher", "publisher", train, tests))
    return out, record


def item_scores(model_or_X, X) -> tuple[np.ndarray, bool]:
    """``(S, similarity)``: an (n_items, n_items) table of every pair's score, computed once per
    model: for the Euclidean distance (pass ``X`` itself) the squared distances summed pair by
    pair (exactly what :func:`tripletbench.evaluation.human_protocols.embedding_accuracy` compares); for a
    fitted learner its ranking score (:func:`tripletbench.harness.experiment.score_function`: ``x^T W y`` for
    a bilinear learner, ``-d_M^2`` for a Mahalanobis one, the order of its ``pair_score``)."""
    from .experiment import score_function

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


def cell_rows(
    judgments, features: dict, cfg: dict, method: str, seed: int, folds=None
) -> pd.DataFrame:
    """The tidy rows of one cell (set, ``method``, seed): one per (protocol, fold, scoring,
    feature set), columns protocol, fold, scoring, method, features, metric
    (``triplet_accuracy``), value, n_test, n_ties, n_train, fit_s. ``features``: feature set ->
    (n_items, d) array (already normalised); ``folds``: :func:`splits`'s list (computed here
    when None). ``method``: :data:`EUCLIDEAN` (with the chance and ceiling rows) or a row of ``cfg["methods"]`` (its learner fitted by
    :func:`tripletbench.harness.experiment.fit_learner` with the row's ``fixed`` settings)."""
    from tripletbench.evaluation.human_protocols import human_ceiling, triplet_accuracy

    from .experiment import algorithm_of, fit_learner

    rows = []
    if folds is None:
        folds, _ = splits(judgments, cfg, seed)
    for protocol, fold, train, tests in folds:
        base = {"protocol": protocol, "fold": fold, "n_train": len(train)}
        if method == EUCLIDEAN:  # the reference rows come with the Euclidean cell (no fit)
            for scoring, (tt, w) in tests.items():
                zero = np.zeros(len(tt))
                ev = triplet_accuracy(zero, zero, w)
                rows.append({**base, "scoring": scoring, "method": "chance", "features": "",
                             "value": ev["triplet_accuracy"], "n_test": ev["n"],
                             "n_ties": ev["n_ties"], "fit_s": 0.0})
                if judgments.counts is not None and scoring == "answers":
                    ceil = human_ceiling(tt, w)
                    rows.append({**base, "scoring": scoring, "method": "ceiling", "features": "",
                                 "value": ceil["ceiling"], "n_test": ceil["n_answers"],
                                 "n_ties": ceil["n_tied"], "fit_s": 0.0})
        for fs, X in features.items():
            if method == EUCLIDEAN:
                model, fit_s = X, 0.0
            else:
                mcfg = cfg["methods"][method]
                params = dict(mcfg.get("fixed") or {})
                y = np.zeros(len(X), dtype=np.int64)  # no labels: triplet learners only
                t0 = time.perf_counter()
                model, timing = fit_learner(
                    algorithm_of(method, mcfg), params, train, X, y, seed, verbose=False
                )
                fit_s = timing["fit_wall_s"]
                print(f"  {protocol} fold {fold} {fs}: {method} fitted in {fit_s:.2f} s "
                      f"({time.perf_counter() - t0:.2f} s with conversion)")
            scores = item_scores(model, X)
            for scoring, (tt, w) in tests.items():
                ev = _accuracy(scores, tt, w)
                rows.append({**base, "scoring": scoring, "method": method, "features": fs,
                             "value": ev["triplet_accuracy"], "n_test": ev["n"],
                             "n_ties": ev["n_ties"], "fit_s": fit_s})
    out = pd.DataFrame(rows)
    out["metric"] = "triplet_accuracy"
    return out


def table_column(name: str, protocol: str, scoring: str) -> str:
    """The table's column of a row: ``"material (a)"``, ``"material (d) answers"`` ..."""
    if protocol == "triplets":
        return f"{name} (a)"
    return f"{name} (d) {scoring}"


def row_name(method: str, features: str) -> str:
    """The table's row of a cell row: ``"OASIS · hog"``; ``chance`` and ``ceiling`` alone."""
    return f"{method} · {features}" if features else method


__all__ = [
    "EUCLIDEAN",
    "PROTOCOLS",
    "SETS",
    "answers",
    "available",
    "item_scores",
    "cell_rows",
    "feature_sets",
    "load",
    "module",
    "normalize",
    "row_name",
    "splits",
    "table_column",
    "training_triplets",
]
