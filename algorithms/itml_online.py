"""Online ITML: the online metric learning algorithm of the ITML paper, beside metric-learn's batch
ITML (:mod:`algorithms.itml`).

Davis, Kulis, Jain, Sra, Dhillon, "Information-Theoretic Metric Learning", ICML 2007, section 4
("online metric learning", the paper's Algorithm 2). That paper is NOT in ``../shared/papers``: what
follows is written from our knowledge of it, and the one part we could not check is marked.

Setting (section 4): a stream of pairs (u_t, v_t), each with a target squared distance y_t; the
learner predicts y_hat_t = d_{A_t}(u_t, v_t) = z_t^T A_t z_t (z_t = u_t - v_t), then suffers the
squared loss l_t(A_t) = (y_hat_t - y_t)^2. The step is LogDet-regularised:

  A_{t+1} = argmin_A  D_ld(A, A_t) + eta_t l_t(A),

solved approximately by taking the loss gradient at A_t instead of A (the approximation that makes
it online ITML rather than LEGO, which solves the same kind of problem exactly):

  A_{t+1}^{-1} = A_t^{-1} + 2 eta_t (y_hat_t - y_t) z_t z_t^T, i.e. (Sherman-Morrison)
  A_{t+1} = A_t - 2 eta_t (y_hat_t - y_t) A_t z_t z_t^T A_t / (1 + 2 eta_t (y_hat_t - y_t) y_hat_t),

with A_0 = I. When y_hat_t >= y_t the step shrinks A along z_t and A_{t+1} is positive definite for
any eta_t >= 0, and the paper uses eta_t = eta_0 (its learning rate). When y_hat_t < y_t the step
grows A along z_t and A_{t+1} is positive definite only while 1 - 2 eta_t (y_t - y_hat_t) y_hat_t > 0;
the paper's Algorithm 2 then takes eta_t = min(eta_0, a bound). UNVERIFIED: the exact form of that
bound could not be read here (no copy of the paper was at hand); we use

  eta_t = min(eta_0, 1 / (2 y_t y_hat_t))   (when y_hat_t < y_t),

the largest rate for which the step does not overshoot the target (z_t^T A_{t+1} z_t <= y_t); it
keeps the denominator >= y_hat_t / y_t > 0, so A stays positive definite (tested). This is our
choice, not presented as the paper's.

The SDCA seed paper (papers/000, "Comparison Algorithms" and setup) lists ITML, tunes an "eta" for
ITML and LEGO over {0.01, 0.125, 0.5} and calls LEGO "similar to online ITML": the learning rate
eta_0 here is that eta. Pairs, targets and the stream are those of LEGO (shared code,
:class:`algorithms.lego.LogDetPairStream`): each triplet (a, p, n) gives the similar pair (a, p) and
the dissimilar pair (a, n); targets are the 5th and 95th percentiles of the training pairs' squared
distances (ITML's convention for its bounds u and l); the stream is seen in order, ``n_passes``
times; a pair with z = 0 is skipped. Trace loss: (y_hat - y_t)^2, the paper's l_t.
"""

from __future__ import annotations

from .lego import LogDetPairStream


class OnlineITML(LogDetPairStream):
    """Online ITML (Davis et al. 2007, section 4), a pair learner: ``fit(pairs, y)`` with y in
    {+1, -1}; see the module docstring for the update and what is unverified.

    Parameters
    ----------
    eta : float > 0, the learning rate eta_0 (the SDCA paper's grid: 0.01, 0.125, 0.5).
    target_quantiles : (q_similar, q_dissimilar) of the training pairs' squared distances.
    n_passes : float, number of passes over the pair stream (online: 1).

    Fitted: ``M_`` = A (d, d) float64 positive definite, ``targets_`` (2,), ``trace_``.
    Raises ``ValueError`` for eta <= 0 and labels outside {+1, -1}.
    """

    def _coefficient(self, eta, yhat, yt):
        """c = 2 eta_t (y_hat - y_t), eta_t = eta_0, or min(eta_0, 1 / (2 y_t y_hat)) when the
        step grows A (y_hat < y_t)."""
        if yhat < yt:
            eta = min(eta, 1.0 / (2.0 * yt * yhat))
        return 2.0 * eta * (yhat - yt)

    def _loss(self, yhat, yt):
        return (yhat - yt) ** 2
