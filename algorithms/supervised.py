"""``*_Supervised`` variants: every weakly supervised learner fitted on labelled points (X, y), as
metric-learn's ``ITML_Supervised``, ``RCA_Supervised``, ... (metric-learn 0.7.0, one class per
algorithm file; here one generated class per learner, no copied code).

``fit(X, y)``:

1. X (n, d) and y (n,) are checked (scikit-learn's ``validate_data``, then
   :func:`tripletbench.datasets.preprocess.check_labelled`; sets ``n_features_in_``);
2. ``n_constraints`` class-based triplets are drawn from y by
   :func:`tripletbench.datasets.constraints.sample_class_triplets` (anchor uniform over the samples whose class
   has two members, positive uniform in its class, negative uniform outside; independent draws
   with replacement), with a generator seeded from ``random_state`` (``[random_state, 1]`` for an
   int, so the draw is independent of the learner's own stream, which uses ``random_state``);
   ``n_constraints=None`` draws 20 * n_classes^2 (metric-learn's default for ITML_Supervised);
3. they are given to the learner as the harness gives them (``tripletbench.harness.experiment.fit_learner``):
   triplets as they are; pair learners (ITML, LEGO, online ITML, RDML) get (a, p) as +1 and
   (a, n) as -1 (:func:`~tripletbench.datasets.constraints.triplets_to_pairs`, so 2 n_constraints pairs, half
   of each label, as metric-learn's n_constraints positive and n_constraints negative pairs);
   RCA gets the connected components of the similar pairs
   (:func:`~tripletbench.datasets.constraints.triplets_to_chunklets`);
4. the learner's own ``fit`` runs on those constraints, with the points in place of indices
   (``preprocessor`` is not touched).

LMNN and OPML learn from labels already: they are their own supervised variants (as LMNN in
metric-learn) and have no ``*_Supervised`` class.

Like metric-learn's ``*_Supervised`` learners, a variant has no ``predict`` / ``decision_function``
(they act on tuples, and scikit-learn would call them on X): accessing them raises
``AttributeError``. It keeps ``pair_score``, ``pair_distance`` and ``get_metric`` (a distance:
all but the bilinear learners), ``get_similarity``,
``transform`` (Mahalanobis, SVM-relative, OAHU: a scikit-learn transformer with ``fit_transform``)
and ``score(X, y)`` = triplet accuracy over all class triplets of (X, y)
(:func:`~tripletbench.algorithms.base.class_triplet_accuracy`). Pair learners keep ``threshold_``, calibrated on
the sampled pairs, and ``calibrate_threshold``.
"""

from __future__ import annotations

import inspect

import numpy as np
from sklearn.base import TransformerMixin

from ._constraints import sample_class_triplets, triplets_to_chunklets, triplets_to_pairs
from .base import BaseLearner, LabelledMixin, MahalanobisMixin
from .comet import COMET, SparseCOMET
from .euclidean import Euclidean
from .itml import ITML
from .itml_online import OnlineITML
from .lego import LEGO
from .oahu import OAHU
from .oasis import OASIS, DissimOASIS
from .rca import RCA
from .rdml import RDML
from .sdca import SDCA
from .svm_relative import SVMRelative

SAMPLER_STREAM = 1  # the sampler's generator is seeded with [random_state, SAMPLER_STREAM]


class _AbsentOnSupervised:
    """A method a ``*_Supervised`` variant does not have: attribute access raises
    ``AttributeError`` (so ``hasattr`` is False), with a message that says what to use."""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        raise AttributeError(
            f"{owner.__name__} is fitted on labelled points (X, y) and has no {self.name} (it "
            "acts on tuples; metric-learn's *_Supervised learners have none either): use "
            "pair_score / pair_distance on pairs, or score(X, y)"
        )


def constraints_from_triplets(kind: str, triplets: np.ndarray, X: np.ndarray) -> tuple:
    """The arguments of a learner's ``fit`` for constraint kind ``kind`` ("triplets", "pairs" or
    "chunklets") from index ``triplets`` (m, 3) into ``X`` (n, d), with points in place of indices:
    ((m, 3, d),) / ((2m, 2, d), y in {+1, -1}) / (X, chunk labels (n,))."""
    if kind == "triplets":
        return (X[triplets],)
    if kind == "pairs":
        pairs, y = triplets_to_pairs(triplets)
        return X[pairs], y
    if kind == "chunklets":
        return X, triplets_to_chunklets(triplets, len(X))
    raise ValueError(f"no supervised variant for constraint kind {kind!r}")


class SupervisedMixin(LabelledMixin):
    """``fit(X, y)`` by sampling class triplets (module docstring); the learner's own class comes
    after this mixin. ``_base`` is that class."""

    _base: type = BaseLearner
    constraint_kind = "labels"
    predict = _AbsentOnSupervised()
    decision_function = _AbsentOnSupervised()

    def _sampler(self) -> np.random.Generator:
        rs = self.random_state
        if isinstance(rs, (int, np.integer)) and not isinstance(rs, bool):
            return np.random.default_rng([int(rs), SAMPLER_STREAM])
        return np.random.default_rng(rs)

    def fit(self, X, y):
        """Sample ``n_constraints`` class triplets from (X (n, d), y (n,)) and fit on them.

        Raises ``ValueError`` for an ``n_constraints`` that is not None or an int >= 1, and
        :class:`~tripletbench.datasets.base.DataError` (a ``ValueError``) for X or y that cannot be used (see
        ``check_labelled``) or labels from which no triplet can be formed (one class, or no
        class with two samples); then whatever the learner's ``fit`` raises."""
        n = self.n_constraints
        if n is not None and not (
            isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 1
        ):
            raise ValueError(f"n_constraints must be None or an int >= 1, got {n!r}")
        X, y = self._validate_labelled(X, y)
        return super().fit(*self._constraints(X, y))

    def _constraints(self, X, y) -> tuple:
        n = self.n_constraints
        if n is None:
            n = 20 * len(np.unique(y)) ** 2
        triplets = sample_class_triplets(y, int(n), self._sampler())
        return constraints_from_triplets(self._base.constraint_kind, triplets, X)


