"""Rule table_sdca_2: the SDCA seed paper's Table 2 (test mAP, mean ± std over seeds), with each
row's settings provenance (config ``notes``: harness.tables.settings_table / settings_caption)."""

import pandas as pd

from datasets import get_dataset
from harness.config import available_datasets, missing_reason
from harness.io import save_csv, save_text, start_log
from harness.settings import check_fresh
from harness.plots import rank_outputs
from harness.tables import (
    collect,
    latex_tables,
    paper_values,
    paper_values_for_rows,
    reconstructed_notes,
    settings_caption,
    settings_table,
    summarize,
    to_markdown,
    wide,
)

start_log(snakemake.log[0])
cfg = snakemake.config["sdca_table2"]
route = snakemake.config["data"]["route"]
methods, datasets = list(cfg["methods"]), cfg["datasets"]
_, missing = available_datasets(snakemake.config, "sdca_table2", route)
reason = missing_reason(snakemake.config)
mirror = snakemake.config["data"].get("mirror")
compare = cfg.get("compare_with")
runs = collect(snakemake.input.runs)
check_fresh(runs, snakemake.config, "sdca_table2", "workflow/scripts/fit_evaluate.py")
save_csv(snakemake.output.runs, runs)
settings = settings_table(cfg["methods"])
paper = paper_values(snakemake.params.paper_rows, "mAP")  # the paper's Table 2
paper = paper_values_for_rows(paper, cfg["methods"])  # ITML-online -> ITML etc.
summary = summarize(runs, "mAP", methods, datasets, {d: reason for d in missing}, paper)
summary = summary.merge(settings, on="algorithm", how="left")
summary["route"] = route
other_file = snakemake.input.other_route[0] if snakemake.input.other_route else None
if other_file:  # sdca_table2.compare_with: the same table made on another data route
    other = pd.read_csv(other_file)
    other_route = str(other["route"].iloc[0]) if "route" in other else "other"
    other = other[["dataset", "algorithm", "mean", "std"]].rename(
        columns={"mean": "other_route_mean", "std": "other_route_std"}
    )
    summary = summary.merge(other, on=["dataset", "algorithm"], how="left")
    summary["other_route"] = other_route
    summary["route_diff"] = summary["mean"] - summary["other_route_mean"]
# ranks within each dataset (1 = best mAP) and over datasets: Friedman, Nemenyi, CD diagram
ranked = rank_outputs(
    summary, "SDCA seed paper, Table 2 rows", "mAP", snakemake.output.cd, snakemake.output.cd_md
)
summary = ranked["summary"]
save_csv(snakemake.output.csv, summary)


def _fmt(d):
    return ", ".join(f"{k}={v}" for k, v in d.items())


fixed = "; ".join(f"{m}: {_fmt(c['fixed'])}" for m, c in cfg["methods"].items() if c.get("fixed"))
grids = "; ".join(f"{m}: {_fmt(c['grid'])}" for m, c in cfg["methods"].items() if c.get("grid"))
caption = [
    (
        f"Test mAP, mean ± std over seeds {cfg['seeds']} ({route} data route); paper = SDCA "
        "seed paper, Table 2, shown beside every row that implements one of the paper's methods "
        "(marked [paper], [ours], [reconstructed] or [unspecified]; several rows can carry the "
        "same paper value). In brackets after ours: the row's rank on that dataset among the "
        "table's rows (1 = best mAP; ties share the mean rank); ranks over datasets below."
    ),
    (
        f"Protocol (paper): per class {cfg['train_fraction']:.0%} train / rest test; "
        f"{cfg['n_triplets']} class-based random triplets per seed; parameters chosen by "
        f"cross-validation, models learned on {cfg['fit_fraction']:.0%} of the training set and "
        "validated on the rest, for all algorithms; the paper names SDCA's lambda and ITML's and "
        "LEGO's eta among the parameters so chosen, with their grids. "
        "Ours: the triplets are drawn from the training set; a grid point is chosen by "
        "validation mAP, then refitted on the whole training set."
    ),
    (
        "mAP (our choice; the paper does not say which set is searched): each test instance "
        "queries the training set (the database the metric was learned on), relevance = same "
        "class, full ranking, ties count as the end of their group."
    ),
    f"Grids (validation mAP): {grids}. Fixed: {fixed}.",
    "Rows marked [not-in-paper] are our extra rows (no number in the paper).",
    *reconstructed_notes(runs, cfg["methods"], datasets),
    *([f"Not run ({route} route): {', '.join(missing)} ({reason})."] if missing else []),
    "Data: "
    + "; ".join(f"{d}: {get_dataset(d).scaling(route)}" for d in datasets if d not in missing)
    + "."
    + (f" Downloads from the data mirror {mirror}." if mirror and route == "download" else ""),
    *(
        [
            f"Route difference: each cell minus the same cell of the {other_route} route's "
            f"table ({other_file}; same seeds and settings; each route's per-class splits and "
            "triplets are drawn from its own row order and class names, so they differ where "
            "the routes order rows or name classes differently), in the CSV's route_diff and "
            "below."
        ]
        if other_file
        else (
            [
                f"Route comparison: {compare} (sdca_table2.compare_with) does not exist yet; "
                "make it with the other route's run, and this table is remade."
            ]
            if compare
            else []
        )
    ),
    "",
    *settings_caption(cfg["methods"]),
]
# Markdown and LaTeX show each row's protocol beside its name
label = {r.algorithm: f"{r.algorithm} [{r.protocol}]" for r in settings.itertuples(index=False)}
shown = summary.assign(algorithm=summary.algorithm.map(label))
rows = [label[m] for m in methods]
md = to_markdown(shown, datasets, rows, "SDCA seed paper, Table 2: mAP", caption)
if other_file:
    by_route = shown.pivot(index="algorithm", columns="dataset", values="route_diff")
    md += "\n".join(
        [
            f"Difference, {route} route - {other_route} route (mAP):",
            "",
            by_route.reindex(index=rows, columns=datasets)
            .map(lambda v: "–" if pd.isna(v) else f"{v:+.4f}")
            .to_markdown(),
            "",
        ]
    )
md += "\n".join(["", *ranked["lines"]])
save_text(snakemake.output.md, md)


short = "SDCA seed paper, Table 2: mAP, ours (mean ± std over seeds) beside the paper's"
floats = [(short, wide(shown, datasets, rows)), ranked["float"]]
save_text(snakemake.output.tex, latex_tables("sdca_table2", floats, caption))
print(summary.drop(columns=["paper_settings", "our_settings"]).to_string())
