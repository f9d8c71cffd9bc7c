"""OAHU: Online Adaptive metric learning with Hedge Update.

Gao, Li, Chandra, Khan, Thuraisingham, "Towards Self-Adaptive Metric Learning On the Fly",
WWW 2019 (arXiv:2104.01495), section 3. A neural metric learned from a stream of triplets
(x, x+, x-) (anchor, positive, negative). Equation numbers below are the paper's.

Network (section 3.2, eq. 1, Figure 1). L hidden layers h(l) = ReLU(W(l) h(l-1)), h(0) = x, each
with ``n_hidden`` units, and an embedding layer E_l on the input (l = 0, a linear metric) and on
every hidden layer: f(l)(x) = h(l) Theta(l). Eq. 1 writes no bias term, so neither the hidden nor
the embedding layers have one. Eq. 3 restricts every embedding to the unit sphere; the text does
not say how. We normalise in the forward pass, f(l)(x) = h(l) Theta(l) / ||h(l) Theta(l)||_2
(our choice: it holds the constraint for every input, which projecting the parameters after a step
could not), so D(l)(x, y) = ||f(l)(x) - f(l)(y)||_2 (eq. 6) lies in [0, 2]. Without biases, an
input that switches off every ReLU unit of a hidden layer has h(l) = 0 and no direction; it embeds
at the origin (distance 1 to every unit embedding). The text does not cover this case; it did not
occur for any test image of our Fashion-MNIST runs (default Table 3 protocol, seed 0).

Adaptive-bound triplet loss, ABTL (section 3.3.2, eqs. 6-13). From the distances before the
update, D+ = D(l)(x, x+) and D- = D(l)(x, x-), the thresholds are the exponentials of eq. 9 whose
constants solve the boundary conditions of eq. 10 (taken with equality: d_sim = 0 at D+ = 0 and
tau at D+ = 2; d_dis = 2 - tau at D- = 0 and 2 at D- = 2):
    c1 = d_sim = tau / (e^2 - 1) * (e^{D+} - 1)                                      (eq. 11)
    c2 = d_dis = -tau / (1 - e^{-2}) * (e^{-D-} - 1) + 2 - tau                        (eq. 11)
    L_attr = max(0, (D+ - c1) / (2 - c1)),   L_rep = max(0, 1 - D- / c2)              (eq. 12)
    L(l) = (L_attr + L_rep) / 2                                                       (eq. 13)
d_sim is convex and d_dis concave, so d_sim <= D+ and d_dis >= D- on [0, 2] (section 3.3.3): every
triplet has a positive loss unless D+ = 0 and D- = 2, hence constraint utilization U = 1 (tested),
and both losses lie in [0, 1], as the hedge needs. tau in (0, 2/3) (Theorem 3.1).
Open in the text and chosen here: c1 and c2 are held constant in the gradient (computed from the
distances before the step, as the targets of eq. 7; the gradient then flows through D+ and D-
only). The alternative (differentiating through c1(D+), c2(D-)) was measured (issue 11 note).

Adaptive hedge update, AHU (section 3.4, eqs. 19-22, Algorithm 1). Metric weights alpha (one per
E_l, 1/(L+1) at the start). Per triplet, in Algorithm 1's order, the losses L(l) and their
gradients are taken at the parameters before the step, then
    Theta(l) <- Theta(l) - eta alpha(l) grad_Theta(l) L(l)                            (eq. 21)
    W(l)     <- W(l) - eta sum_{j >= l} alpha(j) grad_W(l) L(j)                       (eq. 22)
(online gradient descent on L_overall = sum_l alpha(l) L(l), eq. 19, with alpha before its update),
    alpha(l) <- alpha(l) F_beta(L(l))                                                 (eq. 20)
    alpha(l) <- max(alpha(l), s / (L + 1));  alpha <- alpha / sum(alpha)   (Algorithm 1, 10-11)
Eq. 20 is garbled in our copy of the text. What is legible: two branches, alpha beta^{L(l)} (a
factor beta^{min_l L(l)} appears beside it) under a condition with "log" and "> beta - 1", and
alpha [1 - (1 - beta) L(l)] "otherwise"; the text says the choice maximises the change of alpha:
as much increase as possible for a low loss, as much decrease for a high one. Freund & Schapire's
Hedge(beta) admits any factor F with beta^r <= F(r) <= 1 - (1 - beta) r for r in [0, 1]. Our
reconstruction (:func:`hedge_factors`):
    F = beta^L            where beta^L ln(beta) > beta - 1  (L above L*(beta): the exponential
                                                             falls faster than the line; the
                                                             smallest admissible factor)
    F = 1 - (1 - beta) L  otherwise                          (a low loss: the largest factor)
with L*(beta) = ln((beta - 1) / ln beta) / ln beta (0.4996 at beta = 0.99). Alternatives we
considered: (a) plain Hedge, F = beta^L always; (b) the exponential branch divided by
beta^{min_l L(l)} (the best model's factor), which, applied to one branch only, can give a
higher-loss model a larger factor than a lower-loss one (e.g. L = 0.49 and 0.51 with min 0.49),
contrary to the stated intent; a factor common to all models cancels in the normalisation (it
changes only where the floor binds). With beta = 0.99 each factor lies in [0.99, 1], so the
variants differ by at most 0.5% per step; their measured effect is in the issue 11 note.

Deployment (section 3.6), ``deployment="layers"`` (the paper's):
* classification, eqs. 23-25 (:meth:`OAHU.knn_classify`): in every E_l the k nearest reference
  points; each of the k (L+1) candidates scores S = exp(-(D - d_min) / (d_max - d_min)) * alpha(l)
  (d_min, d_max over that layer's k neighbours; alpha multiplies the exponential, as typeset: an
  alpha inside the exponent would give a less trusted layer a higher score); a class scores the sum
  over its candidates; the label is the arg max. Our choices: d_max = d_min (k = 1, or ties) gives
  every neighbour of that layer the normalised distance 0 (score alpha(l)); equal class scores go to
  the first class in sorted label order; neighbours at equal distance are ordered by index.
* similarity comparison, eq. 26 (:meth:`OAHU.similar`): p_l = [D(l)/2 < T], P = sum_l alpha(l) p_l,
  similar iff P >= 0.5. As T grows, P first reaches 0.5 just above the alpha-weighted lower median
  q of the D(l)/2, so the pair is similar iff q < T: sweeping T (section 4.4.2's ROC) is the ROC of
  the score q (:meth:`OAHU.verification_distance`; tested against eq. 26 directly).
* retrieval, eq. 27 (:meth:`OAHU.retrieve`): the k (L+1) candidates of the classification step,
  scored as eq. 23, sorted by decreasing score (equal scores: layer, then rank in the layer), the
  top k distinct items kept (an item found in several layers keeps its best score).
``deployment="combined"`` is NOT the paper's rule: one distance d = sum_l alpha(l) D(l) for a
majority-vote kNN, ranking and thresholding d / 2 (a named variant, "OAHU (combined distance)").
:meth:`similarity_matrix` (-d, used by generic ranking code and triplet scoring) is that
combined distance under either setting.

Defaults (section 4.3.2): beta = 0.99, L = 5, 100 hidden units, s = 0.1, eta = 0.3, embedding
dimension 50; tau = 0.1, section 4.6's recommendation (section 4.3.2 chooses tau by 10-fold
cross-validation on the development set: done by the harness, config grid).
Other choices the paper leaves open: D(l) uses sqrt(||.||^2 + 1e-12) in training so its gradient
exists at coinciding embeddings; PyTorch's default linear-layer initialisation (uniform
+- 1/sqrt(fan_in)), seeded by ``random_state`` (the paper's implementation is PyTorch, section
4.2; the numbers of a seeded CPU ``torch.Generator``, reproduced without torch by
:func:`torch_cpu_uniform`); float32 arithmetic (float64 with ``dtype="float64"``); one pass over
the stream in its order (``n_epochs = 1``, ``sampling = "sequential"``); ``n_epochs = 0`` keeps
the seeded initialisation (a control, not in the paper).

Backends (``backend``). "numpy" (the default) runs each step of Algorithm 1 as a hand-written
forward and backward pass (:class:`NumpyNet`: the exact gradient of sum_l alpha(l) L(l), eq. 19,
with the bounds of eq. 11 held constant; all parameters in one buffer, so eqs. 21-22 are one array
update) and never imports torch; "torch" differentiates the same loss by autograd (the reference,
and the backend for a GPU). Both start from the same parameters and take the same steps up to
rounding: gradients equal to 1e-10 in float64, whole fits to float32 rounding over a short
stream (tests/test_oahu_backends.py). Measured (``python -m tripletbench.harness.oahu_speed``; process CPU
time, one thread, medians of 3 in one process, loaded 2-core machine) at the paper's network
(d = 784, L = 5, 100 units, 50-d embeddings), float32, two runs: torch 3.6-4.8 ms per step,
NumPy backend 0.86 ms (4.1-5.6x faster), the bare NumPy forward/backward loop without the hedge
update and trace 0.69-0.70 ms (the backend at 1.25x of it; the step's flops at the one-core GEMM
rate would take 86 us: 3-row products and the update pass over all 180,000 parameters run far
below it); ``import torch`` costs a further 2.7 CPU s per process.

On a GPU (``backend="torch", device="cuda"``), measured once on an NVIDIA H200 (torch 2.11 with
CUDA 13, TF32 off; synthetic 784-d data, the paper's network; wall time, medians of 3 x 900
steps): 5.97 ms per step, against 0.36 ms for the NumPy backend and 2.6 ms for torch on one CPU
thread of the same machine. One triplet per step launches dozens of tiny kernels, so the GPU
does not pay for OAHU's online steps; it takes the same steps (parameters relative to the
largest: float64 4e-15 from the NumPy backend after 30 steps, 9e-13 after 300; float32 3e-7
after 10 steps; ``tests/test_oahu_backends.py``, whose CUDA test runs where a GPU is present).

Operation order. The online steps are chaotic: a difference in the order of floating-point sums
grows along the stream until the parameters share no digit. Measured (``python -m
tripletbench.harness.oahu_order``) on Fashion-MNIST at the default config's Table 3 size (4,000 samples,
2,500 seed + 2,500 closure triplets, k = 5, tau = 0.1; seeds 0-2), float32, the NumPy backend
against itself with the feature columns and the matching input columns of W(1) and Theta(0)
permuted (the same function, other summation order): the largest parameter difference relative
to the largest parameter is 2-3e-7 after step 1 (one rounding), 4-5e-6 after 10 steps (3e-2 for
one seed), 0.46-0.79 after 100 and about 1 from step 300 on (growth about 15% per step; not a
collapse of the embeddings: D+ < 1e-3 in at most 0.3% of the first 300 steps, seeds 0 and 2).
Over five runs per seed that differ only in summation order (NumPy, torch, three column
permutations) the final kNN error (eqs. 23-25) spans 0.046 / 0.021 / 0.025 (seeds 0, 1, 2:
0.2755-0.3210, 0.3100-0.3310, 0.2960-0.3205), standard deviation 0.012 over orders against 0.023
over seeds; float64 moved it by at most 0.011. An OAHU error is therefore known to about +- 0.02
per run: its third decimal carries no information, and smaller differences between two settings
may be operation order.

Momentum (``momentum`` = mu > 0) is NOT in the paper: it replaces the plain steps of eqs. 21-22 by
heavy-ball steps on the same alpha-weighted gradient g_t of sum_l alpha(l) L(l) (PyTorch's SGD
convention, no dampening): v_t = mu v_{t-1} + g_t (v_0 = 0), parameters <- parameters - eta v_t,
the velocity carried across ``partial_fit`` calls and reset by ``fit``. It exists for one
measurement (``snakemake oahu_sensitivity``: does momentum let training beat the untrained
network?); the default ``momentum = 0`` runs the paper's plain update, the same code path as before
the option existed.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import validate_data

from .base import BaseLearner, OnlineMixin

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


def torch_cpu_uniform(state: np.random.RandomState, shape) -> np.ndarray:
    """``torch.rand(shape, generator=g, dtype=torch.float64)`` of a CPU ``torch.Generator`` without
    torch: float64 array of ``shape``, exactly (tested against torch).

    ``state``: a legacy ``np.random.RandomState(seed & 0xffffffff)``, the same 32-bit Mersenne
    Twister (MT19937) that ``torch.Generator().manual_seed(seed)`` seeds (torch keeps the low 32
    bits of the seed); its ``randint(0, 2**32, dtype=uint32)`` returns the raw 32-bit outputs. torch
    draws a double from two outputs r1, r2 as ((r1 << 32) | r2) masked to 53 bits, times 2^-53."""
    n = int(np.prod(shape))
    r = state.randint(0, 2**32, size=2 * n, dtype=np.uint32).astype(np.uint64).reshape(n, 2)
    bits = ((r[:, 0] & np.uint64(2**21 - 1)) << np.uint64(32)) | r[:, 1]
    return (bits.astype(np.float64) * 2.0**-53).reshape(shape)


def _normalise_rows(z, eps=_EPS):
    """F.normalize(z, dim=-1, eps): z / max(||z||_2, eps) along the last axis, in z's dtype."""
    return z / np.maximum(np.sqrt((z * z).sum(axis=-1, keepdims=True)), eps)


