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
only; the alternative would differentiate through c1(D+), c2(D-) as well).

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
variants differ by at most 0.5% per step.

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

from tripletbench.optional import require

from ._oahu_deploy import OAHUDeployment, weighted_lower_median  # noqa: F401
from ._oahu_loss import (  # noqa: F401
    _E2, _EPS, _exp, abtl_bounds, abtl_local_loss, abtl_losses, hedge_factors, hedge_threshold,
    hedge_update,
)  # fmt: skip
from ._oahu_numpy import (  # noqa: F401
    NumpyNet, _normalise_rows, numpy_embed, numpy_loss_and_grad, torch_cpu_uniform,
)  # fmt: skip
from .base import BaseLearner, OnlineMixin


class OAHU(OnlineMixin, OAHUDeployment, BaseLearner):
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
        torch = require("torch", "OAHU's backend='torch'")

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
        F = require("torch.nn.functional", "OAHU's backend='torch'")

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
        torch = require("torch", "OAHU's backend='torch'")

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
        through here), scikit-learn's ``ValueError`` for NaN/inf, a non-2-D X or another number
        of features than at fit, and ``DataError`` for a feature scale fit refuses."""
        self._check_fitted()
        X = validate_data(self, X, dtype=np.float64, reset=False)
        self._check_feature_scale(X, "transform input")  # as at fit
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
        :meth:`retrieve` and :meth:`similar`. Raises ``NotFittedError`` before fit and
        ``DataError`` for points fit would refuse (:meth:`_ranked_points`)."""
        self._check_fitted()
        X, Y = self._ranked_points(X, "queries"), self._ranked_points(Y, "database")
        return -self.distance_matrix(X, Y)

    def _pair_score_points(self, A, B):
        EA, EB = self.transform(A), self.transform(B)
        return -(self.alpha_ @ np.linalg.norm(EA - EB, axis=2))

    def pair_distance(self, pairs) -> np.ndarray:
        """Combined distance sum_l alpha(l) D(l) per pair, shape (n,), values in [0, 2]."""
        return -self.pair_score(pairs)
