"""Rule svm_scaling: eq. 8 (SVM-relative, A = I) solved by CLARABEL (through cvxpy, the reference)
and by our dual solver "dcd" side by side, against the number of triplets at the text data's
dimension (binary bag of words of the Reuters stand-in's training documents). Each (size, solver)
is solved in a fresh process (its own peak RSS, with the solver's native memory); each solver's
sizes stop after its first solve over the time cap (or a failure), the other goes on."""

from pathlib import Path

import numpy as np
import pandas as pd

from tripletbench.datasets.reuters import load_corpus
from tripletbench.harness.io import save_csv, save_text, start_log
from tripletbench.studies.svm.experiment import (
    document_split,
    notion_groups,
    predicted_seconds,
    text_features,
)

SOLVERS = ("CLARABEL", "dcd")


def side_by_side(df: pd.DataFrame) -> pd.DataFrame:
    """One row per size: each solver's solve time and peak RSS, the time ratio CLARABEL / dcd and
    the objective difference (dcd - CLARABEL) / CLARABEL where both solved."""
    ok = df[df.status == "optimal"]
    out = pd.DataFrame({"n_triplets": sorted(df.n_triplets.unique())})
    for s in SOLVERS:
        part = ok[ok.solver == s].set_index("n_triplets")
        out[f"{s}_solve_s"] = out.n_triplets.map(part.solve_s)
        out[f"{s}_peak_rss_mb"] = out.n_triplets.map(part.peak_rss_mb)
        out[f"{s}_objective"] = out.n_triplets.map(part.objective)
    a, b = SOLVERS
    out["time_ratio"] = out[f"{a}_solve_s"] / out[f"{b}_solve_s"]
    out["objective_rel_diff"] = (out[f"{b}_objective"] - out[f"{a}_objective"]) / out[
        f"{a}_objective"
    ]
    return out


def counts_as_text(df: pd.DataFrame) -> pd.DataFrame:
    """A copy for printing: the count columns as integers with thousands separators (blank
    where missing), so that the Markdown's float format does not print 2e+05."""
    out = df.copy()
    for col in ("n_triplets", "n_features", "n_active_features", "epochs"):
        if col in out:
            out[col] = out[col].map(lambda v: "" if pd.isna(v) else f"{int(v):,}")
    return out


if __name__ == "__main__":
    start_log(snakemake.log[0])
    cfg = snakemake.config["svm"]
    sc = cfg["scaling"]
    corpus = load_corpus(Path(snakemake.params.cache_dir))
    labels = corpus.label("topic")
    train, _ = document_split(len(labels), 0, cfg["train_fraction"])
    binary, _, vocab = text_features(corpus.texts, train, cfg["token_pattern"])
    X = binary[train]
    groups = notion_groups(labels[train], "reuters_topic")
    print(f"reuters_topic training documents: {X.shape[0]} x {X.shape[1]} (binary)")
    from tripletbench.studies.svm.experiment import measure_in_subprocess

    cap = sc["max_solve_seconds"]
    rows, stopped = [], set()
    for n in sc["n_triplets"]:
        for s in SOLVERS:
            if s in stopped:
                continue
            guess = predicted_seconds([r for r in rows if r["solver"] == s], n)
            if guess > cap:  # not started: its own last two sizes put it over the cap
                rows.append(
                    {
                        "n_triplets": n,
                        "solver": s,
                        "n_features": X.shape[1],
                        "status": f"not run: predicted {guess:,.0f} s > {cap} s",
                    }
                )
                stopped.add(s)
                continue
            r = measure_in_subprocess(X, groups, n, 0, cfg["C"], s, cap * 3)
            rows.append(r)
            print(r, flush=True)
            if r.get("status") != "optimal" or r["fit_wall_s"] > cap:
                stopped.add(s)
    df = pd.DataFrame(rows)
    save_csv(snakemake.output.csv, df)
    wide = side_by_side(df)
    reach = []
    for s in SOLVERS:
        solved = df[(df.solver == s) & (df.status == "optimal")]
        largest = int(solved.n_triplets.max()) if len(solved) else 0
        more = " (stopped there: over the cap or failed)" if s in stopped else ""
        reach.append(f"{s}: largest size solved {largest}{more}")
    both = wide.dropna(subset=["objective_rel_diff"])
    agree = (
        f"Where both solved, the largest |objective difference| is "
        f"{np.abs(both.objective_rel_diff).max():.1e} (relative)."
        if len(both)
        else "No size was solved by both."
    )
    lines = [
        "# SVM-relative (eq. 8): CLARABEL and our dual solver against the number of triplets",
        "",
        (
            f"Reuters stand-in, binary bag of words of {X.shape[0]} training documents "
            f"({X.shape[1]} words; n_active_features = words some triplet separates), topic "
            f"triplets, C = {cfg['C']}, one thread. CLARABEL through cvxpy (the reference) and "
            '"dcd" (our solver: exact dual coordinate ascent on a working block of rows and '
            "columns, with Newton steps on the free multipliers, stopped at a relative duality "
            "gap of 1e-9; rel_gap and "
            "kkt_margin_residual are its certificate). Each (size, solver) in a fresh process: "
            "peak_rss_mb is that process's peak resident memory (with imports, data and the "
            "solver's native memory); python_peak_mb is tracemalloc's peak (Python allocations "
            f"only). solve_s excludes building the problem (setup_s). A solver's sizes stop after "
            f"its first solve over {cap} s, or before a size that the power law through its "
            f"last two solves puts over {cap} s (not run; the predicted time is in its status). "
            + "; ".join(reach)
            + ". "
            + agree
        ),
        "",
        "## Side by side (time_ratio = CLARABEL / dcd solve time)",
        "",
        counts_as_text(wide).to_markdown(index=False, floatfmt=".4g"),
        "",
        "## All solves",
        "",
        counts_as_text(df).to_markdown(index=False, floatfmt=".4g"),
        "",
    ]
    save_text(snakemake.output.md, "\n".join(lines))
