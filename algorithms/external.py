"""Metric learners of other libraries, named in a config by their dotted path.

A config row ``algorithm: metric_learn.MLKR`` (or
``sklearn.neighbors.NeighborhoodComponentsAnalysis``, ``metric_learn.SCML``, ...) runs that class
through the harness like any of our learners: the same constraints (converted to the kind it
learns from), the same evaluation (mAP, kNN, ...), the same
provenance columns (a row without ``notes`` is ``not-in-paper``, as every extra row).

:func:`external_learner` builds, once per path, a wrapper class whose constructor takes the
library class's own hyperparameters (scikit-learn's ``get_params`` sees them, so a misspelt one is
refused when the workflow starts) plus the harness's ``constraints``, ``preprocessor``,
``random_state`` and ``verbose``:

* ``constraints`` (the config row's ``constraints:`` key): what ``fit`` receives, "labels"
  (points and class labels, ``fit(X, y)``: MLKR, NCA, LMNN), "pairs" (``fit(pairs, y)``, pairs of
  points (n, 2, d), y in {+1, -1}: metric-learn's ITML, MMC, SDML) or "triplets"
  (``fit(triplets)``, (n, 3, d) anchor, positive, negative: metric-learn's SCML). Default: from
  the class's ``fit`` (:func:`tuple_size`: 2 pairs, 3 triplets), else "labels".
* the library class gets points, never indices: its own ``preprocessor`` stays unset;
  ``random_state`` is passed where the class has one; our ``verbose`` is not passed (the class's
  own ``verbose``, where it has one, is a hyperparameter like the others).

The fitted wrapper is a Mahalanobis learner (:class:`~tripletbench.algorithms.base.MahalanobisMixin`):
``M_`` = the library model's ``get_mahalanobis_matrix()`` (metric-learn) or L^T L of its
``components_`` (scikit-learn's NCA), and ``components_`` / ``transform`` are the library
model's own. Only linear metric learners (one of those two attributes) are accepted:
``TypeError`` otherwise, as for a class that is not a scikit-learn estimator.

:func:`check_evaluable` says, when the workflow starts (``tripletbench.harness.config.check_config``), whether
a path is of a kind the harness can evaluate, so that no job fails late with a library error:

* a scikit-learn estimator class (``fit``, ``get_params``);
* learning from labels, pairs or triplets (:func:`tuple_size`): metric-learn's quadruplet learners
  (LSML) are refused (their ``*_Supervised`` variant, ``fit(X, y)``, is accepted), as is a
  ``constraints`` kind the class's ``fit`` contradicts (ITML given triplets);
* a linear metric: a trial fit on a small synthetic problem (40 points in 4-d, 4 classes; its
  constraints made as the harness makes them, with the row's ``fixed`` hyperparameters) must give
  a finite (d, d) matrix through ``get_mahalanobis_matrix()`` or ``components_``. An embedding of
  the training items only (cblearn's ordinal embeddings: ``fit`` takes triplets of indices, no
  metric on new points) or any other failure is refused, naming the library's error;
* the size of the row's smallest real cell, where its study can say it before any job (a
  learner row of a block fitted by the generic cell runner on a feature table: the block's
  triplets, at most the row's ``max_triplets``, the points of its fit part and the set's
  features): a second trial fit on synthetic points of that size, so that a learner that refuses
  the size (metric-learn's SCML: fewer triplets than features) is refused before any job.
  What no trial can catch (the data's values, memory or time above that size, a set whose
  features a job computes) fails in the cell, with :class:`ExternalLearnerError`.
"""

from __future__ import annotations

import importlib
import inspect
from functools import lru_cache

import numpy as np

from ._checks import ExternalLearnerError  # noqa: F401  (re-exported: its home is _checks)
from ._compat import quiet_metric_learn
from .base import BaseLearner, MahalanobisMixin

CONSTRAINT_KINDS = ("labels", "pairs", "triplets")
HARNESS_PARAMS = ("constraints", "preprocessor", "random_state", "verbose")


