"""The dense engine's block size swept: per-step time of each K beside the engine's BLAS parts
(gather, the products with W, the K x K Gram products), and the useful share a step would reach
if it cost only those (the ``performance.block_sizes`` table)."""

from __future__ import annotations

import numpy as np
import time

import pandas as pd

from tripletbench.algorithms.oasis import OASIS
from tripletbench.harness.timing import gemm_flops_per_s, single_threaded

from .reference import _factors, synthetic


@single_threaded
def block_sizes(
    dense_dims=(16, 128, 297, 784),
    sizes=(16, 32, 64, 128),
    n_triplets=10_000,
    n_points=2_000,
    C=0.1,
    repeats=3,
    log=print,
) -> pd.DataFrame:
    """The dense engine's block-size sweep: the measurement behind
    :func:`tripletbench.algorithms.base.auto_block_size` (``performance_block_sizes.csv``).

    For every d in ``dense_dims`` (ints >= 1) and every block size K in ``sizes`` plus the one
    ``auto_block_size(d)`` picks: the process CPU seconds per online step of OASIS's stream
    (``stream_cpu_seconds_``, one pass over ``n_triplets`` triplets of :func:`synthetic` points,
    one BLAS thread). The repeats are interleaved (each repeat times every (d, K) once, so a
    change of machine load falls on every K alike) and the median is reported, after one untimed
    fit per d that compiles the kernels. OASIS only: SDCA runs the same engine with the same
    per-block work (in the measurement that set the rule, 2026-11-27, SDCA ranked the block sizes
    as OASIS did at every d, its times within 7% of OASIS's). The iterates do not depend on K
    (up to rounding: tests/test_engine.py).

    Beside each stream, in the same repeat, the engine's BLAS work of a block of K steps is timed
    on its own (:func:`_block_parts`, per step): gathering the block's rows, the two products
    with W that carry the 4 d^2 useful flops (margins (K x d)(d x d) and the rank-K update), and
    the two K x K Gram products that make the blocks exact; what the stream takes beyond these is
    the compiled sequential kernel and the Python per block. ``ceiling_useful_fraction`` is the
    useful share a step would reach if it cost nothing but these parts: the most any engine
    doing these products could get at this K.

    Returns one row per (d, K): ``d``, ``block_size``, ``auto`` (K is ``auto_block_size(d)``),
    ``stream_us_per_step`` (microseconds), ``useful_fraction_of_gemm`` (4 d^2 flops per step
    over the one-core GEMM rate), ``speedup_vs_auto`` (auto's time / this K's: > 1 means this K
    is faster than the automatic one), ``best`` (the fastest K of its d), ``gather_us_per_step``,
    ``products_us_per_step``, ``products_gflops`` (their 4 d^2 flops per step over their time),
    ``gram_us_per_step``, ``rest_us_per_step`` (the stream minus the three parts),
    ``ceiling_useful_fraction``, ``gemm_gflops``, ``n_steps``, ``repeats``. Raises
    ``ValueError`` for an empty ``sizes`` or ``dense_dims``."""
    from tripletbench.algorithms.base import auto_block_size

    if not len(dense_dims) or not len(sizes):
        raise ValueError("block_sizes: dense_dims and sizes must each name at least one value")
    rate = gemm_flops_per_s()
    data = {d: synthetic(d, n_points, n_triplets, seed=d) for d in dense_dims}
    plan = [(d, K) for d in dense_dims for K in sorted({*map(int, sizes), auto_block_size(d)})]
    times, parts = _sweep(dense_dims, data, plan, C, n_triplets, repeats, log)
    return _block_table(plan, times, parts, rate, n_triplets, repeats)