class NumpyNet:
    """OAHU's network (eq. 1, no biases) with its parameters in one flat buffer, and the exact
    gradient of one triplet's alpha-weighted loss sum_l alpha(l) L(l) (eq. 19; L(l) by eqs. 6,
    11-13 with the bounds c1, c2 of eq. 11 held constant) by a hand-written backward pass: the
    ``backend="numpy"`` step of :class:`OAHU`.

    ``hidden``: W(1..L), arrays (h, fan_in); ``theta``: Theta(0..L), arrays (m, d) then (m, h);
    copied into ``flat`` (of ``dtype``) as Theta(0), W(1), W(2..L), Theta(1..L), exposed as the
    views ``hidden`` and ``theta``; ``grad`` holds the gradient in the same layout (views
    ``grad_hidden``, ``grad_theta``). One buffer makes the update of eqs. 21-22 one array
    operation: every parameter moves by -eta times its gradient of L_overall (eq. 19), which is
    eq. 21 for Theta(l) (only L(l) depends on it) and eq. 22 for W(l) (the L(j), j >= l).

    Backward pass, per layer l with z = h(l) Theta(l)^T (3 rows: anchor, positive, negative),
    f = z / max(||z||, eps) and D+ = sqrt(||f_a - f_p||^2 + 1e-12), D- likewise:
        dJ/dD+ = alpha(l) [L_attr >= 0] / (2 (2 - c1)),   dJ/dD- = -alpha(l) [L_rep >= 0] / (2 c2)
        dJ/df_a = dJ/dD+ (f_a - f_p) / D+ + dJ/dD- (f_a - f_n) / D-,
        dJ/df_p = -dJ/dD+ (f_a - f_p) / D+,   dJ/df_n = -dJ/dD- (f_a - f_n) / D-
        dJ/dz = (dJ/df - f (f . dJ/df)) / ||z||   (||z|| >= eps; below it dJ/df / eps)
        dJ/dTheta(l) = dJ/dz^T h(l),   dJ/dh(l) += dJ/dz Theta(l)
        dJ/dpre(l) = dJ/dh(l) [h(l) > 0],   dJ/dW(l) = dJ/dpre(l)^T h(l-1),
        dJ/dh(l-1) += dJ/dpre(l) W(l)
    (the masks [. >= 0] and [h > 0] are torch's subgradients of clamp and ReLU, so that both
    backends agree where a loss or a unit sits exactly at its kink)."""

    def __init__(self, hidden, theta, dtype):
        dt = np.dtype(dtype)
        L = len(hidden)
        m, d = np.shape(theta[0])
        h = np.shape(hidden[0])[0] if L else 0
        self._shapes = [(m, d), (h, d) if L else (0, d), (max(L - 1, 0), h, h), (L, m, h)]
        self.L, self.dtype = L, dt
        self.flat = np.empty(sum(int(np.prod(s)) for s in self._shapes), dtype=dt)
        self.grad = np.empty_like(self.flat)
        self._tmp = np.empty_like(self.flat)
        self._theta0, self._w1, self._w_rest, self._theta_rest = self._split(self.flat)
        self._g_theta0, self._g_w1, self._g_w_rest, self._g_theta_rest = self._split(self.grad)
        self.hidden, self.theta = self._views(self.flat)
        self.grad_hidden, self.grad_theta = self._views(self.grad)
        for dst, src in zip(self.parameters(), list(hidden) + list(theta)):
            dst[...] = np.asarray(src)
        self._Z = np.empty((L + 1, 3, m), dtype=dt)
        self._H = np.empty((L, 3, h), dtype=dt)

    def _split(self, buf):
        """Views of ``buf`` (the layout of ``flat``): Theta(0), W(1), W(2..L), Theta(1..L)."""
        out, lo = [], 0
        for shp in self._shapes:
            size = int(np.prod(shp))
            out.append(buf[lo : lo + size].reshape(shp))
            lo += size
        return out

    def _views(self, buf):
        """(W(1..L), Theta(0..L)) as lists of views of ``buf``."""
        t0, w1, w_rest, t_rest = self._split(buf)
        return ([w1] if self.L else []) + list(w_rest), [t0] + list(t_rest)

    def parameters(self):
        """The parameter views in :meth:`OAHU._parameters` order: W(1..L), Theta(0..L)."""
        return self.hidden + self.theta

    def velocity_buffer(self, velocity=None):
        """A buffer in the layout of ``flat``, zero or filled from ``velocity`` (a list in
        :meth:`parameters` order), and its views in :meth:`parameters` order."""
        vflat = np.zeros_like(self.flat)
        hidden, theta = self._views(vflat)
        views = hidden + theta
        if velocity is not None:
            for dst, src in zip(views, velocity):
                dst[...] = np.asarray(src)
        return vflat, views

    def forward_backward(self, X3, alpha, tau):
        """One triplet: ``X3`` (3, d) rows (anchor, positive, negative) of ``dtype``, ``alpha``
        (L+1,) of ``dtype``, ``tau`` float. Writes the gradient of sum_l alpha(l) L(l) into
        ``grad`` and returns ``(local, d_pos, d_neg)``, each (L+1,) of ``dtype``: L(l) (eq. 13) and
        D+(l), D-(l) (eq. 6) before the step."""
        L, Z, H = self.L, self._Z, self._H
        np.matmul(X3, self._theta0.T, out=Z[0])
        prev = X3
        for l, W in enumerate(self.hidden):  # h(l) = ReLU(W(l) h(l-1)), eq. 1
            np.matmul(prev, W.T, out=H[l])
            np.maximum(H[l], 0, out=H[l])
            prev = H[l]
        if L:
            np.matmul(H, self._theta_rest.transpose(0, 2, 1), out=Z[1:])
        nrm = np.sqrt((Z * Z).sum(axis=2, keepdims=True))  # (L+1, 3, 1)
        den = np.maximum(nrm, _EPS)
        F = Z / den  # f(l), unit norm (eq. 3, our normalisation)
        A = F[:, 0] - F[:, 1]
        B = F[:, 0] - F[:, 2]
        d_pos = np.sqrt((A * A).sum(axis=1) + _EPS)  # eq. 6
        d_neg = np.sqrt((B * B).sum(axis=1) + _EPS)
        c1, c2 = abtl_bounds(d_pos, d_neg, tau)  # eq. 11, constants of the step
        attr = (d_pos - c1) / (2.0 - c1)  # eq. 12
        rep = 1.0 - d_neg / c2
        local = 0.5 * (np.maximum(attr, 0.0) + np.maximum(rep, 0.0))  # eq. 13
        half = 0.5 * alpha
        gp = half * (attr >= 0) / (2.0 - c1) / d_pos  # dJ/dD+ / D+
        gn = -half * (rep >= 0) / c2 / d_neg
        GA = gp[:, None] * A
        GB = gn[:, None] * B
        GF = np.empty_like(F)
        GF[:, 0] = GA + GB
        GF[:, 1] = -GA
        GF[:, 2] = -GB
        s = (GF * F).sum(axis=2, keepdims=True) * (nrm >= _EPS)
        GZ = (GF - F * s) / den  # through the normalisation
        np.matmul(GZ[0].T, X3, out=self._g_theta0)
        if L:
            np.matmul(GZ[1:].transpose(0, 2, 1), H, out=self._g_theta_rest)
            GH = np.matmul(GZ[1:], self._theta_rest)  # dJ/dh(l) from E_l, (L, 3, h)
            for l in range(L, 0, -1):
                Gpre = GH[l - 1] * (H[l - 1] > 0)  # through the ReLU
                if l == 1:
                    np.matmul(Gpre.T, X3, out=self._g_w1)
                else:
                    np.matmul(Gpre.T, H[l - 2], out=self._g_w_rest[l - 2])
                    GH[l - 2] += Gpre @ self.hidden[l - 1]
        return local, d_pos, d_neg

    def apply(self, eta, momentum=0.0, velocity=None):
        """parameters <- parameters - eta grad (eqs. 21-22), or with ``momentum`` mu > 0 the
        heavy-ball step on the flat ``velocity`` buffer: v <- mu v + grad, parameters -= eta v."""
        if momentum == 0:
            step = np.multiply(self.grad, eta, out=self._tmp)
        else:
            velocity *= momentum
            velocity += self.grad
            step = np.multiply(velocity, eta, out=self._tmp)
        self.flat -= step

    def embed(self, X):
        """:func:`numpy_embed` of the rows of ``X`` (n, d) of ``dtype`` by this network."""
        return numpy_embed(self.hidden, self.theta, X)


