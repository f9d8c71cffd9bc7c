"""The protocol of Schultz & Joachims (2003), section 5, for text corpora and class-labelled sets.

For one *notion of distance* and one seed:

1. documents (or samples) are split at random, ``train_fraction`` (0.7) for training and the
   rest for testing (the paper's 70/30 document split; not per class);
2. features: for text, a **binary bag of words** with no stemming and no stop-word removal:
   ``CountVectorizer(binary=True, lowercase=True, token_pattern=TOKEN_PATTERN)`` fitted on the
   training documents (words unseen in training are dropped from test documents); the TFIDF
   baseline uses ``TfidfVectorizer`` with the same tokens and vocabulary (smoothed idf, rows
   L2-normalised, scikit-learn's defaults). Class-labelled sets use their prepared features
   (scaled to [-1, 1]);
3. triplets (anchor, positive, negative) are drawn by the notion's rule inside the training part
   and, independently, inside the test part: the anchor and the positive share the notion's
   group, the negative does not (:func:`datasets.constraints.sample_class_triplets` on the
   group labels). Training triplets are nested (the first n of one draw), so the learning curve
   adds triplets to the same set;
4. SVM-relative (eq. 8, A = I, C from the config, 1 in the paper) is fitted on each number of
   training triplets; its test triplet accuracy is compared with the static Euclidean distance on
   the binary features ("Binary") and on TFIDF ("TFIDF"), or on the scaled features ("Eucl").

Notions (group label per document):

* ``webkb_university``: same university closer. "misc" pages (many universities in one folder)
  get a group of their own each, so they are only ever negatives;
* ``webkb_topic``: same topic (faculty, student, course, project) closer;
* ``webkb_topic_facultystudent``: topic, with faculty and student merged: a faculty page is
  closer to a student page than to a course or project page;
* ``reuters_topic`` (stand-in): same topic among corn, grain-not-corn, neither;
* any prepared dataset name (vehicle, ...): same class closer.

The text of the paper's section 5 was not at hand when this was written: the numbers of
triplets are ours (config), the rules follow the issue's description.

Random streams: ``np.random.default_rng([seed, STREAMS[purpose]])``, separate from
:data:`datasets.preprocess.PURPOSES` (which this protocol does not share).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import scipy.sparse as sp

from algorithms.svm_relative import SVMRelative
from datasets.base import DataError
from datasets.constraints import check_triplets, sample_class_triplets
from evaluation.triplets import model_triplet_accuracy, static_triplet_accuracy

TOKEN_PATTERN = r"(?u)\b\w+\b"  # every run of letters/digits/underscore, single characters kept
STREAMS = {"split": 100, "train_triplets": 101, "test_triplets": 102, "mds": 103}
TEXT_NOTIONS = {
    "webkb_university": ("webkb", "university"),
    "webkb_topic": ("webkb", "topic"),
    "webkb_topic_facultystudent": ("webkb", "topic_facultystudent"),
    "reuters_topic": ("reuters", "topic"),
}


def stream(seed: int, purpose: str) -> np.random.Generator:
    return np.random.default_rng([int(seed), STREAMS[purpose]])


def document_split(n: int, seed: int, train_fraction: float = 0.7):
    """Random split of n items: (train, test) sorted int64 index arrays, round(f n) in train."""
    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction must be in (0, 1), got {train_fraction}")
    perm = stream(seed, "split").permutation(n)
    k = round(train_fraction * n)
    if k < 3 or n - k < 3:
        raise DataError(f"{n} items cannot be split into a train and a test part of 3 or more")
    return np.sort(perm[:k]), np.sort(perm[k:])


def notion_groups(labels: np.ndarray, notion: str) -> np.ndarray:
    """The group of each item under ``notion`` (str array); "misc" pages get singleton groups
    in ``webkb_university`` (they can only be negatives)."""
    g = np.asarray(labels).astype(object)
    if notion == "webkb_university":
        misc = np.flatnonzero(g == "misc")
        g = g.copy()
        g[misc] = [f"misc#{i}" for i in misc]
    return g.astype(str)


def text_features(texts, train, token_pattern: str = TOKEN_PATTERN):
    """(binary, tfidf, vocabulary): CSR float64 matrices for all documents, vectorizers fitted
    on the ``train`` documents only."""
    from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer

    train_texts = [texts[i] for i in train]
    cv = CountVectorizer(binary=True, lowercase=True, token_pattern=token_pattern)
    cv.fit(train_texts)
    binary = cv.transform(texts).astype(np.float64).tocsr()
    tf = TfidfVectorizer(lowercase=True, token_pattern=token_pattern, vocabulary=cv.vocabulary_)
    tf.fit(train_texts)
    tfidf = tf.transform(texts).astype(np.float64).tocsr()
    return binary, tfidf, cv.get_feature_names_out()


def draw_triplets(groups: np.ndarray, part: np.ndarray, n: int, seed: int, purpose: str):
    """``n`` rule triplets among the items ``part``, as indices into ``part`` (int64 (n, 3))."""
    g = groups[part]
    t = sample_class_triplets(g, n, stream(seed, purpose))
    return check_triplets(t, g)


def run_notion(
    notion: str,
    features: dict,
    groups: np.ndarray,
    seed: int,
    n_train_triplets: list[int],
    n_test_triplets: int,
    C: float = 1.0,
    solver: str = "CLARABEL",
    train_fraction: float = 0.7,
    split=None,
    log=print,
):
    """One (notion, seed) cell: tidy rows and the model fitted on the most training triplets.

    ``features``: {"learn": the matrix SVM-relative learns on, plus static baselines by name,
    e.g. "Binary", "TFIDF" or "Eucl"} (arrays or CSR, all with the same rows).
    Returns (rows DataFrame, model, split dict).
    """
    n_items = features["learn"].shape[0]
    if split is None:
        train, test = document_split(n_items, seed, train_fraction)
    else:
        train, test = split
    sizes = sorted({int(n) for n in n_train_triplets})
    t_train_all = draw_triplets(groups, train, sizes[-1], seed, "train_triplets")
    t_test = draw_triplets(groups, test, n_test_triplets, seed, "test_triplets")
    X = features["learn"]
    X_tr, X_te = X[train], X[test]
    base = {"notion": notion, "seed": seed, "n_test_triplets": len(t_test)}
    rows = []
    for name, F in features.items():
        if name == "learn":
            continue
        r = static_triplet_accuracy(F[test], t_test)
        rows.append({**base, "method": name, "n_train_triplets": 0, **r})
        log(f"  {notion} seed {seed}: {name} {r['triplet_accuracy']:.4f}")
    model = None
    for n in sizes:
        model = SVMRelative(C=C, solver=solver, preprocessor=X_tr)
        t0 = time.perf_counter()
        model.fit(t_train_all[:n])
        wall = time.perf_counter() - t0
        r = model_triplet_accuracy(model, X_te, t_test)
        train_acc = model_triplet_accuracy(model, X_tr, t_train_all[:n])["triplet_accuracy"]
        rows.append(
            {
                **base,
                "method": "SVM-relative",
                "n_train_triplets": n,
                **r,
                "train_triplet_accuracy": train_acc,
                "fit_wall_s": wall,
                "solve_s": model.solve_seconds_,
                "solver": solver,
                "solver_status": model.solver_status_,
                "objective": model.objective_,
                "n_nonzero_weights": int(np.sum(model.w_ > 1e-8)),
                "n_active_features": model.n_active_features_,
                "C": C,
            }
        )
        log(
            f"  {notion} seed {seed}: SVM-relative n={n}: test {r['triplet_accuracy']:.4f} "
            f"(train {train_acc:.4f}), solve {model.solve_seconds_:.2f} s, "
            f"{model.solver_status_}"
        )
    return pd.DataFrame(rows), model, {"train": train, "test": test}


def squared_distances(F, w=None) -> np.ndarray:
    """Dense (n, n) matrix of sum_j w_j (f_aj - f_bj)^2 (w = None: all ones)."""
    from sklearn.metrics.pairwise import euclidean_distances

    if w is not None:
        s = np.sqrt(np.asarray(w))
        F = sp.csr_matrix(F).multiply(s[None, :]).tocsr() if sp.issparse(F) else F * s
    D = euclidean_distances(F, F, squared=True)
    np.fill_diagonal(D, 0.0)
    return np.clip(D, 0.0, None)


def classical_mds(D2: np.ndarray, k: int = 2):
    """Classical (Torgerson) MDS of a squared-distance matrix: B = -1/2 J D2 J with
    J = I - 11^T/n, coordinates = top-k eigenvectors times sqrt(eigenvalues).

    Returns ((n, k) coordinates, (k,) eigenvalues, fraction of the positive eigenvalue mass the k
    dimensions carry). Not scikit-learn's ``MDS``, which is metric SMACOF."""
    D2 = np.asarray(D2, dtype=np.float64)
    n = len(D2)
    J = np.eye(n) - 1.0 / n
    B = -0.5 * J @ D2 @ J
    ev, V = np.linalg.eigh((B + B.T) / 2)
    order = np.argsort(ev)[::-1]
    ev, V = ev[order], V[:, order]
    top = np.clip(ev[:k], 0, None)
    explained = float(top.sum() / np.clip(ev, 0, None).sum()) if np.any(ev > 0) else 0.0
    return V[:, :k] * np.sqrt(top), ev[:k], explained


