"""Rule table_oasis_2: CPU time to train each method on each image set, as the OASIS paper's
runtime table (tripletbench.harness.paper_table): the final fit's own timer (``fit_cpu_s`` of the runs) and
each cell's whole CPU time (``job_cpu_s``, stamped by each cell: its seed's own process CPU plus an
equal share of its job's start-up); the feature extraction times beside."""

import pandas as pd

from tripletbench.studies.oasis import captions
from tripletbench.harness.config import available_datasets
from tripletbench.harness.experiment import test_rows
from tripletbench.studies.oasis.rows import job_cpu_values
from tripletbench.harness.io import start_log
from tripletbench.harness.paper_table import Metric, PaperTable, seed_values, write_table
from tripletbench.harness.tables import collect, read_result

start_log(snakemake.log[0])
config = snakemake.config
cfg, route = config["images"], config["data"]["route"]
ok, missing = available_datasets(config, "images", route)
# the runs and feature summary that rule table_sdca_3 wrote, whole and as it wrote them (digest)
runs = collect([snakemake.input.runs], "table_sdca_3", ["stage", "metric", "value", "seed"])
values = pd.concat(
    [seed_values(test_rows(runs), ["fit_cpu_s"]), job_cpu_values(runs)], ignore_index=True
)
feat = (
    read_result(snakemake.input.features, "table_sdca_3", ["dataset", "descriptor_s_per_image"])
    .groupby("dataset")
    .agg(
        ms_per_image=("descriptor_s_per_image", lambda v: 1000 * v.mean()),
        codebook_s=("codebook_s", "mean"),
        mean_nnz=("mean_nnz", "mean"),
    )
)
heading = (
    "Feature extraction (image reading + block descriptors) per image (ms), codebook time "
    "(k-means + encoding, per seed, s) and mean non-zeros per image:"
)
out = snakemake.output
table = PaperTable(
    name="oasis_table2",
    title="OASIS paper, runtime table: CPU time to train each method",
    values=values,
    metrics=[
        Metric("fit_cpu_s", "final fit CPU (s)", False, 2, ranked=False),
        Metric("job_cpu_s", "whole cell CPU (s)", False, 1, ranked=False),
    ],
    datasets=[d for d in cfg["datasets"] if d in ok],
    methods=list(cfg["methods"]),
    status={(d, m): "failed" for d in ok for m in cfg["methods"]},  # no fit time: it raised
    methods_cfg=cfg["methods"],
    caption=captions.oasis_table2(config, missing),
    sections=[(heading, feat.dropna(how="all").map(lambda v: f"{v:.2f}"))],
    seeds=cfg["seeds"],  # the caption's seeds: a cell over others lists its own
)
print(write_table(table, out.csv, out.md, out.tex).to_string())
