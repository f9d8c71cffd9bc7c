"""The hyperparameter checks every learner shares (re-exported by
:mod:`tripletbench.algorithms.base`): :func:`is_number`, and :func:`check_common_params`, which
:meth:`~tripletbench.algorithms.base.BaseLearner._check_common_params` runs before each learner's
own ``_check_params`` (at fit and by the config check).
"""

from __future__ import annotations

import inspect
import numbers

import numpy as np

from ._stream import SAMPLINGS


def is_number(value) -> bool:
    """True for a real number (Python or NumPy int or float), False for bool, str, None, ..."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def check_common_params(learner) -> None:
    """Check the hyperparameters of ``learner`` that several learners share, and the types of
    all of them (its ``get_params`` against the defaults of its class's ``__init__``).

    * a hyperparameter whose default is a number must be a number (not a string, a bool or
      None): ``TypeError`` naming it;
    * every hyperparameter given as a number must be finite (NaN or inf: ``ValueError``; e.g.
      ``SDCA(lam=inf)`` would fit W = 0 and score every triplet as a tie);
    * ``block_size``: an int >= 1 (the blocked engine would never advance with 0) or "auto";
    * ``n_epochs``: a finite number >= 0 (> 0 for the bilinear learners, whose step count
      ``round(n_epochs * n)`` would silently become one step);
    * ``n_passes``: a finite number > 0;
    * ``sampling``: "uniform", "permutation" or "sequential".

    Raises ``ValueError`` naming the hyperparameter and its value. Learner-specific ranges are
    each learner's ``_check_params``."""
    name = type(learner).__name__
    params = learner.get_params(deep=False)
    defaults = {
        k: p.default
        for k, p in inspect.signature(type(learner).__init__).parameters.items()
        if p.default is not inspect.Parameter.empty
    }
    for key, value in params.items():
        if is_number(defaults.get(key)) and not is_number(value):
            raise TypeError(
                f"{name} hyperparameter {key} must be a number, got {value!r} "
                f"({type(value).__name__})"
            )
        if is_number(value) and not np.isfinite(value):
            raise ValueError(
                f"{name} hyperparameter {key} must be finite, got {value!r}: NaN or inf makes "
                "the fit meaningless"
            )
    if "block_size" in params:
        b = params["block_size"]
        if b != "auto" and not (
            isinstance(b, numbers.Integral) and not isinstance(b, bool) and b >= 1
        ):
            raise ValueError(f"{name}: block_size must be an int >= 1 or 'auto', got {b!r}")
    if "n_epochs" in params:
        e = params["n_epochs"]
        low_ok = e >= 0 if learner._zero_epochs_ok else e > 0
        if not (np.isfinite(e) and low_ok):
            bound = ">= 0" if learner._zero_epochs_ok else "> 0"
            raise ValueError(f"{name}: n_epochs must be a finite number {bound}, got {e!r}")
    if "n_passes" in params:
        n = params["n_passes"]
        if not (np.isfinite(n) and n > 0):
            raise ValueError(f"{name}: n_passes must be a finite number > 0, got {n!r}")
    if "sampling" in params and params["sampling"] not in SAMPLINGS:
        raise ValueError(f"{name}: sampling must be one of {SAMPLINGS}, got {params['sampling']!r}")
