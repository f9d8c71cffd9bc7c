"""One cell of an experiment: build a learner from its constraints, fit it, evaluate mAP.

The learners learn from different kinds of constraints (``constraint_kind``); every one of them
receives the same triplet set, converted explicitly:

* "triplets": the index triplets as they are (OASIS, SDCA, Eucl);
* "pairs": (a, p) as +1 and (a, n) as -1 for each triplet (LEGO, ITML);
* "chunklets": connected components of the similar pairs (RCA);
* "labels": the samples that occur in the triplets with their class labels (LMNN).

Sparse features (scipy CSR, e.g. bag-of-visual-words image features): the
bilinear learners (OASIS, SDCA, COMET) take the CSR matrix as it is; the Mahalanobis learners
(Eucl, RCA, ITML, LEGO, LMNN, ...) need dense input and get a dense copy of the *training* rows
only (``fit_learner``). Evaluation never densifies: bilinear scores are sparse x dense products and
Mahalanobis scores use ``tripletbench.evaluation.retrieval.sparse_mahalanobis_similarity``.
"""

from __future__ import annotations

import itertools
import json
import time

import numpy as np
import pandas as pd
import scipy.sparse as sp
from tripletbench.algorithms import make_learner
from tripletbench.algorithms._checks import ExternalLearnerError  # not .external: see fit_learner
from tripletbench.datasets.constraints import triplets_to_chunklets, triplets_to_pairs
from tripletbench.evaluation.retrieval import (
    mean_average_precision,
    retrieval_scores,
    sparse_mahalanobis_similarity,
)


def algorithm_of(method: str, method_cfg: dict) -> str:
    """The learner behind a table row: ``method_cfg["algorithm"]`` if given, else the row's name
    (so a table can hold variants, e.g. a row "SDCA-random" with algorithm SDCA)."""
    return method_cfg.get("algorithm", method)


def constraint_kind_of(method: str, method_cfg: dict) -> str:
    """The constraint kind a row's learner gets ("triplets", "pairs", "chunklets", "labels"):
    the row's ``constraints`` (external learners, :mod:`tripletbench.algorithms.external`), else its class's.
    """
    from tripletbench.algorithms import learner_class

    return (
        method_cfg.get("constraints")
        or learner_class(algorithm_of(method, method_cfg)).constraint_kind
    )


def row_params(method_cfg: dict) -> dict:
    """A learner row's keyword arguments without its grid: ``fixed``, plus the row's
    ``constraints`` where it gives one (an external learner's constraint kind,
    :mod:`tripletbench.algorithms.external`). Every study builds a row's learner from these (and
    a grid point, where it has a grid): one rule for what a row means wherever rows appear."""
    fixed = dict(method_cfg.get("fixed", {}) or {})
    if method_cfg.get("constraints"):
        fixed["constraints"] = method_cfg["constraints"]
    return fixed


def param_grid(method_cfg: dict) -> list[dict]:
    """All hyperparameter combinations of a method's config: :func:`row_params` merged with each
    point of the Cartesian product of ``grid`` (in the config's order)."""
    grid = method_cfg.get("grid", {}) or {}
    fixed = row_params(method_cfg)
    keys = list(grid)
    return [
        {**fixed, **dict(zip(keys, vals))} for vals in itertools.product(*(grid[k] for k in keys))
    ]


def grid_labels(method_cfg: dict) -> list[str]:
    """File-name labels of the grid points, e.g. "lam=0.005"; "default" when there is no grid."""
    grid = method_cfg.get("grid", {}) or {}
    if not grid:
        return ["default"]
    keys = list(grid)
    return [
        "_".join(f"{k}={v}" for k, v in zip(keys, vals))
        for vals in itertools.product(*(grid[k] for k in keys))
    ]


