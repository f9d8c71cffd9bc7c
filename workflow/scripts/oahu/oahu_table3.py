"""Rule table_oahu_3: the OAHU paper's Table 3 (kNN error rate, macro F1, constraint utilization
U over runs; the paper's marks from a paired t-test against OAHU at 0.05, win/tie/loss), the
paper's value beside ours, built by tripletbench.harness.paper_table."""

from tripletbench.studies.oahu import captions
from tripletbench.harness.io import save_csv, start_log
from tripletbench.studies.oahu.rows import win_tie_loss_lines
from tripletbench.harness.paper_table import Metric, PaperTable, paper_for_rows, seed_values, write_table
from tripletbench.harness.settings import check_fresh
from tripletbench.harness.tables import collect, paper_frame

start_log(snakemake.log[0])
config = snakemake.config
cfg = config["oahu"]["table3"]
# every cell file whole and as its job wrote it (digest), one cell each (tripletbench.harness.tables.collect)
runs = collect(
    snakemake.input.runs, "oahu_cell", ["metric", "value"], ("dataset", "seed", "algorithm")
)
# rows made under other settings than the config's are refused (tripletbench.harness.settings)
check_fresh(runs, config, "oahu.table3", "workflow/scripts/oahu/oahu_cell.py", "oahu_cell")
save_csv(snakemake.output.runs, runs)
metrics = [
    Metric("error_rate", "kNN error rate", higher_is_better=False, digits=3, paper_digits=2),
    Metric("macro_f1", "macro F1", digits=3, paper_digits=2),
    Metric(
        "constraint_utilization", "constraint utilization U", digits=3, ranked=False, paper_digits=2
    ),
]
out = snakemake.output
table = PaperTable(
    name="oahu_table3",
    title="OAHU paper, Table 3: kNN classification",
    values=seed_values(runs, [m.name for m in metrics]),
    metrics=metrics,
    datasets=cfg["datasets"],
    methods=list(cfg["methods"]),
    paper=paper_for_rows(paper_frame(snakemake.params.paper_rows)),
    status={d: "needs download" for d in snakemake.params.missing},
    methods_cfg=cfg["methods"],
    caption=captions.oahu_table3(config, runs, snakemake.params.missing),
    diff_note=captions.difference_note("oahu_table3", config),
    reference="OAHU",
    reference_marks={"error_rate": {"loss": "•", "win": "◦"}},  # the paper's Table 3 marks
    sections=[win_tie_loss_lines],
    seeds=cfg["seeds"],  # the caption's seeds: a cell over others lists its own
)
print(write_table(table, out.csv, out.md, out.tex).to_string())
