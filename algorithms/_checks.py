"""The errors and input checks the learners use, free of the data layer.

Importing a learner imports this module, never :mod:`datasets` (whose package imports every
dataset module and the downloader, pooch). :mod:`datasets` re-exports it where it used to live:
``tripletbench.datasets.base.DataError`` and ``tripletbench.datasets.preprocess.check_features`` /
``check_labelled`` are these objects, so existing callers and ``except DataError`` clauses keep
working. The constraint sampler and conversions are in :mod:`._constraints`, apart: a data job
that only checks its data (the split) does not take the sampler's code into its settings.
"""

from __future__ import annotations

import numpy as np


class DataError(ValueError):
    """Raised for data that is missing, corrupt or unusable; the message names the problem."""


class ExternalLearnerError(ValueError):
    """A library learner failed on the data it was given, or returned a metric that cannot rank
    (NaN or inf entries, all zero); the message names the learner, the problem and the remedy
    (the harness adds the dataset, seed and grid point). A ``ValueError``, as the library's own
    refusals were: a protocol that records a refused fit as a row with its error (the image
    sets' record_failures, a human-judgment curve point) still does."""


def check_features(X: np.ndarray, name: str = "data") -> np.ndarray:
    """Return ``X`` if it is a finite 2-D float array; raise :class:`DataError` naming the problem."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise DataError(
            f"{name}: features must be 2-D (n_samples, n_features), got shape {X.shape}"
        )
    bad = ~np.isfinite(X)
    if bad.any():
        rows, cols = np.nonzero(bad)
        raise DataError(
            f"{name}: {bad.sum()} NaN/inf feature values in {len(np.unique(rows))} rows "
            f"(first at row {rows[0]}, column {cols[0]}); clean or impute them first"
        )
    return X


def check_n_features(learner, d: int, what: str = "features") -> None:
    """Raise :class:`DataError` when points of ``d`` features are scored by a ``learner`` fitted
    on another number (numpy would raise a bare "matmul: dimension mismatch"). The fitted number
    is ``n_features_in_`` where fit set it, else the column count of the fitted matrix the
    learner's ``_fitted_attributes`` names; a learner with neither (the Euclidean baseline)
    takes any d."""
    expected = getattr(learner, "n_features_in_", None)
    names = getattr(learner, "_fitted_attributes", None)
    if expected is None and isinstance(names, str):
        matrix = getattr(learner, names, None)
        if matrix is not None and np.ndim(matrix) == 2:
            expected = matrix.shape[1]
    if expected is not None and d != expected:
        raise DataError(
            f"{type(learner).__name__} {what}: the points have {d} features, but the model was "
            f"fitted on {expected}"
        )


def check_labelled(
    X, y, name: str = "data", min_classes: int = 1, min_per_class: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)`` checked for a learner that takes labelled points (LMNN, OPML).

    ``X``: (n, d) finite floats (:func:`check_features`), n >= 1; ``y``: (n,) one label per row.
    Raises :class:`DataError` naming the problem: no rows, a label count that differs from the
    row count, every row the same vector, fewer than ``min_classes`` classes, or a class with
    fewer than ``min_per_class`` rows (naming the class and its count). Returns X as float64 and
    y as an array."""
    X = check_features(np.asarray(X, dtype=np.float64), name)
    y = np.asarray(y)
    if X.shape[0] == 0:
        raise DataError(f"{name}: zero rows (no labelled points to learn from)")
    if y.shape != (X.shape[0],):
        raise DataError(f"{name}: {X.shape[0]} rows but labels of shape {y.shape}")
    if X.shape[0] > 1 and not np.any(X != X[0]):
        raise DataError(
            f"{name}: every row is the same vector (e.g. all zero); no distance to learn from"
        )
    classes, counts = np.unique(y, return_counts=True)
    if len(classes) < min_classes:
        raise DataError(
            f"{name}: {len(classes)} class(es) {classes.tolist()}; at least {min_classes} needed"
        )
    small = counts < min_per_class
    if small.any():
        c = int(np.argmin(counts))
        raise DataError(
            f"{name}: class {classes.tolist()[c]!r} has {counts[c]} row(s) ({small.sum()} "
            f"class(es) have fewer than {min_per_class}); at least {min_per_class} per class are "
            "needed"
        )
    return X, y