def numpy_embed(hidden, theta, X):
    """The L+1 unit-norm embeddings f(l) = h(l) Theta(l)^T / max(||.||, eps) (eqs. 1, 3) of the
    rows of ``X`` (n, d), h(0) = X, h(l) = ReLU(h(l-1) W(l)^T): array (L+1, n, m) of X's dtype."""
    out = [_normalise_rows(X @ theta[0].T)]
    h = X
    for W, T in zip(hidden, theta[1:]):
        h = np.maximum(h @ W.T, 0)
        out.append(_normalise_rows(h @ T.T))
    return np.stack(out)


def numpy_loss_and_grad(hidden, theta, X3, alpha, tau, dtype="float64"):
    """One triplet's local losses (eq. 13), distances (eq. 6) and the gradient of
    sum_l alpha(l) L(l) by :class:`NumpyNet` (the ``backend="numpy"`` step): returns
    ``(local, d_pos, d_neg, grads)`` with ``grads`` a list of arrays in the order W(1..L),
    Theta(0..L). For tests and measurements; the learner keeps one :class:`NumpyNet` per fit."""
    net = NumpyNet(hidden, theta, dtype)
    dt = net.dtype
    local, dp, dn = net.forward_backward(
        np.asarray(X3, dtype=dt), np.asarray(alpha, dtype=dt), float(tau)
    )
    return local, dp, dn, [g.copy() for g in net.grad_hidden + net.grad_theta]