def measure_solve(X, groups, n_triplets: int, seed: int, C: float, solver: str) -> dict:
    """One solve of eq. 8 on ``n_triplets`` rule triplets over all rows of X with ``solver``
    ("CLARABEL", "SCS" or "dcd"); run this in a fresh process (:func:`measure_in_subprocess`) so
    that its peak RSS is its own. Imports and "dcd"'s one-off numba compilation happen before the
    timing. For "dcd" the row also has the certificate (rel_gap, kkt_margin_residual, epochs)."""
    import resource
    import tracemalloc

    if solver == "dcd":  # compile (or load numba's cache) on a one-triplet problem first
        SVMRelative(solver="dcd").fit(np.array([[[0.0], [1.0], [2.0]]]))
    else:
        import cvxpy  # noqa: F401  (imported before timing: its first import takes seconds)

    t = sample_class_triplets(groups, n_triplets, stream(seed, "train_triplets"))
    tracemalloc.start()
    m = SVMRelative(C=C, solver=solver, preprocessor=X)
    t0 = time.perf_counter()
    m.fit(t)
    wall = time.perf_counter() - t0
    _, py_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    cert = getattr(m, "certificate_", {})
    return {
        "n_triplets": n_triplets,
        "solver": solver,
        "n_features": X.shape[1],
        "n_active_features": m.n_active_features_,
        "fit_wall_s": wall,
        "setup_s": m.setup_seconds_,
        "solve_s": m.solve_seconds_,
        "status": m.solver_status_,
        "objective": m.objective_,
        "rel_gap": cert.get("rel_gap", np.nan),
        "kkt_margin_residual": cert.get("kkt_margin_residual", np.nan),
        "epochs": cert.get("epochs", np.nan),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "python_peak_mb": py_peak / 2**20,
    }


def measure_in_subprocess(X, groups, n_triplets, seed, C, solver, timeout_s):
    """:func:`measure_solve` in a fresh process (peak RSS of that process only, including the
    solver's native memory; tracemalloc sees Python allocations only). Returns its dict, or one
    with status "timeout" after ``timeout_s`` seconds (the process is terminated), or "error: ..."
    if the solve raised."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as pool:
        res = pool.apply_async(measure_solve, (X, groups, n_triplets, seed, C, solver))
        base = {"n_triplets": n_triplets, "solver": solver, "n_features": X.shape[1]}
        try:
            return res.get(timeout=timeout_s)
        except mp.TimeoutError:
            pool.terminate()
            return {**base, "status": f"timeout (> {timeout_s} s)"}
        except Exception as err:  # SolverError and the like, raised in the worker
            return {**base, "status": f"error: {type(err).__name__}: {err}"}


def percent(v) -> str:
    return "–" if pd.isna(v) else f"{100 * v:.2f}"
