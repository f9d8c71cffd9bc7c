"""Compiled inner loops of the bilinear online engine (:func:`tripletbench.algorithms.base.bilinear_stream`).

The engine's sequential work, step by step, is written here as plain Python functions and compiled
by numba (``numba.njit``) on first use in a process; the plain functions run the same arithmetic
uncompiled (``compiled=False``; the tests compare both). A learner brings only its update
**rule**, a plain Python function of the same restricted kind (numbers and NumPy arrays):

    c = rule(i, t, m, par, state)

for constraint i at step t (1-based) with margin m = sum_j w_j a_ij^T W_{t-1} z_ij (before the
update); it returns the step size c of W_t = W_{t-1} + c sum_j w_j a_ij z_ij^T (0: no update) and
may update its own per-constraint ``state`` (float64 (n, k)) in place; ``par`` (float64 (p,)) holds
its scalars. Every learner on this engine scores a triplet by the hinge of its margin against 1, so
the kernels themselves accumulate, per step, ``totals`` += (max(0, 1 - m), max(0, 1 - m)^2,
[m <= 0], [c != 0]): the traces' losses, mistakes and constraint utilization.

Kernels:

* :func:`dense_block_steps`: the sequential part of one exact block of K steps of the dense
  engine (margins corrected by the block's Gram products, O(K) per step); the (K x d)(d x d)
  products around it are BLAS calls in ``bilinear_stream``;
* :func:`sparse_steps`: whole steps on sparse points, reading and writing only the entries of W
  in nnz(a_ij) x nnz(z_ij) for each term: O(sum_j nnz(a_ij) nnz(z_ij)) per step, independent of
  d; the z-rows of the terms that share an a-row are merged first, so that each touched row of W
  is swept once, in column order. Its steps are the helpers :func:`_sparse_margin` (with
  :func:`_merge_z_rows`) and :func:`_sparse_update`, plain functions too, compiled with it
  (:func:`jit`).

Compilation: each (kernel, rule) pair is compiled once per process (about a second). Numba's
on-disk cache is not used: it keys a kernel's entry by its argument types, and the type of a
compiled rule passed as an argument holds the rule's address in this process, so a new process
never finds the entry (measured with numba 0.68.1, ``njit(cache=True)`` on a kernel taking a
compiled function: a cache miss and one more cache file in every process); and its invalidation
watches the kernel's own source file, not the rule's.
"""

from __future__ import annotations

import numpy as np


def dense_block_steps(base, H, idx, t_first, rule, par, state, coef, totals):
    """Steps t_first .. t_first + K - 1 of one exact block (see ``bilinear_stream``).

    ``base`` (K,) float64: each step's margin under the block's starting W, corrected in place by
    the earlier steps of the block through ``H`` (K, K) float64 (symmetric:
    m_k = base_k + sum_{s<k} c_s H[k, s]); ``idx`` (K,) int64 the constraints; ``coef`` (K,)
    float64 receives the step sizes c_k (zeros where no update); ``totals`` (4,) float64 is
    increased by the block's hinge, squared hinge, mistakes and updates."""
    K = idx.shape[0]
    hinge_sum = squared_sum = mistakes = updates = 0.0
    for k in range(K):
        m = base[k]
        hinge = 1.0 - m
        if hinge < 0.0:
            hinge = 0.0
        hinge_sum += hinge
        squared_sum += hinge * hinge
        if m <= 0.0:
            mistakes += 1.0
        c = rule(idx[k], t_first + k, m, par, state)
        if c != 0.0:
            updates += 1.0
            coef[k] = c
            for s in range(k + 1, K):
                base[s] += c * H[k, s]
    totals[0] += hinge_sum
    totals[1] += squared_sum
    totals[2] += mistakes
    totals[3] += updates


