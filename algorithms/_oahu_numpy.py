"""OAHU's ``backend="numpy"`` (Gao et al., WWW 2019, section 3; re-exported by
:mod:`tripletbench.algorithms.oahu`): the network of eq. 1 with its parameters in one buffer and
the exact gradient of one triplet's alpha-weighted loss (eq. 19; eqs. 6, 11-13) by a hand-written
backward pass (:class:`NumpyNet`), its embeddings (eqs. 1, 3: :func:`numpy_embed`), and the
numbers of a seeded CPU ``torch.Generator`` without torch (:func:`torch_cpu_uniform`: the
initialisation both backends share). Nothing here imports torch.
"""

from __future__ import annotations

import numpy as np

from ._oahu_loss import _EPS, abtl_bounds


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
    ``backend="numpy"`` step of :class:`~tripletbench.algorithms.oahu.OAHU`.

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
        """The parameter views in the order of :meth:`~tripletbench.algorithms.oahu.OAHU._parameters`:
        W(1..L), Theta(0..L)."""
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