def is_external(name: str) -> bool:
    """True for a dotted path (an external learner), False for one of our learners' names."""
    return "." in name


def import_class(path: str) -> type:
    """The class at dotted ``path``; ``KeyError`` when it cannot be imported, ``TypeError`` when
    it is not a scikit-learn estimator class (``fit`` and ``get_params``)."""
    module, _, attr = path.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError, ValueError) as err:
        raise KeyError(f"cannot import learner {path!r}: {err}") from None
    if not (isinstance(cls, type) and hasattr(cls, "fit") and hasattr(cls, "get_params")):
        raise TypeError(f"{path} is not a scikit-learn estimator class (fit and get_params)")
    return cls


def tuple_size(cls: type) -> int | None:
    """The size of the tuples a library class's ``fit`` takes (2 pairs, 3 triplets, 4
    quadruplets), None for ``fit(X, y)``: from the name of ``fit``'s first argument (metric-learn
    names it ``pairs``, ``triplets``, ``quadruplets`` or, for its ``*_Supervised`` variants, which
    inherit their base's ``_tuple_size``, ``X``), else metric-learn's ``_tuple_size``."""
    try:
        first = list(inspect.signature(cls.fit).parameters)[1]
    except (TypeError, ValueError, IndexError):
        first = None
    named = {"pairs": 2, "triplets": 3, "quadruplets": 4}
    if first in named:
        return named[first]
    if first == "X":
        return None
    size = getattr(cls, "_tuple_size", None)
    return size if isinstance(size, int) else None


def default_constraints(cls: type) -> str:
    """The constraint kind a library class learns from (:func:`tuple_size`): 2 -> "pairs",
    3 -> "triplets"; anything else -> "labels" (``fit(X, y)``)."""
    return {2: "pairs", 3: "triplets"}.get(tuple_size(cls), "labels")


def library_version(path: str) -> str:
    """``<top-level package> <version>`` of an external learner (part of its cells' code hash:
    upgrading the library reruns them)."""
    top = path.split(".")[0]
    module = importlib.import_module(top)
    return f"{top} {getattr(module, '__version__', 'unknown')}"


class _ConstraintKind:
    """``constraint_kind`` of a wrapper: on an instance its ``constraints``, on the class the
    library class's default (:func:`default_constraints`)."""

    def __get__(self, obj, owner=None):
        return default_constraints(owner._library_class) if obj is None else obj.constraints