def _sweep(dense_dims, data, plan, C, n_triplets, repeats, log) -> tuple[dict, dict]:
    """The timings of :func:`block_sizes`, per (d, K) of ``plan``: ``(times, parts)``, each a list
    over the repeats of the stream's CPU seconds per step and of :func:`_block_parts`'s
    (gather, products, gram), after one untimed fit per d that compiles the kernels."""
    from tripletbench.algorithms.base import auto_block_size

    def make(d, K):
        return OASIS(C=C, n_epochs=1, block_size=K, preprocessor=data[d][0], random_state=0)

    for d in dense_dims:
        make(d, auto_block_size(d)).fit(data[d][1][:10])  # compile
    factors = {d: _factors(*data[d]) for d in dense_dims}
    times = {key: [] for key in plan}
    parts = {key: [] for key in plan}
    for r in range(repeats):
        for d, K in plan:
            times[(d, K)].append(make(d, K).fit(data[d][1]).stream_cpu_seconds_ / n_triplets)
            parts[(d, K)].append(_block_parts(*factors[d], K, seed=r, n_steps=n_triplets))
        log(f"block sizes: repeat {r + 1} of {repeats} done")
    return times, parts


def _block_table(plan, times, parts, rate, n_triplets, repeats) -> pd.DataFrame:
    """:func:`block_sizes`'s table of the medians of ``times`` and ``parts`` (:func:`_sweep`),
    one row per (d, K) of ``plan``, and the columns derived from them."""
    from tripletbench.algorithms.base import auto_block_size

    rows = []
    for d, K in plan:
        gather, products, gram = np.median(parts[(d, K)], axis=0)
        rows.append(
            {
                "d": d,
                "block_size": K,
                "auto": K == auto_block_size(d),
                "stream_us_per_step": 1e6 * float(np.median(times[(d, K)])),
                "gather_us_per_step": 1e6 * gather,
                "products_us_per_step": 1e6 * products,
                "gram_us_per_step": 1e6 * gram,
            }
        )
    df = pd.DataFrame(rows)
    step = df.stream_us_per_step * 1e-6
    useful = 4.0 * df.d**2
    df["useful_fraction_of_gemm"] = useful / rate / step
    auto_us = df[df.auto].set_index("d").stream_us_per_step
    df["speedup_vs_auto"] = df.d.map(auto_us) / df.stream_us_per_step
    df["best"] = df.stream_us_per_step == df.groupby("d").stream_us_per_step.transform("min")
    df["products_gflops"] = useful / df.products_us_per_step / 1e3
    timed = df.gather_us_per_step + df.products_us_per_step + df.gram_us_per_step
    df["rest_us_per_step"] = df.stream_us_per_step - timed
    df["ceiling_useful_fraction"] = useful / rate / (timed * 1e-6)
    df["gemm_gflops"] = rate / 1e9
    df["n_steps"] = n_triplets
    df["repeats"] = repeats
    return df


def _block_parts(A, Z, K: int, seed: int, n_steps: int) -> tuple:
    """Process CPU seconds per step of the dense engine's BLAS work on blocks of K steps
    (:func:`tripletbench.algorithms.base.bilinear_stream`): (gather, products, gram), each the
    total over ceil(n_steps / K) blocks of K random rows of the (n, d) factors A, Z divided by
    their steps, each part by the engine's own function. gather: the block's rows of A and Z
    (``_block_rows``); products: the margins' (K x d)(d x d) product and the in-place rank-K
    update of W (``_rank_k_update``); gram: the K x K matrix of A_b A_b^T and Z_b Z_b^T
    (``_block_gram``). The products run on the last 8 blocks gathered, in turn (in cache, as in
    the engine, which multiplies a block right after gathering it). One BLAS thread is the
    caller's (:func:`single_threaded`)."""
    from tripletbench.algorithms.base import _block_gram, _block_rows, _rank_k_update

    rng = np.random.default_rng(seed)
    n_blocks = -(-n_steps // K)
    blocks = [rng.integers(0, len(A), K) for _ in range(n_blocks)]
    rows = []
    t = time.process_time()
    for idx in blocks:
        rows = [*rows[-7:], (_block_rows(A, idx), _block_rows(Z, idx))]
    gather = time.process_time() - t
    W = np.eye(A.shape[1])
    coef = np.full(K, 1e-6)
    t = time.process_time()
    for b in range(n_blocks):
        Ab, Zb = rows[b % len(rows)]
        Ab @ W
        _rank_k_update(W, Ab, Zb, coef, 1.0)
    products = time.process_time() - t
    t = time.process_time()
    for b in range(n_blocks):
        Ab, Zb = rows[b % len(rows)]
        _block_gram(Ab, Zb, 1.0)
    gram = time.process_time() - t
    steps = n_blocks * K
    return gather / steps, products / steps, gram / steps
