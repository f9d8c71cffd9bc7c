"""Timing helpers every measurement shares: one BLAS thread, process CPU time (the median of
repeats), and the machine's one-core matrix-multiply rate as the reference of a dense step."""

from __future__ import annotations

import functools
import time

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits


def single_threaded(fn):
    """Run ``fn`` with every BLAS/OpenMP pool limited to one thread (threadpoolctl), whatever the
    environment says: Snakemake exports OMP_NUM_THREADS = the job's ``threads`` to a job that
    reserves all cores, and the timings here are defined for one thread."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with threadpool_limits(limits=1):
            return fn(*args, **kwargs)

    return wrapper


def blas_threads() -> int:
    """The largest thread count among the loaded BLAS/OpenMP pools (1 inside ``single_threaded``)."""
    return max((p["num_threads"] for p in threadpool_info()), default=1)


def gemm_flops_per_s(n: int = 1024, repeats: int = 5) -> float:
    """Best observed rate of a dense n x n float64 matrix product in process CPU time (so that
    other processes on the machine do not move it), flops per second of CPU."""
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(n, n)), rng.normal(size=(n, n))
    best = np.inf
    for _ in range(repeats):
        t = time.process_time()
        A @ B
        best = min(best, time.process_time() - t)
    return 2.0 * n**3 / best


def _cpu(fn, repeats):
    """(median process CPU seconds of ``repeats`` calls of fn(), the last call's result)."""
    times, out = [], None
    for _ in range(repeats):
        t = time.process_time()
        out = fn()
        times.append(time.process_time() - t)
    return float(np.median(times)), out
