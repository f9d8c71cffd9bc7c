"""Rules figure_sdca_1, figure_sdca_2, figure_oasis_3: plot the curves of all seeds."""

import pandas as pd

from harness.io import start_log
from harness.plots import curves, scaling

start_log(snakemake.log[0])
cfg = snakemake.config["figures"]
route = snakemake.config["data"]["route"]
rows = pd.concat([pd.read_csv(p) for p in snakemake.input], ignore_index=True)
name = snakemake.rule
seeds = sorted(int(s) for s in rows.seed.unique())
data = f"{cfg['dataset']} ({route} route)"
if "metric" not in rows:  # the scaling rows are not curves
    rows = rows.assign(metric="fit_wall_s")
stand_in = (
    f" The papers used Caltech-256; {cfg['dataset']} stands in for it here."
    if cfg["dataset"] != "caltech256"
    else ""
)
common = (
    f"{data}, {cfg['n_triplets']} class-based random triplets from a 70% per-class training "
    f"split, one pass in random order; mean ± std over seeds {seeds}.{stand_in}"
)
if name == "figure_sdca_1":
    curves(
        rows,
        "avg_cumulative_loss",
        "average cumulative squared hinge loss",
        f"SDCA paper, Fig. 1: loss, OASIS (C={cfg['oasis_C']}) vs SDCA (lambda={cfg['sdca_lam']})",
        *snakemake.output,
        caption=common + " The paper reports about 0.58 (OASIS) and 0.46 "
        "(SDCA) at 100K iterations on Caltech-256 (stars). Log scale: OASIS starts from W = I, "
        "whose margins on raw pixel vectors are large, so its first losses are large.",
        logy=True,
        references={"OASIS": (100_000, 0.58), "SDCA": (100_000, 0.46)},
    )
elif name == "figure_sdca_2":
    curves(
        rows,
        "mistake_rate",
        "online mistake rate",
        f"SDCA paper, Fig. 2: mistakes, OASIS (C={cfg['oasis_C']}) vs SDCA (lambda={cfg['sdca_lam']})",
        *snakemake.output,
        caption=common + " A mistake: the positive not scored above the negative before the step.",
    )
elif name == "figure_scaling":
    scaling(
        rows,
        *snakemake.output,
        caption=f"{cfg['scaling_dataset']} ({route} route), 70% per-class training split. Left: "
        "OASIS and SDCA, one pass over n class-based random triplets. Right: n training "
        f"samples; OASIS and SDCA with {cfg['scaling_triplets_per_sample']} triplets per "
        f"sample, LMNN ({cfg['scaling_lmnn']}) on the samples and their labels. One BLAS "
        f"thread, no other job running; mean ± std over seeds {seeds}.",
    )
else:
    curves(
        rows,
        "mAP",
        "test mAP",
        f"OASIS paper, Fig. 3: variants (C={cfg['oasis_C']})",
        *snakemake.output,
        caption=common + f" mAP of {cfg['n_queries']} test queries against {cfg['n_database']} "
        "training samples; variants that project only at the end are evaluated with the "
        "projection applied at each checkpoint.",
    )
