"""Speed of OAHU's online step: the torch backend (autograd), the NumPy backend (hand-written
forward and backward pass, algorithms/oahu.py) and the bare NumPy forward/backward floor.

Every time is process CPU time (``time.process_time``), one thread (BLAS pools limited by
threadpoolctl, ``torch.set_num_threads(1)``), the median of ``repeats`` runs, all in one process,
so the ratios hold on a loaded machine (absolute times do not). Per network size (default: the
paper's, section 4.3.2 and ``config/default.yaml``'s oahu block: L = 5 hidden layers of 100 units,
50-d embeddings; d = 784, Fashion-MNIST's pixels) it times ``n_steps`` online steps of

* ``torch``: ``OAHU(backend="torch").partial_fit`` (the whole learner step: embedding, losses,
  autograd, update, hedge update of eq. 20, trace);
* ``numpy``: ``OAHU(backend="numpy").partial_fit``, the same learner step;
* ``floor``: a bare loop of :meth:`tripletbench.algorithms.oahu.NumpyNet.forward_backward` and ``apply`` on
  the same triplets with fixed alpha (no hedge update, no trace, no learner): what the
  hand-written NumPy forward and backward pass costs by itself;
* ``arithmetic``: the step's flops (forward, backward, update; counted below) at the machine's
  one-core matrix-multiply rate (:func:`tripletbench.studies.performance.measure.gemm_flops_per_s`), a lower bound no
  per-step code reaches (3-row products run far below the GEMM rate).

It also reports the largest relative difference of the two backends' parameters after the
stream (float32: chaotic growth of rounding differences, see OAHU's module docstring) and the
CPU seconds of ``import torch`` in a fresh interpreter (which the NumPy backend does not pay).

The ``performance`` target runs :func:`run` (its OAHU section: ``performance.oahu_sizes`` and
``performance.oahu_steps`` of the config, ``results/tables/performance_oahu.csv``, captioned by
:func:`caption`). By hand: ``python -m tripletbench.studies.oahu.speed [--d 784] [--steps 300]
[--repeats 3] [--out PREFIX]`` (writes PREFIX.csv and PREFIX.md when ``--out`` is given; it also
times ``import torch``). Not a test: the numbers depend on the machine; equality of the backends
is tested in ``tests/test_oahu_backends.py``.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from tripletbench.optional import require


def step_flops(d: int, L: int, h: int, m: int) -> int:
    """Flops of one step: forward (3 rows through W(1..L) and Theta(0..L)), backward (the
    gradients of every Theta(l) and W(l) and dJ/dh(l) for l >= 1), update (2 per parameter)."""
    n_w = h * d + max(L - 1, 0) * h * h if L else 0
    n_t = m * d + L * m * h
    forward = 2 * 3 * (n_w + n_t)
    backward = 2 * 3 * (n_t + n_w) + 2 * 3 * (L * m * h + max(L - 1, 0) * h * h)
    return forward + backward + 2 * (n_w + n_t)


def import_torch_cpu_s(repeats: int = 3) -> float:
    """Median CPU seconds (user + system, child processes) of ``import torch`` in a fresh
    interpreter minus those of an empty one."""

    def child(code):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", code], check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

    with_torch = np.median([child("import torch") for _ in range(repeats)])
    empty = np.median([child("pass") for _ in range(repeats)])
    return float(with_torch - empty)


def _data(d, n_points, n_triplets, seed):
    from tripletbench.datasets.constraints import sample_class_triplets

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 10, size=n_points)
    X = rng.uniform(0, 1, size=(n_points, d)) * (rng.uniform(size=(1, d)) < 0.8)  # pixel-like
    X += 0.3 * np.eye(10, d)[y]
    return X, sample_class_triplets(y, n_triplets, rng)


def measure(d=784, L=5, h=100, m=50, n_steps=300, repeats=3, dtype="float32", seed=0) -> dict:
    """One network size: median CPU seconds per step of ``torch``, ``numpy``, ``floor`` (module
    docstring) over ``n_steps`` steps, the arithmetic bound, and the backends' final difference."""
    torch = require("torch", "timing OAHU's torch backend")

    from tripletbench.algorithms.oahu import OAHU
    from tripletbench.algorithms.oahu import NumpyNet
    from tripletbench.harness.timing import _cpu, gemm_flops_per_s

    torch.set_num_threads(1)
    X, T = _data(d, 2000, n_steps, seed)
    kw = {
        "n_hidden_layers": L,
        "n_hidden": h,
        "embedding_dim": m,
        "random_state": seed,
        "dtype": dtype,
        "preprocessor": X,
    }
    out = {"d": d, "L": L, "n_hidden": h, "embedding_dim": m, "dtype": dtype, "n_steps": n_steps}
    with threadpool_limits(limits=1):
        models = {}
        for backend in ("torch", "numpy"):
            OAHU(backend=backend, **kw).fit(T[:5])  # warm-up (first-call costs)

            def timed(backend=backend):
                model = OAHU(backend=backend, n_epochs=0, **kw).fit(T[:1])
                model.set_params(n_epochs=1)
                t = time.process_time()
                model.partial_fit(T)
                models[backend] = model
                return time.process_time() - t

            times = [timed() for _ in range(repeats)]
            out[f"{backend}_step_us"] = 1e6 * float(np.median(times)) / n_steps
        init = OAHU(backend="numpy", n_epochs=0, **kw).fit(T[:1])
        Xd = X.astype(dtype)
        alpha = np.full(L + 1, 1.0 / (L + 1), dtype=dtype)

        def floor():
            net = NumpyNet(init.params_["hidden"], init.params_["theta"], dtype)
            for a, p, n in T:
                net.forward_backward(Xd[[a, p, n]], alpha, 0.1)
                net.apply(0.3)

        floor_s, _ = _cpu(floor, repeats)
        out["floor_step_us"] = 1e6 * floor_s / n_steps
        flops = step_flops(d, L, h, m)
        gemm = gemm_flops_per_s()
    out["step_flops"] = flops
    out["gemm_gflops"] = gemm / 1e9
    out["arithmetic_step_us"] = 1e6 * flops / gemm
    out["torch_over_numpy"] = out["torch_step_us"] / out["numpy_step_us"]
    out["numpy_over_floor"] = out["numpy_step_us"] / out["floor_step_us"]
    a = np.concatenate([np.ravel(p) for p in models["numpy"]._parameters()])
    b = np.concatenate([p.detach().numpy().ravel() for p in models["torch"]._parameters()])
    out["max_rel_param_diff"] = float(np.abs(a - b).max() / np.abs(b).max())
    return out