def params_for_label(method_cfg: dict, label: str) -> dict:
    labels = grid_labels(method_cfg)
    if label not in labels:
        raise KeyError(f"unknown grid point {label!r}; expected one of {labels}")
    return param_grid(method_cfg)[labels.index(label)]


def learner_seed(seed: int) -> int:
    from tripletbench.datasets.preprocess import rng

    return int(rng(seed, "learner").integers(2**31 - 1))


def fit_learner(
    name: str,
    params: dict,
    triplets: np.ndarray,
    X: np.ndarray,
    y: np.ndarray,
    seed: int,
    verbose: bool | None = None,
    pairs_per_triplet: int = 2,
):
    """Fit learner ``name`` on index ``triplets`` into ``X`` (labels ``y`` only for LMNN).

    ``verbose``: a progress bar with the estimated time left (tqdm) for the learners on the
    shared online loops (``tripletbench.algorithms.base.BilinearMixin``, ``OnlineMixin``); None = on inside a
    rule job, into its log (:func:`tripletbench.harness.io.job_progress`). Library learners (metric-learn,
    cvxpy) keep their own output off.

    A pair learner gets ``pairs_per_triplet`` pairs per triplet
    (:func:`tripletbench.datasets.constraints.triplets_to_pairs`; 2: (a, p) similar and (a, n) dissimilar).

    Returns ``(model, timing)`` with timing = {"fit_wall_s", "fit_cpu_s"}; conversion of the
    constraints is not timed.
    """
    from tripletbench.algorithms import learner_class
    from tripletbench.algorithms.base import BilinearMixin, OnlineMixin

    from .io import job_progress

    cls = learner_class(name)
    shared_loop = issubclass(cls, (BilinearMixin, OnlineMixin))
    progress = (job_progress() if verbose is None else verbose) and shared_loop
    # an external learner (tripletbench.algorithms.external, not imported here: a cell's code hash covers the
    # modules this one imports) keeps its library's own verbose, a hyperparameter like the others
    verbose_arg = {} if hasattr(cls, "external_path") else {"verbose": progress}
    model = make_learner(
        name, preprocessor=X, random_state=learner_seed(seed), **verbose_arg, **params
    )
    if sp.issparse(X) and not isinstance(model, BilinearMixin):
        X = X.toarray()  # Mahalanobis learners need dense input: the training rows only
        model.set_params(preprocessor=X)
    kind = model.constraint_kind
    if kind == "triplets":
        args = (triplets,)
    elif kind == "pairs":
        args = triplets_to_pairs(triplets, pairs_per_triplet)
    elif kind == "chunklets":
        args = (X, triplets_to_chunklets(triplets, len(X)))
    elif kind == "labels":
        used = np.unique(triplets)
        args = (X[used], y[used])
    else:
        raise ValueError(f"{name}: unknown constraint kind {kind!r}")
    t0, c0 = time.perf_counter(), time.process_time()
    model.fit(*args)
    return model, {"fit_wall_s": time.perf_counter() - t0, "fit_cpu_s": time.process_time() - c0}


def score_function(model, X):
    """The ranking score function of ``model`` for features like ``X``: its ``similarity_matrix``,
    or for a Mahalanobis model on sparse features the sparse-safe -d_M^2."""
    if sp.issparse(X) and hasattr(model, "get_mahalanobis_matrix"):
        return sparse_mahalanobis_similarity(model.get_mahalanobis_matrix())
    return model.similarity_matrix


PROGRESS_SCORES = 10**8
"""An exact ranking of at least this many query-item scores shows a progress bar in a job."""


