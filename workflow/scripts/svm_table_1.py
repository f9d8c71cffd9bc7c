"""Rule table_svm_1: Schultz & Joachims (2003), Table 1: percentage of test triplets satisfied
by the learned distance (SVM-relative) and by the static Euclidean baselines, mean ± std over
seeds, the paper's value beside ours; WebKB columns read "needs download" on the embedded route."""

import pandas as pd

from harness.io import save_csv, save_text, start_log
from harness.svm_experiment import percent

start_log(snakemake.log[0])
cfg = snakemake.config["svm"]
route = snakemake.params.route
runs = pd.concat([pd.read_csv(p) for p in snakemake.input.runs], ignore_index=True)
save_csv(snakemake.output.runs, runs)
notions = list(cfg["text_notions"]) + list(cfg["datasets"])
methods = ["SVM-relative", "Binary", "TFIDF", "Eucl"]
n_max = max(cfg["n_train_triplets"])
final = runs[(runs.method != "SVM-relative") | (runs.n_train_triplets == n_max)]
ref = pd.read_csv(snakemake.params.paper_results)
ref = ref[(ref.paper == "schultz_joachims_2003") & (ref.artifact == "table1")]
ref = ref.set_index(["dataset", "method"]).value

rows = []
for d in notions:
    for m in methods:
        v = final[(final.notion == d) & (final.method == m)]
        paper = ref.get((d, m), float("nan"))
        if len(v):
            acc = v.triplet_accuracy
            status = "ok"
            mean, std = acc.mean(), acc.std(ddof=1) if len(acc) > 1 else 0.0
        else:
            mean = std = float("nan")
            needs = d.startswith("webkb") and route != "download"
            status = "needs download" if needs else "n/a"
        rows.append(
            {
                "dataset": d,
                "algorithm": m,
                "mean": mean,
                "std": std,
                "n_seeds": len(v),
                "paper": paper,
                "diff": mean - paper,
                "n_train_triplets": n_max if m == "SVM-relative" else 0,
                "n_ties_mean": v.n_ties.mean() if len(v) else float("nan"),
                "status": status,
            }
        )
summary = pd.DataFrame(rows)
# a method that applies to no column (e.g. Binary/TFIDF without text) is left out
keep = [m for m in methods if (summary[summary.algorithm == m].status != "n/a").any()]
summary = summary[summary.algorithm.isin(keep)]
save_csv(snakemake.output.csv, summary)


def cell(r):
    if r.status != "ok":
        return r.status
    return f"{100 * r['mean']:.2f} ± {100 * r['std']:.2f}"


wide = {}
for d in notions:
    s = summary[summary.dataset == d].set_index("algorithm")
    wide[f"{d} (ours)"] = [cell(s.loc[m]) for m in keep]
    if s.paper.notna().any():
        wide[f"{d} (paper)"] = [percent(s.loc[m].paper) for m in keep]
table = pd.DataFrame(wide, index=pd.Index(keep, name="method"))
solve = runs[(runs.method == "SVM-relative") & (runs.n_train_triplets == n_max)]
times = solve.groupby("notion").solve_s.mean().reindex(notions)
stand_in = [n for n in cfg["text_notions"] if n.startswith("reuters")]
caption = [
    (
        "Percentage of test triplets satisfied (d(anchor, positive) < d(anchor, negative), ties "
        f"count as failures), mean ± std over seeds {cfg['seeds']}; paper = Schultz & Joachims "
        "(NIPS 2003), Table 1 (WebKB)."
    ),
    (
        f"Protocol: random {cfg['train_fraction']:.0%}/{1 - cfg['train_fraction']:.0%} split of "
        f"the documents (samples); SVM-relative (eq. 8, A = I, C = {cfg['C']}, {cfg['solver']}) "
        f"learned from {n_max} training triplets; {cfg['n_test_triplets']} test triplets among "
        "the test documents. Binary / TFIDF: Euclidean distance on binary bag-of-words / TFIDF "
        "vectors (vocabulary of the training documents, no stemming, no stop-word removal, token "
        f"pattern `{cfg['token_pattern']}`); Eucl: Euclidean distance on the [-1, 1]-scaled "
        "features."
    ),
    *(
        [
            (
                f"Stand-in: {', '.join(stand_in)} is the Reuters-21578 corn/grain collection "
                "from Debian's weka package (topic = corn, grain-not-corn or neither), run "
                "because WebKB has no offline copy; it has no paper value."
            )
        ]
        if stand_in
        else []
    ),
    *(
        [
            "Class-labelled sets (same class = closer), not in the paper: "
            + ", ".join(cfg["datasets"])
            + "."
        ]
        if cfg["datasets"]
        else []
    ),
    *(
        ["WebKB columns: needs download (the embedded route has no copy of WebKB)."]
        if route != "download"
        else []
    ),
    "The paper's number of training triplets is not reproduced here (see config/default.yaml).",
]
md = [
    "# Schultz & Joachims (2003), Table 1: test triplets satisfied (%)",
    "",
    *caption,
    "",
    table.to_markdown(),
    "",
    "Mean solve time of eq. 8 at the largest training set (s):",
    "",
    times.map(lambda v: "–" if pd.isna(v) else f"{v:.2f}").to_frame("solve_s").to_markdown(),
    "",
]
save_text(snakemake.output.md, "\n".join(md))
tex = table.map(lambda v: v.replace("±", r"$\pm$")).to_latex(escape=False)
tex = tex.replace("_", r"\_").replace(r"$\pm$", r"$\pm$")
save_text(
    snakemake.output.tex,
    "\\begin{table}\n\\centering\n\\small\n"
    + tex
    + "\\caption{"
    + " ".join(caption).replace("_", r"\_").replace("%", r"\%")
    + "}\n\\end{table}\n",
)
print(table.to_string())
