"""Rule svm_scaling: solve time and memory of eq. 8 (SVM-relative, A = I) against the number of
triplets at the text data's dimension (binary bag of words of the Reuters stand-in's training
documents). Each size is solved in a fresh process (its own peak RSS, which includes the
solver's native memory); sizes stop after the first one whose solve exceeds the time cap."""

from pathlib import Path

import pandas as pd

from datasets.reuters import load_corpus
from harness.io import save_csv, save_text, start_log
from harness.svm_experiment import document_split, notion_groups, text_features

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
    from harness.svm_experiment import measure_in_subprocess

    rows = []
    for n in sc["n_triplets"]:
        r = measure_in_subprocess(
            X, groups, n, 0, cfg["C"], cfg["solver"], sc["max_solve_seconds"] * 3
        )
        rows.append(r)
        print(r, flush=True)
        if r.get("status") != "optimal" or r["fit_wall_s"] > sc["max_solve_seconds"]:
            break
    df = pd.DataFrame(rows)
    save_csv(snakemake.output.csv, df)
    solved = df[df.status == "optimal"]
    largest = int(solved.n_triplets.max()) if len(solved) else 0
    last = df.iloc[-1]
    stopped = last.get("status") != "optimal" or last["fit_wall_s"] > sc["max_solve_seconds"]
    if stopped:
        reach = f"Largest size solved: {largest} triplets; the sizes stopped at {last.n_triplets}."
    else:
        reach = f"Largest size solved: {largest} triplets (every configured size was solved)."
    lines = [
        "# SVM-relative (eq. 8): solve time and memory against the number of triplets",
        "",
        (
            f"Reuters stand-in, binary bag of words of {X.shape[0]} training documents "
            f"({X.shape[1]} words; n_active_features = words some triplet separates), topic "
            f"triplets, C = {cfg['C']}, solver {cfg['solver']} through cvxpy, one thread. Each size "
            "in a fresh process: peak_rss_mb is that process's peak resident memory (with imports, "
            "data and the solver's native memory); python_peak_mb is tracemalloc's peak (Python "
            f"allocations only). Sizes stop after the first solve over {sc['max_solve_seconds']} s. "
            + reach
        ),
        "",
        df.to_markdown(index=False, floatfmt=".4g"),
        "",
    ]
    save_text(snakemake.output.md, "\n".join(lines))
