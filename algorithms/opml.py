"""OPML: One-Pass closed-form online metric learning.

Li, Gao, Wang, Gong, Wang, "OPML: A One-Pass Closed-Form Solution for Online Metric Learning",
Pattern Recognition 75 (2018). A transformation L (d x d), distance ||L x - L x'||^2, L_0 = I.

* One-pass triplet construction (section 3.1; as in the authors' code ``OML_OPML.m``): the learner
  keeps the latest sample of every class seen and the latest sample overall. A new sample x_t of
  class y_t forms one triplet (x_t, x_p, x_q): if the latest sample has class y_t, x_p is that sample
  and x_q the stored sample of the most recently discovered other class; otherwise x_q is the latest
  sample and x_p the stored sample of class y_t. A sample of a class never seen forms no triplet.
* Update (closed form, eq. 16 in the authors' numbering, written in its compact form):
  with a = x_t - x_p, b = x_t - x_q, when ||L a||^2 + 1 - ||L b||^2 > 0,
      L_t = L_{t-1} (I + gamma (a a^T - b b^T))^{-1},
  the minimiser of 1/2 ||L - L_{t-1}||_F^2 + gamma/2 (||L a||^2 - ||L b||^2); applied with the
  Woodbury identity (rank two, O(d^2) per step).
* gamma = 1e-3, the authors' default (``Main_OPML.m``).

Input: labelled samples in stream order (``fit(X, y)``); the harness passes the training samples
that occur in the triplet set, in a seeded random order (OPML builds its own triplets).
``partial_fit(X, y)`` continues the stream batch by batch (the online setting of the paper): the
construction's memory (the latest sample of each class, the latest sample, the order in which the
classes appeared) and L carry over, so batches fitted one after the other give the same L as one
``fit`` on their concatenation without shuffling. A singular
(I + gamma(a a^T - b b^T)) (possible only for gamma ||b||^2 >= 1) is skipped and counted.

Errors: ``ValueError`` for gamma not > 0 or shuffle not a bool; :class:`~tripletbench.datasets.base.DataError`
for NaN/inf, no rows, labels that do not match the rows, or a stream that forms no triplet.
"""

from __future__ import annotations

import numpy as np

from sklearn.base import TransformerMixin

from ._checks import DataError
from .base import BaseLearner, LabelledMixin, MahalanobisMixin, OnlineMixin, TraceRecorder


def one_pass_triplets(y: np.ndarray) -> np.ndarray:
    """OPML's one-pass triplets over a labelled stream ``y`` (n,): int (m, 3) rows (t, p, q)."""
    labels = np.asarray(y).tolist()
    rows, _ = _one_pass(labels, 0, ({}, [], None))
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def _one_pass(labels: list, start: int, state: tuple):
    """The construction of section 3.1 for the samples ``start``, ``start + 1``, ... of
    ``labels`` (those before ``start`` are the remembered samples of earlier batches).

    ``state`` = (latest index of each class, classes in order of discovery, latest index or None),
    indices into ``labels``; returns (triplets as (t, p, q) tuples, the state after the stream)."""
    latest_of_class, discovered, latest = dict(state[0]), list(state[1]), state[2]
    out = []
    for t in range(start, len(labels)):
        c = labels[t]
        if c in latest_of_class and len(discovered) >= 2:
            if labels[latest] == c:
                other = discovered[-1] if discovered[-1] != c else discovered[-2]
                out.append((t, latest, latest_of_class[other]))
            else:
                out.append((t, latest_of_class[c], latest))
        if c not in latest_of_class:
            discovered.append(c)
        latest_of_class[c] = t
        latest = t
    return out, (latest_of_class, discovered, latest)