def weighted_lower_median(values, weights):
    """Per column of ``values`` (n_layers, n), the smallest value v with sum of ``weights``
    (n_layers,) over values <= v at least 0.5: the eq. 26 threshold score. Returns (n,)."""
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(values, axis=0, kind="stable")
    cum = np.cumsum(np.asarray(weights, dtype=np.float64)[order], axis=0)
    first = np.argmax(cum >= 0.5 - 1e-12, axis=0)
    return np.take_along_axis(values, order, axis=0)[first, np.arange(values.shape[1])]


class OAHU(OnlineMixin, BaseLearner):
    """OAHU (Gao et al., WWW 2019): ``fit(triplets)``, rows (anchor, positive, negative).

    Parameters
    ----------
    tau : float in (0, 2/3), the ABTL parameter (eqs. 8-11); default 0.1 (section 4.6).
    n_hidden_layers : int L >= 0 (default 5); n_hidden : units per hidden layer (100).
    embedding_dim : int, dimension of every E_l (50).
    beta : float in (0, 1), hedge discount (0.99); s : float in [0, 1), smoothing (0.1).
    eta : float > 0, learning rate of the online gradient descent (0.3).
    momentum : float in [0, 1), heavy-ball momentum of the parameter steps; 0 (default) is the
        paper's plain OGD of eqs. 21-22, > 0 is ours, not the paper's (module docstring).
    n_epochs : int >= 0, passes over the triplet stream (the paper: 1); 0 leaves the network at
        its initialisation (a control: what the untrained embedding gives).
    sampling : "sequential" (the stream order), "permutation" or "uniform".
    deployment : "layers" (section 3.6, eqs. 23-27: the paper's) or "combined" (one distance
        sum_l alpha(l) D(l): a variant, not the paper's).
    backend : "numpy" (default: the hand-written forward and backward pass of
        :func:`numpy_step`, CPU, no torch import) or "torch" (autograd; the reference, and the one
        that runs on a GPU). Both take the same steps up to floating-point rounding (tested).
    device : for ``backend="torch"``: "auto" (CUDA when present, else CPU), "cpu" or "cuda";
        ``backend="numpy"`` accepts "auto" and "cpu" (it runs on the CPU).
    dtype : "float32" or "float64".

    Fitted: ``alpha_`` (L+1,) metric weights, ``params_`` (``hidden`` W(1..L), ``theta``
    Theta(0..L): NumPy arrays of ``dtype``, or torch tensors with ``backend="torch"``),
    ``trace_`` with per-checkpoint ``alpha_0`` .. ``alpha_L`` besides the
    overall loss (eq. 19), mistakes (combined distance of the positive >= of the negative) and
    utilization, ``n_steps_``; ``velocity_`` (one array / tensor per parameter, in the order of
    ``_parameters()``, momentum > 0 only, else None).
    """

    name = "OAHU"  # its name in configs and tables (algorithms: found by this)

    constraint_kind = "triplets"

    def __init__(
        self,
        tau=0.1,
        n_hidden_layers=5,
        n_hidden=100,
        embedding_dim=50,
        beta=0.99,
        s=0.1,
        eta=0.3,
        momentum=0.0,
        n_epochs=1,
        sampling="sequential",
        deployment="layers",
        backend="numpy",
        device="auto",
        dtype="float32",
        preprocessor=None,
        random_state=None,
        verbose=False,
    ):
        self.tau = tau
        self.n_hidden_layers = n_hidden_layers
        self.n_hidden = n_hidden
        self.embedding_dim = embedding_dim
        self.beta = beta
        self.s = s
        self.eta = eta
        self.momentum = momentum
        self.n_epochs = n_epochs
        self.sampling = sampling
        self.deployment = deployment
        self.backend = backend
        self.device = device
        self.dtype = dtype
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    # ----------------------------------------------------------------------------- set-up
    def _check_params(self):
        if not 0 < self.tau < 2.0 / 3.0:
            raise ValueError(f"tau must lie in (0, 2/3) (Theorem 3.1), got {self.tau}")
        if not 0 < self.beta < 1:
            raise ValueError(f"beta must lie in (0, 1), got {self.beta}")
        if not 0 <= self.s < 1:
            raise ValueError(f"s must lie in [0, 1), got {self.s}")
        if int(self.n_epochs) < 0:
            raise ValueError(f"n_epochs must be >= 0, got {self.n_epochs}")
        if not self.eta > 0:
            raise ValueError(f"eta must be > 0, got {self.eta}")
        if not 0 <= self.momentum < 1:
            raise ValueError(f"momentum must lie in [0, 1), got {self.momentum}")
        if int(self.n_hidden_layers) < 0 or int(self.n_hidden) < 1 or int(self.embedding_dim) < 1:
            raise ValueError("n_hidden_layers >= 0, n_hidden >= 1 and embedding_dim >= 1 needed")
        if self.dtype not in ("float32", "float64"):
            raise ValueError(f"dtype must be 'float32' or 'float64', got {self.dtype!r}")
        if self.deployment not in ("layers", "combined"):
            raise ValueError(f"deployment must be 'layers' or 'combined', got {self.deployment!r}")
        if self.backend not in ("numpy", "torch"):
            raise ValueError(f"backend must be 'numpy' or 'torch', got {self.backend!r}")
        if self.backend == "numpy" and self.device not in ("auto", "cpu"):
            raise ValueError(
                f"backend='numpy' runs on the CPU (device 'auto' or 'cpu'), got {self.device!r}; "
                "use backend='torch' for a GPU"
            )

    def _torch(self):
        import torch

        if self.device == "auto":
            dev = "cuda" if torch.cuda.is_available() else "cpu"
        elif self.device in ("cpu", "cuda"):
            dev = self.device
        else:
            raise ValueError(f"device must be 'auto', 'cpu' or 'cuda', got {self.device!r}")
        return torch, torch.device(dev), getattr(torch, self.dtype)

    def _init_params(self, d):
        """PyTorch's default linear-layer weights (no bias, eq. 1), seeded by ``random_state``:
        uniform +- 1/sqrt(fan_in), drawn in float64 from a CPU ``torch.Generator`` seeded with an
        integer from ``np.random.default_rng(random_state)`` (reproduced without torch by
        :func:`torch_cpu_uniform`, the same numbers for both backends), then cast to ``dtype``."""
        seed = int(np.random.default_rng(self.random_state).integers(2**62))
        state = np.random.RandomState(seed & 0xFFFFFFFF)  # the generator torch seeds, exactly
        L, h, m = int(self.n_hidden_layers), int(self.n_hidden), int(self.embedding_dim)

        def uniform(shape, fan_in):
            bound = 1.0 / np.sqrt(fan_in)
            return (torch_cpu_uniform(state, shape) * 2 - 1) * bound

        hidden = []  # W(1..L), shapes (h, fan_in)
        fan = d
        for _ in range(L):
            hidden.append(uniform((h, fan), fan))
            fan = h
        theta = [uniform((m, d), d)] + [uniform((m, h), h) for _ in range(L)]  # Theta(0..L)
        if self.backend == "torch":
            torch, dev, dt = self._torch()

            def cast(w):
                return torch.as_tensor(w).to(device=dev, dtype=dt).requires_grad_(True)

        else:

            def cast(w):
                return w.astype(self.dtype)

        self.params_ = {"hidden": [cast(w) for w in hidden], "theta": [cast(w) for w in theta]}
        self.alpha_ = np.full(L + 1, 1.0 / (L + 1))
        self.velocity_ = None  # heavy-ball buffers (momentum > 0 only, not the paper's), lazily
        self.n_features_in_ = d

    def _embed(self, Xt):
        """List of the L+1 unit-norm embeddings f(l) (torch tensors (n, m)) of a (n, d) tensor
        (``backend="torch"``; the NumPy backend's is :meth:`NumpyNet.embed`)."""
        import torch.nn.functional as F

        theta = self.params_["theta"]
        out = [F.normalize(Xt @ theta[0].T, dim=1, eps=_EPS)]
        h = Xt
        for W, T in zip(self.params_["hidden"], theta[1:]):
            h = F.relu(h @ W.T)
            out.append(F.normalize(h @ T.T, dim=1, eps=_EPS))
        return out

    def _parameters(self):
        return list(self.params_["hidden"]) + list(self.params_["theta"])

    # ----------------------------------------------------------------------------- training
    def fit(self, triplets):
        """Initialise the network and run ``n_epochs`` passes over ``triplets`` (Algorithm 1).

        ``triplets``: (n, 3, d) points or (n, 3) int indices into ``preprocessor``. Raises
        ``DataError`` for NaN/inf points or zero triplets, ``ValueError`` for bad parameters."""
        self._check_params()
        X, idx = self._points(triplets, 3, "triplets")
        self._init_params(X.shape[1])
        self.n_steps_ = 0
        return self._run(X, idx)

    def partial_fit(self, triplets):
        """Continue the stream with more triplets (initialises on the first call, as ``fit``:
        OAHU's own, also for ``OAHU_Supervised`` whose ``fit`` takes labelled points)."""
        if not hasattr(self, "params_"):
            return OAHU.fit(self, triplets)
        self._check_params()
        X, idx = self._points(triplets, 3, "triplets")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"expected {self.n_features_in_} features, got {X.shape[1]}")
        return self._run(X, idx)

    def _local_losses(self, d_pos, d_neg):
        """Eq. 13 per layer as a torch tensor (L+1,), the bounds of eq. 11 held constant."""
        tau = float(self.tau)
        bounds = abtl_bounds(d_pos.detach(), d_neg.detach(), tau)
        attr, rep = abtl_losses(d_pos, d_neg, tau, bounds)
        return 0.5 * (attr + rep)

    def _run(self, X, idx):
        """Algorithm 1 over the triplets ``idx`` (n, 3): one backend's network step
        (:meth:`_numpy_step` or :meth:`_torch_step`: eqs. 6, 11-13, 19, 21-22), then the hedge
        update of the layer weights (eq. 20, lines 10-11), shared by both backends."""
        core = (self._torch_step if self.backend == "torch" else self._numpy_step)(X, idx)
        beta, s = float(self.beta), float(self.s)
        rng = np.random.default_rng(self.random_state)
        n_steps = int(self.n_epochs) * len(idx)

        def step(i, t):
            losses, dp, dn = core(i)  # the network updated on triplet idx[i]
            mistake = float(self.alpha_ @ dp) >= float(self.alpha_ @ dn)
            loss = float(self.alpha_ @ losses)
            self.alpha_ = hedge_update(self.alpha_, losses, beta, s)  # eq. 20, lines 10-11
            return loss, mistake, bool(loss > 0)

        def on_checkpoint(t):
            return {f"alpha_{j}": float(a) for j, a in enumerate(self.alpha_)}

        before = self.n_steps_
        self._online_loop(len(idx), n_steps, step, rng, self.sampling, on_checkpoint)
        self.n_steps_ = before + n_steps  # _online_loop sets the count of this call's steps
        return self

    def _numpy_step(self, X, idx):
        """``core(i)`` for :meth:`_run`: the hand-written forward and backward pass of
        :class:`NumpyNet` on triplet idx[i] and its update (eqs. 21-22); returns the local losses,
        D+ and D- per layer ((L+1,) arrays) before the update. The same steps as
        :meth:`_torch_step` up to floating-point rounding (tested)."""
        dt = np.dtype(self.dtype)
        net = NumpyNet(self.params_["hidden"], self.params_["theta"], dt)
        self.params_ = {"hidden": net.hidden, "theta": net.theta}  # views of net.flat
        Xd = np.ascontiguousarray(X, dtype=dt)
        idx = np.asarray(idx, dtype=np.intp)
        eta, tau = float(self.eta), float(self.tau)
        mu = float(self.momentum)
        vflat = None
        if mu > 0:
            vflat, self.velocity_ = net.velocity_buffer(getattr(self, "velocity_", None))

        def core(i):
            local, dp, dn = net.forward_backward(Xd[idx[i]], self.alpha_.astype(dt), tau)
            net.apply(eta, mu, vflat)  # eqs. 21-22 (momentum: ours, not the paper's)
            return local.astype(np.float64), dp, dn

        return core

    def _torch_local(self, X3):
        """``backend="torch"``: for a (3, d) tensor of rows (anchor, positive, negative), the
        local losses L(l) of eq. 13 (the bounds of eq. 11 held constant) and D+(l), D-(l) of
        eq. 6, tensors (L+1,) in the autograd graph of the parameters."""
        import torch

        e = torch.stack(self._embed(X3))  # (L+1, 3, m)
        d_pos = torch.sqrt(((e[:, 0] - e[:, 1]) ** 2).sum(1) + _EPS)  # D_orig, eq. 6
        d_neg = torch.sqrt(((e[:, 0] - e[:, 2]) ** 2).sum(1) + _EPS)
        return self._local_losses(d_pos, d_neg), d_pos, d_neg  # eqs. 11-13, (L+1,)

    def _torch_step(self, X, idx):
        """``core(i)`` for :meth:`_run` with torch autograd (``backend="torch"``: the reference,
        and GPUs): the gradient of eq. 19 on triplet idx[i] and the update (eqs. 21-22)."""
        torch, dev, dt = self._torch()
        Xt = torch.as_tensor(X, dtype=dt, device=dev)
        params = self._parameters()
        eta = float(self.eta)
        mu = float(self.momentum)
        if mu > 0 and getattr(self, "velocity_", None) is None:
            self.velocity_ = [torch.zeros_like(p) for p in params]

        def core(i):
            a, p, n = idx[i]
            local, d_pos, d_neg = self._torch_local(Xt[[int(a), int(p), int(n)]])
            alpha = torch.as_tensor(self.alpha_, dtype=dt, device=dev)
            grads = torch.autograd.grad((alpha * local).sum(), params)  # eq. 19
            with torch.no_grad():
                if mu == 0:
                    for prm, g in zip(params, grads):  # eqs. 21-22
                        prm.sub_(eta * g)
                else:  # heavy ball on the same gradient: ours, not the paper's
                    for prm, g, v in zip(params, grads, self.velocity_):
                        v.mul_(mu).add_(g)
                        prm.sub_(eta * v)
            losses = local.detach().cpu().numpy().astype(np.float64)
            return losses, d_pos.detach().cpu().numpy(), d_neg.detach().cpu().numpy()

        return core

    # ----------------------------------------------------------------------------- embeddings
    def transform(self, X) -> np.ndarray:
        """The L+1 unit-norm embeddings of X (n, d): float64 array (L+1, n, embedding_dim).
        Raises ``NotFittedError`` before fit (every distance, score and deployment method goes
        through here) and scikit-learn's ``ValueError`` for NaN/inf, a non-2-D X or another number
        of features than at fit."""
        self._check_fitted()
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.backend != "torch":
            hidden, theta = self.params_["hidden"], self.params_["theta"]
            out = [
                numpy_embed(hidden, theta, X[lo : lo + 4096].astype(self.dtype)).astype(np.float64)
                for lo in range(0, len(X), 4096)
            ]
            if not out:
                return np.zeros((len(self.alpha_), 0, int(self.embedding_dim)))
            return np.concatenate(out, axis=1)
        torch, dev, dt = self._torch()
        out = []
        with torch.no_grad():
            for lo in range(0, len(X), 4096):
                Xt = torch.as_tensor(X[lo : lo + 4096], dtype=dt, device=dev)
                out.append(torch.stack(self._embed(Xt)).cpu().numpy().astype(np.float64))
        if not out:
            return np.zeros((len(self.alpha_), 0, int(self.embedding_dim)))
        return np.concatenate(out, axis=1)

    @staticmethod
    def _unit_distances(A, B):
        """||a - b|| for the rows a of A (n, m) and b of B (p, m), float64 (n, p)."""
        sq = np.einsum("ij,ij->i", A, A)[:, None] + np.einsum("ij,ij->i", B, B)[None, :]
        return np.sqrt(np.maximum(0.0, sq - 2.0 * (A @ B.T)))

    def layer_distances(self, X, Y) -> np.ndarray:
        """D(l)(x, y) of eq. 6 for every layer and pair of rows: float64 (L+1, len(X), len(Y))
        (scipy's cdist, exact; the neighbour searches use the faster dot-product form)."""
        from scipy.spatial.distance import cdist

        EX, EY = self.transform(X), self.transform(Y)
        return np.stack([cdist(a, b) for a, b in zip(EX, EY)])

    def distance_matrix(self, X, Y) -> np.ndarray:
        """Combined distance d = sum_l alpha(l) D(l) (the variant, not eq. 23), (len(X), len(Y))."""
        return np.tensordot(self.alpha_, self.layer_distances(X, Y), axes=1)

    def similarity_matrix(self, X, Y) -> np.ndarray:
        """-sum_l alpha(l) D(l)(x, y), (len(X), len(Y)): the combined-distance score used by
        generic ranking code and triplet scoring. The paper's deployment is :meth:`knn_classify`,
        :meth:`retrieve` and :meth:`similar`. Raises ``NotFittedError`` before fit."""
        self._check_fitted()
        return -self.distance_matrix(X, Y)

    def _pair_score_points(self, A, B):
        EA, EB = self.transform(A), self.transform(B)
        return -(self.alpha_ @ np.linalg.norm(EA - EB, axis=2))

    def pair_distance(self, pairs) -> np.ndarray:
        """Combined distance sum_l alpha(l) D(l) per pair, shape (n,), values in [0, 2]."""
        return -self.pair_score(pairs)

    # ----------------------------------------------------------------------------- deployment
    def _layer_neighbours(self, EQ, ED, k, exclude_offset=None):
        """Per layer, the k nearest rows of ED (L+1, n_db, m) for each row of EQ (L+1, b, m):
        (indices int64 (L+1, b, k), distances (L+1, b, k)), nearest first, equal distances by
        index. ``exclude_offset``: query i is database row exclude_offset + i (left out)."""
        idx, dist = [], []
        rows = np.arange(EQ.shape[1])
        for q, db in zip(EQ, ED):
            D = self._unit_distances(q, db)
            if exclude_offset is not None:
                D[rows, exclude_offset + rows] = np.inf
            part = (
                np.argpartition(D, k - 1, axis=1)[:, :k]
                if k < D.shape[1]
                else np.tile(np.arange(D.shape[1]), (len(D), 1))
            )
            pd = np.take_along_axis(D, part, axis=1)
            order = np.lexsort((part, pd), axis=1)
            idx.append(np.take_along_axis(part, order, axis=1))
            dist.append(np.take_along_axis(pd, order, axis=1))
        return np.stack(idx), np.stack(dist)

    def _candidate_scores(self, dist):
        """Eq. 23 / 27: exp(-(D - d_min) / (d_max - d_min)) * alpha(l) over each layer's k
        neighbours (L+1, b, k); d_max = d_min gives normalised distance 0 (our choice)."""
        dmin, dmax = dist[..., :1], dist[..., -1:]
        span = dmax - dmin
        norm = np.divide(dist - dmin, span, out=np.zeros_like(dist), where=span > 0)
        return np.exp(-norm) * self.alpha_[:, None, None]

    def _check_k(self, k, n_db):
        if not 1 <= int(k) <= n_db:
            raise ValueError(f"k must lie in [1, {n_db}], got {k}")

    def knn_class_scores(self, X, X_ref, y_ref, k: int, per_layer: bool = False, batch_size=256):
        """Class association scores of eqs. 23-24 for the rows of ``X`` (n, d).

        In every E_l the k nearest rows of ``X_ref`` (n_ref, d); each scores exp(-(D - d_min) /
        (d_max - d_min)) * alpha(l); a class sums the scores of its candidates over all layers.
        ``y_ref``: (n_ref,) labels. Returns ``(classes, scores)``: the sorted distinct labels
        (C,) and float64 (n, C), or with ``per_layer`` the contribution of each layer, (L+1, n, C)
        (summing over axis 0 gives eq. 24). Raises ``ValueError`` for k outside [1, n_ref] or a
        label count that does not match ``X_ref``."""
        y_ref = np.asarray(y_ref)
        if len(y_ref) != len(X_ref):
            raise ValueError("X_ref and y_ref need one label per reference row")
        self._check_k(k, len(y_ref))
        classes, codes = np.unique(y_ref, return_inverse=True)
        ER = self.transform(X_ref)
        n_layers = len(ER)
        scores = np.zeros((n_layers, len(X), len(classes)))
        for lo in range(0, len(X), batch_size):
            EQ = self.transform(X[lo : lo + batch_size])
            b = EQ.shape[1]
            idx, dist = self._layer_neighbours(EQ, ER, k)
            S = self._candidate_scores(dist)  # (L+1, b, k), eq. 23
            layer = np.broadcast_to(np.arange(n_layers)[:, None, None], idx.shape)
            rows = np.broadcast_to(np.arange(lo, lo + b)[None, :, None], idx.shape)
            np.add.at(scores, (layer.ravel(), rows.ravel(), codes[idx].ravel()), S.ravel())
        return classes, (scores if per_layer else scores.sum(axis=0))  # eq. 24

    def knn_classify(self, X, X_ref, y_ref, k: int) -> np.ndarray:
        """kNN labels of ``X`` (n, d) from ``X_ref`` (n_ref, d), ``y_ref`` (n_ref,): (n,) labels.

        ``deployment="layers"``: eq. 25, the arg max of :meth:`knn_class_scores` (equal scores:
        the first class in sorted label order). ``deployment="combined"``: majority vote of the
        k nearest under sum_l alpha(l) D(l) (:func:`tripletbench.evaluation.classification.knn_predict`)."""
        if self.deployment == "combined":
            from tripletbench.evaluation.classification import knn_predict

            return knn_predict(self.similarity_matrix, X, X_ref, y_ref, k=k)
        classes, scores = self.knn_class_scores(X, X_ref, y_ref, k)
        return classes[np.argmax(scores, axis=1)]

    def retrieve(self, X, X_db, ks, exclude_self: bool = False, batch_size: int = 256) -> dict:
        """Analogue retrieval: for each k in ``ks``, the k items of ``X_db`` most similar to each
        row of ``X``: {k: int64 (n, k) database indices, best first}.

        ``deployment="layers"``: eq. 27 with k(L+1) candidates (k nearest per layer, scored as
        eq. 23), sorted by decreasing score (equal scores: layer, then rank), top k distinct.
        ``deployment="combined"``: the k nearest under sum_l alpha(l) D(l) (ties by index).
        ``exclude_self``: ``X`` is ``X_db`` and query i never retrieves item i. Raises
        ``ValueError`` for a k outside [1, n_db] (n_db - 1 with ``exclude_self``)."""
        ks = sorted({int(k) for k in ks})
        n_db = len(X_db) - (1 if exclude_self else 0)
        for k in ks:
            self._check_k(k, n_db)
        if exclude_self and len(X) != len(X_db):
            raise ValueError("exclude_self needs the query set to be the database")
        ED = self.transform(X_db)
        out = {k: np.empty((len(X), k), dtype=np.int64) for k in ks}
        for lo in range(0, len(X), batch_size):
            EQ = self.transform(X[lo : lo + batch_size])
            b = EQ.shape[1]
            off = lo if exclude_self else None
            if self.deployment == "combined":
                D = sum(a * self._unit_distances(q, r) for a, q, r in zip(self.alpha_, EQ, ED))
                if off is not None:
                    D[np.arange(b), off + np.arange(b)] = np.inf
                nn = np.argsort(D, axis=1, kind="stable")
                for k in ks:
                    out[k][lo : lo + b] = nn[:, :k]
                continue
            idx_all, dist_all = self._layer_neighbours(EQ, ED, ks[-1], off)
            for k in ks:
                idx, S = idx_all[..., :k], self._candidate_scores(dist_all[..., :k])
                cand = idx.transpose(1, 0, 2).reshape(b, -1)  # layer-major order per query
                score = S.transpose(1, 0, 2).reshape(b, -1)
                order = np.argsort(-score, axis=1, kind="stable")
                ranked = np.take_along_axis(cand, order, axis=1)
                for r in range(b):
                    _, first = np.unique(ranked[r], return_index=True)
                    out[k][lo + r] = ranked[r, np.sort(first)[:k]]
        return out

    def _pair_layer_distances(self, pairs):
        X, idx = self._points(pairs, 2, "pairs")
        E = self.transform(X)
        return np.linalg.norm(E[:, idx[:, 0]] - E[:, idx[:, 1]], axis=2)  # (L+1, n)

    def similarity_probability(self, pairs, T: float) -> np.ndarray:
        """P of eq. 26: sum_l alpha(l) [D(l)/2 < T] per pair, shape (n,), in [0, 1]."""
        return self.alpha_ @ (self._pair_layer_distances(pairs) / 2.0 < T)

    def verification_distance(self, pairs) -> np.ndarray:
        """Per pair, in [0, 1], the score whose threshold T is the deployment's similarity rule.

        ``deployment="layers"``: the alpha-weighted lower median q of the D(l)/2 (a pair is
        similar under eq. 26, P >= 0.5, exactly when q < T). ``"combined"``: sum_l alpha(l) D(l)/2.
        ``pairs``: (n, 2, d) points or (n, 2) indices into ``preprocessor``. Returns (n,)."""
        half = self._pair_layer_distances(pairs) / 2.0
        if self.deployment == "combined":
            return self.alpha_ @ half
        return weighted_lower_median(half, self.alpha_)

    def similar(self, pairs, T: float) -> np.ndarray:
        """Similarity comparison (section 3.6.2) with threshold ``T`` in (0, 1): bool (n,).
        ``deployment="layers"``: eq. 26, P >= 0.5; ``"combined"``: sum_l alpha(l) D(l)/2 < T."""
        if self.deployment == "combined":
            return self.verification_distance(pairs) < T
        return self.similarity_probability(pairs, T) >= 0.5 - 1e-12
