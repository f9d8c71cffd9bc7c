"""Rule table_human: triplet accuracy (ties as half) of the Euclidean distance on each feature set
and of each learner row on people's relative comparisons (tripletbench.studies.human.experiment), beside chance and the
human ceiling of a set with counted answers (material): protocol (a) held-out answers as the
table (mean ± std over the folds of every seed), protocol (b) held-out items as a section below
it (a row without a feature map: "n/a"), the publisher split (d) of a set that has one
(material) as the last section; "needs download" (or why not run)
where the route cannot give a set; a learner row that is not run (``not_run``) or not on a
feature set (its ``features``) says n/a with the configured reason. An ordinal-embedding row (a
cblearn class, no features) is one row, n/a on (b). The learning curve (c) is
figure_human_curve's."""

import pandas as pd

from tripletbench.studies.human import captions
from tripletbench.studies.human.experiment import (
    PROTOCOL_LETTERS,
    feature_free_rows,
    fitted_rows,
    human_set,
    missing_reason,
    not_run_status,
    published,
    row_name,
    table_column,
    table_status,
)
from tripletbench.harness.io import save_csv, start_log
from tripletbench.harness.paper_table import Metric, PaperTable, summarize, wide, write_table
from tripletbench.harness.settings import check_cells_fresh
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
    check_cells_fresh(runs, snakemake.params.run_settings, "human cells", "human_cell")
else:  # offline: no cell ran
    runs = pd.DataFrame(columns=["set", "job", "seed", *COLUMNS, "settings_hash", "folds_digest"])
save_csv(snakemake.output.runs, runs)  # every protocol's rows, (c) included
runs = runs[runs.protocol != "curve"]  # (c) is figure_human_curve's
# every method of a set on the same splits: one folds digest per (set, seed, protocol)
digests = runs.groupby(["set", "seed", "protocol"]).folds_digest.nunique() if len(runs) else []
if len(digests) and (digests > 1).any():
    raise ValueError(
        "human cells scored on different splits (folds_digest differs between methods): "
        f"{list(digests[digests > 1].index)}; rerun them (snakemake --forcerun human_cell)"
    )

feats = list(cfg["features"])
embeddings = feature_free_rows(cfg["methods"])  # ordinal embeddings: one row each, n/a on (b)
fitted = fitted_rows(cfg["methods"])
methods = [
    *(row_name("Eucl", f) for f in feats),
    *(  # a row that is not run (not_run: OPML, no class labels) is one n/a row
        row_name(m, f)
        for m in cfg["methods"]
        if m not in embeddings
        for f in (feats if m in fitted else [""])
    ),
    *embeddings,
    "chance",
    "ceiling",
]
metric = Metric("triplet_accuracy", "triplet accuracy (ties ½)", digits=3)
values = runs.assign(
    dataset=[table_column(s, p, c) for s, p, c in zip(runs.set, runs.protocol, runs.scoring)],
    algorithm=[row_name(m, f if isinstance(f, str) else "") for m, f in zip(runs.method, runs.features)],
    seed=[  # (a), (b): one value per (seed, fold); (d): per seed
        f"{s}.{k}" if p in ("triplets", "items") else str(s)
        for s, k, p in zip(runs.seed, runs.fold, runs.protocol)
    ],
)[["dataset", "algorithm", "metric", "seed", "value", "protocol"]]


def status(columns, rows):
    """Why a cell has no number (tripletbench.studies.human.experiment.table_status): the set did not run, a feature set
    another set's only, no ceiling where a question is mostly answered once, no feature map on
    held-out items, a learner row not run (not_run) or not on that feature set (features), a
    published number that is another's (``rows``: those rows)."""
    reason = missing_reason(config)
    return table_status(
        columns, methods + rows, {s: reason for s in missing}, embeddings,
        not_run=not_run_status(cfg["methods"], feats), published_rows=rows,
    )


seeds_a = [f"{s}.{k}" for s in cfg["seeds"] for k in range(cfg["n_splits"])]
cols_a = [table_column(s, "triplets", "answers") for s in cfg["sets"]]
sections = []
extra = []  # (protocol, summary) of the sections, for the one CSV


def section(protocol, columns, seeds, heading, unit="fold"):
    """A protocol's block below the table: its own PaperTable over ``columns``, summarised into
    ``extra`` (the CSV) and shown under ``heading`` (the Markdown); a published number of
    ``columns`` (human.published) as its own unranked row, in a paper column."""
    rows, paper = published(cfg, columns)
    block = PaperTable(
        name=f"human_table_{PROTOCOL_LETTERS[protocol]}",
        title=f"Protocol ({PROTOCOL_LETTERS[protocol]})",
        values=values[values.protocol == protocol].drop(columns="protocol"),
        metrics=[metric],
        datasets=columns,
        methods=methods + rows,
        paper=paper,
        status=status(columns, rows),
        seeds=seeds,
        unranked=("chance", "ceiling", *rows),
        run_unit=unit,
    )
    summary = summarize(block)
    extra.append((protocol, summary))
    frame, _ = wide(summary, block, metric)
    frame.columns = [
        f"{c[0]} (published)" if isinstance(c, tuple) and c[1] == "paper" else
        (c[0] if isinstance(c, tuple) else c) for c in frame.columns
    ]
    sections.append((heading, frame))


if "items" in cfg["protocols"]:
    section(
        "items",
        [table_column(s, "items", "answers") for s in cfg["sets"]],
        seeds_a,
        f"Protocol (b), held-out items: the items split {cfg['n_splits']}-fold; trained on "
        "the answers among training items only, scored on every answer that involves a "
        "held-out item (mean ± std over the folds of every seed; a row without a feature "
        "map cannot place a new item: n/a):",
    )
split_sets = [s for s in cfg["sets"] if human_set(s).publisher_split]
if split_sets and "publisher" in cfg["protocols"]:
    section(
        "publisher",
        [table_column(s, "publisher", c) for s in split_sets for c in ("answers", "majority")],
        [str(s) for s in cfg["seeds"]],
        unit="seed",
        heading=f"Protocol (d), {', '.join(split_sets)}: the publisher's "
        "training questions, scored on its test questions against every answer and against "
        "each question's majority (mean ± std over the seeds):",
    )
rows_a, paper_a = published(cfg, cols_a)
table = PaperTable(
    name="human_table",
    title="Human judgments: triplet accuracy on people's relative comparisons",
    values=values[values.protocol == "triplets"].drop(columns="protocol")
    if "triplets" in cfg["protocols"]
    else values.iloc[:0].drop(columns="protocol"),
    metrics=[metric],
    datasets=cols_a,
    methods=methods + rows_a,
    paper=paper_a,
    status=status(cols_a, rows_a),
    caption=captions.human_table(config, cfg, missing, runs),
    sections=sections,
    seeds=seeds_a,
    unranked=("chance", "ceiling", *rows_a),  # reference rows: shown, never ranked
    # a cell's runs are the folds of every seed (seed.fold); (d)'s section is over seeds
    run_unit="fold",
    run_note=(
        "(each fold of each seed, named seed.fold; the folds of one seed share training data, "
        "so the paired t-test over them is anti-conservative: read ≈ as a guide; protocol "
        "(d)'s section is over seeds)"
    ),
)
out = snakemake.output
summary = write_table(table, out.csv, out.md, out.tex)
summary.insert(0, "protocol", "triplets")
if extra:  # one CSV: every protocol of the table
    summary = pd.concat(
        [summary, *(frame.assign(protocol=p) for p, frame in extra)], ignore_index=True
    )
save_csv(out.csv, summary)
print(summary.to_string())
