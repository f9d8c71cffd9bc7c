"""Rule performance: triplets per CPU second of OASIS and SDCA (the stream and the whole fit), dense
against the machine's matrix-multiply rate and two per-step loops (np.outer, BLAS), sparse against a
C-style loop over the non-zeros (tripletbench.studies.performance.measure); OAHU's online step on its NumPy
backend against the torch reference and the bare NumPy forward/backward pass
(tripletbench.studies.oahu.speed); every time is process CPU time."""

import platform

import pandas as pd

from tripletbench.studies.oahu import speed as oahu_speed
from tripletbench.harness.io import now, save_csv, save_text, start_log
from tripletbench.studies.performance.measure import (
    block_sizes,
    extrapolate_web_scale,
    other_learners,
    other_methods,
    run,
)
from tripletbench.harness.tables import settings_caption, settings_table

start_log(snakemake.log[0])
cfg = snakemake.config["performance"]
C, LAM = 0.1, 0.01  # tripletbench.studies.performance.measure.run's defaults, named here for the provenance columns
df = run(
    dense_dims=tuple(cfg["dense_dims"]),
    sparse=tuple(map(tuple, cfg["sparse"])),
    n_triplets=cfg["n_triplets"],
    repeats=cfg["repeats"],
    C=C,
    lam=LAM,
)
# settings provenance (tripletbench.harness.tables.settings_table): the speed rows are our measurement, not a
# paper's table; the other learners run with SDCA Table 2's fixed settings and carry its notes
SPEED = {
    "OASIS": {
        "notes": {
            "protocol": "not-in-paper",
            "ours": f"speed of our engine: C {C}, one pass, synthetic points",
        }
    },
    "SDCA": {
        "notes": {
            "protocol": "not-in-paper",
            "ours": f"speed of our engine: lambda {LAM}, synthetic points",
        }
    },
}
others = other_methods(snakemake.config)
other = other_learners(others, n_triplets=cfg["n_triplets"])


def with_provenance(frame, methods):
    prov = settings_table(methods).rename(columns={"algorithm": "learner"})
    return frame.merge(prov, on="learner", how="left")


df = with_provenance(df, SPEED)
other = with_provenance(other, others)
oahu_sizes = [tuple(s) for s in cfg["oahu_sizes"]]
oahu = (
    oahu_speed.run(oahu_sizes, cfg["oahu_steps"], cfg["repeats"])
    if oahu_sizes
    else pd.DataFrame(columns=[*oahu_speed.COLUMNS, "step_flops", "gemm_gflops"])
)
blocks = (
    block_sizes(
        dense_dims=tuple(cfg["dense_dims"]),
        sizes=tuple(cfg["block_sizes"]),
        n_triplets=cfg["n_triplets"],
        C=C,
        repeats=cfg["repeats"],
    )
    if cfg["block_sizes"] and cfg["dense_dims"]
    else pd.DataFrame(columns=["d", "block_size", "auto", "stream_us_per_step"])
)
save_csv(snakemake.output.csv, df)
save_csv(snakemake.output.blocks, blocks)
save_csv(snakemake.output.others, other)
save_csv(snakemake.output.oahu, oahu)
web = extrapolate_web_scale(df)


def pct(x):
    return "" if x != x else f"{100 * x:.0f}%"


dense = df[df.input == "dense"].copy()
dense["of GEMM rate (useful 4d^2)"] = dense.ratio_to_reference.map(pct)
dense["of GEMM rate (executed)"] = dense.executed_fraction_of_gemm.map(pct)
dense["stream share of fit"] = dense.stream_share_of_fit.map(pct)
dense = dense[
    [
        "learner",
        "d",
        "block_size",
        "triplets_per_s",
        "fit_triplets_per_s",
        "stream share of fit",
        "of GEMM rate (useful 4d^2)",
        "of GEMM rate (executed)",
        "speedup_vs_blas_loop",
        "speedup_vs_np_outer_loop",
        "peak_traced_mb",
        "max_rel_diff",
    ]
].rename(columns={"triplets_per_s": "stream_triplets_per_s"})
sparse = df[df.input == "sparse"].copy()
sparse["stream share of fit"] = sparse.stream_share_of_fit.map(pct)
sparse = sparse[
    [
        "learner",
        "d",
        "nnz_per_row",
        "triplets_per_s",
        "fit_triplets_per_s",
        "stream share of fit",
        "reference_triplets_per_s",
        "ratio_to_reference",
        "peak_traced_mb",
        "max_rel_diff",
    ]
].rename(
    columns={
        "triplets_per_s": "stream_triplets_per_s",
        "reference_triplets_per_s": "c_style_loop_triplets_per_s",
        "ratio_to_reference": "speedup_vs_c_style_loop",
    }
)
extrapolation = (
    [
        "OASIS paper's web-scale run (Chechik et al. 2009, section 4.1: 2.7M images, bags of "
        'visual words with about 70 non-zeros, "within three days on a single CPU"), at our '
        "sparse OASIS "
        f"rate for d = {web['d']:,} with {web['nnz_per_row']} non-zeros "
        f"({web['triplets_per_cpu_s']:,.0f} triplets per CPU second): three CPU-days are "
        f"{web['steps_in_3_cpu_days']:.2e} steps; one step per image takes "
        f"{web['cpu_hours_1_step_per_image']:.3g} CPU hours, 100 steps per image "
        f"{web['cpu_hours_100_steps_per_image']:.3g}. The paper does not state its number of "
        "steps, so no ratio to its three days is claimed; feature extraction and evaluation are "
        "not included.",
        "",
    ]
    if web
    else []
)