class ExternalLearner(MahalanobisMixin, BaseLearner):
    """Base of the wrappers :func:`external_learner` builds (module docstring)."""

    _library_class: type = object
    _library_params: tuple = ()
    _fitted_attributes = "M_"
    constraint_kind = _ConstraintKind()

    def _check_params(self):
        if self.constraints not in CONSTRAINT_KINDS:
            raise ValueError(
                f"{self._library_class.__name__}: constraints must be one of {CONSTRAINT_KINDS}, "
                f"got {self.constraints!r}"
            )

    def library_model(self):
        """An unfitted instance of the library class with this wrapper's hyperparameters."""
        params = {k: getattr(self, k) for k in self._library_params}
        return self._library_class(**params)

    def fit(self, *args):
        """Fit the library class on ``args`` as the constraint kind says (module docstring):
        labels ``(X (n, d), y (n,))``; pairs ``(pairs, y)`` and triplets ``(triplets,)`` as
        points or as indices into ``preprocessor``. Returns self; fitted: ``M_`` (d, d),
        ``estimator_`` (the library model), ``n_features_in_``."""
        self._check_params()
        kind = self.constraints
        if kind == "labels":
            X, y = args
            fit_args = (np.asarray(X, dtype=float), np.asarray(y))
            self._check_feature_scale(fit_args[0], "input")
        elif kind == "pairs":
            X, idx = self._points(args[0], 2, "pairs")
            fit_args = (X[idx], np.asarray(args[1]))
        else:
            X, idx = self._points(args[0], 3, "triplets")
            fit_args = (X[idx],)
        model = self.library_model()
        name = self._library_class.__module__ + "." + self._library_class.__name__
        try:
            with quiet_metric_learn():
                model.fit(*fit_args)
        except Exception as err:  # any library error: named, with the remedy, cause chained
            raise ExternalLearnerError(
                f"{name} failed to fit on {len(fit_args[0])} {kind} ({type(err).__name__}: "
                f"{err}). It passed the start-up trial on a small synthetic problem, so this "
                "data is what it cannot take: check its hyperparameters for this data's size "
                "and scale (the config row's fixed/grid), or leave it out of this dataset"
            ) from err
        L = getattr(model, "components_", None)
        if L is not None:
            # the library model's own L: components_ / transform give its coordinates
            self._library_components = np.array(L, dtype=float)
            self._library_components.setflags(write=False)
        if hasattr(model, "get_mahalanobis_matrix"):
            M = np.asarray(model.get_mahalanobis_matrix(), dtype=float)
        elif L is not None:
            M = self._library_components.T @ self._library_components
        else:
            raise TypeError(
                f"{self._library_class.__name__} is not a linear metric learner: its fitted model "
                "has neither get_mahalanobis_matrix() nor components_"
            )
        if M.ndim != 2 or not np.all(np.isfinite(M)) or not np.any(M):
            problem = "NaN or inf entries" if M.ndim == 2 and np.any(~np.isfinite(M)) else (
                "an all-zero matrix (every pair at distance 0)" if M.ndim == 2 else f"shape {M.shape}"
            )  # fmt: skip
            raise ExternalLearnerError(
                f"{name} returned a metric with {problem}: it cannot rank anything. Check its "
                "hyperparameters for this data (the config row's fixed/grid), or leave it out of "
                "this dataset"
            )
        self.estimator_ = model
        self.M_ = M
        self.n_features_in_ = M.shape[0]
        return self


@lru_cache(maxsize=None)
def external_learner(path: str) -> type:
    """The wrapper class of the library learner at dotted ``path`` (module docstring). Raises
    ``KeyError`` (cannot import) or ``TypeError`` (not an estimator class)."""
    cls = import_class(path)
    own = [
        p
        for name, p in inspect.signature(cls.__init__).parameters.items()
        if name not in ("self", "preprocessor", "constraints")
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    library_params = tuple(p.name for p in own)
    extra = [
        inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d)
        for n, d in (
            ("constraints", default_constraints(cls)),
            ("preprocessor", None),
            ("random_state", None),
            ("verbose", False),
        )
        if n not in library_params
    ]
    params = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
        for p in own
        if p.name not in ("random_state", "verbose")
    ]
    params += [
        inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=p.default)
        for n, p in ((p.name, p) for p in own)
        if n in ("random_state", "verbose")
    ]
    sig = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)] + params + extra
    )

    def __init__(self, **kwargs):
        bound = sig.bind(self, **kwargs)
        bound.apply_defaults()
        for key, value in bound.arguments.items():
            if key != "self":
                setattr(self, key, value)

    __init__.__signature__ = sig
    return type(
        cls.__name__,
        (ExternalLearner,),
        {
            "__init__": __init__,
            "__module__": __name__,
            "__qualname__": f"external[{path}]",
            "__doc__": f"{path} wrapped for the harness (:mod:`tripletbench.algorithms.external`).",
            "_library_class": cls,
            "_library_params": library_params,
            "external_path": path,
        },
    )


TUPLE_KINDS = {2: "pairs", 3: "triplets"}


TRIAL = (60, 40, 4, 4)
"""The start-up trial fit's size: (triplets, points, features, classes) of synthetic points."""