def sparse_steps(
    W,
    ptr,
    ind,
    val,
    a_rows,
    z_rows,
    weights,
    order,
    lo,
    hi,
    rule,
    par,
    state,
    totals,
    zc,
    zv,
    ze,
    zr,
):
    """Steps lo+1 .. hi (positions lo .. hi-1 of ``order``) on sparse points, W updated in place.

    The points are the rows of one CSR matrix (``ptr``, ``ind``, ``val``; column indices sorted
    within each row, for locality: with unsorted rows the merge below is still exact, it may
    just keep two entries for one column); term j of constraint i is the pair of rows (a_rows[i, j], z_rows[i, j]) with
    weight ``weights[j]`` (``a_rows``, ``z_rows``: (n, J) int64). Reading the points themselves,
    not per-constraint copies, keeps the data a step touches as small as the points (as a C loop
    over the rows of p, p+, p-).

    Consecutive terms with the same a-row (OASIS: p p+^T - p p-^T) form a group: their z-rows
    are first merged into one sorted sparse vector z = sum_j w_j z_j (for OASIS the difference
    p+ - p-, with a single entry where p+ and p- share a column), kept in row ``zr[g]`` of the
    scratch ``zc`` / ``zv`` ((2J, L) int64 / float64; L >= the summed non-zeros of a group's
    z-rows; rows 2g and 2g + 1 are group g's, the merge alternating between them) with its length
    in ``ze[g]`` (``ze``, ``zr``: (J,) int64). Each touched row of W is then read once and
    written once, in increasing column order, instead of once per term: the same products,
    fewer and more local memory accesses. This, not a better compiler, is what makes the loop
    faster than the plain per-term loop over p, p+, p- of the ``performance`` target
    (:func:`tripletbench.harness.performance.reference_sparse_loop`).

    W (d, d) float64 C-ordered. Per step: m = sum_g sum_p a_p sum_q W[p, q] z_gq over the stored
    entries, then c = rule(...), then W[p, q] += c a_p z_gq on the same entries (cost
    O(sum_g nnz(a_g) nnz(z_g)), independent of d). ``totals`` as in :func:`dense_block_steps`."""
    J = weights.shape[0]
    hinge_sum = squared_sum = mistakes = updates = 0.0
    for pos in range(lo, hi):
        i = order[pos]
        m = _sparse_margin(W, ptr, ind, val, a_rows, z_rows, weights, J, i, zc, zv, ze, zr)
        hinge = 1.0 - m
        if hinge < 0.0:
            hinge = 0.0
        hinge_sum += hinge
        squared_sum += hinge * hinge
        if m <= 0.0:
            mistakes += 1.0
        c = rule(i, pos + 1, m, par, state)
        if c != 0.0:
            updates += 1.0
            _sparse_update(W, ptr, ind, val, a_rows, J, i, c, zc, zv, ze, zr)
    totals[0] += hinge_sum
    totals[1] += squared_sum
    totals[2] += mistakes
    totals[3] += updates


def _sparse_margin(W, ptr, ind, val, a_rows, z_rows, weights, J, i, zc, zv, ze, zr):
    """The margin m = sum_g sum_p a_p sum_q W[p, q] z_gq of constraint i (a step of
    :func:`sparse_steps`, same arguments; J terms), each group's merged z-row
    (:func:`_merge_z_rows`) left in the scratch for :func:`_sparse_update`: row ``zr[g]`` of
    ``zc`` / ``zv``, length ``ze[g]``."""
    m = 0.0
    j0 = 0
    g = 0
    while j0 < J:
        ra = a_rows[i, j0]
        j1 = j0 + 1
        while j1 < J and a_rows[i, j1] == ra:
            j1 += 1
        src, e = _merge_z_rows(ptr, ind, val, z_rows, weights, i, j0, j1, 2 * g, zc, zv)
        zr[g] = src
        ze[g] = e
        for p in range(ptr[ra], ptr[ra + 1]):
            row = ind[p]
            acc = 0.0
            for q in range(e):
                acc += W[row, zc[src, q]] * zv[src, q]
            m += val[p] * acc
        j0 = j1
        g += 1
    return m


