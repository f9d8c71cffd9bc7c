"""The peers the performance table measures our engine against: one-step-at-a-time loops
(``np.outer`` and per-step BLAS) on dense rows, a C-style compiled loop over the non-zeros on
sparse rows (the style of the OASIS authors' C core; benchmark only), and the synthetic inputs."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

_REFERENCE = {}


def plain_oasis(P, D, order, C):
    """OASIS one step at a time on dense vectors (Chechik et al. 2010, eqs. 6-8), an ``np.outer``
    loop: the rank-one update through a d x d temporary per step; W0 = I."""
    W = np.eye(P.shape[1])
    for i in order:
        p, v = P[i], D[i]
        loss = 1.0 - p @ W @ v
        nrm = (p @ p) * (v @ v)
        if loss > 0 and nrm > 0:
            W += min(C, loss / nrm) * np.outer(p, v)
    return W


def plain_sdca(A, Z, order, lam):
    """SDCA one coordinate at a time on dense vectors (last iterate; see tripletbench.algorithms.sdca), an
    ``np.outer`` loop like :func:`plain_oasis`."""
    n = len(A)
    M, alpha = np.zeros((A.shape[1],) * 2), np.zeros(n)
    for i in order:
        a, z = A[i], Z[i]
        margin = a @ M @ z
        delta = max(-alpha[i], (1 - margin - alpha[i] / 2) / (0.5 + (a @ a) * (z @ z) / (lam * n)))
        alpha[i] += delta
        M += delta / (lam * n) * np.outer(a, z)
    return M


def blas_oasis(P, D, order, C):
    """OASIS one step at a time with one BLAS call per product (scipy.linalg.blas): ``dgemv``
    for W v, a dot product for the margin, ``dger`` for the rank-one update of a Fortran-ordered
    W in place; W0 = I. The same iterates as :func:`plain_oasis` up to rounding."""
    from scipy.linalg.blas import dgemv, dger

    W = np.asfortranarray(np.eye(P.shape[1]))
    for i in order:
        p, v = P[i], D[i]
        loss = 1.0 - p @ dgemv(1.0, W, v)
        nrm = (p @ p) * (v @ v)
        if loss > 0 and nrm > 0:
            W = dger(min(C, loss / nrm), p, v, a=W, overwrite_a=1)
    return W


def blas_sdca(A, Z, order, lam):
    """SDCA one coordinate at a time with ``dgemv`` + in-place ``dger`` per step (last iterate;
    the same iterates as :func:`plain_sdca` up to rounding)."""
    from scipy.linalg.blas import dgemv, dger

    n = len(A)
    M, alpha = np.asfortranarray(np.zeros((A.shape[1],) * 2)), np.zeros(n)
    for i in order:
        a, z = A[i], Z[i]
        margin = a @ dgemv(1.0, M, z)
        delta = max(-alpha[i], (1 - margin - alpha[i] / 2) / (0.5 + (a @ a) * (z @ z) / (lam * n)))
        alpha[i] += delta
        if delta != 0.0:
            M = dger(delta / (lam * n), a, z, a=M, overwrite_a=1)
    return M


def reference_sparse_loop(indptr, indices, data, trip, order, per_triplet, scalar, alpha, W, sdca):
    """The reference for sparse input: OASIS or SDCA as a plain loop over the non-zeros in the
    style of the authors' C core. Each step reads the margin m = p^T W p+ - p^T W p- entry by entry
    from the CSR rows of p, p+, p- (``trip`` (n, 3) rows of the points), then adds
    step * (p p+^T - p p-^T) on the same entries of W (d, d), in place:

    * OASIS (``sdca=False``; Chechik et al. 2009): step = min(C, (1 - m) / ||V||_F^2) where
      1 - m > 0; ``per_triplet`` = ||p||^2 ||p+ - p-||^2, ``scalar`` = C; W starts as I;
    * SDCA (``sdca=True``; Wu et al. 2014, Algorithm 1, last iterate): Delta alpha_i =
      max(-alpha_i, (1 - m - alpha_i / 2) / curvature_i), step = Delta alpha_i / (lambda n);
      ``per_triplet`` = curvature, ``scalar`` = lambda n; W and ``alpha`` (n,) start at 0.

    Compiled by numba (:func:`_reference`); benchmark only, not the learner."""
    for s in range(order.shape[0]):
        i = order[s]
        a, b, c = trip[i, 0], trip[i, 1], trip[i, 2]
        m = 0.0
        for u in range(indptr[a], indptr[a + 1]):
            r = indices[u]
            acc = 0.0
            for v in range(indptr[b], indptr[b + 1]):
                acc += W[r, indices[v]] * data[v]
            for v in range(indptr[c], indptr[c + 1]):
                acc -= W[r, indices[v]] * data[v]
            m += data[u] * acc
        step = 0.0
        if sdca:
            delta = max(-alpha[i], (1.0 - m - 0.5 * alpha[i]) / per_triplet[i])
            alpha[i] += delta
            step = delta / scalar
        elif 1.0 - m > 0.0 and per_triplet[i] > 0.0:
            step = min(scalar, (1.0 - m) / per_triplet[i])
        if step != 0.0:
            for u in range(indptr[a], indptr[a + 1]):
                r = indices[u]
                tp = step * data[u]
                for v in range(indptr[b], indptr[b + 1]):
                    W[r, indices[v]] += tp * data[v]
                for v in range(indptr[c], indptr[c + 1]):
                    W[r, indices[v]] -= tp * data[v]
    return W


def _reference(fn):
    """``fn`` compiled by numba once per process (the compiled reference loop)."""
    if fn not in _REFERENCE:
        import numba

        _REFERENCE[fn] = numba.njit(nogil=True)(fn)
    return _REFERENCE[fn]


def synthetic(d: int, n_points: int, n_triplets: int, seed: int, nnz: int | None = None):
    """Random points (dense Gaussian, or CSR with ``nnz`` non-zeros per row) and index triplets
    with three distinct points each."""
    rng = np.random.default_rng(seed)
    if nnz is None:
        X = rng.normal(size=(n_points, d)) / np.sqrt(d)
    else:
        cols = np.stack([rng.choice(d, nnz, replace=False) for _ in range(n_points)])
        rows = np.repeat(np.arange(n_points), nnz)
        X = sp.csr_matrix(
            (np.abs(rng.normal(size=n_points * nnz)), (rows, cols.ravel())), shape=(n_points, d)
        )
        X = sp.csr_matrix(X.multiply(1.0 / np.sqrt(X.multiply(X).sum(1))))
    t = np.stack([rng.choice(n_points, 3, replace=False) for _ in range(n_triplets)])
    return X, t


def _factors(X, t):
    A, Z = X[t[:, 0]], X[t[:, 1]] - X[t[:, 2]]
    if sp.issparse(X):
        return A.toarray(), Z.toarray()
    return A, Z
