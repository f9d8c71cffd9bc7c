"""How many digits of OAHU's Table 3 error to trust: the spread of its final kNN error over runs
that differ only in the order of floating-point operations.

OAHU's online steps are chaotic (algorithms/oahu.py, module docstring): a rounding difference in
one step grows along the stream, so two runs that compute the same mathematical steps in another
order end with different parameters and a different error. On one (dataset, seed) cell of the OAHU
paper's Table 3 protocol (:func:`tripletbench.studies.oahu.experiment.dev_test_split`, the seed + closure
stream of ``constraint_stream``, kNN by eqs. 23-25 on the test half with the development half as
reference; tau fixed at the default 0.1, the grid's choice left out so that only the fit varies),
it fits OAHU in these variants, all from the same seeded parameters and stream:

* ``numpy``: the NumPy backend, float32 (the default; the reference);
* ``torch``: the torch backend, float32 (another kernel library's summation orders);
* ``permK``: the NumPy backend with the feature columns permuted by a random permutation and the
  matching input columns of W(1) and Theta(0) permuted alike: the same function and the same
  mathematical steps, only the order of the sums over the d inputs changes;
* ``float64``: the NumPy backend in float64 (rounding of another size as well as another order;
  reported beside, not counted in the order spread).

For each it records the test error rate and the largest parameter difference to ``numpy``
relative to the largest parameter; the spread of an order is max - min of the error over
``numpy``, ``torch`` and the ``permK``. Run: ``python -m tripletbench.studies.oahu.order [--seeds 0 1 2]
[--perms 3] [--out PREFIX]``. Not a test (minutes of CPU; it needs the prepared data).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from tripletbench.optional import require
from tripletbench.studies.oahu.experiment import constraint_stream, dev_test_split, knn_scores


def _flat(model):
    return np.concatenate(
        [
            (p.detach().cpu().numpy() if hasattr(p, "detach") else np.asarray(p))
            .ravel()
            .astype(np.float64)
            for p in model._parameters()
        ]
    )


def _permuted_start(model, perm):
    """``model`` (fitted with n_epochs = 0) with the input columns of W(1) and Theta(0) permuted by
    ``perm``: the network on X[:, perm] computes what ``model`` computes on X."""
    hidden, theta = model.params_["hidden"], model.params_["theta"]
    if hidden:
        hidden[0] = np.ascontiguousarray(hidden[0][:, perm])
    theta[0] = np.ascontiguousarray(theta[0][:, perm])
    return model


def cell_variants(X, y, seed, cfg, n_perms=3, params=None, log=print) -> pd.DataFrame:
    """The variants of the module docstring on one cell: rows (seed, variant, error_rate,
    max_rel_param_diff, fit_cpu_s). ``cfg``: the Table 3 block (n_samples, n_seeds, n_closure, k,
    split); ``params``: OAHU's parameters (default: the paper's, tau = 0.1)."""
    from tripletbench.algorithms.oahu import OAHU
    from tripletbench.harness.experiment import learner_seed

    split = dev_test_split(y, seed, cfg.get("n_samples"), cfg.get("split", "shuffled"))
    dev, test = split["dev"], split["test"]
    T = constraint_stream(y[dev], cfg["n_seeds"], cfg["n_closure"], seed, "constraints_train")
    params = {"tau": 0.1, **(params or {})}
    rs = learner_seed(seed)
    perms = np.random.default_rng([seed, 7]).permuted(
        np.tile(np.arange(X.shape[1]), (n_perms, 1)), axis=1
    )
    variants = [("numpy", {}, None), ("torch", {"backend": "torch"}, None)]
    variants += [(f"perm{j + 1}", {}, perms[j]) for j in range(n_perms)]
    variants += [("float64", {"dtype": "float64"}, None)]
    rows, ref = [], None
    for name, extra, perm in variants:
        Xd = X[dev] if perm is None else X[dev][:, perm]
        Xt = X[test] if perm is None else X[test][:, perm]
        c0 = time.process_time()
        m = OAHU(preprocessor=Xd, random_state=rs, n_epochs=0, **params, **extra).fit(T[:1])
        if perm is not None:
            _permuted_start(m, perm)
        m.set_params(n_epochs=1)
        m.partial_fit(T)
        cpu = time.process_time() - c0
        err = knn_scores(m, Xt, y[test], Xd, y[dev], cfg["k"])["error_rate"]
        flat = _flat(m) if perm is None else _flat_unpermuted(m, perm)  # reference's order
        ref = flat if ref is None else ref
        diff = float(np.abs(flat - ref).max() / np.abs(ref).max())
        rows.append(
            {
                "seed": seed,
                "variant": name,
                "error_rate": err,
                "max_rel_param_diff": diff,
                "fit_cpu_s": cpu,
            }
        )
        log(
            f"seed {seed} {name}: error {err:.4f}, parameters differ by {diff:.2e} "
            f"(relative), fit {cpu:.1f} CPU s"
        )
    return pd.DataFrame(rows)


def _flat_unpermuted(model, perm):
    inv = np.argsort(perm)
    parts = []
    hidden, theta = model.params_["hidden"], model.params_["theta"]
    for j, p in enumerate(list(hidden) + list(theta)):
        p = np.asarray(p, dtype=np.float64)
        if (hidden and j == 0) or j == len(hidden):  # W(1), Theta(0): input columns
            p = p[:, inv]
        parts.append(p.ravel())
    return np.concatenate(parts)


def divergence(X, y, seed, cfg, marks=(1, 10, 100, 300, 1000, 3000, 5000), params=None):
    """The growth of one summation-order difference along the stream: ``numpy`` and ``perm1``
    (module docstring) of one cell, fitted in chunks that end at ``marks`` (partial_fit continues
    a stream exactly, tested), and at each mark the largest parameter difference relative to the
    largest parameter. Returns rows (seed, step, max_rel_param_diff)."""
    from tripletbench.algorithms.oahu import OAHU
    from tripletbench.harness.experiment import learner_seed

    split = dev_test_split(y, seed, cfg.get("n_samples"), cfg.get("split", "shuffled"))
    dev = split["dev"]
    T = constraint_stream(y[dev], cfg["n_seeds"], cfg["n_closure"], seed, "constraints_train")
    perm = np.random.default_rng([seed, 7]).permutation(X.shape[1])
    params = {"tau": 0.1, **(params or {})}
    a = OAHU(preprocessor=X[dev], random_state=learner_seed(seed), n_epochs=0, **params).fit(T[:1])
    b = OAHU(preprocessor=X[dev][:, perm], random_state=learner_seed(seed), n_epochs=0, **params)
    b = _permuted_start(b.fit(T[:1]), perm)
    a.set_params(n_epochs=1)
    b.set_params(n_epochs=1)
    rows, lo = [], 0
    for hi in sorted(m for m in marks if m <= len(T)):
        a.partial_fit(T[lo:hi])
        b.partial_fit(T[lo:hi])
        ref = _flat(a)
        diff = float(np.abs(_flat_unpermuted(b, perm) - ref).max() / np.abs(ref).max())
        rows.append({"seed": seed, "step": hi, "max_rel_param_diff": diff})
        lo = hi
    return pd.DataFrame(rows)


def summary(df: pd.DataFrame) -> dict:
    """Per seed the error range over the order variants (numpy, torch, permK); over seeds the
    largest and mean range, the standard deviation of the reference error over seeds, and the
    float64 run's largest distance to the reference error."""
    order = df[df.variant != "float64"]
    rng_ = order.groupby("seed").error_rate.agg(lambda e: e.max() - e.min())
    sd = order.groupby("seed").error_rate.std(ddof=1)
    ref = df[df.variant == "numpy"].set_index("seed").error_rate
    f64 = df[df.variant == "float64"].set_index("seed").error_rate
    return {
        "n_seeds": int(df.seed.nunique()),
        "n_order_variants": int(order.groupby("seed").size().iloc[0]),
        "max_range": float(rng_.max()),
        "mean_range": float(rng_.mean()),
        "mean_sd_over_orders": float(sd.mean()),
        "sd_over_seeds": float(ref.std(ddof=1)) if len(ref) > 1 else float("nan"),
        "max_float64_diff": float((f64 - ref).abs().max()) if len(f64) else float("nan"),
        "min_param_diff": float(df[df.variant != "numpy"].max_rel_param_diff.min()),
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="fashion_mnist")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--perms", type=int, default=3)
    ap.add_argument("--config", default="config/default.yaml")
    ap.add_argument("--cache", default="data_cache")
    ap.add_argument("--out", default=None)
    ap.add_argument(
        "--divergence",
        action="store_true",
        help="only the growth of one order difference along the stream (seeds)",
    )
    args = ap.parse_args(argv)
    import yaml

    torch = require("torch", "the OAHU order study's torch reference")
    from threadpoolctl import threadpool_limits

    from tripletbench.datasets import get_dataset
    from tripletbench.datasets.base import load

    torch.set_num_threads(1)
    cfg = yaml.safe_load(Path(args.config).read_text())["oahu"]["table3"]
    data = load(get_dataset(args.dataset), "embedded", Path(args.cache))
    X, y = data["X"], data["y"]
    with threadpool_limits(limits=1):
        if args.divergence:
            div = pd.concat([divergence(X, y, s, cfg) for s in args.seeds])
            print(div.pivot(index="step", columns="seed", values="max_rel_param_diff"))
            if args.out:
                div.to_csv(f"{args.out}_divergence.csv", index=False)
            return div, None
        df = pd.concat([cell_variants(X, y, s, cfg, args.perms) for s in args.seeds])
    s = summary(df)
    print(df.to_string(index=False))
    print(s)
    if args.out:
        df.to_csv(f"{args.out}.csv", index=False)
        pd.DataFrame([s]).to_csv(f"{args.out}_summary.csv", index=False)
    return df, s


if __name__ == "__main__":
    main()
