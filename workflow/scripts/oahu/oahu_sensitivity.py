"""Rule oahu_sensitivity: why OAHU's kNN error in Table 3 is above its untrained
network's (OAHU-init), measured one factor at a time away from the paper's setting.

Inputs are Table 3's own (config ``oahu.table3``: the class-stratified subsample, the 1:1
development/test split, the seeds + closure triplet stream, k, the seeds, the OAHU network of its
``methods.OAHU.fixed``) with tau fixed at ``oahu.sensitivity.tau``. Factors (``oahu.sensitivity``):
learning rate eta, passes over the stream, heavy-ball momentum (ours, ``OAHU(momentum=...)``),
and the kNN reference set (the development half, or every sample outside the test half). Each
row: one (setting, seed), OAHU's kNN error (eqs. 23-25) and OAHU-init's (the same network
parameters, ``n_epochs = 0``) under the same reference set. Writes
``results/tables/oahu_sensitivity.{csv,md}``; the finding in the caption is computed here from
the rows.
"""

import numpy as np
import pandas as pd

from tripletbench.datasets.rows import load_prepared_rows
from tripletbench.studies.oahu.captions import OAHU_CHOICES, OAHU_ORDER_SPREAD
from tripletbench.harness.experiment import fit_learner
from tripletbench.harness.io import now, save_csv, save_text, start_log
from tripletbench.studies.oahu.experiment import constraint_stream, dev_test_split, knn_scores

start_log(snakemake.log[0])
t3 = snakemake.config["oahu"]["table3"]
sens = snakemake.config["oahu"]["sensitivity"]
dataset, tau = sens["dataset"], float(sens["tau"])
net = {  # Table 3's OAHU network (its fixed settings), tau fixed, no grid
    k: v for k, v in (t3["methods"].get("OAHU", {}).get("fixed") or {}).items() if k != "tau"
}
PAPER = {"eta": 0.3, "n_epochs": 1, "momentum": 0.0, "reference": "dev"}  # sections 3.4, 4.3.2
PAPER_TEXT = (
    "eta 0.3 (section 4.3.2), one pass over the stream, plain OGD (eqs. 21-22, no momentum), "
    "kNN reference = the development half; a stream of 5,000 seed + 5,000 closure triplets "
    "(section 4.3.2) on all samples' development half"
)
LABEL = {
    "eta": "eta",
    "n_epochs": "passes",
    "momentum": "momentum",
    "reference": "reference",
    "n_seeds": "stream",
}
# the baseline: the paper's eta, passes, momentum and reference on Table 3's (bounded) sizes
BASE = {**PAPER, "n_seeds": int(t3["n_seeds"])}
PAPER_SIZES = t3.get("n_samples") is None and (t3["n_seeds"], t3["n_closure"]) == (5000, 5000)
SIZES = (
    f"{t3.get('n_samples') or 'all'} samples, stream {t3['n_seeds']} + {t3['n_closure']} "
    "(Table 3's sizes)"
)


def stream_sizes(n_seeds):
    """(seeds, closure) of a setting: Table 3's stream, or n + n (the paper's 1:1 ratio)."""
    return (t3["n_seeds"], t3["n_closure"]) if n_seeds == BASE["n_seeds"] else (n_seeds, n_seeds)


def value_text(factor, v):
    return "{}+{}".format(*stream_sizes(v)) if factor == "n_seeds" else str(v)


# the settings: the baseline, then each factor's other values with the rest at the baseline
settings = [("paper", dict(BASE))]
for factor in ("eta", "n_epochs", "momentum", "n_seeds", "reference"):
    for v in sens.get(factor, []):
        if v != BASE[factor]:
            settings.append((factor, {**BASE, factor: v}))

# refuses a corrupt file (sha256 sidecar, each row's CRC-32); X is read only where indexed
X, d = load_prepared_rows(snakemake.input[0], ["y"])
y = d["y"]
print(f"[{now()}] {dataset} {X.shape}: {len(settings)} settings, seeds {t3['seeds']}")

