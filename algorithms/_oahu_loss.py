"""OAHU's losses and its hedge (Gao, Li, Chandra, Khan, Thuraisingham, "Towards Self-Adaptive
Metric Learning On the Fly", WWW 2019, section 3; re-exported by
:mod:`tripletbench.algorithms.oahu`, whose docstring derives them):

* the adaptive-bound triplet loss, ABTL (section 3.3.2): the bounds of eq. 11
  (:func:`abtl_bounds`), the attractive and repulsive losses of eq. 12 (:func:`abtl_losses`) and
  the local loss of eq. 13 (:func:`abtl_local_loss`), on NumPy arrays or torch tensors;
* the adaptive hedge update, AHU (section 3.4): the factors of eq. 20 as we reconstruct it
  (:func:`hedge_threshold`, :func:`hedge_factors`) and the update of the metric weights with
  Algorithm 1's floor and normalisation (:func:`hedge_update`).
"""

from __future__ import annotations

import numpy as np

_EPS = 1e-12
_E2 = float(np.exp(2.0))


def _exp(x):
    """exp of a NumPy array/float or of a torch tensor (so the ABTL formulas serve both)."""
    return x.exp() if hasattr(x, "exp") and not isinstance(x, np.ndarray) else np.exp(x)


def abtl_bounds(d_pos, d_neg, tau):
    """Thresholds of eq. 11 from the distances before the update.

    ``d_pos`` = D(x, x+), ``d_neg`` = D(x, x-): floats, arrays or torch tensors of one shape, values
    in [0, 2]; ``tau`` in (0, 2/3). Returns ``(d_sim, d_dis)`` of that shape:
    d_sim = tau (e^{D+} - 1) / (e^2 - 1) in [0, tau] and d_dis = 2 - tau + tau (1 - e^{-D-}) /
    (1 - e^{-2}) in [2 - tau, 2] (the boundary values of eq. 10)."""
    d_sim = tau / (_E2 - 1.0) * (_exp(d_pos) - 1.0)
    d_dis = -tau / (1.0 - 1.0 / _E2) * (_exp(-d_neg) - 1.0) + (2.0 - tau)
    return d_sim, d_dis


def abtl_losses(d_pos, d_neg, tau, bounds=None):
    """Attractive and repulsive losses of eq. 12, each in [0, 1].

    L_attr = max(0, (D+ - c1) / (2 - c1)), L_rep = max(0, 1 - D- / c2) with (c1, c2) = ``bounds``,
    by default :func:`abtl_bounds` of the same distances (eq. 11). NumPy arrays or torch tensors
    (the learner passes the bounds of the detached distances, so they are constants of the step).
    """
    c1, c2 = abtl_bounds(d_pos, d_neg, tau) if bounds is None else bounds
    attr = (d_pos - c1) / (2.0 - c1)
    rep = 1.0 - d_neg / c2
    if isinstance(attr, np.ndarray) or np.isscalar(attr):
        return np.maximum(0.0, attr), np.maximum(0.0, rep)
    return attr.clamp(min=0.0), rep.clamp(min=0.0)


def abtl_local_loss(d_pos, d_neg, tau):
    """Local loss of eq. 13: the mean (L_attr + L_rep) / 2, in [0, 1]. NumPy version."""
    attr, rep = abtl_losses(np.asarray(d_pos, float), np.asarray(d_neg, float), tau)
    return 0.5 * (attr + rep)


def hedge_threshold(beta: float) -> float:
    """L*(beta) = ln((beta - 1) / ln beta) / ln beta: the loss above which beta^L ln beta > beta - 1
    (our reading of eq. 20's condition; 0.4996 at beta = 0.99)."""
    lb = np.log(beta)
    return float(np.log((beta - 1.0) / lb) / lb)


def hedge_factors(losses, beta):
    """Factors of eq. 20 (our reconstruction, see the module docstring) and which branch each took.

    ``losses``: (L+1,) local losses in [0, 1]; ``beta`` in (0, 1). Returns ``(factors, exp_branch)``:
    factors beta^L where beta^L ln(beta) > beta - 1 (``exp_branch`` True), else 1 - (1 - beta) L.
    Raises ``ValueError`` for a loss outside [0, 1] (Hedge's bounds on F hold only there)."""
    L = np.asarray(losses, dtype=np.float64)
    if np.any(~np.isfinite(L)) or np.any(L < 0) or np.any(L > 1 + 1e-9):
        raise ValueError(f"hedge losses must lie in [0, 1], got {L}")
    L = np.minimum(L, 1.0)
    expo = np.power(beta, L)
    exp_branch = expo * np.log(beta) > beta - 1.0
    return np.where(exp_branch, expo, 1.0 - (1.0 - beta) * L), exp_branch


def hedge_update(alpha, losses, beta, s):
    """Eq. 20 and Algorithm 1, lines 10-11: alpha * F_beta(L), floored at s / (L+1), normalised.

    ``alpha``: (L+1,) distribution; ``losses``: (L+1,) local losses in [0, 1]; ``beta`` in (0, 1),
    ``s`` in [0, 1). Returns a new (L+1,) float64 array summing to 1 with entries >= s / (L+1)
    before the normalisation (hence >= s / (L+1) after it, since the floored sum is <= 1)."""
    factors, _ = hedge_factors(losses, beta)
    alpha = np.asarray(alpha, dtype=np.float64) * factors
    alpha = np.maximum(alpha, s / len(alpha))
    return alpha / alpha.sum()
