"""Rule table_sdca_3: the SDCA paper's Table 3 (test mAP on Caltech-256, 50 classes), with
the offline stand-in columns (tripletbench.harness.paper_table); also the feature summary per image set and
seed (non-zeros, extraction time per image)."""

from tripletbench.datasets.bovw import feature_summary
from tripletbench.datasets.names import display_name
from tripletbench.studies.sdca import captions
from tripletbench.harness.config import available_datasets
from tripletbench.harness.experiment import test_rows
from tripletbench.studies.sdca.rows import cell_info
from tripletbench.harness.io import save_csv, start_log
from tripletbench.harness.paper_table import Metric, PaperTable, paper_for_rows, seed_values, write_table
from tripletbench.harness.settings import check_fresh
from tripletbench.harness.tables import collect, paper_frame

CELL = ("dataset", "algorithm")  # a run file: one (dataset, method), its seeds (harness.tables.collect)


start_log(snakemake.log[0])
config = snakemake.config
cfg, route = config["images"], config["data"]["route"]
_, missing = available_datasets(config, "images", route)
runs = collect(snakemake.input.runs, "fit_evaluate", ["stage", "metric", "value"], CELL)
check_fresh(runs, config, "images", "workflow/scripts/fit_evaluate.py")
save_csv(snakemake.output.runs, runs)
feat = feature_summary(snakemake.input.features)
save_csv(snakemake.output.features, feat)
failed = runs[runs.metric == "failed"]  # a learner that raised on every seed: "failed"
status = {d: "needs download" for d in missing}
status.update({(d, m): "failed" for d, m in zip(failed.dataset, failed.algorithm)})
out = snakemake.output
table = PaperTable(
    name="sdca_table3",
    # the sets this run has (a title never names a set the table does not show)
    title="SDCA paper (Wu et al., AAAI 2014), Table 3: mAP on "
    + "; ".join(display_name(d) for d in cfg["sdca_table3_datasets"] if d not in missing)
    + " (the paper's: Caltech-256, 50 classes)",
    values=seed_values(test_rows(runs), ["mAP"]),
    metrics=[Metric("mAP", "mAP")],
    datasets=cfg["sdca_table3_datasets"],
    methods=list(cfg["methods"]),
    paper=paper_for_rows(paper_frame(snakemake.params.paper_rows), cfg["methods"]),
    status=status,
    methods_cfg=cfg["methods"],
    caption=captions.sdca_table3(config, feat, failed, missing),
    diff_note=captions.difference_note("sdca_table3", config),
    info=cell_info(runs),
    seeds=cfg["seeds"],
)
print(write_table(table, out.csv, out.md, out.tex, out.cd, out.cd_md, out.cd_csv).to_string())
print(feat.to_string())