def evaluate_map(model, X_query, y_query, X_db, y_db, ks=()) -> dict:
    """mAP of ``model`` with ``X_query`` as queries ranking the database ``X_db`` (relevance = same
    class, full ranking); arrays or CSR matrices (never densified). Returns {"mAP",
    "queries_without_relevant", "eval_wall_s"} plus "precision@k" (mean over queries) for each k
    in ``ks``."""
    from .io import job_progress

    t0 = time.perf_counter()
    score = score_function(model, X_db)
    # a bar in the job's log where the ranking is long (at least PROGRESS_SCORES scores)
    bar = job_progress() and X_query.shape[0] * X_db.shape[0] >= PROGRESS_SCORES
    if not ks:
        value, missing = mean_average_precision(
            score, X_query, y_query, X_db, y_db, progress=bar
        )
        prec = {}
    else:
        res = retrieval_scores(score, X_query, y_query, X_db, y_db, ks=tuple(ks), progress=bar)
        ok = ~np.isnan(res["ap"])
        if not ok.any():
            raise ValueError("no query has a relevant item in the database: mAP is undefined")
        value, missing = float(res["ap"][ok].mean()), int((~ok).sum())
        prec = {f"precision@{k}": float(v.mean()) for k, v in res["precision_at"].items()}
    return {
        "mAP": value,
        "queries_without_relevant": missing,
        **prec,
        "eval_wall_s": time.perf_counter() - t0,
    }


def model_arrays(model) -> dict:
    """The learned matrix (W, M, or the SVM's weights w) and dual variables (SDCA, SVM), for saving."""
    out = {}
    for attr in ("W_", "M_", "w_", "alpha_"):
        if hasattr(model, attr):
            out[attr.rstrip("_")] = np.asarray(getattr(model, attr))
    return out


def model_scalars(model) -> dict:
    """Extra final numbers a learner records (SDCA's primal, dual and duality gaps; online ITML's
    shares of growing and of zeroed steps)."""
    names = (
        "primal_",
        "dual_",
        "duality_gap_",
        "duality_gap_last_",
        "growing_step_fraction_",
        "zeroed_step_fraction_",
    )
    return {n.rstrip("_"): float(getattr(model, n)) for n in names if hasattr(model, n)}


def _rows(base: dict, model, timing: dict, ev: dict) -> list[dict]:
    """Tidy rows of one fit: final metrics, then the training trace at its checkpoints."""
    final = {
        "mAP": ev["mAP"],
        "queries_without_relevant": ev["queries_without_relevant"],
        **{k: v for k, v in ev.items() if k.startswith("precision@")},
        **timing,
        "eval_wall_s": ev["eval_wall_s"],
        **model_scalars(model),
    }
    rows = [{**base, "checkpoint": "final", "metric": k, "value": v} for k, v in final.items()]
    trace = getattr(model, "trace_", None) or {}
    for i, step in enumerate(trace.get("step", [])):
        rows += [
            {**base, "checkpoint": str(step), "metric": k, "value": trace[k][i]}
            for k in trace
            if k != "step"
        ]
    return rows


def _test_parts(split: dict, ks, base: dict, seed: int) -> tuple[str, str]:
    """The keys of ``split`` that the test stage uses as queries and as database: the protocol's
    own ("query", "database") where it names them, else ("test", "train"). Raises ConfigError
    (before any fit) where a k of ``ks`` exceeds the database's size."""
    own = "query" in split and "database" in split
    test_query, test_db = ("query", "database") if own else ("test", "train")
    n_db = len(split[test_db])  # the test stage's database
    if ks and max(ks) > n_db:
        from .config_files import ConfigError

        raise ConfigError(
            f"config {base.get('table', '<experiment>')}.precision_at_k: {max(ks)} exceeds the "
            f"{n_db} {'database' if own else 'training'} items that the test queries rank "
            f"({base.get('dataset')}, seed {seed}); precision@k is undefined for k beyond the "
            "database"
        )
    return test_query, test_db


def _fit_in_cell(where: str, algorithm: str, params, triplets, X, y, seed):
    """:func:`fit_learner`, with an external learner's failure named by its cell ``where``
    (method, dataset, seed, stage, grid point)."""
    try:
        return fit_learner(algorithm, params, triplets, X, y, seed)
    except ExternalLearnerError as err:
        raise ExternalLearnerError(f"{where}: {err}") from err


