"""Rule performance: triplets per second of OASIS and SDCA against a plain per-step NumPy
implementation and against the machine's matrix-multiply limit (harness.performance)."""

import platform

from harness.io import now, save_csv, save_text, start_log
from harness.performance import other_learners, other_methods, run
from harness.tables import settings_caption, settings_table

start_log(snakemake.log[0])
cfg = snakemake.config["performance"]
C, LAM = 0.1, 0.01  # harness.performance.run's defaults, named here for the provenance columns
df = run(
    dense_dims=tuple(cfg["dense_dims"]),
    sparse=tuple(map(tuple, cfg["sparse"])),
    n_triplets=cfg["n_triplets"],
    C=C,
    lam=LAM,
)
# settings provenance (harness.tables.settings_table): the speed rows are our measurement, not a
# paper's table; the other learners run with SDCA Table 2's fixed settings and carry its notes
SPEED = {
    "OASIS": {"notes": {"protocol": "not-in-paper",
                        "ours": f"speed of our engine: C {C}, one pass, synthetic points"}},
    "SDCA": {"notes": {"protocol": "not-in-paper",
                       "ours": f"speed of our engine: lambda {LAM}, synthetic points"}},
}
others = other_methods(snakemake.config)
other = other_learners(others, n_triplets=cfg["n_triplets"])


def with_provenance(frame, methods):
    prov = settings_table(methods).rename(columns={"algorithm": "learner"})
    return frame.merge(prov, on="learner", how="left")


df = with_provenance(df, SPEED)
other = with_provenance(other, others)
save_csv(snakemake.output.csv, df)
save_csv(snakemake.output.others, other)
show = df[
    [
        "learner",
        "input",
        "d",
        "nnz_per_row",
        "triplets_per_s",
        "speedup_vs_plain",
        "fraction_of_limit",
        "peak_traced_mb",
        "max_rel_diff",
        "fit_s",
    ]
].copy()
show["fraction_of_limit"] = (100 * show["fraction_of_limit"]).round(1).astype(str) + "%"
text = "\n".join(
    [
        "# Speed and memory of the bilinear online learners",
        "",
        f"Measured {now()} on {platform.machine()} ({platform.processor() or 'cpu'}), one BLAS thread; "
        f"matrix multiply {df.gemm_gflops.iloc[0]:.1f} GFLOP/s (1024 x 1024, best of 5).",
        f"{df.n_steps.iloc[0]} online steps per row on synthetic points (dense Gaussian; sparse: "
        "random non-zeros). triplets_per_s: our online steps (exact blocked engine; sparse: per-step "
        "O(nnz^2) path). speedup_vs_plain: against one-step-at-a-time NumPy (matrix-vector product + "
        "rank-one update, dense vectors). fraction_of_limit: against GEMM rate / (4 d^2). "
        "max_rel_diff: final matrix against the plain implementation's. fit_s: whole fit (with "
        "set-up and, for SDCA, the final duality-gap passes).",
        "",
        show.to_markdown(index=False, floatfmt=".3g"),
        "",
        f"Every other learner: seconds per 10K triplets (d = {other.d.iloc[0]}, 2,000 synthetic "
        "labelled points in 10 classes, the same triplets through the harness's conversions, the "
        "default config's fixed settings; one fit each):",
        "",
        other.drop(columns=["protocol", "paper_settings", "our_settings"]).to_markdown(
            index=False, floatfmt=".3g"
        ),
        "",
        *settings_caption({**SPEED, **others}),
        "",
    ]
)
save_text(snakemake.output.md, text)
print(text)