rows = []
for seed in t3["seeds"]:
    split = dev_test_split(y, seed, t3.get("n_samples"), t3.get("split", "shuffled"))
    dev, test = split["dev"], split["test"]
    refs = {"dev": dev, "all": np.setdiff1d(np.arange(len(y)), test)}
    trained = {}  # (eta, n_epochs, momentum, n_seeds) -> (model, timing): 'all' reuses the fit
    for factor, s in settings:
        ns, nc = stream_sizes(s["n_seeds"])
        tri = constraint_stream(y[dev], ns, nc, seed, "constraints_train")
        params = {**net, "tau": tau, "eta": s["eta"], "momentum": s["momentum"]}
        key = (s["eta"], s["n_epochs"], s["momentum"], s["n_seeds"])
        if key not in trained:
            trained[key] = fit_learner(
                "OAHU", {**params, "n_epochs": s["n_epochs"]}, tri, X[dev], y[dev], seed
            )
        model, timing = trained[key]
        # the untrained network with the same parameters (a fresh fit with no step)
        init, _ = fit_learner("OAHU", {**params, "n_epochs": 0}, tri, X[dev], y[dev], seed)
        ref = refs[s["reference"]]
        ev = knn_scores(model, X[test], y[test], X[ref], y[ref], t3["k"])
        ev0 = knn_scores(init, X[test], y[test], X[ref], y[ref], t3["k"])
        # which part of training moves the error: the network's parameters or the hedge weights
        # alpha (eq. 20)? The trained network with uniform alpha, the untrained one with the
        # trained alpha (development-half reference only: the 'all' evaluations are the costly ones)
        alpha = model.alpha_.copy()
        split_err = {"oahu_uniform_alpha_error": np.nan, "init_trained_alpha_error": np.nan}
        if s["reference"] == "dev":
            model.alpha_ = np.full_like(alpha, 1.0 / len(alpha))
            split_err["oahu_uniform_alpha_error"] = knn_scores(
                model, X[test], y[test], X[ref], y[ref], t3["k"]
            )["error_rate"]
            model.alpha_ = alpha.copy()
            init.alpha_ = alpha.copy()
            split_err["init_trained_alpha_error"] = knn_scores(
                init, X[test], y[test], X[ref], y[ref], t3["k"]
            )["error_rate"]
        is_base = factor == "paper"
        if is_base:
            ours = "the paper's eta, passes, momentum and reference set; " + SIZES
        else:
            ours = (
                f"{LABEL[factor]} {value_text(factor, s[factor])} (the paper: "
                f"{'5,000 + 5,000' if factor == 'n_seeds' else PAPER[factor]}), the rest as the "
                f"'paper' row ({SIZES})"
            )
        label = "paper" if is_base else f"{LABEL[factor]}={value_text(factor, s[factor])}"
        rows.append(
            {
                "dataset": dataset,
                "factor": factor,
                "setting": label,
                **s,
                "n_closure": nc,
                "tau": tau,
                "n_reference": len(ref),
                "n_test": len(test),
                "n_constraints": len(tri),
                "seed": seed,
                "oahu_error": ev["error_rate"],
                "init_error": ev0["error_rate"],
                "oahu_minus_init": ev["error_rate"] - ev0["error_rate"],
                **split_err,
                "alpha": ";".join(f"{a:.4f}" for a in alpha),
                "fit_wall_s": timing["fit_wall_s"],
                "eval_wall_s": ev["eval_wall_s"] + ev0["eval_wall_s"],
                "protocol": "paper" if is_base and PAPER_SIZES else "ours",
                "paper_settings": PAPER_TEXT,
                "our_settings": ours,
            }
        )
        print(
            f"[{now()}] seed {seed} {rows[-1]['setting']}: OAHU {ev['error_rate']:.4f}, "
            f"untrained {ev0['error_rate']:.4f} (n_ref {len(ref)}, "
            f"fit {timing['fit_wall_s']:.1f} s)"
        )
runs = pd.DataFrame(rows)
save_csv(snakemake.output.csv, runs)

# ------------------------------------------------------------------ summary and computed finding
order = list(dict.fromkeys(runs.setting))
g = runs.groupby("setting", sort=False)
summ = pd.DataFrame(
    {
        "reference": g.reference.first(),
        "n_reference": g.n_reference.first(),
        "seeds": g.seed.apply(lambda s: ";".join(map(str, s))),
        "oahu_mean": g.oahu_error.mean(),
        "oahu_std": g.oahu_error.std(ddof=1),
        "init_mean": g.init_error.mean(),
        "init_std": g.init_error.std(ddof=1),
        "gap_mean": g.oahu_minus_init.mean(),
        "n_below_init": g.oahu_minus_init.apply(lambda v: int((v < 0).sum())),
        "unif_mean": g.oahu_uniform_alpha_error.mean(),
        "init_alpha_mean": g.init_trained_alpha_error.mean(),
        "fit_wall_s": g.fit_wall_s.mean(),
    }
).loc[order]


