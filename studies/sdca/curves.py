"""Training curves for the convergence figures (SDCA paper, Figures 1 and 2; OASIS paper,
Figure 3): one run per seed, tidy rows (figure, seed, method, step, metric, value).

Protocol (both figures): the dataset is split per class as in Table 2 (70% train); with
``normalize="l2"`` every feature vector is scaled to unit Euclidean length first (the scale of the
papers' bag-of-words vectors: OASIS's hinge and SDCA's squared hinge are then O(1) from the first
step, as in the papers' figures); ``n_triplets`` class-based random triplets are drawn from the
training part with the seed's constraint stream; each learner makes ``n_triplets`` online steps,
each drawing one of them uniformly at random with replacement (Algorithm 1 and OASIS sample so;
this is not a pass over every triplet). Figure 1's traces record both the hinge (OASIS's loss) and
the squared hinge (eq. 3, SDCA's loss) of each step's triplet before its update. Figure 3's mAP
along training uses ``n_queries`` random test queries ranking ``n_database`` random training
samples, at about three checkpoints per decade of steps.
"""

from __future__ import annotations

import numpy as np

from tripletbench.algorithms.base import checkpoints
from tripletbench.algorithms.oasis import OASIS, project_psd, symmetric_part
from tripletbench.algorithms.sdca import SDCA
from tripletbench.datasets.constraints import sample_class_triplets
from tripletbench.datasets.preprocess import make_split, rng
from tripletbench.evaluation.retrieval import mean_average_precision

from tripletbench.harness.experiment import learner_seed


def l2_normalize(X) -> np.ndarray:
    """Rows of X (n, d) scaled to unit Euclidean length (float64; all-zero rows stay zero)."""
    X = np.asarray(X, dtype=np.float64)
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(norms > 0, norms, 1.0)


def _setup(X, y, seed, n_triplets, normalize="none"):
    if normalize not in ("none", "l2"):
        raise ValueError(f"normalize must be 'none' or 'l2', got {normalize!r}")
    split = make_split(y, seed)
    Xtr, ytr = X[split["train"]], y[split["train"]]
    if normalize == "l2":  # row-wise: the training rows only (no copy of the whole set)
        Xtr = l2_normalize(Xtr)
    t = sample_class_triplets(ytr, n_triplets, rng(seed, "constraints_train"))
    return split, Xtr, ytr, t


def _trace_rows(figure, seed, method, trace):
    rows = []
    for i, step in enumerate(trace["step"]):
        for k, v in trace.items():
            if k != "step" and not (isinstance(v[i], float) and np.isnan(v[i])):
                rows.append(
                    {
                        "figure": figure,
                        "seed": seed,
                        "method": method,
                        "step": step,
                        "metric": k,
                        "value": float(v[i]),
                    }
                )
    return rows


def sdca_convergence(
    X, y, seed, n_triplets, oasis_C, sdca_lam, normalize="none", log=print
) -> list[dict]:
    """OASIS and SDCA on the same triplets (Figures 1 and 2 of the SDCA paper); both traces record
    the average cumulative hinge and squared hinge (``avg_cumulative_loss`` = squared hinge) and
    the online mistake rate."""
    _, Xtr, _, t = _setup(X, y, seed, n_triplets, normalize)
    rows = []
    for name, model in (
        ("OASIS", OASIS(C=oasis_C, n_epochs=1, trace_loss="squared_hinge", trace_losses=True)),
        ("SDCA", SDCA(lam=sdca_lam, n_epochs=1, output="last", trace_gap=False, trace_losses=True)),
    ):
        model.set_params(preprocessor=Xtr, random_state=learner_seed(seed)).fit(t)
        tr = model.trace_
        log(
            f"  {name}: at {model.n_steps_} steps, average cumulative squared hinge "
            f"{tr['avg_cumulative_squared_hinge'][-1]:.4f}, hinge "
            f"{tr['avg_cumulative_hinge'][-1]:.4f}, mistake rate {tr['mistake_rate'][-1]:.4f}"
        )
        rows += _trace_rows("sdca_1", seed, name, model.trace_)
    return rows


def oasis_variants(
    X, y, seed, n_triplets, C, variants: dict, n_queries, n_database, normalize="none", log=print
) -> list[dict]:
    """mAP along training of OASIS variants (``variants``: name -> OASIS keyword arguments).
    A variant that projects only at the end is evaluated at each checkpoint as if training had
    stopped there (its projection applied to the current W)."""
    split, Xtr, ytr, t = _setup(X, y, seed, n_triplets, normalize)
    g = rng(seed, "learner")
    q = g.choice(split["test"], size=min(n_queries, len(split["test"])), replace=False)
    db = g.choice(len(Xtr), size=min(n_database, len(Xtr)), replace=False)
    Xq, yq, Xdb, ydb = X[q], y[q], Xtr[db], ytr[db]
    if normalize == "l2":
        Xq = l2_normalize(Xq)
    evaluate_at = set(checkpoints(n_triplets, per_decade=3).tolist())
    rows = []
    for name, kwargs in variants.items():

        def finish(W, kw=kwargs):
            if kw.get("psd") is not None:
                return project_psd(W)
            return symmetric_part(W) if kw.get("symmetrize") == "end" else W

        def callback(step, W, finish=finish):
            if step not in evaluate_at:
                return {"mAP": np.nan}
            Wf = finish(W)
            return {"mAP": mean_average_precision(lambda A, B: A @ Wf @ B.T, Xq, yq, Xdb, ydb)[0]}

        model = OASIS(
            C=C,
            n_epochs=1,
            checkpoint_callback=callback,
            preprocessor=Xtr,
            random_state=learner_seed(seed),
            **kwargs,
        ).fit(t)
        log(f"  {name}: final mAP {[v for v in model.trace_['mAP'] if not np.isnan(v)][-1]:.4f}")
        rows += _trace_rows("oasis_3", seed, name, model.trace_)
    return rows