def _check_rankable(ev: dict, where: str) -> None:
    """Raise ``ValueError`` naming the cell ``where`` when the scores gave a non-finite mAP."""
    if not np.isfinite(ev["mAP"]):
        raise ValueError(
            f"{where}: the model's scores give a non-finite mAP ({ev['mAP']}): it cannot rank "
            "these points; check its hyperparameters for this data, or leave it out"
        )


def run_cell(
    method: str,
    method_cfg: dict,
    X: np.ndarray,
    y: np.ndarray,
    split: dict,
    triplets_fit: np.ndarray,
    triplets_train: np.ndarray,
    seed: int,
    base: dict,
    log=print,
    ks=(),
):
    """Validation, selection, refit and test of one (dataset, seed, method) cell.

    With more than one grid point, each is fitted on ``split["fit"]`` (with ``triplets_fit``) and
    scored by mAP with ``split["val"]`` as queries and the fit part as database; the best (first
    in grid order on ties) is refitted on ``split["train"]`` (with ``triplets_train``) and scored
    with ``split["test"]`` as queries and the training set as database: unseen queries rank the
    collection the metric was learned on. That database is our choice: the SDCA paper does not
    say which set its mAP searches, and the OASIS paper's text at hand averages precision over
    test images without naming the ranked set.

    ``method_cfg["max_triplets"]`` (optional) fits the method on the first that many triplets only
    (a random subset: the triplets are drawn at random), a bound for learners too slow for all of
    them. ``ks``: precision@k also computed on the test stage for each k.

    A protocol that names its own test queries and database (``split["query"]`` and
    ``split["database"]``, indices into X: the SDCA paper's Table 4, where 10% of the test set
    are the queries and the rest of it, with the background images, is searched) is tested with
    those instead of test vs training set.

    Returns ``(rows, model)``: tidy rows (stage "val" and "test") and the final fitted model.
    """
    test_query, test_db = _test_parts(split, ks, base, seed)
    labels = grid_labels(method_cfg)
    n_max = method_cfg.get("max_triplets")
    if n_max:
        triplets_fit, triplets_train = triplets_fit[:n_max], triplets_train[:n_max]
    rows = []

    def one(label, fit_part, query_part, db_part, triplets, stage):
        params = params_for_label(method_cfg, label)
        Xf, yf = X[split[fit_part]], y[split[fit_part]]
        where = f"{method} on {base.get('dataset')}, seed {seed}, {stage} {label}"
        model, timing = _fit_in_cell(where, algorithm_of(method, method_cfg), params, triplets,
                                     Xf, yf, seed)  # fmt: skip
        Xd, yd = (Xf, yf) if db_part == fit_part else (X[split[db_part]], y[split[db_part]])
        ev = evaluate_map(
            model,
            X[split[query_part]],
            y[split[query_part]],
            Xd,
            yd,
            ks=ks if stage == "test" else (),
        )
        del Xd, yd
        _check_rankable(ev, where)
        log(f"  {stage} {label}: fit {timing['fit_wall_s']:.2f} s, mAP {ev['mAP']:.4f}")
        info = {
            **base,
            "n_triplets": len(triplets),
            "stage": stage,
            "params_label": label,
            "params": json.dumps(params, sort_keys=True),
        }
        rows.extend(_rows(info, model, timing, ev))
        return model, ev["mAP"]

    if len(labels) > 1:
        scores = [one(label, "fit", "val", "fit", triplets_fit, "val")[1] for label in labels]
        best = labels[int(np.argmax(scores))]
    else:
        best = labels[0]
    model, _ = one(best, "train", test_query, test_db, triplets_train, "test")
    return rows, model


def test_rows(runs: pd.DataFrame) -> pd.DataFrame:
    """The final test-stage rows of collected runs."""
    return runs[(runs.stage == "test") & (runs.checkpoint == "final")]