def ms(m, s):
    return f"{m:.3f}" if pd.isna(s) else f"{m:.3f} ± {s:.3f}"


n_rows = len(runs)
below = runs[runs.oahu_minus_init < 0]
best = summ.gap_mean.idxmin()
b = summ.loc[best]
finding = [
    (
        f"Finding (computed from the rows): OAHU's kNN error is below its untrained network's in "
        f"{len(below)} of {n_rows} (setting, seed) runs; by the mean over seeds, "
        + (
            "no setting brings OAHU below its untrained network"
            if (summ.gap_mean >= 0).all()
            else "settings with OAHU below its untrained network: "
            + ", ".join(f"{s} ({summ.loc[s].gap_mean:+.3f})" for s in summ.index[summ.gap_mean < 0])
        )
        + f". The smallest mean gap (OAHU - untrained) is {b.gap_mean:+.3f} at '{best}' (OAHU "
        f"{b.oahu_mean:.3f}, untrained {b.init_mean:.3f}); at the 'paper' row it is "
        f"{summ.loc['paper'].gap_mean:+.3f} ({summ.loc['paper'].oahu_mean:.3f} vs "
        f"{summ.loc['paper'].init_mean:.3f})."
    )
]
if "reference=all" in summ.index:
    a, p = summ.loc["reference=all"], summ.loc["paper"]
    if p.gap_mean > 0 and a.gap_mean > 0:
        verdict = "OAHU stays behind, so the subsampled reference set does not explain the loss."
    elif p.gap_mean > 0:
        verdict = "with the larger reference set OAHU is no longer behind."
    elif a.gap_mean > 0:
        verdict = "OAHU is behind only with the larger reference set."
    else:
        verdict = "OAHU is behind with neither."
    finding.append(
        f"With the larger reference set ({int(a.n_reference)} samples instead of "
        f"{int(p.n_reference)}), OAHU's error goes {p.oahu_mean:.3f} -> {a.oahu_mean:.3f} and the "
        f"untrained network's {p.init_mean:.3f} -> {a.init_mean:.3f}; the gap goes from "
        f"{p.gap_mean:+.3f} to {a.gap_mean:+.3f}: {verdict}"
    )
p_init = summ.loc["paper"].init_mean
b0 = summ.loc["paper"]
finding.append(
    f"Network or layer weights, 'paper' row (development-half reference): the trained network "
    f"with uniform alpha errs {b0.unif_mean:.3f} and the untrained network with the trained alpha "
    f"{b0.init_alpha_mean:.3f}, against {b0.oahu_mean:.3f} trained and {b0.init_mean:.3f} "
    f"untrained: the parameter steps (eqs. 21-22) alone move the error by "
    f"{b0.unif_mean - b0.init_mean:+.3f}, the hedge weights (eq. 20) alone by "
    f"{b0.init_alpha_mean - b0.init_mean:+.3f}."
)
eta_rows = summ[[x == "paper" or x.startswith("eta=") for x in summ.index]]
eta_rows = eta_rows.assign(eta=[runs[runs.setting == x].eta.iloc[0] for x in eta_rows.index])
eta_rows = eta_rows.sort_values("eta", ascending=False)
if len(eta_rows) > 1:
    finding.append(
        "Over eta = "
        + ", ".join(f"{e:g}" for e in eta_rows.eta)
        + ": the parameter steps alone move the error by "
        + ", ".join(f"{v:+.3f}" for v in eta_rows.unif_mean - eta_rows.init_mean)
        + " and the hedge weights alone by "
        + ", ".join(f"{v:+.3f}" for v in eta_rows.init_alpha_mean - eta_rows.init_mean)
        + " (each against the untrained network with uniform alpha; the two parts are not "
        "additive)."
    )
per_factor = []
for factor in ("eta", "n_epochs", "momentum", "n_seeds"):
    f_rows = summ[[x == "paper" or x.startswith(LABEL[factor] + "=") for x in summ.index]]
    if len(f_rows) > 1:
        lo = f_rows.oahu_mean.idxmin()
        per_factor.append(
            f"{LABEL[factor]} ({', '.join(f_rows.index)}): OAHU {f_rows.oahu_mean.min():.3f}-"
            f"{f_rows.oahu_mean.max():.3f}, lowest at '{lo}'"
        )
