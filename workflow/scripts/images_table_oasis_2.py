"""Rule table_oasis_2: CPU time to train each method on each image set, as the OASIS paper's
runtime table, from Snakemake's benchmark files (whole fit_evaluate job) and the runs' own
``fit_cpu_s`` (the final fit alone); the feature extraction time per image beside them."""

import itertools
from pathlib import Path

import numpy as np
import pandas as pd

from harness.config import available_datasets
from harness.experiment import test_rows
from harness.io import save_csv, save_text, start_log
from harness.tables import mean_std, settings_caption, settings_table

start_log(snakemake.log[0])
cfg = snakemake.config["images"]
route = snakemake.config["data"]["route"]
bench = []
ok, _ = available_datasets(snakemake.config, "images", route)
for d, seed, m in itertools.product(ok, cfg["seeds"], cfg["methods"]):
    p = Path(snakemake.config["results_dir"]) / f"images/benchmarks/{d}_seed{seed}_{m}.tsv"
    b = pd.read_csv(p, sep="\t")  # one of snakemake.input.benchmarks
    bench.append(
        {
            "dataset": d,
            "seed": int(seed),
            "algorithm": m,
            "job_cpu_s": float(b["cpu_time"].iloc[0]),
            "job_wall_s": float(b["s"].iloc[0]),
        }
    )
bench = pd.DataFrame(bench)
runs = pd.read_csv(snakemake.input.runs)
final = test_rows(runs)
fit = final[final.metric == "fit_cpu_s"][["dataset", "seed", "algorithm", "value"]].rename(
    columns={"value": "fit_cpu_s"}
)
t = bench.merge(fit, on=["dataset", "seed", "algorithm"], how="left")
agg = (
    t.groupby(["dataset", "algorithm"])
    .agg(
        job_cpu_s=("job_cpu_s", "mean"),
        job_cpu_std=("job_cpu_s", lambda v: v.std(ddof=1) if len(v) > 1 else 0.0),
        fit_cpu_s=("fit_cpu_s", "mean"),
        n_seeds=("seed", "size"),
    )
    .reset_index()
    .merge(settings_table(cfg["methods"]), on="algorithm", how="left")
)
save_csv(snakemake.output.csv, agg)
feat = pd.read_csv(snakemake.input.features)
datasets = [d for d in cfg["datasets"] if d in set(agg.dataset)]
methods = [m for m in cfg["methods"] if m in set(agg.algorithm)]


def cell(d, m):
    r = agg[(agg.dataset == d) & (agg.algorithm == m)]
    if r.empty:
        return "–"
    r = r.iloc[0]
    fit_s = "failed" if np.isnan(r.fit_cpu_s) else f"{r.fit_cpu_s:.2f}"
    return f"{fit_s} ({mean_std(r.job_cpu_s, r.job_cpu_std, r.n_seeds, digits=1)})"


table = pd.DataFrame(
    {d: [cell(d, m) for m in methods] for d in datasets}, index=pd.Index(methods, name="method")
)
fe = feat.groupby("dataset").agg(
    ms_per_image=("descriptor_s_per_image", lambda v: 1000 * v.mean()),
    codebook_s=("codebook_s", "mean"),
    mean_nnz=("mean_nnz", "mean"),
)
missing = [d for d in cfg["datasets"] if d not in datasets]
text = [
    "# OASIS paper, runtime table: CPU time to train each method",
    "",
    (
        f"Per cell: CPU seconds of the final fit (refit on all training images, from the run's own "
        f"timer) and, in brackets, the CPU seconds of the whole job (Snakemake benchmark: loading, "
        f"validation grid if any, refit, evaluation), mean ± std over seeds {cfg['seeds']}; "
        f"{route} data route, one BLAS thread per job. {cfg['n_triplets']} triplets; bounds per "
        "method as in the table_sdca_3 caption. The OASIS paper reports wall-clock training times "
        "on its own hardware (not in config/paper_results.csv): compare orders of magnitude only."
    ),
    *([f"Not run ({route} route): {', '.join(missing)} (needs download)."] if missing else []),
    "",
    table.to_markdown(),
    "",
    (
        "Feature extraction (image reading + block descriptors) per image, codebook time (k-means +"
        " encoding, per seed) and mean non-zeros per image:"
    ),
    "",
    fe.dropna(how="all").map(lambda v: f"{v:.2f}").to_markdown(),
    "",
    *settings_caption(cfg["methods"]),
    "",
]
save_text(snakemake.output.md, "\n".join(text))
print(table.to_string())
