"""Rule table_svm_1: Schultz & Joachims (2003), Table 1: percentage of test triplets satisfied by
the learned distance (SVM-relative, A = I; the kernel case A = Phi as its own row) and by the static
Euclidean baselines (Binary, TFIDF: the preprocessing variant best on the test set, named; Eucl for
the class-labelled sets), the paper's value beside ours (tripletbench.harness.paper_table; cells chosen by
tripletbench.studies.svm.experiment.table1_cells). WebKB columns read "needs download" on the embedded route."""

from pathlib import Path

from tripletbench.studies.svm import captions
from tripletbench.harness.io import save_csv, start_log
from tripletbench.harness.paper_table import Metric, PaperTable, paper_for_rows, write_table
from tripletbench.harness.settings import check_block_fresh
from tripletbench.studies.svm.rows import readings_markdown, server_headers, table1_cells, table1_notes
from tripletbench.harness.tables import collect, paper_frame

start_log(snakemake.log[0])
config = snakemake.config
runs = collect(snakemake.input.runs, "svm_run", cell=("notion", "seed"))
# rows made under other svm settings than the config's are refused (tripletbench.harness.settings)
check_block_fresh(runs, snakemake.params.run_settings, "svm runs", "svm_run")
save_csv(snakemake.output.runs, runs)
cells = table1_cells(runs, config)
info = cells["info"]
static = info[info.algorithm.isin(["Binary", "TFIDF"])] if len(info) else info
picked = "; ".join(f"{r.dataset} {r.algorithm}: {r.variant}" for r in static.itertuples())
svm = runs[runs.method == "SVM-relative"]
solve = svm.groupby(["notion", "n_train_triplets"]).agg(
    solve_s=("solve_s", "mean"), status=("solver_status", lambda s: ";".join(sorted(set(s))))
)
univ = runs[runs.notion == "webkb_university"]
archive = Path(snakemake.params.cache_dir) / "download" / "webkb" / "webkb-data.gtar.gz"
servers = server_headers(archive, univ.groups.iloc[0].split(";")) if len(univ) else None
# the reading sweep's table: [] when the config has no sweep; rows only where WebKB ran
readings_csv = list(snakemake.input.get("readings") or [])
webkb_ran = "corpus" in runs and (runs.corpus == "webkb").any()
readings = collect(readings_csv, "table_svm_readings") if readings_csv and webkb_ran else None
sections = [("Mean solve time of eq. 8 (s) and status of the fits:", solve.reset_index())]
if readings is not None and len(readings):
    paper = paper_frame(snakemake.params.paper_rows).rename(columns={"dataset": "notion"})
    sections.append(readings_markdown(readings, paper, config["svm"], full=False))
out = snakemake.output
table = PaperTable(
    name="svm_table1",
    title="Schultz & Joachims (2003), Table 1: test triplets satisfied (%)",
    values=cells["values"],
    seeds=list(config["svm"]["seeds"]),
    metrics=[Metric("triplet_accuracy", "test triplets satisfied (%)", digits=2, scale=100)],
    datasets=cells["notions"],
    methods=cells["methods"],
    paper=paper_for_rows(paper_frame(snakemake.params.paper_rows)),
    status=cells["status"],
    methods_cfg=table1_notes(config, cells["methods"]),
    caption=captions.svm_table1(config, runs, picked, cells["n_max"], readings, servers)
    + captions.svm_far_cells(runs, paper_frame(snakemake.params.paper_rows), cells["n_max"]),
    info=info,
    sections=sections,
)
print(write_table(table, out.csv, out.md, out.tex).to_string())