COLUMNS = {
    "d": "input dimension (synthetic pixel-like points)",
    "L": "hidden layers",
    "n_hidden": "units per hidden layer",
    "embedding_dim": "dimension of each layer's embedding",
    "dtype": "floating-point type of the network",
    "n_steps": "online steps per timed run",
    "torch_step_us": "CPU microseconds per step of OAHU(backend='torch').partial_fit (autograd; "
    "the reference)",
    "numpy_step_us": "the same learner step on the NumPy backend (the default)",
    "floor_step_us": "the bare NumPy forward/backward pass and update alone (no learner, hedge "
    "update or trace)",
    "arithmetic_step_us": "the step's flops at the one-core GEMM rate (step_flops and gemm_gflops "
    "in the CSV): a bound, computed, not timed",
    "torch_over_numpy": "torch_step_us / numpy_step_us (> 1: the NumPy backend is faster)",
    "numpy_over_floor": "numpy_step_us / floor_step_us (the learner's overhead over the bare pass)",
    "max_rel_param_diff": "largest difference of the two backends' parameters after the run, "
    "relative to the largest parameter (float32 rounding grows chaotically)",
}
"""What each column of :func:`run`'s table is (the caption's words)."""


def run(sizes, n_steps: int = 300, repeats: int = 3, seed: int = 0) -> pd.DataFrame:
    """:func:`measure` for each ``(d, L, n_hidden, embedding_dim)`` of ``sizes``, float32:
    one row per size with the columns of :data:`COLUMNS` plus ``step_flops`` and
    ``gemm_gflops``. Times are CPU microseconds per step (process CPU time, one thread, median
    of ``repeats`` runs of ``n_steps`` steps, all in this process). Imports torch (raises
    ``ImportError`` without it)."""
    rows = [measure(d, L, h, m, n_steps, repeats, seed=seed) for d, L, h, m in sizes]
    return pd.DataFrame(rows)


def caption(df: pd.DataFrame, repeats: int) -> list[str]:
    """Markdown lines that introduce :func:`run`'s table ``df``: what was timed, how, and what
    each column is; every time is our measurement on this machine (the arithmetic column is a
    computed bound)."""
    return [
        "OAHU's online step (our measurement; no paper reports it): process CPU time per "
        f"step, one thread, median of {repeats} run{'s' * (repeats != 1)} of "
        f"{int(df.n_steps.iloc[0]):,} steps, "
        "the three timed in one process on the same synthetic triplets (ratios hold on a "
        "loaded machine, absolute times do not). Columns: "
        + "; ".join(f"{k}: {v}" for k, v in COLUMNS.items())
        + ".",
    ]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, nargs="+", default=[784])
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--small", action="store_true", help="also L = 2, 32 units, 8-d embeddings")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    sizes = [(d, 5, 100, 50) for d in args.d] + ([(args.d[0], 2, 32, 8)] if args.small else [])
    df = run(sizes, args.steps, args.repeats)
    imp = import_torch_cpu_s(args.repeats)
    text = "\n".join(
        [
            "# OAHU's online step: torch autograd against the NumPy backend",
            "",
            *caption(df, args.repeats),
            "",
            f"`import torch` in a fresh interpreter: {imp:.2f} CPU s (not paid by the NumPy "
            "backend).",
            "",
            df.to_markdown(index=False, floatfmt=".3g"),
            "",
        ]
    )
    print(text)
    if args.out:
        df.assign(import_torch_cpu_s=imp).to_csv(f"{args.out}.csv", index=False)
        with open(f"{args.out}.md", "w") as f:
            f.write(text)
    return df


if __name__ == "__main__":
    main()
