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
  metric-learn's ``_tuple_size`` (2: pairs, 3: triplets), else "labels".
* the library class gets points, never indices: its own ``preprocessor`` stays unset;
  ``random_state`` is passed where the class has one; our ``verbose`` is not passed (the class's
  own ``verbose``, where it has one, is a hyperparameter like the others).

The fitted wrapper is a Mahalanobis learner (:class:`~tripletbench.algorithms.base.MahalanobisMixin`):
``M_`` = the library model's ``get_mahalanobis_matrix()`` (metric-learn) or L^T L of its
``components_`` (scikit-learn's NCA), and ``components_`` / ``transform`` are the library
model's own. Only linear metric learners (one of those two attributes) are accepted:
``TypeError`` otherwise, as for a class that is not a scikit-learn estimator.
"""

from __future__ import annotations

import importlib
import inspect
from functools import lru_cache

import numpy as np

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


def default_constraints(cls: type) -> str:
    """The constraint kind a library class learns from: metric-learn's ``_tuple_size`` 2 ->
    "pairs", 3 -> "triplets"; anything else -> "labels" (``fit(X, y)``)."""
    return {2: "pairs", 3: "triplets"}.get(getattr(cls, "_tuple_size", None), "labels")


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
        with quiet_metric_learn():
            model.fit(*fit_args)
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