class SupervisedPartialFitMixin:
    """``partial_fit(X, y)`` for the variants of online learners (OASIS, Dissim-OASIS, LEGO,
    online ITML, RDML, OAHU): ``n_constraints`` class triplets drawn inside this batch, given to
    the learner's ``partial_fit`` (which continues from its current state)."""

    def partial_fit(self, X, y=None, *rest):
        """Continue learning from the labelled batch X (n, d), y (n,); the first call fixes
        ``n_features_in_`` (another number of features later: ``ValueError``). Errors as
        :meth:`SupervisedMixin.fit`. Called with tuples (a 3-D array of points), it is the
        learner's own ``partial_fit``: the learner's ``fit`` goes on through it."""
        if np.ndim(X) == 3:
            return super().partial_fit(X, *(() if y is None else (y,)), *rest)
        if y is None or rest:
            raise TypeError("partial_fit(X, y) takes labelled points X (n, d) and labels y (n,)")
        X, y = self._validate_labelled(X, y, reset=not hasattr(self, "n_features_in_"))
        return super().partial_fit(*self._constraints(X, y))


def _signature(base: type) -> inspect.Signature:
    """The base learner's constructor signature with ``n_constraints=None`` before
    ``preprocessor`` (scikit-learn's ``get_params`` reads it)."""
    params = list(inspect.signature(base.__init__).parameters.values())
    at = [p.name for p in params].index("preprocessor")
    extra = inspect.Parameter(
        "n_constraints", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None
    )
    return inspect.Signature(params[:at] + [extra] + params[at:])


def supervised_variant(base: type) -> type:
    """The class ``<base>_Supervised``: :class:`SupervisedMixin`,
    :class:`SupervisedPartialFitMixin` where the learner has a ``partial_fit``, scikit-learn's
    ``TransformerMixin`` where it has a ``transform``, then ``base``. Its constructor
    takes the learner's hyperparameters plus ``n_constraints`` and calls ``base.__init__``."""
    sig = _signature(base)

    def __init__(self, *args, **kwargs):
        bound = sig.bind(self, *args, **kwargs)
        bound.apply_defaults()
        params = dict(bound.arguments)
        del params["self"]
        n_constraints = params.pop("n_constraints")
        base.__init__(self, **params)
        self.n_constraints = n_constraints

    __init__.__signature__ = sig
    name = f"{base.__name__}_Supervised"
    bases = (
        (SupervisedMixin,)
        + ((SupervisedPartialFitMixin,) if hasattr(base, "partial_fit") else ())
        + ((TransformerMixin,) if hasattr(base, "transform") else ())
        + (base,)
    )
    kind = "Mahalanobis" if issubclass(base, MahalanobisMixin) else "similarity"
    doc = (
        f"{base.__name__} fitted on labelled points: ``fit(X, y)`` samples ``n_constraints`` "
        f"class triplets (None: 20 * n_classes^2) and fits {base.__name__} on them as "
        f"{base.constraint_kind} (see :mod:`tripletbench.algorithms.supervised`). Hyperparameters, fitted "
        f"attributes and the {kind} API: :class:`{base.__module__}.{base.__name__}`."
    )
    return type(
        name,
        bases,
        {"__init__": __init__, "__doc__": doc, "__module__": __name__, "_base": base},
    )


Euclidean_Supervised = supervised_variant(Euclidean)
RCA_Supervised = supervised_variant(RCA)
ITML_Supervised = supervised_variant(ITML)
OnlineITML_Supervised = supervised_variant(OnlineITML)
LEGO_Supervised = supervised_variant(LEGO)
RDML_Supervised = supervised_variant(RDML)
OASIS_Supervised = supervised_variant(OASIS)
DissimOASIS_Supervised = supervised_variant(DissimOASIS)
SDCA_Supervised = supervised_variant(SDCA)
COMET_Supervised = supervised_variant(COMET)
SparseCOMET_Supervised = supervised_variant(SparseCOMET)
OAHU_Supervised = supervised_variant(OAHU)
SVMRelative_Supervised = supervised_variant(SVMRelative)

SUPERVISED = {
    cls._base.__name__: cls
    for cls in (
        Euclidean_Supervised,
        RCA_Supervised,
        ITML_Supervised,
        OnlineITML_Supervised,
        LEGO_Supervised,
        RDML_Supervised,
        OASIS_Supervised,
        DissimOASIS_Supervised,
        SDCA_Supervised,
        COMET_Supervised,
        SparseCOMET_Supervised,
        OAHU_Supervised,
        SVMRelative_Supervised,
    )
}
"""The supervised variant of each weakly supervised learner class, by class name."""
