"""Rule table_human: triplet accuracy (ties as half) of the Euclidean distance on each feature set
and of each learner row on people's relative comparisons (tripletbench.harness.human), beside chance and the
material human ceiling: protocol (a) as the table (mean ± std over the folds of every seed),
material's publisher split (d) as a section below; "needs download" where the route cannot give
a set."""

import pandas as pd

from tripletbench.harness import captions
from tripletbench.harness.config import missing_reason
from tripletbench.harness.human import row_name, table_column
from tripletbench.harness.io import save_csv, start_log
from tripletbench.harness.paper_table import Metric, PaperTable, summarize, wide, write_table
from tripletbench.harness.settings import check_block_fresh
from tripletbench.harness.tables import collect

CELL = ("set", "job", "seed")  # the cell each run file holds (tripletbench.harness.tables.collect)
COLUMNS = ["protocol", "fold", "scoring", "method", "features", "metric", "value", "fit_s"]

start_log(snakemake.log[0])
config = snakemake.config
cfg = snakemake.params.block
available = list(snakemake.params.available)
missing = [s for s in cfg["sets"] if s not in available]
paths = list(snakemake.input.runs)
if paths:
    runs = collect(paths, "human_cell", COLUMNS, CELL)
    check_block_fresh(runs, snakemake.params.run_settings, "human cells", "human_cell")
else:  # offline: no cell ran
    runs = pd.DataFrame(columns=["set", "job", "seed", *COLUMNS, "settings_hash"])
save_csv(snakemake.output.runs, runs)

feats = list(cfg["features"])
methods = [
    *(row_name("Eucl", f) for f in feats),
    *(row_name(m, f) for m in cfg["methods"] for f in feats),
    "chance",
    "ceiling",
]
metric = Metric("triplet_accuracy", "triplet accuracy (ties ½)", digits=3)
values = runs.assign(
    dataset=[table_column(s, p, c) for s, p, c in zip(runs.set, runs.protocol, runs.scoring)],
    algorithm=[row_name(m, f if isinstance(f, str) else "") for m, f in zip(runs.method, runs.features)],
    seed=[
        f"{s}.{k}" if p == "triplets" else str(s)
        for s, k, p in zip(runs.seed, runs.fold, runs.protocol)
    ],
)[["dataset", "algorithm", "metric", "seed", "value", "protocol"]]


def status(columns):
    """Why a cell has no number: the set needs download, a feature set another set's only, no
    ceiling where a question is mostly answered once."""
    out = {}
    for col in columns:
        s = col.split(" ", 1)[0]
        if s in missing:
            out[col] = missing_reason(config)
            continue
        for m in methods:
            if m.endswith(" · ingredients") and s != "food100":
                out[(col, m)] = "n/a (Food-100 only)"
        if s != "material":
            out[(col, "ceiling")] = "n/a (one answer per question)"
        if col.endswith("majority"):
            out[(col, "ceiling")] = "n/a (1 by definition)"
    return out


seeds_a = [f"{s}.{k}" for s in cfg["seeds"] for k in range(cfg["n_splits"])]
cols_a = [table_column(s, "triplets", "answers") for s in cfg["sets"]]
sections = []
d_on = "material" in cfg["sets"] and "publisher" in cfg["protocols"]
summary_d = None
if d_on:
    cols_d = [table_column("material", "publisher", c) for c in ("answers", "majority")]
    table_d = PaperTable(
        name="human_table_d",
        title="Protocol (d)",
        values=values[values.protocol == "publisher"].drop(columns="protocol"),
        metrics=[metric],
        datasets=cols_d,
        methods=methods,
        status=status(cols_d),
        seeds=[str(s) for s in cfg["seeds"]],
        unranked=("chance", "ceiling"),
    )
    summary_d = summarize(table_d)
    frame, _ = wide(summary_d, table_d, metric)
    frame.columns = [c[0] if isinstance(c, tuple) else c for c in frame.columns]
    sections.append(
        (
            "Protocol (d), material: the publisher's training questions, scored on its test "
            "questions against every answer and against each question's majority (mean ± std "
            "over the seeds):",
            frame,
        )
    )
table = PaperTable(
    name="human_table",
    title="Human judgments: triplet accuracy on people's relative comparisons",
    values=values[values.protocol == "triplets"].drop(columns="protocol")
    if "triplets" in cfg["protocols"]
    else values.iloc[:0].drop(columns="protocol"),
    metrics=[metric],
    datasets=cols_a,
    methods=methods,
    status=status(cols_a),
    caption=captions.human_table(config, cfg, missing, runs),
    sections=sections,
    seeds=seeds_a,
    unranked=("chance", "ceiling"),  # reference rows: shown, never ranked
)
out = snakemake.output
summary = write_table(table, out.csv, out.md, out.tex)
summary.insert(0, "protocol", "triplets")
if summary_d is not None:  # one CSV: both protocols
    summary = pd.concat([summary, summary_d.assign(protocol="publisher")], ignore_index=True)
save_csv(out.csv, summary)
print(summary.to_string())
