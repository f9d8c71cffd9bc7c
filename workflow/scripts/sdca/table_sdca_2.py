"""Rule table_sdca_2: the SDCA paper's Table 2 (test mAP over seeds, the paper's value
beside ours, ranks and the critical-difference diagram), built by tripletbench.harness.paper_table."""

from tripletbench.studies.sdca import captions
from tripletbench.harness.config import available_datasets, missing_reason
from tripletbench.harness.experiment import test_rows
from tripletbench.studies.sdca.rows import cell_info, route_comparison
from tripletbench.harness.io import save_csv, start_log
from tripletbench.harness.paper_table import Metric, PaperTable, paper_for_rows, seed_values, write_table
from tripletbench.harness.settings import check_fresh
from tripletbench.harness.tables import collect, paper_frame

CELL = ("dataset", "algorithm")  # a run file: one (dataset, method), its seeds (harness.tables.collect)

start_log(snakemake.log[0])
config = snakemake.config
cfg, route = config["sdca_table2"], config["data"]["route"]
# every cell file whole and as its job wrote it (digest), one cell each (tripletbench.harness.tables.collect)
runs = collect(snakemake.input.runs, "fit_evaluate", ["stage", "metric", "value"], CELL)
check_fresh(runs, config, "sdca_table2", "workflow/scripts/fit_evaluate.py")
save_csv(snakemake.output.runs, runs)
_, missing = available_datasets(config, "sdca_table2", route)
other = snakemake.input.other_route[0] if snakemake.input.other_route else None
info, sections = cell_info(runs).assign(route=route), []
if other:  # sdca_table2.compare_with: the same table made on another data route
    by_route, section = route_comparison(runs, route, other)
    info, sections = info.merge(by_route, on=["dataset", "algorithm"], how="left"), [section]
values = seed_values(test_rows(runs), ["mAP"])
paper = paper_for_rows(paper_frame(snakemake.params.paper_rows), cfg["methods"])
ranking = captions.paper_ranking(values[values.metric == "mAP"], paper, "SDCA", tol=0.02)
shown = [d for d in cfg["datasets"] if d not in missing]
ranking += captions.sdca_table2_gaps(shown, cfg["methods"])  # what was measured about the gaps
out = snakemake.output
table = PaperTable(
    name="sdca_table2",
    title="SDCA paper (Wu et al., AAAI 2014), Table 2",
    values=values,
    metrics=[Metric("mAP", "mAP")],
    datasets=cfg["datasets"],
    methods=list(cfg["methods"]),
    paper=paper,
    status={d: missing_reason(config) for d in missing},
    methods_cfg=cfg["methods"],
    caption=captions.sdca_table2(config, runs, missing, other) + ranking,
    diff_note=captions.difference_note("sdca_table2", config),
    info=info,
    sections=sections,
    seeds=cfg["seeds"],  # the caption's seeds: a cell over others lists its own
)
summary = write_table(table, out.csv, out.md, out.tex, out.cd, out.cd_md, out.cd_csv)
print(summary.drop(columns=["paper_settings", "our_settings"]).to_string())