class OPML(LabelledMixin, TransformerMixin, MahalanobisMixin, OnlineMixin, BaseLearner):
    """OPML (Li et al. 2018), a supervised one-pass learner: ``fit(X, y)`` in stream order,
    ``partial_fit(X, y)`` to continue the stream.

    Parameters
    ----------
    gamma : float > 0 (the authors' default 1e-3).
    shuffle : bool, ``fit`` visits the samples in a random order drawn from ``random_state`` (the
        papers' streams are shuffled datasets); False keeps the given order. ``partial_fit`` keeps
        the given order.

    Fitted: ``L_`` (d, d), ``M_`` = L^T L, ``triplets_`` (``fit`` only: the triplets built, as
    indices into its X), ``n_singular_``, ``n_features_in_``, ``trace_`` of the last call (loss:
    max(0, ||L a||^2 + 1 - ||L b||^2) before the update; mistake: x_p not closer than x_q).
    """

    name = "OPML"  # its name in configs and tables (algorithms: found by this)

    constraint_kind = "labels"

    def __init__(
        self, gamma=1e-3, shuffle=True, preprocessor=None, random_state=None, verbose=False
    ):
        self.gamma = gamma
        self.shuffle = shuffle
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self):
        if not self.gamma > 0:
            raise ValueError(f"OPML: gamma must be > 0, got {self.gamma!r}")
        if not isinstance(self.shuffle, (bool, np.bool_)):
            raise ValueError(f"OPML: shuffle must be True or False, got {self.shuffle!r}")

    def fit(self, X, y):
        """One pass over labelled points X (n, d) float, y (n,), from L_0 = I, in a random
        order (``shuffle``) or as given. Raises ``DataError`` if the stream forms no triplet."""
        self._check_params()
        X, y = self._validate_labelled(X, y)
        for attr in ("L_", "M_", "triplets_", "n_singular_", "_memory"):
            self.__dict__.pop(attr, None)
        rng = np.random.default_rng(self.random_state)
        stream = rng.permutation(len(X)) if self.shuffle else np.arange(len(X))
        if len(one_pass_triplets(y[stream])) == 0:
            raise DataError(
                f"OPML: the stream forms no triplet (it needs two classes and a repeated class; "
                f"got {len(y)} sample(s) of {len(np.unique(y))} class(es))"
            )
        local = self._stream(X[stream], y[stream], rng)
        self.triplets_ = stream[local]
        return self

    def partial_fit(self, X, y):
        """Continue the one-pass stream with X (n, d), y (n,) in the given order (never shuffled):
        the triplet construction goes on from the samples it remembers (the latest of each class
        and the latest overall; section 3.1), and L from its current value (L_0 = I on the first
        call). A batch that forms no triplet only updates that memory. Fitting the batches one
        after the other equals ``fit`` on their concatenation with ``shuffle=False`` (tested).
        Raises ``ValueError`` for a batch with another number of features."""
        self._check_params()
        X, y = self._validate_labelled(X, y, reset=not hasattr(self, "L_"))
        self.__dict__.pop("triplets_", None)
        self._stream(X, y, np.random.default_rng(self.random_state))
        return self

    def _stream(self, X, y, rng) -> np.ndarray:
        """The updates for the samples X, y in order after the remembered ones; returns the
        triplets as indices into X (negative: a remembered sample; ``fit`` remembers none)."""
        d = X.shape[1]
        empty = (np.zeros((0, d)), [], ({}, [], None))
        mem_X, mem_labels, state = self.__dict__.get("_memory", empty)
        Xe = np.concatenate([mem_X, X])
        labels = list(mem_labels) + y.tolist()
        rows, state = _one_pass(labels, len(mem_labels), state)
        triplets = np.array(rows, dtype=np.int64).reshape(-1, 3)
        keep = sorted(set(state[0].values()) | {state[2]})  # what later batches can refer to
        where = {old: new for new, old in enumerate(keep)}
        self._memory = (
            Xe[keep],
            [labels[i] for i in keep],
            ({c: where[i] for c, i in state[0].items()}, state[1], where[state[2]]),
        )
        a_all = Xe[triplets[:, 0]] - Xe[triplets[:, 1]]
        b_all = Xe[triplets[:, 0]] - Xe[triplets[:, 2]]
        gamma = float(self.gamma)
        L = self.L_ if hasattr(self, "L_") else np.eye(d)
        self.n_singular_ = getattr(self, "n_singular_", 0)

        def step(i, t):
            a, b = a_all[i], b_all[i]
            La, Lb = L @ a, L @ b
            z = La @ La + 1.0 - Lb @ Lb
            mistake = z >= 1.0  # x_p not closer than x_q
            if z <= 0:
                return 0.0, False, False
            # (I + U V^T)^{-1} = I - U (I_2 + V^T U)^{-1} V^T with U = gamma [a, -b], V = [a, b]
            U = gamma * np.column_stack([a, -b])
            V = np.column_stack([a, b])
            K = np.eye(2) + V.T @ U
            if abs(np.linalg.det(K)) < 1e-12:
                self.n_singular_ += 1
                return z, mistake, False
            L[:] -= (L @ U) @ np.linalg.solve(K, V.T)
            return z, mistake, True

        if len(triplets):
            self._online_loop(len(triplets), len(triplets), step, rng, "sequential")
        else:  # a batch that forms no triplet (partial_fit)
            self.trace_, self.n_steps_ = TraceRecorder(0).trace, 0
        self.L_ = L
        self.M_ = L.T @ L
        return triplets - len(mem_labels)
