"""Rule table_sdca_2: the SDCA seed paper's Table 2 (test mAP, mean ± std over seeds)."""

from harness.config import available_datasets
from harness.io import save_csv, save_text, start_log
from harness.tables import collect, paper_values, summarize, to_latex, to_markdown

start_log(snakemake.log[0])
cfg = snakemake.config["sdca_table2"]
route = snakemake.config["data"]["route"]
methods, datasets = list(cfg["methods"]), cfg["datasets"]
_, missing = available_datasets(snakemake.config, "sdca_table2", route)
runs = collect(snakemake.input.runs)
save_csv(snakemake.output.runs, runs)
paper = paper_values(snakemake.params.paper_results, "sdca_relative_similarity", "table2", "mAP")
summary = summarize(runs, "mAP", methods, datasets, {d: "needs download" for d in missing}, paper)
save_csv(snakemake.output.csv, summary)


def _fmt(d):
    return ", ".join(f"{k}={v}" for k, v in d.items())


fixed = "; ".join(f"{m}: {_fmt(c['fixed'])}" for m, c in cfg["methods"].items() if c.get("fixed"))
grids = "; ".join(f"{m}: {_fmt(c['grid'])}" for m, c in cfg["methods"].items() if c.get("grid"))
caption = [
    f"Test mAP, mean ± std over seeds {cfg['seeds']} ({route} data route); paper = SDCA seed paper, Table 2.",
    f"Protocol: per class {cfg['train_fraction']:.0%} train / rest test; {cfg['n_triplets']} class-based "
    "random triplets from the training set per seed; hyperparameters chosen by mAP on a "
    f"{1 - cfg['fit_fraction']:.0%} validation part of the training set, then refitted on all of it.",
    "mAP: each test instance queries the training set (the database the metric was learned on), "
    "relevance = same class, full ranking.",
    f"Grids (validation mAP): {grids}. Fixed: {fixed}.",
    "Rows without a paper value are our variants (no number in the paper).",
    *([f"Not run ({route} route): {', '.join(missing)} (needs download)."] if missing else []),
]
save_text(
    snakemake.output.md,
    to_markdown(summary, datasets, methods, "SDCA seed paper, Table 2: mAP", caption),
)
save_text(snakemake.output.tex, to_latex(summary, datasets, methods, " ".join(caption)))
print(summary.to_string())
