"""The protocol of Schultz & Joachims (2003), section 5, for text corpora and class-labelled sets.

What the paper states (section 5) and how it is done here, per (notion, seed):

1. **Split**: all documents X are split at random into X_train (70%) and X_test (30%), the same
   split for every notion of one corpus and seed (:func:`document_split`).
2. **Features** of the learned distance: a *binary* bag of words "without stemming or stop word
   removal" (the paper's 63,949 features on WebKB). Ours: the tokens of :data:`TOKEN_PATTERN`
   (every run of letters, digits or underscore); the paper does not say how it tokenised. Three
   settings the paper does not state, ``svm.text_features`` (:func:`static_features`): what of a
   WebKB page file becomes words (``reading``, :data:`tripletbench.datasets.webkb.PAGE_READINGS`: the visible
   text, plus the MIME header, plus the tags' attributes, or the whole file as served), whether
   tokens are lower-cased (``lowercase``), and each document vector's scale (``scale``,
   :data:`VECTOR_SCALES`: binary as is, or unit Euclidean length; the Binary baseline gets the
   same scale). The default was chosen by a measured rule, not by the paper's text: the
   combination whose learned and Binary cells are closest to the paper's Table 1
   (:mod:`tripletbench.studies.svm.sweeps`). The vocabulary (and TFIDF's idf) is built on **all** documents of
   the corpus, as the paper's feature count is a count over the collection (label-free; our
   reading).
3. **Triplets** (i, j, k) = (anchor, positive, negative): "we first randomly selected three
   documents from X_train" and kept the triple when the notion's rule holds; P_test likewise from
   X_test. Here (:func:`sample_rule_triplets`): three *distinct* documents uniformly at random,
   kept when the rule holds, a triple drawn twice kept once (P is a set of comparisons); so P is a
   uniform random subset of the rule's triples. Distinctness and no repeats are our reading. The
   training sets of the learning curve are nested (the first n of one draw), our choice.
4. **Rules** (the notions of section 5; :data:`NOTIONS`):

   * University: i and j of the same university, k of another. The paper used "webpages from
     seven universities" without naming them: we keep the pages of the ``n_universities`` (7)
     universities with the most pages (our choice of which seven; :func:`eligible_items`).
   * Topic: i and j of the same topic (student, faculty, course, project), k of another.
   * Topic+FacultyStudent: the Topic rule, **or** i a faculty page, j a student page and k a
     course or project page (:attr:`Notion.extra`).
   * Offline stand-ins on Reuters-21578 corn/grain (no WebKB copy here): ``reuters_topic``
     mimics Topic (topics corn, grain-not-corn, neither); ``reuters_topic_corngrain`` mimics
     Topic+FacultyStudent with corn -> grain-not-corn -> neither in the roles of
     faculty -> student -> course/project. No stand-in mimics University (the corpus has no
     source labels).
   * A class-labelled set (vehicle, ...; not in the paper): same class closer.

5. **Learner**: eq. 8 with A = I and C = 1 (the paper's setting) by ``solver`` (the paper names
   none); the kernel case A = Phi (section 4, eq. 3) as its own row with an RBF kernel: the paper
   says only that "using a kernel instead of A = I did not yield improved results", so the
   kernel, its width (median heuristic, :func:`median_gamma`) and the number of triplets are ours.
6. **Static baselines**: the Euclidean distance on binary ("Binary") and TFIDF vectors. The paper
   reports, of "several variations of term weighting, stemming and stopword removal", the one that
   performed best on the test set, and says that it used stemming and stop-word removal. We compute
   the variants :data:`PREPROCESSING` (none, stop, stem, stem+stop) for both weightings
   (:func:`static_features`); the table shows the best on the test set, named. Stemmer: Porter's
   (``snowballstemmer``, algorithm "porter"); stop list: scikit-learn's English list (318 words);
   TFIDF: raw term counts times the smoothed idf, rows L2-normalised (scikit-learn's
   ``TfidfTransformer`` defaults). These three are ours: the paper names none.
7. **Score**: the fraction of P_test satisfied, d(i, j) < d(i, k) strictly (ties fail), Table 1.

Random streams: ``np.random.default_rng([seed, STREAMS[purpose]])``, separate from
:data:`tripletbench.datasets.preprocess.PURPOSES` (which this protocol does not share).
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import scipy.sparse as sp

from tripletbench.algorithms.svm_relative import SVMRelative
from tripletbench.datasets.base import DataError
from tripletbench.evaluation.triplets import static_triplet_accuracy

# the notions, their rules and triplets (steps 1, 3, 4), the text features (step 2, 6) and the
# solvers' scaling live in modules of their own; their names stay importable from here
from .features import (  # noqa: F401
    PREPROCESSING,
    TOKEN_PATTERN,
    VECTOR_SCALES,
    corpus_features,
    features_name,
    load_text_corpus,
    make_analyzer,
    notion_groups,
    read_corpus_features,
    scale_rows,
    static_features,
    text_features,
)
from .notions import (  # noqa: F401
    CLASS_METHODS,
    NOTIONS,
    STREAMS,
    TEXT_METHODS,
    TEXT_NOTIONS,
    Notion,
    class_notion,
    count_rule_triplets,
    document_split,
    draw_triplets,
    eligible_items,
    get_notion,
    method_applies,
    notion_available,
    rule_holds,
    sample_rule_triplets,
    stream,
)
from .scaling import measure_in_subprocess, measure_solve, predicted_seconds  # noqa: F401


def median_gamma(X, items, seed: int, n_pairs: int = 2000) -> float:
    """The RBF width 1 / median ||x_a - x_b||^2 over ``n_pairs`` random pairs of distinct rows of
    ``items`` (the median heuristic; our choice for the kernel row). Raises :class:`DataError`
    when the median is 0."""
    rng = stream(seed, "gamma")
    items = np.asarray(items)
    a = items[rng.integers(len(items), size=n_pairs)]
    b = items[rng.integers(len(items), size=n_pairs)]
    a, b = a[a != b], b[a != b]
    D = X[a] - X[b]
    d2 = np.asarray(D.multiply(D).sum(axis=1)).ravel() if sp.issparse(D) else (D * D).sum(axis=1)
    med = float(np.median(d2))
    if not med > 0:
        raise DataError("the median squared distance between items is 0: no RBF width")
    return 1.0 / med


# -- one (notion, seed) cell -------------------------------------------------------------------


def _fit_row(model, t_train, X_tr, X_te, t_test, base, method, variant):
    t0 = time.perf_counter()
    model.fit(t_train)
    wall = time.perf_counter() - t0
    # the learned distance is the Euclidean distance after transform(): one transform of the
    # documents, then the triplets (no per-triplet kernel evaluations)
    r = static_triplet_accuracy(model.transform(X_te), t_test)
    train_acc = static_triplet_accuracy(model.transform(X_tr), t_train)["triplet_accuracy"]
    cert = getattr(model, "certificate_", {}) or {}
    return {
        **base,
        "method": method,
        "variant": variant,
        "n_train_triplets": len(t_train),
        **r,
        "train_triplet_accuracy": train_acc,
        "fit_wall_s": wall,
        "solve_s": model.solve_seconds_,
        "solver": model.solver_,
        "solver_status": model.solver_status_,
        "objective": model.objective_,
        "rel_gap": cert.get("rel_gap", np.nan),
        "n_nonzero_weights": int(np.sum(model.w_ > 1e-8)),
        "n_weights": len(model.w_),
        "C": model.C,
    }


def _static_rows(notion, seed, static, test, t_test, base, log) -> list:
    """The rows of the static Euclidean baselines ``static`` on the test triplets."""
    rows = []
    for (method, variant), F in static.items():
        r = static_triplet_accuracy(F[test], t_test)
        rows.append({**base, "method": method, "variant": variant, "n_train_triplets": 0, **r})
        log(f"  {notion.name} seed {seed}: {method} [{variant}] {r['triplet_accuracy']:.4f}")
    return rows


def _linear_rows(notion, seed, sizes, t_train_all, X_tr, X_te, t_test, base, fit, log):
    """One row of eq. 8 (A = I) per training size of ``sizes`` (the first n triplets of
    ``t_train_all``), and the model fitted on the last size (None without sizes). ``fit``: the
    keywords C, solver and solver_options of every fit."""
    rows, model = [], None
    for n in sizes:
        model = SVMRelative(
            C=fit["C"],
            solver=fit["solver"],
            solver_options=fit["solver_options"] or None,
            preprocessor=X_tr,
            random_state=seed,
        )
        row = _fit_row(model, t_train_all[:n], X_tr, X_te, t_test, base, "SVM-relative", "A = I")
        rows.append(row)
        log(
            f"  {notion.name} seed {seed}: SVM-relative n={n}: test {row['triplet_accuracy']:.4f} "
            f"(train {row['train_triplet_accuracy']:.4f}), solve {row['solve_s']:.2f} s, "
            f"{row['solver_status']}"
        )
    return rows, model


def _kernel_row(notion, seed, kernel, tk, X_tr, X_te, t_test, base, C, log) -> dict:
    """The row of the kernel case A = Phi (RBF) learned from the training triplets ``tk``."""
    gamma = kernel.get("gamma") or median_gamma(X_tr, np.unique(tk), seed)
    km = SVMRelative(
        C=C,
        kernel="rbf",
        gamma=gamma,
        solver=kernel.get("solver", "CLARABEL"),
        preprocessor=X_tr,
    )
    variant = f"A = Phi, RBF gamma = {gamma:.4g}"
    row = _fit_row(km, tk, X_tr, X_te, t_test, base, "SVM-relative-RBF", variant)
    row["gamma"] = gamma
    log(
        f"  {notion.name} seed {seed}: SVM-relative-RBF n={len(tk)} ({variant}): test "
        f"{row['triplet_accuracy']:.4f}, solve {row['solve_s']:.2f} s"
    )
    return row


def run_notion(
    notion: Notion,
    X,
    labels: np.ndarray,
    seed: int,
    n_train_triplets: list[int],
    n_test_triplets: int,
    static: dict,
    split,
    C: float = 1.0,
    solver: str = "dcd",
    eligible: np.ndarray | None = None,
    kernel: dict | None = None,
    solver_options: dict | None = None,
    log=print,
):
    """One (notion, seed) cell of the protocol: tidy rows and the linear model fitted on the most
    training triplets.

    ``X``: (n, d) array or CSR, the features SVM-relative learns on (all items); ``labels``: (n,)
    str, the notion's column; ``static``: {(method, variant): (n, V) features} of the static
    Euclidean baselines; ``split``: (train, test) index arrays; ``eligible``: (n,) bool or None
    (:func:`eligible_items`); ``kernel``: None or {"n_train_triplets": int, "gamma": float or
    None (median heuristic), "solver": str} for the kernel row (A = Phi, RBF). ``C``, ``solver``
    and ``solver_options`` (e.g. {"tol": 1e-6} for "dcd") go to every linear fit (eq. 8, A = I).

    Returns (rows DataFrame, linear model, {"train", "test"} index arrays). Raises
    :class:`DataError` when a part has too few rule triplets,
    :class:`tripletbench.algorithms.svm_relative.SolverError` when a solve fails."""
    train, test = (np.asarray(p) for p in split)
    sizes = sorted({int(n) for n in n_train_triplets})
    n_kernel = int(kernel["n_train_triplets"]) if kernel else 0
    n_draw = max(sizes + [n_kernel])
    t_train_all, rate_train = draw_triplets(
        notion, labels, train, n_draw, seed, "train_triplets", eligible
    )
    t_test, rate_test = draw_triplets(
        notion, labels, test, n_test_triplets, seed, "test_triplets", eligible
    )
    X_tr, X_te = X[train], X[test]
    base = {
        "notion": notion.name,
        "seed": seed,
        "n_test_triplets": len(t_test),
        "rule_fraction_train": rate_train,
        "rule_fraction_test": rate_test,
        "n_train_items": len(train),
        "n_test_items": len(test),
        "n_features": X.shape[1],
    }
    rows = _static_rows(notion, seed, static, test, t_test, base, log)
    fit = {"C": C, "solver": solver, "solver_options": solver_options}
    linear, model = _linear_rows(
        notion, seed, sizes, t_train_all, X_tr, X_te, t_test, base, fit, log
    )
    rows += linear
    if kernel:
        tk = t_train_all[:n_kernel]
        rows.append(_kernel_row(notion, seed, kernel, tk, X_tr, X_te, t_test, base, C, log))
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
    J = I - 11^T/n, coordinates = top-k eigenvectors times sqrt(eigenvalues) (the paper's
    "classical, metric MDS", section 5).

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