def section(frame, caption, empty, drop=()):
    """The .md lines of one table: ``caption()`` (a list of lines, built only for a non-empty
    frame) and the frame less ``drop``, or the one line ``empty`` saying why there is none."""
    if not len(frame):
        return [empty, ""]
    table = frame.drop(columns=list(drop)).to_markdown(index=False, floatfmt=".3g")
    return [*caption(), "", table, ""]


others_section = section(
    other,
    lambda: [
        f"Every other learner: process CPU seconds of the whole fit per 10K triplets (d = "
        f"{other.d.iloc[0]}, 2,000 synthetic labelled points in 10 classes, the same triplets "
        "through the harness's conversions, the default config's fixed settings, one BLAS thread; "
        "one fit each):"
    ],
    "No other learner timed (the config has no SDCA Table 2 rows besides OASIS and SDCA).",
    drop=["protocol", "paper_settings", "our_settings"],
)
BLOCK_VIEW = [  # the md's columns, the ceiling beside the measured share (the CSV has them all)
    "d",
    "block_size",
    "best",
    "stream_us_per_step",
    "useful_fraction_of_gemm",
    "ceiling_useful_fraction",
    "gather_us_per_step",
    "products_us_per_step",
    "gram_us_per_step",
    "rest_us_per_step",
    "products_gflops",
    "speedup_vs_auto",
]
blocks_section = section(
    blocks.reindex(columns=BLOCK_VIEW) if len(blocks) else blocks,
    lambda: [
        "The dense engine's block size K (performance_block_sizes.csv; the measurement behind "
        "auto_block_size): OASIS's stream in microseconds per step for each K at each d, the "
        "same synthetic points and triplets as above, repeats interleaved (every (d, K) timed "
        "once per repeat), median; speedup_vs_auto = the automatic K's time / this K's (> 1: "
        "faster than the automatic K, whose row has 1); best: the fastest K of its d. Beside "
        "each stream, in the same repeat, the engine's BLAS work on blocks of K random rows of "
        "the same factors, timed alone, per step: gather (the block's rows), products (the "
        "margins' (K x d)(d x d) product and the in-place rank-K update of W, which carry the "
        "4 d^2 useful flops; products_gflops their rate) and gram (the two K x K Gram products "
        "that make the blocks exact); rest = stream - the three (the compiled sequential kernel "
        "and the Python per block; within the timing noise it can come out below 0). "
        "ceiling_useful_fraction: the useful share of the GEMM rate a step would reach if it "
        "cost only those three parts, the most an engine doing these products reaches at this K."
    ],
    "No block size swept (the config's performance.block_sizes is empty).",
)
oahu_section = section(
    oahu[list(oahu_speed.COLUMNS)],
    lambda: oahu_speed.caption(oahu, cfg["repeats"]),
    "No OAHU step timed (the config's performance.oahu_sizes is empty).",
)
text = "\n".join(
    [
        "# Speed and memory of the bilinear online learners",
        "",
        f"Measured {now()} on {platform.machine()} ({platform.processor() or 'cpu'}), one BLAS "
        f"thread, process CPU time (median of {cfg['repeats']}); matrix multiply "
        f"{df.gemm_gflops.iloc[0]:.1f} GFLOP/s of CPU (1024 x 1024, best of 5). "
        f"{df.n_steps.iloc[0]:,} online steps per row on synthetic points (dense Gaussian; "
        "sparse: random non-zeros, unit rows). Our measurement, not a paper's table.",
        "",
        "stream_triplets_per_s: the online steps alone (the engine's own CPU timer); "
        "fit_triplets_per_s: the whole fit() call as a user meets it (input checks, the order "
        "of draws, SDCA's duality-gap certificate passes after the stream, the output); "
        '"stream share of fit" = stream / fit CPU time.',
        "",
        "Dense input: the exact blocked engine (block size K = auto_block_size(d), 64; the "
        "sweep below). Its reference is the "
        "GEMM rate: a step needs 4 d^2 flops (two d x d matrix-vector products), so "
        '"of GEMM rate (useful)" = stream triplets/s x 4 d^2 / GEMM rate; "executed" also '
        "counts the engine's own extra flops (the block's K x K Gram products, 4 K d per step). "
        "Two one-step-at-a-time peers on the same triplets in the same order: "
        "speedup_vs_blas_loop against a per-step BLAS loop (one dgemv and one in-place dger per "
        "step: the fair peer), speedup_vs_np_outer_loop against an np.outer loop (matrix-vector "
        "product, then W += step * np.outer(p, v), a d x d temporary per step). max_rel_diff: "
        "final W against the BLAS loop's.",
        "",
        dense.to_markdown(index=False, floatfmt=".3g"),
        "",
        "Sparse (CSR) input: the engine's compiled loop over the non-zeros, which first merges "
        "p+ and p- into one sorted sparse vector p+ - p- (one entry per shared column), so each "
        "touched row of W is read once and written once in column order. Its peer is a "
        "C-style loop over the non-zeros of p, p+ and p- in the style of the authors' C core "
        "(p+ and p- swept one after the other), compiled here by numba the same way "
        "(benchmark only), on the same triplets in the same order; speedup_vs_c_style_loop "
        ">= 1 means our stream is at least as fast. max_rel_diff: final W against that loop's.",
        "",
        sparse.to_markdown(index=False, floatfmt=".3g"),
        "",
        *blocks_section,
        *extrapolation,
        *others_section,
        *oahu_section,
        *settings_caption({**SPEED, **others}),
        "",
    ]
)
save_text(snakemake.output.md, text)
print(text)
