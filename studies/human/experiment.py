"""The human-judgment experiment (issue 38, the pipeline's first slice): which sets a config can
run, their item features, and one cell's tidy rows (rules ``human_fetch``, ``human_features``,
``human_cell`` and ``table_human``, ``workflow/rules/human.smk``).

Everything about the data is in :mod:`tripletbench.datasets.food100`, :mod:`tripletbench.datasets.cars60`,
:mod:`tripletbench.datasets.material_similarity` (parsing), :mod:`tripletbench.datasets.human_features` (features) and
:mod:`tripletbench.evaluation.human_protocols` (folds, scoring with ties as half, the human ceiling); the
learners are fitted by :func:`tripletbench.harness.experiment.fit_learner`, as every other experiment fits
them; the ordinal embeddings by :func:`fit_ordinal_embedding` (cblearn).

Rows (``human.methods``): a **learner** (ours by name, or another library's by dotted path) learns a metric on each
feature set's item vectors, one row per (learner, feature set); an **ordinal embedding** (a
cblearn class by its dotted path, ``algorithm: cblearn.embedding.SOE``, :func:`is_feature_free`)
uses no features at all: it fits a position per item from the training answers alone
(``n_objects`` = every item of the set, so an item that no training answer names still gets
one), once per fold, and is scored by the squared Euclidean distances of those positions: one
row of its own, with ``features`` ``""``. Its dimension (``n_components``) is the row's setting
(ours). The embeddings the default config runs: SOE (Terada & von Luxburg 2014), STE and t-STE
(van der Maaten & Weinberger 2012), CKL (Tamuz et al. 2011), GNMDS (Agarwal et al. 2007), FORTE
(Jain et al. 2016). cblearn 0.4.0 declares numpy~=1.26, which excludes our numpy; it is
installed without its declared dependencies because its own tests pass on our pins (measured
2026-11-26 on numpy 2.4.6 and scipy 1.17.1: 167 passed, 1 skipped; the one failure, an unseeded
dimension estimate, and the 30 failing scikit-learn estimator checks fail the same way on
numpy 1.26.4 and scipy 1.13.1; ``requirements-nodeps.txt`` has the details). :func:`tripletbench.harness.config.check_config`
refuses, before any job, a class that cannot be imported or cannot place every item, a
hyperparameter the class lacks and settings that cblearn's own fit refuses (a trial fit).

The learner rows: every triplet learner of the project (``human.methods``: OASIS and its variants, SDCA,
SVM-relative, COMET, OAHU, metric-learn's SCML through :mod:`tripletbench.algorithms.external`)
on the training triplets, the pair learners (LEGO, RDML) on the two pairs of each triplet, (a, p)
similar and (a, n) dissimilar (:func:`tripletbench.datasets.constraints.triplets_to_pairs`, the rule
every experiment uses). The sets have no class labels: a learner that needs them (OPML builds
its own triplets from a labelled stream) is a row with ``not_run`` (one n/a row, no cell). A row
may be fitted on some feature sets only (``features``, with ``features_reason``: a learner whose
d x d steps are too slow at 1,764-d), n/a on the others (:func:`not_run_status`); a
learning-curve point a learner refuses (SCML: fewer answers than features) is a row without a
value. This module only puts them together:

* protocol **(a)** (``"triplets"``): k-fold over the answers
  (:func:`tripletbench.evaluation.human_protocols.triplet_folds`, ``human.n_splits`` folds, one seed per
  ``human.seeds`` entry), grouped by question where ``human.grouped`` (every answer to one
  question ``(i, {j, k})`` in one fold). A learner is trained on **one triplet per training
  answer** (a material row with answer count c is repeated c times), at most
  ``human.max_train_triplets`` of them (the first of one seeded permutation,
  :func:`tripletbench.evaluation.human_protocols.learning_curve`); every method is scored on the same whole
  test fold, each answer counting once (material: rows weighted by their counts);
* protocol **(b)** (``"items"``): held-out items (:func:`tripletbench.evaluation.human_protocols.item_folds`):
  the items split ``human.n_splits``-fold (``KFold(shuffle=True, random_state=seed)`` over the
  item indices, the same ``n_splits`` as (a): ours), a fold's learner trained on the answers
  whose three items are all training items (one triplet per answer, at most
  ``human.max_train_triplets`` as above) and scored on every answer that involves at least one
  held-out item (our rule, stated in :mod:`tripletbench.evaluation.human_protocols`). Only a method that maps
  item features can place an item it never saw: a row without a feature map (an ordinal
  embedding, :func:`feature_free_rows`) is not fitted there and the table says "n/a"
  (:func:`table_status`). The sets' papers
  (Wilber et al. 2014; Kleindessner & von Luxburg 2017; Lagunas et al. 2019) are cited for the
  data only: their text is not in ``../shared/papers``, and this protocol, its folds and its
  test rule are ours;
* protocol **(c)** (``"curve"``): a learning curve on (a)'s folds: for every (a) fold and every
  size ``n`` of ``human.curve_sizes`` below that fold's training answers, the learner is
  trained on the first ``n`` answers of the **same seeded permutation** that bounds (a)
  (:func:`training_triplets`), so the subsets are nested and (a)'s own training set is the
  curve's last point; scored on the whole (a) test fold. The Euclidean, chance and ceiling
  rows do not depend on the training answers: the (a) rows are the curve's flat references
  (no curve rows of their own);
* protocol **(d)** (``"publisher"``, material only): the publisher's training questions
  (Lagunas et al. 2019), one triplet per answer as above, scored on the test questions against
  every individual answer (``"answers"``, comparable to the ceiling) and against each
  question's majority answer (``"majority"``, ties left out; the authors' measure).

Every method of a set is scored on the same splits: a cell's seed fixes (a)'s and (b)'s folds
and the training permutation, and each row records its ``seed`` and its protocol's
``folds_digest`` (:meth:`tripletbench.evaluation.human_protocols.Protocol.digest`; (c) carries (a)'s, (d)
the digest of the publisher's split), so a table can check that every method saw the same folds.

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
PROTOCOLS = ("triplets", "items", "curve", "publisher")
#: The protocol letters of the issue and the papers' write-up, by config name.
PROTOCOL_LETTERS = {"triplets": "a", "items": "b", "curve": "c", "publisher": "d"}
#: The prefix of an ordinal-embedding row's ``algorithm`` (a cblearn class by its dotted path,
#: ``cblearn.embedding.SOE``): such a row uses no item features (:func:`is_feature_free`).
ORDINAL_PREFIX = "cblearn."
#: The paper of each cblearn ordinal embedding a caption names (by class name).
EMBEDDING_PAPERS = {
    "SOE": "soft ordinal embedding, Terada & von Luxburg 2014",
    "STE": "stochastic triplet embedding, van der Maaten & Weinberger 2012",
    "TSTE": "t-distributed STE, van der Maaten & Weinberger 2012",
    "CKL": "crowd kernel learning, Tamuz et al. 2011",
    "GNMDS": "generalized non-metric MDS, Agarwal et al. 2007",
    "FORTE": "fast ordinal triplet embedding, Jain et al. 2016",
}
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
    return module(name).load_judgments(
        Path(cache_dir), mirror=mirror, allow_unpinned=allow_unpinned
    )


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
    """``([(protocol, fold, train_triplets, tests)], records)`` of one set and seed: ``tests``
    maps a scoring (``"answers"``, ``"majority"``) to ``(triplets, weights)``. The protocols of
    ``cfg["protocols"]``: (a) ``"triplets"`` and (b) ``"items"`` for every set, (c) ``"curve"``
    on (a)'s folds (one entry per fold and size of ``cfg["curve_sizes"]`` below the fold's
    training answers), (d) ``"publisher"`` for material. ``records``: protocol -> its
    :meth:`tripletbench.evaluation.human_protocols.Protocol.record` (seed, sizes, ``digest`` of the index
    arrays; (c) has (a)'s, (d) a digest of the publisher's split)."""
    import hashlib

    from tripletbench.evaluation.human_protocols import (
        item_folds,
        publisher_split,
        question_ids,
        triplet_folds,
    )

    t, c = judgments.triplets, judgments.counts
    protocols = cfg["protocols"]
    bound = cfg.get("max_train_triplets")
    out, records = [], {}
    if "triplets" in protocols or "curve" in protocols:
        groups = question_ids(t) if cfg.get("grouped", True) else None
        prot = triplet_folds(len(t), cfg["n_splits"], seed, groups=groups)
        for k, s in enumerate(prot):
            tests = {"answers": (t[s.test], None if c is None else c[s.test])}
            train = training_triplets(t, c, s.train, bound, seed)
            if "triplets" in protocols:
                out.append(("triplets", str(k), train, tests))
            if "curve" in protocols:
                # nested: the first n of the permutation that bounds (a) (training_triplets);
                # sizes at or past (a)'s own training set are (a)'s point
                for n in sorted(cfg.get("curve_sizes") or []):
                    if n < len(train):
                        out.append(
                            ("curve", str(k), training_triplets(t, c, s.train, n, seed), tests)
                        )
        if "triplets" in protocols:
            records["triplets"] = prot.record()
        if "curve" in protocols:
            records["curve"] = {**prot.record(), "curve_sizes": list(cfg.get("curve_sizes") or [])}
    if "items" in protocols:
        prot = item_folds(t, len(judgments.items), cfg["n_splits"], seed)
        records["items"] = prot.record()
        for k, s in enumerate(prot):
            train = training_triplets(t, c, s.train, bound, seed)
            tests = {"answers": (t[s.test], None if c is None else c[s.test])}
            out.append(("items", str(k), train, tests))
    if "publisher" in protocols and judgments.name == "material_similarity":
        p = publisher_split(judgments)
        rows = np.arange(len(p["train_triplets"]))
        train = training_triplets(p["train_triplets"], p["train_counts"], rows, bound, seed)
        tests = {
            "answers": (p["test_triplets"], p["test_counts"]),
            "majority": (p["test_majority"], None),
        }
        h = hashlib.sha256()
        for key in ("train_triplets", "train_counts", "test_triplets", "test_counts"):
            h.update(np.ascontiguousarray(p[key], dtype="<i8").tobytes())
        records["publisher"] = {
            "protocol": "publisher_split",
            "seed": int(seed),
            "digest": h.hexdigest(),
        }
        out.append(("publisher", "publisher", train, tests))
    return out, records


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


def is_feature_free(mcfg: dict | None) -> bool:
    """Whether a ``human.methods`` row is an ordinal embedding (its ``algorithm`` a dotted path
    starting with :data:`ORDINAL_PREFIX`): a position per item fitted from the training answers
    alone, no item features, so no feature map to place an item it never saw."""
    return str((mcfg or {}).get("algorithm", "")).startswith(ORDINAL_PREFIX)


def feature_free_rows(methods: dict) -> list[str]:
    """The rows of ``methods`` (``human.methods``) that use no features (:func:`is_feature_free`),
    in the config's order: one table row each (no feature set), "n/a" on protocol (b)."""
    return [m for m, mcfg in (methods or {}).items() if is_feature_free(mcfg)]


