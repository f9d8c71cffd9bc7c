"""Learners: one module per method, sharing the base classes of :mod:`tripletbench.algorithms.base`.

Learners are found, not registered: every module of this package (but ``base``, ``supervised``,
``external`` and private ``_*`` modules) is imported once, and each class defined there that
declares its own ``name`` (its name in configs and tables, e.g. ``name = "ITML-online"``) is a
learner. To add one, put a module here (copy ``algorithms/euclidean.py``, the smallest); the
config schema's list of names is generated from what is found (:func:`tripletbench.harness.config.schema`).

A config row may instead name a scikit-learn-compatible metric learner of another library by its
dotted path (``metric_learn.MLKR``, ``sklearn.neighbors.NeighborhoodComponentsAnalysis``):
:mod:`tripletbench.algorithms.external` wraps it. ``make_learner(name, **params)`` builds either and raises a
clear error for an unknown name or hyperparameter.

``from algorithms import OASIS`` works (a learner by its class name: only its own module is
imported, found by reading the package's sources), but the project's own modules import a learner
from its module (``from tripletbench.algorithms.oasis import OASIS``): a job's code hash reads imports
(:mod:`tripletbench.harness.settings`), and this package's ``__init__`` imports no learner. :data:`ALGORITHMS`
is built on first use (it imports every learner), so importing one learner stays cheap: no
downloader, no Snakemake, no pandas (``tests/test_library.py`` lists what each import loads).
The errors and input checks the learners raise and use (:class:`DataError`) live in
:mod:`tripletbench.algorithms._checks`, the triplet sampler and the pair / chunklet conversions in
:mod:`tripletbench.algorithms._constraints`; :mod:`datasets` re-exports them. The ``*_Supervised`` variants (``fit(X, y)``, as metric-learn's) are
in :mod:`tripletbench.algorithms.supervised`.
"""

from __future__ import annotations

import importlib
import pkgutil

NOT_LEARNER_MODULES = frozenset({"base", "supervised", "external"})
"""Modules of this package that hold no learner of their own."""


def _discover() -> dict[str, type]:
    """name -> class of every learner module of this package (module docstring); raises
    ``ImportError`` when two classes declare the same name."""
    found: dict[str, type] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name in NOT_LEARNER_MODULES:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for obj in vars(module).values():
            if not (isinstance(obj, type) and obj.__module__ == module.__name__):
                continue
            name = vars(obj).get("name")
            if not isinstance(name, str):
                continue
            if name in found:
                raise ImportError(
                    f"two learners are named {name!r}: {found[name].__module__}."
                    f"{found[name].__qualname__} and {module.__name__}.{obj.__qualname__}"
                )
            found[name] = obj
    return found


_FOUND: dict[str, type] | None = None


def _algorithms() -> dict[str, type]:
    """:data:`ALGORITHMS`, discovered on first use (every learner module imported once)."""
    global _FOUND
    if _FOUND is None:
        _FOUND = _discover()
    return _FOUND


def learner_class(name: str) -> type:
    """The class of learner ``name``: a name of :data:`ALGORITHMS` or the dotted path of an
    external learner (its wrapper, :func:`tripletbench.algorithms.external.external_learner`). Raises
    ``KeyError`` naming the known learners."""
    from .external import external_learner, is_external

    found = _algorithms()
    if name in found:
        return found[name]
    if is_external(name):
        return external_learner(name)
    raise KeyError(
        f"unknown algorithm {name!r}; known algorithms: {sorted(found)}, or the dotted "
        "path of a scikit-learn-compatible metric learner (e.g. metric_learn.MLKR)"
    )


def make_learner(name: str, **params):
    """An unfitted learner ``name`` (see :func:`learner_class`) with ``params``; raises
    ``KeyError`` for an unknown name or a hyperparameter the learner does not have."""
    cls = learner_class(name)
    valid = cls().get_params()
    bad = sorted(set(params) - set(valid))
    if bad:
        raise KeyError(f"{name} has no hyperparameter(s) {bad}; it has {sorted(valid)}")
    return cls(**params)


def _module_defining(attr: str) -> str | None:
    """The learner module of this package whose source defines class ``attr`` at its top level
    (read with :mod:`ast`, nothing imported), or None."""
    import ast
    from pathlib import Path

    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name in NOT_LEARNER_MODULES:
            continue
        try:
            tree = ast.parse((Path(__path__[0]) / f"{info.name}.py").read_text())
        except OSError:
            return None
        if any(isinstance(n, ast.ClassDef) and n.name == attr for n in tree.body):
            return info.name
    return None


def __getattr__(attr: str):
    """``ALGORITHMS`` (built on first use), ``DataError``, and ``from algorithms import SDCA``: a
    learner by its class name, importing only its own module."""
    if attr == "ALGORITHMS":
        return _algorithms()
    if attr == "DataError":
        from ._checks import DataError

        return DataError
    if not attr.startswith("_"):
        module = _module_defining(attr)
        if module is not None:
            cls = getattr(importlib.import_module(f"{__name__}.{module}"), attr, None)
            if isinstance(cls, type) and isinstance(vars(cls).get("name"), str):
                return cls
        for cls in _algorithms().values():
            if cls.__name__ == attr:
                return cls
    raise AttributeError(f"module {__name__!r} has no attribute {attr!r}")


__all__ = ["ALGORITHMS", "DataError", "learner_class", "make_learner"]