def _merge_z_rows(ptr, ind, val, z_rows, weights, i, j0, j1, src, zc, zv):
    """The z-rows of terms j0 .. j1-1 of constraint i (one group of :func:`sparse_steps`),
    weighted, merged into one sorted vector: the first copied into scratch row ``src`` (= 2g),
    each next one merged with it into the other row of the pair (2g, 2g + 1). Returns (the row
    holding the merged vector, its length)."""
    dst = src + 1
    e = 0
    for j in range(j0, j1):
        rz = z_rows[i, j]
        w = weights[j]
        v = ptr[rz]
        v_end = ptr[rz + 1]
        if j == j0:
            for q in range(v_end - v):
                zc[src, q] = ind[v + q]
                zv[src, q] = w * val[v + q]
            e = v_end - v
            continue
        u = 0
        f = 0
        while u < e or v < v_end:
            if v >= v_end or (u < e and zc[src, u] < ind[v]):
                zc[dst, f] = zc[src, u]
                zv[dst, f] = zv[src, u]
                u += 1
            elif u >= e or ind[v] < zc[src, u]:
                zc[dst, f] = ind[v]
                zv[dst, f] = w * val[v]
                v += 1
            else:
                zc[dst, f] = zc[src, u]
                zv[dst, f] = zv[src, u] + w * val[v]
                u += 1
                v += 1
            f += 1
        src, dst = dst, src
        e = f
    return src, e


def _sparse_update(W, ptr, ind, val, a_rows, J, i, c, zc, zv, ze, zr):
    """W[p, q] += c a_p z_gq on the entries of constraint i's groups (a step of
    :func:`sparse_steps`), the merged z-rows read from the scratch :func:`_sparse_margin` left."""
    j0 = 0
    g = 0
    while j0 < J:
        ra = a_rows[i, j0]
        j1 = j0 + 1
        while j1 < J and a_rows[i, j1] == ra:
            j1 += 1
        e = ze[g]
        r = zr[g]
        for p in range(ptr[ra], ptr[ra + 1]):
            row = ind[p]
            cv = c * val[p]
            for q in range(e):
                W[row, zc[r, q]] += cv * zv[r, q]
        j0 = j1
        g += 1


_COMPILED: dict = {}


def jit(fn):
    """``fn`` compiled by numba (``njit(nogil=True)``), once per process (numba is a pinned
    requirement: ``ImportError`` without it; there is no silent fallback to plain Python). The
    helpers of this module that ``fn`` calls (``_HELPERS``) are compiled with it."""
    hit = _COMPILED.get(fn)
    if hit is None:
        import numba

        hit = _COMPILED[fn] = numba.njit(nogil=True)(_with_compiled_helpers(fn))
    return hit


_HELPERS = ("_sparse_margin", "_merge_z_rows", "_sparse_update")
"""The steps of :func:`sparse_steps`: plain functions that the plain kernel calls as they are and
the compiled kernel calls compiled (:func:`_with_compiled_helpers`)."""


def _with_compiled_helpers(fn):
    """``fn`` itself, or, when it is a function of this module that calls ``_HELPERS``, the same
    code with globals that name their compiled versions (:func:`jit`)."""
    names = [n for n in fn.__code__.co_names if n in _HELPERS]
    if not names or fn.__globals__ is not globals():
        return fn
    import types

    glb = dict(fn.__globals__, **{n: jit(globals()[n]) for n in names})
    return types.FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__, fn.__closure__)


def as_float_array(values, shape=None) -> np.ndarray:
    """A C-contiguous float64 array (for ``par`` and ``state``; 1-D values become one column)."""
    a = np.ascontiguousarray(values, dtype=np.float64)
    return a.reshape(shape) if shape is not None else a