def embedding_versions(methods: dict) -> dict:
    """``{algorithm: "cblearn <version>"}`` of the ordinal-embedding rows of ``methods`` (part of
    the human cells' settings: upgrading cblearn reruns them); read from the installed
    distribution's metadata, nothing imported."""
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for mcfg in (methods or {}).values():
        if is_feature_free(mcfg):
            top = mcfg["algorithm"].split(".")[0]
            try:
                out[mcfg["algorithm"]] = f"{top} {version(top)}"
            except PackageNotFoundError:
                out[mcfg["algorithm"]] = f"{top} not installed"
    return out


def ordinal_class(algorithm: str) -> type:
    """The cblearn ordinal-embedding class at dotted path ``algorithm``
    (``cblearn.embedding.SOE``). ``KeyError`` when it cannot be imported (naming the classes
    that :mod:`cblearn.embedding` offers), ``TypeError`` when it is not a triplet embedding that
    can place every item (cblearn's ``TripletEmbeddingMixin`` with a ``fit(X, n_objects=...)``:
    MLDS, a one-dimensional scale with no ``n_objects``, is refused)."""
    import importlib
    import inspect

    if not algorithm.startswith(ORDINAL_PREFIX):
        raise KeyError(f"{algorithm!r} is not a cblearn class (a dotted path {ORDINAL_PREFIX}...)")
    module, _, attr = algorithm.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as err:
        import cblearn.embedding as emb

        offers = sorted(n for n in dir(emb) if isinstance(getattr(emb, n), type))
        raise KeyError(
            f"cannot import {algorithm!r} ({err}); cblearn.embedding offers {', '.join(offers)}"
        ) from None
    from cblearn.embedding._base import TripletEmbeddingMixin

    if not (isinstance(cls, type) and issubclass(cls, TripletEmbeddingMixin)):
        raise TypeError(f"{algorithm} is not a cblearn triplet embedding (TripletEmbeddingMixin)")
    if "n_objects" not in inspect.signature(cls.fit).parameters:
        raise TypeError(
            f"{algorithm}.fit takes no n_objects: it cannot give a position to an item that no "
            "training answer holds"
        )
    return cls


