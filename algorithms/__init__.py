"""Learners: one module per method, sharing the base classes of :mod:`algorithms.base`.

``ALGORITHMS`` maps the tables' method names to classes; ``make_learner(name, **params)`` builds
one and raises a clear error for an unknown name or hyperparameter. The ``*_Supervised`` variants
(``fit(X, y)``, as metric-learn's) are in :mod:`algorithms.supervised` (not imported here, so that
the pipeline's code hashes do not depend on them).
"""

from .comet import COMET, SparseCOMET
from .euclidean import Euclidean
from .itml import ITML
from .itml_online import OnlineITML
from .lego import LEGO
from .lmnn import LMNN
from .oasis import OASIS, DissimOASIS
from .oahu import OAHU
from .opml import OPML
from .rca import RCA
from .rdml import RDML
from .sdca import SDCA
from .svm_relative import SVMRelative

ALGORITHMS = {
    "Eucl": Euclidean,
    "RCA": RCA,
    "LMNN": LMNN,
    "ITML": ITML,
    "ITML-online": OnlineITML,
    "LEGO": LEGO,
    "OASIS": OASIS,
    "Dissim-OASIS": DissimOASIS,
    "SDCA": SDCA,
    "COMET": COMET,
    "SparseCOMET": SparseCOMET,
    "RDML": RDML,
    "OPML": OPML,
    "OAHU": OAHU,
    "SVM-relative": SVMRelative,
}


def make_learner(name: str, **params):
    """An unfitted learner ``name`` (a key of ``ALGORITHMS``) with ``params``."""
    if name not in ALGORITHMS:
        raise KeyError(f"unknown algorithm {name!r}; known algorithms: {sorted(ALGORITHMS)}")
    cls = ALGORITHMS[name]
    valid = cls().get_params()
    bad = sorted(set(params) - set(valid))
    if bad:
        raise KeyError(f"{name} has no hyperparameter(s) {bad}; it has {sorted(valid)}")
    return cls(**params)


__all__ = [
    "ALGORITHMS",
    "make_learner",
    "COMET",
    "SparseCOMET",
    "Euclidean",
    "ITML",
    "OnlineITML",
    "LEGO",
    "LMNN",
    "OASIS",
    "DissimOASIS",
    "OPML",
    "OAHU",
    "RCA",
    "RDML",
    "SDCA",
    "SVMRelative",
]