if per_factor:
    finding.append(
        "With the development half as reference set, "
        + "; ".join(per_factor)
        + f"; the untrained network: {p_init:.3f}."
    )
k_steps = int(runs[runs.setting == "paper"].n_constraints.iloc[0])
caption = [
    (
        f"OAHU against its untrained network (OAHU-init: the same network at its seeded "
        f"initialisation, uniform alpha, no step) on {dataset}, kNN error rate (k = {t3['k']}, "
        f"the paper's rule, eqs. 23-25) of the {int(runs.n_test.iloc[0])} test-half samples, "
        f"mean ± std over seeds {list(t3['seeds'])} (one row per setting and seed in the CSV). "
        f"Table 3's protocol and inputs: "
        + (f"{t3['n_samples']}-sample class-stratified subsample, " if t3.get("n_samples") else "")
        + f"1:1 development/test split, stream of {t3['n_seeds']} seed + {t3['n_closure']} closure "
        f"triplets ({k_steps} steps per pass; the paper: 5,000 + 5,000) on the development half, "
        f"the same seeds and network"
        + (
            f" ({', '.join(f'{k} {v}' for k, v in net.items())}; not the paper's)"
            if net
            else " (the paper's: L 5, 100 hidden units, 50-d embeddings)"
        )
        + f"; tau fixed at {tau} ("
        + ("section 4.6's recommendation" if tau == 0.1 else "section 4.6 recommends 0.1")
        + "; Table 3 chooses tau on validation)."
    ),
    (
        f"The paper's setting: {PAPER_TEXT}; the text says kNN on the 'training instances', which "
        "we read as the development half. The 'paper' row takes the paper's eta, passes, momentum "
        "and reference set on Table 3's sizes above"
        + ("" if PAPER_SIZES else " (bounded, so its protocol column says 'ours')")
        + ". Each other row changes one factor, the rest as the 'paper' row: eta = the learning "
        "rate of eqs. 21-22; passes = epochs over the same stream in its order ("
        + ", ".join(f"{n * k_steps:,}" for n in sens["n_epochs"])
        + " steps; the paper: one pass over its 10,000 triplets); stream = seed + closure "
        "triplets drawn as Table 3's on the same development half, one pass (the paper's 5,000 + "
        "5,000 where configured); momentum = heavy-ball momentum on the gradient of eqs. 21-22 "
        "(v = mu v + g, step -eta v; ours, not in the paper, which uses plain OGD); reference = "
        "the kNN reference set, 'all' = every sample not in the test half (it adds the labelled "
        "samples outside the subsample: larger than the paper's development half; run for the "
        "'paper' row's training and the untrained network only, the expensive evaluation). Every "
        "row but 'paper' is ours. 'OAHU, uniform alpha' = the trained network deployed with "
        "alpha_l = 1/(L+1); 'OAHU-init, trained alpha' = the untrained network deployed with the "
        "trained alpha (ours, a decomposition; development-half reference only)."
    ),
    *finding,
    OAHU_CHOICES,
    OAHU_ORDER_SPREAD,  # a difference between two rows below it may be operation order alone
]
tab = pd.DataFrame(
    {
        "reference (n)": [f"{r.reference} ({int(r.n_reference)})" for r in summ.itertuples()],
        "OAHU": [ms(r.oahu_mean, r.oahu_std) for r in summ.itertuples()],
        "OAHU-init": [ms(r.init_mean, r.init_std) for r in summ.itertuples()],
        "OAHU - init": [f"{r.gap_mean:+.3f}" for r in summ.itertuples()],
        "OAHU, uniform alpha": [
            "–" if pd.isna(r.unif_mean) else f"{r.unif_mean:.3f}" for r in summ.itertuples()
        ],
        "OAHU-init, trained alpha": [
            "–" if pd.isna(r.init_alpha_mean) else f"{r.init_alpha_mean:.3f}"
            for r in summ.itertuples()
        ],
        "runs below init": [
            f"{r.n_below_init}/{len(r.seeds.split(';'))}" for r in summ.itertuples()
        ],
        "fit s (mean)": [f"{r.fit_wall_s:.1f}" for r in summ.itertuples()],
    },
    index=pd.Index(summ.index, name="setting"),
)
md = [
    "# OAHU: sensitivity of Table 3's loss to its untrained network",
    "",
    *[c for c in caption if c],
    "",
    tab.to_markdown(disable_numparse=True),
    "",
]
save_text(snakemake.output.md, "\n".join(md))
print("\n".join(md))
