"""Rule table4_scaling: time and peak memory of each stage of the SDCA paper's Table 4 code path
at the configured sizes (the paper's by default) on synthetic 297-d features
(tripletbench.studies.performance.table4_scaling). A scale measurement, not results: the mAP column says nothing about the
methods."""

import platform

import pandas as pd
from threadpoolctl import threadpool_info

from tripletbench.harness.io import peak_rss_mb, save_csv, save_text, start_log
from tripletbench.studies.performance.paper import vs_paper
from tripletbench.studies.performance.table4_scaling import run

start_log(snakemake.log[0])
cfg = snakemake.config["table4_scaling"]
table4 = dict(snakemake.params.table4)  # keys sorted (rerun on settings, not on their order)
# the rows in the config's order (the params' copy is sorted)
table4["methods"] = {m: table4["methods"][m] for m in snakemake.config["sdca_table4"]["methods"]}
stages, facts = run(cfg, table4)
# the job's BLAS threads (Snakemake: OMP_NUM_THREADS = its threads)
threads = max((p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"), default=1)
stages["process_peak_rss_mb"] = peak_rss_mb()
stages["blas_threads"] = threads
for k, v in facts.items():
    stages[k] = v
save_csv(snakemake.output.csv, stages)
total = stages.wall_s.sum()
show = stages[["stage", "wall_s", "cpu_s", "peak_rss_mb"]].copy()
for col in ("validation_fit_s", "final_fit_s", "test_map_eval_s", "chosen", "synthetic_mAP"):
    if col in stages:
        show[col] = stages[col]
show = show.rename(
    columns={
        "wall_s": "wall s",
        "cpu_s": "CPU s",
        "peak_rss_mb": "peak RSS MiB",
        "validation_fit_s": "validation fits s",
        "final_fit_s": "final fit s",
        "test_map_eval_s": "exact test mAP s",
        "synthetic_mAP": "mAP (synthetic: not a result)",
    }
)
sizes = ", ".join(f"{k} {v:,}" for k, v in facts.items())
n_background = facts["n_items"] - facts["n_ground_truth"]
ours = "; ".join(  # the configured sizes, the paper's beside them (tripletbench.studies.performance.paper)
    [
        vs_paper(
            "table4_scaling",
            "n_triplets",
            table4["n_triplets"],
            f"{table4['n_triplets']:,} training triplets",
        ),
        vs_paper(
            "table4_scaling", "n_background", n_background, f"{n_background:,} background items"
        ),
        vs_paper(
            "table4_scaling",
            "n_ground_truth",
            facts["n_ground_truth"],
            f"{facts['n_ground_truth']:,} labelled items",
        ),
        vs_paper("table4_scaling", "d", facts["d"], f"{facts['d']}-d features"),
    ]
)
lines = [
    "# Table 4's code path at the configured sizes: time and peak memory per stage (synthetic "
    "features)",
    "",
    "A scale measurement, not results: the features are random 297-d vectors (class means plus "
    "noise; background around the origin), so the mAP column says nothing about any method. "
    "What it measures is the code path of the SDCA paper's Table 4 cells (the protocol split, "
    "class-based triplets, each row's validation grid, refit and exact full-ranking mAP of the "
    "queries over the whole database, streamed in query batches within a memory budget).",
    "",
    f"Sizes: {ours}.",
    f"Sizes the protocol gave: {sizes}.",
    f"Rows: sdca_table4's methods and settings ({', '.join(table4['methods'])}).",
    f"Total: {total / 60:.1f} min wall on {platform.processor() or platform.machine()}, "
    f"{threads} BLAS thread(s) (the online learners' steps: one, "
    "tripletbench.algorithms.base.one_blas_thread)"
    + ("; CPU s above wall s is the other threads at work" if threads > 1 else "")
    + f". Process peak RSS {peak_rss_mb():,.0f} MiB.",
    "",
    # stages without a method leave the method columns empty (None, shown as "")
    show.astype(object)
    .where(show.notna(), None)
    .to_markdown(index=False, floatfmt=".4g", missingval=""),
    "",
]
save_text(snakemake.output.md, "\n".join(lines))
print("\n".join(lines))
