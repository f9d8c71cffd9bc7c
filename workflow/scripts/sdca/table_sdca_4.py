"""Rule table_sdca_4: the SDCA paper's Table 4 (test mAP on ImageCLEF+Flickr; our route:
MIRFLICKR-25000 ground truth + MIRFLICKR-1M background, tripletbench.datasets.imageclef_flickr), the paper's
number beside ours; "needs download" where the route cannot give the collection."""

import pandas as pd

from tripletbench.studies.sdca import captions
from tripletbench.harness.config import available_datasets, missing_reason
from tripletbench.harness.experiment import test_rows
from tripletbench.harness.io import save_csv, start_log
from tripletbench.harness.paper_table import Metric, PaperTable, paper_for_rows, seed_values, write_table
from tripletbench.harness.settings import check_fresh
from tripletbench.studies.sdca.rows import cell_info
from tripletbench.harness.tables import collect, paper_frame

CELL = ("dataset", "algorithm")  # a run file: one (dataset, method), its seeds (harness.tables.collect)

start_log(snakemake.log[0])
config = snakemake.config
cfg = config["sdca_table4"]
_, missing = available_datasets(config, "sdca_table4", config["data"]["route"])
paths = list(snakemake.input.runs)
if paths:
    runs = collect(paths, "fit_evaluate", ["stage", "metric", "value"], CELL)
    check_fresh(runs, config, "sdca_table4", "workflow/scripts/fit_evaluate.py")
else:  # offline: no cell ran
    runs = pd.DataFrame(
        columns=["dataset", "algorithm", "metric", "seed", "value", "stage", "checkpoint"]
    )
save_csv(snakemake.output.runs, runs)
out = snakemake.output
table = PaperTable(
    name="sdca_table4",
    title="SDCA paper (Wu et al., AAAI 2014), Table 4: mAP on ImageCLEF+Flickr",
    values=seed_values(test_rows(runs), ["mAP"]),
    metrics=[Metric("mAP", "mAP")],
    datasets=list(cfg["datasets"]),
    methods=list(cfg["methods"]),
    paper=paper_for_rows(paper_frame(snakemake.params.paper_rows), cfg["methods"]),
    status={d: missing_reason(config) for d in missing},
    methods_cfg=cfg["methods"],
    caption=captions.sdca_table4(config, missing),
    diff_note=captions.difference_note("sdca_table4", config),
    info=cell_info(runs) if paths else None,
    seeds=cfg["seeds"],
)
print(write_table(table, out.csv, out.md, out.tex).to_string())