def fit_ordinal_embedding(
    algorithm: str, params: dict, triplets: np.ndarray, n_items: int, seed: int
) -> tuple[np.ndarray, dict]:
    """Fit the cblearn ordinal embedding ``algorithm`` (a dotted path, :func:`ordinal_class`)
    with hyperparameters ``params`` on index ``triplets`` (rows (anchor, positive, negative):
    "anchor is closer to positive than to negative", cblearn's ``list-order`` format, the same
    order) over ``n_items`` items (``n_objects``: an item in no training answer still gets a
    position, wherever the optimiser leaves it). ``random_state`` is the learners' seed of
    ``seed`` (:func:`tripletbench.harness.experiment.learner_seed`), so one seed gives one
    embedding.

    Returns ``(embedding, timing)``: the (n_items, k) float64 positions and
    ``{"fit_wall_s", "fit_cpu_s"}`` (the keys of
    :func:`tripletbench.harness.experiment.fit_learner`; the fit alone)."""
    from tripletbench.harness.experiment import learner_seed

    cls = ordinal_class(algorithm)
    if "random_state" in params:
        raise ValueError(f"{algorithm}: random_state is set from the cell's seed, not by a row")
    t = np.asarray(triplets)
    if t.ndim != 2 or t.shape[1] != 3 or not np.issubdtype(t.dtype, np.integer):
        raise ValueError(f"{algorithm}: triplets must be an (n, 3) integer index array")
    if len(t) and (t.min() < 0 or t.max() >= n_items):
        raise ValueError(f"{algorithm}: a triplet names an item outside 0..{n_items - 1}")
    model = cls(**params, random_state=learner_seed(seed))
    t0, c0 = time.perf_counter(), time.process_time()
    model.fit(t.astype(np.int64), n_objects=int(n_items))
    timing = {"fit_wall_s": time.perf_counter() - t0, "fit_cpu_s": time.process_time() - c0}
    E = np.asarray(model.embedding_, dtype=np.float64)
    if E.ndim != 2 or E.shape[0] != n_items or not np.isfinite(E).all():
        raise ValueError(
            f"{algorithm}: the fit gave an embedding of shape {E.shape}"
            + ("" if np.isfinite(E).all() else " with non-finite values")
            + f", not (n_items = {n_items}, k) finite positions"
        )
    return E, timing


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
    from tripletbench.evaluation.human_protocols import human_ceiling, triplet_accuracy

    from tripletbench.harness.experiment import algorithm_of, fit_learner

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
            mcfg = cfg["methods"][method]
            E, timing = fit_ordinal_embedding(
                mcfg["algorithm"],
                dict(mcfg.get("fixed") or {}),
                train,
                len(judgments.items),
                seed,
            )
            fit_s = timing["fit_wall_s"]
            print(
                f"  {protocol} fold {fold}: {method} embedded {len(judgments.items)} items in "
                f"{E.shape[1]}-d in {fit_s:.2f} s ({timing['fit_cpu_s']:.2f} s CPU)"
            )
            rows += _scored(
                item_scores(E, E), tests, {**base, "method": method, "features": "", "fit_s": fit_s}
            )
            continue
        if method == EUCLIDEAN:  # the reference rows come with the Euclidean cell (no fit)
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
        for fs, X in features.items():
            if method == EUCLIDEAN:
                model, fit_s = X, 0.0
            elif fs not in row_features(cfg["methods"][method], features):
                continue  # the row's features restriction: n/a in the table (not_run_status)
            else:
                mcfg = cfg["methods"][method]
                params = dict(mcfg.get("fixed") or {})
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
                    print(
                        f"  {protocol} fold {fold} {fs}: {method} not fitted on "
                        f"{len(train)} answers: {why}"
                    )
                    rows += [
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
                    continue
                fit_s = timing["fit_wall_s"]
                print(
                    f"  {protocol} fold {fold} {fs}: {method} fitted in {fit_s:.2f} s "
                    f"({time.perf_counter() - t0:.2f} s with conversion)"
                )
            rows += _scored(
                item_scores(model, X),
                tests,
                {**base, "method": method, "features": fs, "fit_s": fit_s},
            )
    out = pd.DataFrame(rows)
    out["metric"] = "triplet_accuracy"
    return out


def row_settings(name: str, mcfg: dict, algorithm: bool = True) -> str:
    """A ``human.methods`` row's settings as the table's and the curve's captions print them:
    (with ``algorithm``) its algorithm where that is not its name, then its ``fixed`` values
    (``"defaults"`` without any), then the feature sets a restricted row runs on with its
    reason; a ``not_run`` row: ``"not run (<why>)"``."""
    if mcfg.get("not_run"):
        return f"not run ({mcfg['not_run']})"
    algo = mcfg.get("algorithm", name)
    parts = ([algo] if algorithm and algo != name else []) + [
        f"{k} = {v}" for k, v in (mcfg.get("fixed") or {}).items()
    ]
    text = ", ".join(parts) or "defaults"
    if mcfg.get("features"):
        text += f"; on {', '.join(mcfg['features'])} only ({mcfg.get('features_reason', '')})"
    return text


def row_features(mcfg: dict, wanted) -> list[str]:
    """The feature sets of ``wanted`` that a learner row is fitted on: its ``features`` where the
    row restricts them (a learner too slow on a high-dimensional set; the reason in
    ``features_reason``), else all."""
    only = mcfg.get("features")
    return [f for f in wanted if only is None or f in only]


def fitted_rows(methods: dict) -> list[str]:
    """The learner rows that are fitted (one cell each): every row of ``methods`` but those
    with ``not_run`` (shown as n/a with their reason, :func:`not_run_status`)."""
    return [m for m, mcfg in methods.items() if not mcfg.get("not_run")]


def not_run_status(methods: dict, features) -> dict:
    """Table row name -> status of the learner rows that have no number by configuration: a
    row with ``not_run`` (one row, ``"n/a (<not_run>)"``: it is never fitted) and, for a row
    restricted to some feature sets (``features``, ``features_reason``), each other feature set
    of ``features``: ``"n/a (not run on this feature set: <features_reason>)"``."""
    out = {}
    for m, mcfg in methods.items():
        if mcfg.get("not_run"):
            out[m] = f"n/a ({mcfg['not_run']})"
            continue
        kept = row_features(mcfg, features)
        for f in features:
            if f not in kept:
                out[row_name(m, f)] = (
                    f"n/a (not run on this feature set: {mcfg.get('features_reason', 'features')})"
                )
    return out


def table_column(name: str, protocol: str, scoring: str) -> str:
    """The table's column of a row: ``"material (a)"``, ``"cars60 (b)"``, ``"material (d)
    answers"`` ... (protocol (c) has no table column: its figure, ``figure_human_curve``)."""
    letter = PROTOCOL_LETTERS[protocol]
    if protocol == "publisher":
        return f"{name} (d) {scoring}"
    return f"{name} ({letter})"


def all_columns(sets=tuple(SETS), protocols=PROTOCOLS) -> list[str]:
    """Every table column of ``sets`` under ``protocols`` (:func:`table_column`): (a) and (b)
    per set, (d) ``answers`` and ``majority`` for material; (c) has none."""
    out = []
    for name in sets:
        for p in protocols:
            if p in ("triplets", "items"):
                out.append(table_column(name, p, "answers"))
            elif p == "publisher" and name == "material":
                out += [table_column(name, p, c) for c in ("answers", "majority")]
    return out


def check_published(block: dict) -> None:
    """Raise ``ValueError`` naming a ``human.published`` row whose ``column`` is no column any
    human table has (:func:`all_columns`: e.g. ``"material (d) majority"``) or that has the name
    of a row of ours (a learner, ``Eucl``, ``chance``, ``ceiling``)."""
    ours = {*(block.get("methods") or {}), EUCLIDEAN, "chance", "ceiling"}
    for name, row in (block.get("published") or {}).items():
        if row.get("column") not in all_columns():
            raise ValueError(
                f"config human.published.{name}: column {row.get('column')!r} is no column of "
                f"the human table; one of {all_columns()}"
            )
        if name in ours or name.split(" · ")[0] in ours:
            raise ValueError(
                f"config human.published.{name}: the name of one of our rows; give the "
                "published method a name of its own"
            )


def published(block: dict, columns) -> tuple[list[str], pd.DataFrame]:
    """``(rows, paper)``: the ``human.published`` rows that have a number in one of ``columns``
    (in the config's order) and their numbers as a
    :class:`tripletbench.harness.paper_table.PaperTable` ``paper`` frame (columns dataset,
    algorithm, metric, paper, paper_std, paper_method): shown beside ours, never rerun or
    ranked (:func:`table_status` gives their own cells' reason)."""
    rows = {name: r for name, r in (block.get("published") or {}).items() if r["column"] in columns}
    paper = pd.DataFrame(
        [
            {
                "dataset": r["column"],
                "algorithm": name,
                "metric": "triplet_accuracy",
                "paper": float(r["value"]),
                "paper_std": np.nan,
                "paper_method": name,
            }
            for name, r in rows.items()
        ],
        columns=["dataset", "algorithm", "metric", "paper", "paper_std", "paper_method"],
    )
    return list(rows), paper


PUBLISHED_STATUS = "n/a (published number only)"


def table_status(
    columns, methods, missing: dict, feature_free=(), not_run=None, published_rows=()
) -> dict:
    """Why a table cell has no number (:class:`tripletbench.harness.paper_table.PaperTable`'s ``status``):
    a whole column whose set did not run (``missing``: set -> reason), a feature set that is
    another set's only (``ingredients``: Food-100), no ceiling where a question is mostly
    answered once (Food-100, the cars) or where the majority is the reference (d, majority),
    on protocol (b) every row of ``feature_free`` (:func:`feature_free_rows` of the config's
    methods: a method with no feature map cannot place an item it never saw: "n/a (no feature
    map)"), in every column the rows of ``not_run`` (row -> status, :func:`not_run_status`: a
    learner row not run at all or not on that feature set), and every cell of a
    ``published_rows`` row (:func:`published`: the number is another's, shown in the paper
    column) says :data:`PUBLISHED_STATUS`."""
    out = {}
    not_run = not_run or {}
    for col in columns:
        s = col.split(" ", 1)[0]
        if s in missing:
            out[col] = missing[s]
            continue
        for m in methods:
            if m.endswith(" · ingredients") and s != "food100":
                out[(col, m)] = "n/a (Food-100 only)"
            elif m in not_run:
                out[(col, m)] = not_run[m]
            if col.endswith("(b)") and m in feature_free:
                out[(col, m)] = "n/a (no feature map: cannot place a held-out item)"
        if s != "material":
            out[(col, "ceiling")] = "n/a (one answer per question)"
        if col.endswith("majority"):
            out[(col, "ceiling")] = "n/a (1 by definition)"
        for m in published_rows:
            out[(col, m)] = PUBLISHED_STATUS
    return out


def route_and_mirror(config: dict) -> tuple[str, str | None]:
    """``(route, mirror)`` the human sets are fetched by: ``human.mirror`` where the block names
    one (the download route's mirror layout, whatever ``data.route`` says: how the CI config
    reads ``../shared/mirror`` beside an embedded run), else ``data.route`` and ``data.mirror``."""
    block = config.get("human") or {}
    if block.get("mirror"):
        return "download", block["mirror"]
    data = config.get("data") or {}
    return data.get("route", "embedded"), data.get("mirror")


def missing_reason(config: dict) -> str:
    """Why a configured set did not run, for the table and the figure: "needs download"
    (embedded route), "not in the data mirror", or, for ``human.mirror``, that the folder is
    absent (ours: the CI config names ``../shared/mirror``, which a clone may lack; the run
    goes on without the sets)."""
    block = config.get("human") or {}
    mirror = block.get("mirror")
    if mirror:
        from tripletbench.datasets.base import DataUnavailable, mirror_location

        try:
            mirror_location(mirror)
        except DataUnavailable:
            return f"not run: no data mirror at {mirror} (human.mirror)"
        return f"not in the data mirror {mirror} (human.mirror)"
    route, data_mirror = route_and_mirror(config)
    if route != "download":
        return "needs download"
    return "not in the data mirror" if data_mirror else "not run"


def row_name(method: str, features: str) -> str:
    """The table's row of a cell row: ``"OASIS · hog"``; ``chance`` and ``ceiling`` alone."""
    return f"{method} · {features}" if features else method


__all__ = [
    "EMBEDDING_PAPERS",
    "EUCLIDEAN",
    "ORDINAL_PREFIX",
    "PROTOCOLS",
    "PROTOCOL_LETTERS",
    "SETS",
    "answers",
    "available",
    "item_scores",
    "cell_rows",
    "all_columns",
    "check_published",
    "embedding_versions",
    "feature_free_rows",
    "feature_sets",
    "fit_ordinal_embedding",
    "is_feature_free",
    "fitted_rows",
    "load",
    "missing_reason",
    "module",
    "normalize",
    "published",
    "ordinal_class",
    "not_run_status",
    "route_and_mirror",
    "row_features",
    "row_name",
    "row_settings",
    "splits",
    "table_column",
    "table_status",
    "training_triplets",
]
