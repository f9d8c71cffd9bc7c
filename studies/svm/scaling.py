"""How eq. 8's solvers scale with the number of triplets (rule svm_scaling,
``workflow/scripts/svm/svm_scaling.py``): one timed solve in a fresh process, and a solver's time
at a larger size extrapolated from the sizes it solved."""

from __future__ import annotations

import time

import numpy as np

from tripletbench.algorithms.svm_relative import SVMRelative
from tripletbench.datasets.constraints import sample_class_triplets
from tripletbench.optional import require

from .notions import stream


def measure_solve(X, groups, n_triplets: int, seed: int, C: float, solver: str) -> dict:
    """One solve of eq. 8 on ``n_triplets`` class triplets of ``groups`` over the rows of X, by
    ``solver`` ("CLARABEL", "SCS" or "dcd"); run this in a fresh process
    (:func:`measure_in_subprocess`) so that its peak RSS is its own. Imports and "dcd"'s one-off
    numba compilation happen before the timing; the fit runs with every BLAS/OpenMP pool at one
    thread (threadpoolctl). For "dcd" the row also has the certificate (rel_gap,
    kkt_margin_residual, epochs)."""
    import resource
    import tracemalloc

    from threadpoolctl import threadpool_limits

    if solver == "dcd":  # compile (or load numba's cache) on a one-triplet problem first
        SVMRelative(solver="dcd").fit(np.array([[[0.0], [1.0], [2.0]]]))
    else:
        require("cvxpy", f"SVM-relative's solver {solver!r}")  # imported before timing (seconds)

    t = sample_class_triplets(groups, n_triplets, stream(seed, "train_triplets"))
    tracemalloc.start()
    m = SVMRelative(C=C, solver=solver, preprocessor=X)
    t0 = time.perf_counter()
    with threadpool_limits(limits=1):  # one core, whatever OMP_NUM_THREADS the job was given
        m.fit(t)
    wall = time.perf_counter() - t0
    _, py_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    cert = getattr(m, "certificate_", {})
    return {
        "n_triplets": n_triplets,
        "solver": solver,
        "n_features": X.shape[1],
        "n_active_features": m.n_active_features_,
        "fit_wall_s": wall,
        "setup_s": m.setup_seconds_,
        "solve_s": m.solve_seconds_,
        "status": m.solver_status_,
        "objective": m.objective_,
        "rel_gap": cert.get("rel_gap", np.nan),
        "kkt_margin_residual": cert.get("kkt_margin_residual", np.nan),
        "epochs": cert.get("epochs", np.nan),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "python_peak_mb": py_peak / 2**20,
    }


def predicted_seconds(done: list[dict], n: int) -> float:
    """A solver's fit time at ``n`` triplets extrapolated from its last two solved sizes
    (rows of ``done``, in increasing size) by the power law through them, the exponent clipped
    to [1, 3]; 0 when fewer than two sizes were solved (nothing to go on: the size is run)."""
    ok = [r for r in done if r.get("status") == "optimal"]
    if len(ok) < 2:
        return 0.0
    (n1, t1), (n2, t2) = ((r["n_triplets"], r["fit_wall_s"]) for r in ok[-2:])
    p = float(np.clip(np.log(t2 / t1) / np.log(n2 / n1), 1.0, 3.0))
    return t2 * (n / n2) ** p


def measure_in_subprocess(X, groups, n_triplets, seed, C, solver, timeout_s):
    """:func:`measure_solve` in a fresh process (peak RSS of that process only, including the
    solver's native memory; tracemalloc sees Python allocations only). Returns its dict, or one
    with status "timeout" after ``timeout_s`` seconds (the process is terminated), or "error: ..."
    if the solve raised."""
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as pool:
        res = pool.apply_async(measure_solve, (X, groups, n_triplets, seed, C, solver))
        base = {"n_triplets": n_triplets, "solver": solver, "n_features": X.shape[1]}
        try:
            return res.get(timeout=timeout_s)
        except mp.TimeoutError:
            pool.terminate()
            return {**base, "status": f"timeout (> {timeout_s} s)"}
        except Exception as err:  # SolverError and the like, raised in the worker
            return {**base, "status": f"error: {type(err).__name__}: {err}"}