@lru_cache(maxsize=None)
def _trial_fit(path: str, kind: str, fixed: tuple, size: tuple = TRIAL) -> None:
    n_triplets, n_points, d, k = size
    rng = np.random.default_rng(0)
    y = np.arange(n_points) % k
    X = rng.normal(size=(n_points, d)) + 2.0 * np.eye(k, d)[y]  # class c shifted along axis c
    from ._constraints import sample_class_triplets, triplets_to_pairs

    t = sample_class_triplets(y, n_triplets, rng)
    wrapper = external_learner(path)(constraints=kind, **dict(fixed))
    if "random_state" in wrapper._library_params or "random_state" in vars(wrapper):
        wrapper.random_state = 0
    if kind == "labels":
        used = np.unique(t)
        args = (X[used], y[used])
    elif kind == "pairs":
        pairs, labels = triplets_to_pairs(t, 2)
        wrapper.preprocessor = X
        args = (pairs, labels)
    else:
        wrapper.preprocessor = X
        args = (t,)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapper.fit(*args)
    M = np.asarray(wrapper.M_, dtype=float)
    if M.shape != (d, d) or not np.isfinite(M).all():
        raise TypeError(f"its metric is not a finite (d, d) matrix (shape {M.shape})")


def check_evaluable(
    path: str,
    constraints: str | None = None,
    fixed: dict | None = None,
    cell: tuple | None = None,
) -> str:
    """The constraint kind of external learner ``path`` if the harness can evaluate it (module
    docstring), else ``TypeError`` saying why (``KeyError`` when it cannot be imported,
    ``ValueError`` for an unknown ``constraints``). ``fixed``: the row's fixed hyperparameters.

    Two trial fits on synthetic Gaussian classes, as the harness gives the constraints: one of
    :data:`TRIAL` size (the kind of learner), and, when ``cell`` = ``(where, n_triplets,
    n_points, n_features, n_classes)`` names the smallest real cell of the row (fewest
    triplets per feature), one at that size, which catches a failure that depends on size
    (metric-learn's SCML refuses fewer triplets than features). Neither can catch what depends
    on the data's values or on a size above the cell's (memory, time)."""
    cls = import_class(path)
    kind = constraints or default_constraints(cls)
    if kind not in CONSTRAINT_KINDS:
        raise ValueError(f"{path}: constraints must be one of {CONSTRAINT_KINDS}, got {kind!r}")
    size = tuple_size(cls)
    if size is not None and size not in TUPLE_KINDS:
        raise TypeError(
            f"{path} learns from {size}-tuples"
            + (" (quadruplets)" if size == 4 else "")
            + "; the harness gives labels, pairs or triplets: use its *_Supervised variant "
            "(fit(X, y)) if it has one"
        )
    if size is not None and TUPLE_KINDS[size] != kind:
        raise TypeError(
            f"{path} learns from {TUPLE_KINDS[size]}, not {kind}: set constraints: "
            f"{TUPLE_KINDS[size]} or remove the key"
        )
    settings = tuple(sorted((fixed or {}).items(), key=str))  # hashable: the trials' cache key
    try:
        _trial_fit(path, kind, settings)
    except Exception as err:  # noqa: BLE001 -- any library error: the class cannot be evaluated
        raise TypeError(
            f"{path} is not a metric learner the harness can evaluate: a trial fit on 40 "
            f"synthetic points ({kind}, as the harness gives them) failed: "
            f"{type(err).__name__}: {err}. Accepted: scikit-learn-compatible linear metric "
            "learners fitted on labels (fit(X, y)), pairs or triplets of points, with "
            "get_mahalanobis_matrix() or components_ (metric-learn's, scikit-learn's NCA)"
        ) from None
    if cell is not None:
        where, *size = cell
        try:
            _trial_fit(path, kind, settings, tuple(size))
        except Exception as err:  # noqa: BLE001 -- any library error at the real size
            n_t, n_p, d, _ = size
            raise TypeError(
                f"{path} fails at the size of its smallest real cell ({where}: {n_t:,} "
                f"triplets given as {kind}, {n_p:,} points, {d} features; a trial fit on "
                f"synthetic points of that size): {type(err).__name__}: {err}"
            ) from None
    return kind
